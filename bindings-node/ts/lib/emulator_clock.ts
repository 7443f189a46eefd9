/** The emulator's clock and world, as JavaScript hands them over (the emulator's rules decide). */

import { isUnset, text } from './args.js'
import { invalid } from './errors.js'

/**
 * The world of the emulator's site reports: `'realistic'` (the default), sites up at almost
 * every check with a fault every few days to weeks, or `'stressed'`, faults in every report
 * (a point of each site down today), for benchmarks.
 *
 * @example
 * const emulator = await Emulator.start({ world: 'stressed' })
 */
export type World = 'realistic' | 'stressed'

/**
 * The options of {@link Emulator.start} about its clock and its world.
 *
 * @example
 * const emulator = await Emulator.start({ now: '2026-11-01 10:02', world: 'realistic' })
 */
export interface ClockOptions {
  /** The world of its site reports (default `'realistic'`). */
  world?: World
  /**
   * Fix its clock at this instant (a `Date`, RFC 3339 text, or a local date and time in its
   * time zone such as `'2026-11-01 10:02'`): no report has a check after it, and "today" is its
   * day. The system clock by default; see {@link Emulator.setNow}.
   */
  now?: Date | string
}

/** An instant for the native side: a `Date` as RFC 3339 text, text as given (it checks it). */
export function instant(value: unknown, name: string): string | undefined {
  if (isUnset(value)) return undefined
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw invalid(name, 'must be a valid Date')
    return value.toISOString()
  }
  if (typeof value !== 'string') throw invalid(name, 'must be a Date or text such as "2026-11-01T10:02:00+08:00"')
  return value
}

/** A world's name for the native side (it checks it). */
export function world(value: unknown): string | undefined {
  return text(value, 'world')
}
