/**
 * The arguments of the calls, checked for their JavaScript types (a wrong type is an
 * `INVALID_INPUT` worded as the core words it); their values are the core's to check.
 */

import { invalid, invoke, invokeSync, MonapiError } from './errors.js'
import type { Day } from './data.js'
import type { CallOptions } from './options.js'
import { traced } from './telemetry.js'
import native = require('../native.js')

/** The options every call takes besides its own. */
export const CALL_OPTIONS = ['signal', 'timeoutMs']

export function isUnset(value: unknown): value is undefined | null {
  return value === undefined || value === null
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * Checks an options argument: an object (or undefined) with only the known keys; an unknown one
 * is named with the known key it was likely meant to be (the core's rule).
 */
export function options(value: unknown, name: string, known: readonly string[]): Record<string, unknown> {
  if (value === undefined || value === null) return {}
  if (!isPlainObject(value)) throw invalid(name, 'must be an object')
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      const meant = native.didYouMean(key, [...known])
      const hint = meant === null || meant === undefined ? '' : `; did you mean ${meant}?`
      throw invalid(`${name}.${key}`, `is not a known option${hint} (known: ${known.join(', ')})`)
    }
  }
  return value
}

export function text(value: unknown, field: string): string | undefined {
  if (isUnset(value)) return undefined
  // Never echo the value: some of these are secrets.
  if (typeof value !== 'string') throw invalid(field, 'must be a string')
  return value
}

/**
 * A number for the native side, which checks it and names the rule; any other type is NaN,
 * which every rule refuses (a huge value is INVALID_INPUT too, never a panic).
 */
export function numeric(value: unknown): number | undefined {
  if (isUnset(value)) return undefined
  return typeof value === 'number' ? value : Number.NaN
}

export function count(value: unknown, field: string, max: number): number | undefined {
  if (isUnset(value)) return undefined
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max) {
    throw invalid(field, `must be an integer from 0 to ${max}`)
  }
  return value
}

/** An id for the core's rules: a number as it is, anything else as text (a bigint's digits). */
export function id(value: unknown): number | string {
  return typeof value === 'number' ? value : String(value)
}

/** Query parameters or form fields of `request()`: an object of strings, numbers or bigints. */
export function params(value: unknown, name: string): string[][] {
  if (isUnset(value)) return []
  if (!isPlainObject(value)) throw invalid(name, 'must be an object of names to strings or numbers')
  return Object.entries(value).map(([key, item]) => {
    if (!['string', 'number', 'bigint'].includes(typeof item)) {
      throw invalid(`${name}.${key}`, 'must be a string or a number')
    }
    return [key, String(item)]
  })
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}

/** A day for the service: a Date (its local calendar day) or a "YYYY-MM-DD" string. */
export function day(value: unknown, field: string): string | undefined {
  if (isUnset(value)) return undefined
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw invalid(field, 'is an invalid Date')
    return `${pad(value.getFullYear(), 4)}-${pad(value.getMonth() + 1, 2)}-${pad(value.getDate(), 2)}`
  }
  if (typeof value === 'string') return value // the core checks the format and the date
  throw invalid(field, 'must be a Date or a "YYYY-MM-DD" string')
}

/**
 * A caller's `onProgress` (checked to be a function, or unset) as the native side calls it:
 * each progress frozen, and a throw a process warning (`MONAPI_ON_PROGRESS`), not a crash.
 */
export function progressCallback<P extends object>(value: unknown): ((progress: P) => void) | undefined {
  if (isUnset(value)) return undefined
  if (typeof value !== 'function') throw invalid('onProgress', 'must be a function')
  const callback = value as (progress: P) => void
  return (progress) => {
    try {
      callback(Object.freeze(progress))
    } catch (error) {
      process.emitWarning(`monapi: the onProgress callback failed: ${error instanceof Error ? error.message : error}`, {
        code: 'MONAPI_ON_PROGRESS',
      })
    }
  }
}

/** The options of a call over whole days: the options, and the two days as the core takes them. */
export function range(
  value: unknown,
  name: string,
  extra: readonly string[] = [],
): [Record<string, unknown>, string | undefined, string | undefined] {
  const o = options(value, name, ['startDate', 'endDate', ...CALL_OPTIONS, ...extra])
  return [o, day(o.startDate as Day | undefined, 'startDate'), day(o.endDate as Day | undefined, 'endDate')]
}

/** Checks `signal` and `timeoutMs` of a call's options (`o`). */
function callOptions(o: Record<string, unknown>): { signal?: AbortSignal; timeoutMs?: number } {
  const signal = o.signal as CallOptions['signal'] | null | undefined
  if (!isUnset(signal)) {
    const s = signal as unknown as Record<string, unknown>
    if (typeof s !== 'object' || typeof s.aborted !== 'boolean' || typeof s.addEventListener !== 'function') {
      throw invalid('signal', 'must be an AbortSignal')
    }
  }
  return { signal: isUnset(signal) ? undefined : signal, timeoutMs: numeric(o.timeoutMs) }
}

/**
 * Runs a native call with the call's own timeout and abort switch, and recorded for the host's
 * OpenTelemetry (a NativeCall, when the options have a `signal` or a `timeoutMs`, or the host
 * has a tracer or meter provider): an abort makes the native side drop the call's future,
 * which rejects with ABORTED at once (before it starts: nothing is sent). The records are
 * replayed once the call has settled, under the span active when it was made (now).
 */
export async function run<T>(
  o: Record<string, unknown>,
  start: (call: native.NativeCall | undefined) => Promise<T>,
): Promise<T> {
  const { signal, timeoutMs } = callOptions(o)
  const telemetry = traced()
  if (signal === undefined && timeoutMs === undefined && telemetry === null) return invoke(() => start(undefined))
  const call = invokeSync(() =>
    telemetry === null ? new native.NativeCall(timeoutMs) : new native.NativeCall(timeoutMs, true, telemetry.traceparent),
  )
  const abort = (): void => call.abort()
  if (signal !== undefined) {
    if (signal.aborted) abort()
    else signal.addEventListener('abort', abort, { once: true })
  }
  try {
    return await invoke(() => start(call))
  } finally {
    if (signal !== undefined) signal.removeEventListener('abort', abort)
    // Complete now: the call's future has returned, or been dropped by an abort.
    telemetry?.replay(() => call.takeRecords())
  }
}

/** The endpoints of the operations by method name, from the core (for a body that `JSON.parse` refuses). */
const ENDPOINTS: Readonly<Record<string, string>> = Object.freeze(native.endpointNames())

/** Parses an answer of operation `method`; a body that is not JSON is a DECODE error naming its endpoint. */
export function parse<T>(body: string, method: string): T {
  try {
    return JSON.parse(body) as T
  } catch (error) {
    // V8's message quotes the body; name only the position, the body may hold anything.
    const at = /position (\d+)/.exec(String(error instanceof Error ? error.message : error))
    const where = at ? ` at position ${at[1]}` : ''
    const endpoint = ENDPOINTS[method] ?? method
    throw new MonapiError(`${endpoint}: could not decode the answer: invalid JSON${where}`, {
      code: 'DECODE',
      endpoint,
    })
  }
}

