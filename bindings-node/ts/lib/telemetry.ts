/**
 * OpenTelemetry for every call, when the host has it. The Rust core records what a call did
 * (its spans, with their times, and its measurements: `NativeCall.takeRecords()`); once the
 * call's Promise has settled, they are replayed here through the host's `@opentelemetry/api`:
 * spans of `trace.getTracer('monapi')` with the recorded start and end times, under the span
 * that was active when the call was made, and measurements of `metrics.getMeter('monapi')`.
 *
 * The package does not depend on the API (an optional peer): it is loaded at the first call,
 * as the package resolves it, else as the main program does. Without it, or without a
 * registered tracer or meter provider, a call costs one check here and nothing is recorded.
 * Nothing here throws into a call: a failure of the host's SDK goes to the API's `diag`.
 */

import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'

import native = require('../native.js')

// The part of @opentelemetry/api 1.x used here, as its types declare it.
type Attributes = Record<string, string | number>
type HrTime = [number, number]
/** A context of the API: opaque. */
type OtelContext = object
interface SpanContext {
  traceId: string
  spanId: string
  traceFlags: number
}
interface Span {
  setStatus(status: { code: number; message?: string }): unknown
  end(endTime?: HrTime): void
}
interface Tracer {
  startSpan(name: string, options: { kind: number; attributes: Attributes; startTime: HrTime }, context: OtelContext): Span
}
interface TracerProvider {
  getTracer(name: string, version?: string): Tracer
  getDelegate?(): TracerProvider
}
interface Histogram {
  record(value: number, attributes: Attributes): void
}
interface Counter {
  add(value: number, attributes: Attributes): void
}
interface InstrumentOptions {
  unit: string
  description: string
  valueType: number
  advice?: { explicitBucketBoundaries: number[] }
}
interface Meter {
  createHistogram(name: string, options: InstrumentOptions): Histogram
  createCounter(name: string, options: InstrumentOptions): Counter
}
interface MeterProvider {
  getMeter(name: string, version?: string): Meter
}
interface Api {
  context: { active(): OtelContext }
  trace: {
    getTracerProvider(): TracerProvider
    getSpanContext(context: OtelContext): SpanContext | undefined
    setSpan(context: OtelContext, span: Span): OtelContext
  }
  metrics: { getMeterProvider(): MeterProvider }
  isSpanContextValid(spanContext: SpanContext): boolean
  createNoopMeter(): Meter
  ProxyTracerProvider: new () => TracerProvider
  SpanKind: { INTERNAL: number; CLIENT: number }
  SpanStatusCode: { ERROR: number }
  ValueType: { INT: number; DOUBLE: number }
  diag: { error(message: string, ...args: unknown[]): void }
}

const NAME = 'monapi'
const VERSION: string = native.version()

/** The API once looked for: `null` when it is not there; `undefined` before the first call. */
let api: Api | null | undefined

/**
 * `@opentelemetry/api` as the package resolves it (its optional peer), else as the main
 * program does (a package hoisted above the program's own `node_modules`), else as a module of
 * the working directory would (`node -e`, a REPL). Once: its absence costs nothing after.
 */
function load(): Api | null {
  api = null
  const main = require.main?.filename ?? process.argv[1]
  const programs = [...(main ? [resolve(main)] : []), join(process.cwd(), '[program]')]
  const lookups = [
    () => require('@opentelemetry/api') as unknown,
    ...programs.map((from) => () => createRequire(from)('@opentelemetry/api') as unknown),
  ]
  for (const lookup of lookups) {
    try {
      const found = lookup() as Partial<Api> | null
      if (typeof found?.trace?.getTracerProvider === 'function' && typeof found.createNoopMeter === 'function') {
        api = found as Api
        break
      }
    } catch {
      // Not installed where this lookup goes: the next one, or no telemetry.
    }
  }
  return api
}

/** The no-op provider a ProxyTracerProvider delegates to while no provider is registered. */
let noopTracerProvider: TracerProvider | undefined
/** Our tracer of each registered provider. */
const tracers = new WeakMap<object, Tracer>()

/** The tracer of the host's registered TracerProvider, or `null` when none is registered. */
function tracerOf(otel: Api): Tracer | null {
  const provider = otel.trace.getTracerProvider()
  const delegate = typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider
  noopTracerProvider ??= new otel.ProxyTracerProvider().getDelegate?.()
  if (delegate === noopTracerProvider) return null
  let tracer = tracers.get(delegate)
  if (tracer === undefined) {
    tracer = provider.getTracer(NAME, VERSION)
    tracers.set(delegate, tracer)
  }
  return tracer
}

/** The histogram of the HTTP attempts' durations and the counter of retries. */
interface Instruments {
  duration: Histogram
  retries: Counter
}
/** Our instruments of each meter provider; `null` for a no-op one. */
const instruments = new WeakMap<object, Instruments | null>()

/** The instruments of the host's registered MeterProvider, or `null` when none is registered. */
function instrumentsOf(otel: Api): Instruments | null {
  const provider = otel.metrics.getMeterProvider()
  let made = instruments.get(provider)
  if (made === undefined) {
    const meter = provider.getMeter(NAME, VERSION)
    made = meter === otel.createNoopMeter() ? null : instrumentsOfMeter(otel, meter)
    instruments.set(provider, made)
  }
  return made
}

/** The core's instruments (names, units, descriptions, buckets) made by `meter`. */
function instrumentsOfMeter(otel: Api, meter: Meter): Instruments {
  const declared = native.telemetryInstruments()
  const { requestDuration: duration, retries } = declared
  return {
    duration: meter.createHistogram(duration.name, {
      unit: duration.unit,
      description: duration.description,
      valueType: otel.ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: declared.requestDurationBuckets },
    }),
    retries: meter.createCounter(retries.name, {
      unit: retries.unit,
      description: retries.description,
      valueType: otel.ValueType.INT,
    }),
  }
}

/** The W3C `traceparent` of the span of `context`, if it has a valid one. */
function traceparentOf(otel: Api, context: OtelContext): string | undefined {
  const span = otel.trace.getSpanContext(context)
  if (span === undefined || !otel.isSpanContextValid(span)) return undefined
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`
}

/** A call the host's OpenTelemetry sees: what it sends, and how its records are replayed once it has settled. */
export interface Traced {
  /** The caller's span as W3C trace context, for the call's requests (`propagateTraceContext`). */
  traceparent: string | undefined
  /** Replays the call's records, which `take` gives once its Promise has settled. */
  replay(take: () => native.NativeRecords | null | undefined): void
}

/**
 * The telemetry of a call made now (under the span active now), or `null` when the host has no
 * `@opentelemetry/api` or no tracer or meter provider registered.
 */
export function traced(): Traced | null {
  const otel = api === undefined ? load() : api
  if (otel === null) return null
  try {
    const tracer = tracerOf(otel)
    const meters = instrumentsOf(otel)
    if (tracer === null && meters === null) return null
    const parent = otel.context.active()
    return {
      traceparent: traceparentOf(otel, parent),
      replay: (take) => {
        try {
          const records = take()
          if (records === null || records === undefined) return
          if (tracer !== null) replaySpans(otel, tracer, parent, records.spans)
          if (meters !== null) measure(meters, records.measurements)
        } catch (error) {
          otel.diag.error('monapi: the telemetry of a call could not be replayed', error)
        }
      },
    }
  } catch (error) {
    otel.diag.error('monapi: the host\'s OpenTelemetry providers could not be read', error)
    return null
  }
}

/**
 * Starts the spans in the order they started (a parent before its children: its id is
 * smaller), each under its parent, or under the caller's span (`parent`); then ends them in
 * the order they ended, with their times and, for a failed one, status ERROR with its code.
 */
function replaySpans(otel: Api, tracer: Tracer, parent: OtelContext, records: native.NativeSpan[]): void {
  const started = new Map<number, Span>()
  for (const record of [...records].sort((a, b) => a.id - b.id)) {
    const parentSpan = isSet(record.parent) ? started.get(record.parent) : undefined
    const context = parentSpan === undefined ? parent : otel.trace.setSpan(parent, parentSpan)
    const kind = record.client ? otel.SpanKind.CLIENT : otel.SpanKind.INTERNAL
    const options = { kind, attributes: record.attributes, startTime: record.start }
    started.set(record.id, tracer.startSpan(record.name, options, context))
  }
  for (const record of records) {
    const span = started.get(record.id) as Span
    if (isSet(record.error)) span.setStatus({ code: otel.SpanStatusCode.ERROR, message: record.error })
    span.end(record.end)
  }
}

/** Each attempt's duration into the histogram, each retry into the counter. */
function measure(meters: Instruments, measurements: native.NativeMeasurement[]): void {
  for (const { seconds, attributes } of measurements) {
    if (isSet(seconds)) meters.duration.record(seconds, attributes)
    else meters.retries.add(1, attributes)
  }
}

function isSet<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined
}
