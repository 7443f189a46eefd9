// @ts-check
// Timing helpers shared by the Node benchmarks.

const gc = /** @type {(() => void) | undefined} */ (globalThis.gc)

/** Whether a GC runs before each timed run (node --expose-gc, as make node-bench runs them). */
export const collects = gc !== undefined

/**
 * Milliseconds `fn` takes, after a full GC so that nobody pays for the garbage of the one before.
 *
 * @param {() => Promise<unknown>} fn
 */
export async function timed(fn) {
  gc?.()
  const started = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - started) / 1e6
}

/** @param {number[]} values */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/**
 * The local date `daysAgo` days before today, as YYYY-MM-DD.
 *
 * @param {number} daysAgo
 */
export function day(daysAgo) {
  const d = new Date()
  d.setDate(d.getDate() - daysAgo)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}
