/**
 * What a test sets on the emulator: its start options, its faults and quirks, and their
 * conversion to the native side (which checks them against the emulator's rules).
 */

import { count, isUnset, options, text } from './args.js'
import { invalid } from './errors.js'
import native = require('../native.js')
import type { ClockOptions } from './emulator_clock.js'

/**
 * An encoding the emulator compresses its answers with.
 *
 * @example
 * const emulator = await Emulator.start({ compression: ['gzip'] })
 */
export type Encoding = 'gzip' | 'deflate'

/**
 * Options of {@link Emulator.start} (its clock and world: {@link ClockOptions}). Each left out
 * takes its default; a value out of its range is `INVALID_INPUT` naming it.
 *
 * @example
 * const emulator = await Emulator.start({ seed: 7, serviceTasks: 10, tokenTtl: 60, timezone: 'UTC' })
 */
export interface EmulatorOptions extends ClockOptions {
  /** Seed of the generated data (default 42). */
  seed?: number | bigint
  /** Lifetime of access tokens, in seconds, 0 to 2^32 - 1 (default 3600). */
  tokenTtl?: number
  /** Delay before every answer, in milliseconds, 0 to 2^31 - 1 (default 0). */
  latencyMs?: number
  /** Number of seeded service tasks, 0 to 100,000, ids from 10001 (default 120: three pages). */
  serviceTasks?: number
  /** Number of seeded site tasks, 0 to 100,000, ids from 20001 (default 5; 51 make two pages). */
  siteTasks?: number
  /**
   * Lifetime of refresh tokens, in seconds, 0 to 2^32 - 1 (default 1,209,600: 14 days, as the
   * service's OAuth server). A refresh with an older one gets `invalid_grant`.
   */
  refreshTokenTtl?: number
  /** Faults from the start (default none). */
  faults?: FaultSettings
  /**
   * The time zone of its days, "today" and the `HH:MM` times of service reports, as an offset
   * from UTC: `'+08:00'` (the service's, the default), `'-05:30'`, `'UTC'`.
   */
  timezone?: string
  /** Quirks from the start (default none). */
  quirks?: Quirks
  /**
   * Serve HTTPS, with a certificate signed by a private CA made at start (see
   * {@link Emulator.caPem}); plain HTTP by default.
   */
  tls?: boolean
  /**
   * The encodings it compresses answers with when a request accepts them, the first accepted
   * winning, as the service's front end gzips (default `['gzip', 'deflate']`; `[]`: never).
   */
  compression?: Encoding[]
  /**
   * The bandwidth of a modelled wide-area link, in Mbit/s (0.01 to 100000): answers are written
   * paced, all connections sharing it as one link. Unlimited by default.
   */
  bandwidthMbps?: number
  /**
   * The round trip of that link, in milliseconds (0 to 10000, default 0): each new connection
   * waits it once (twice with `tls`), each answer once more.
   */
  rttMs?: number
}

/**
 * A kind of injected fault: an answer `500`, `503` or `429`, a connection closed without an
 * answer, a body cut in half, an HTML page instead of JSON, gzip that does not decompress.
 *
 * @example
 * emulator.setFaults({ next: ['dropConnection', 'error503'] })
 */
export type FaultKind =
  | 'error500'
  | 'error503'
  | 'error429'
  | 'dropConnection'
  | 'truncatedBody'
  | 'malformedBody'
  | 'corruptGzip'

/**
 * Faults injected into the emulator's answers. `next` is served first, one fault per
 * request in order; after it, each request gets a fault with the given share (0 to 1: the
 * emulator refuses any other share, NaN included, with `INVALID_INPUT` naming it).
 *
 * @example
 * const emulator = await Emulator.start({ faults: { error503: 0.1, retryAfterSecs: 1 } })
 */
export interface FaultSettings {
  /** Share of answers `500 {"code":500,...}`. */
  error500?: number
  /** Share of answers `503 {"code":503,...}` with `Retry-After`. */
  error503?: number
  /** Share of answers `429 {"code":429,...}` with `Retry-After`. */
  error429?: number
  /** Value of `Retry-After` on 429 and 503, in seconds. */
  retryAfterSecs?: number
  /** Share of requests whose connection is closed without an answer. */
  dropConnection?: number
  /** Share of answers cut in half. */
  truncatedBody?: number
  /** Share of answers that are an HTML error page instead of JSON. */
  malformedBody?: number
  /** Share of answers sent as gzip that does not decompress, whatever the request accepts. */
  corruptGzip?: number
  /** Faults for the next requests, in order. */
  next?: FaultKind[]
}

/**
 * A body for a service task list page past the last one: `[]`, `{}`, `null` or
 * `{"code":0,"msg":"no more data"}`.
 *
 * @example
 * emulator.setQuirks({ pastEndPage: 'null' })
 */
export type PastEndPage = 'array' | 'object' | 'null' | 'status'

/**
 * Answers shaped as the real service, a PHP application, may send them (PHP's `json_encode`
 * writes an empty keyed array as `[]`). Each left out is off: the emulator's usual answers.
 *
 * @example
 * const emulator = await Emulator.start({ quirks: { keyedLists: true, noChecks: true } })
 */
export interface Quirks {
  /** The body of a service task list page past the last one (default `'array'`: `[]`). */
  pastEndPage?: PastEndPage
  /** The account has no agents: the agent list is `[]` (and no plugin can be used by a created task). */
  noAgents?: boolean
  /**
   * Every range has no checks: a service report and a distribution are `[]`; a site report keeps its
   * points, each with `uprate: []`, `fault: []` and `resptime: []`.
   */
  noChecks?: boolean
  /**
   * The site task list, the monitoring points, the users and the groups arrive as PHP keyed
   * arrays (objects keyed by id) instead of lists, as the agent list does.
   */
  keyedLists?: boolean
  /**
   * The refresh grant issues a new refresh token and retires the one used (by default, as the
   * service's OAuth server, it issues none and the used one stays valid).
   */
  rotatingRefreshTokens?: boolean
}

const FAULT_KEYS = [
  'error500',
  'error503',
  'error429',
  'retryAfterSecs',
  'dropConnection',
  'truncatedBody',
  'malformedBody',
  'corruptGzip',
  'next',
]
const FAULT_KINDS = [
  'error500',
  'error503',
  'error429',
  'dropConnection',
  'truncatedBody',
  'malformedBody',
  'corruptGzip',
]
const SNAKE_KINDS = [
  'error_500',
  'error_503',
  'error_429',
  'drop_connection',
  'truncated_body',
  'malformed_body',
  'corrupt_gzip',
]

/** Fault settings for the native side (kinds by the emulator's names), which checks the shares. */
export function faultSettings(value: unknown, name: string): native.NativeFaults {
  const o = options(value, name, FAULT_KEYS)
  const out: Record<string, unknown> = {}
  for (const key of FAULT_KEYS) {
    const v = o[key]
    if (isUnset(v)) continue
    if (key === 'next') {
      if (!Array.isArray(v)) throw invalid(`${name}.next`, 'must be an array of fault kinds')
      out.next = v.map((kind: unknown, i) => {
        const at = FAULT_KINDS.indexOf(kind as string)
        const snakeAt = SNAKE_KINDS.indexOf(kind as string)
        if (at < 0 && snakeAt < 0) {
          throw invalid(`${name}.next[${i}]`, `must be one of ${FAULT_KINDS.join(', ')}`)
        }
        return SNAKE_KINDS[at < 0 ? snakeAt : at]
      })
    } else if (key === 'retryAfterSecs') {
      // The native side holds it as a u32; the emulator sets no bound of its own.
      out[key] = count(v, `${name}.${key}`, 0xffffffff)
    } else {
      if (typeof v !== 'number') throw invalid(`${name}.${key}`, 'must be a number (a share of requests)')
      out[key] = v
    }
  }
  return out as native.NativeFaults
}

/** Quirks for the native side, which checks the values against the emulator's rules. */
export function quirkSettings(value: unknown, name: string): native.NativeQuirks {
  const flags = ['noAgents', 'noChecks', 'keyedLists', 'rotatingRefreshTokens'] as const
  const o = options(value, name, ['pastEndPage', ...flags])
  const out: native.NativeQuirks = { pastEndPage: text(o.pastEndPage, `${name}.pastEndPage`) }
  for (const key of flags) {
    if (isUnset(o[key])) continue
    if (typeof o[key] !== 'boolean') throw invalid(`${name}.${key}`, 'must be a boolean')
    out[key] = o[key] as boolean
  }
  return out
}
