/** `client.sync()`: brings the client's local store up to date, by the Rust core's `Tables::sync`. */

import { id, isUnset, numeric, progressCallback, range, run } from './args.js'
import type { Day, Id } from './data.js'
import { fromNative, invalid, type MonapiError } from './errors.js'
import type { CallOptions } from './options.js'
import type native = require('../native.js')

/**
 * A kind of table a store keeps (its directory's name), or `'service'` / `'site'` for every
 * kind of one report (`'site'`: `site_availability`, `site_response_time`, `site_faults`).
 *
 * @example
 * await client.sync({ kinds: ['service', 'site_faults'] })
 */
export type SyncKind = 'service_report' | 'site_availability' | 'site_response_time' | 'site_faults' | 'service' | 'site'

/**
 * How far a sync has come, given to {@link SyncOptions.onProgress}: once before the first
 * task (`done` 0), then after each task. Counts are of task-days (a task on one day).
 *
 * @example
 * await client.sync({ onProgress: (p) => console.log(`${p.done}/${p.total} task-days, ${p.failed} failed`) })
 */
export interface SyncProgress {
  /** Task-days in the sync (tasks times days). */
  readonly total: number
  /** Task-days done: fetched, found in the store, or failed. */
  readonly done: number
  /** Task-days fetched. */
  readonly fetched: number
  /** Task-days the store already held. */
  readonly reused: number
  /** Task-days whose fetch failed. */
  readonly failed: number
  /** Rows fetched. */
  readonly rows: number
  /** Bytes of the answers fetched. */
  readonly bytes: number
}

/**
 * Options of {@link Client.sync}, with `signal` (aborting stops every fetch; what was written
 * stays, whole) and `timeoutMs` (of each HTTP exchange).
 *
 * @example
 * const options = { startDate: '2026-11-01', endDate: '2026-11-30', tasks: [10001, 20001], kinds: 'service,site', concurrency: 4 }
 * const report = await client.sync(options)
 */
export interface SyncOptions extends CallOptions {
  /**
   * The first day (a Date, its local calendar day, or `YYYY-MM-DD`); default: 30 settled days
   * before the end.
   */
  startDate?: Day
  /** The last day; default, and at most: the last settled day (see `settleMs`). */
  endDate?: Day
  /** Service or site task ids (default: every task of the lists the kinds need, read first). */
  tasks?: Id[]
  /**
   * The kinds of tables: an array of {@link SyncKind}, or their names separated by commas
   * (`'service,site_faults'`); default every kind. A site report is fetched whole and the
   * kinds asked kept.
   */
  kinds?: SyncKind[] | string
  /** Tasks fetched at once: 1 to 256 (default 8). */
  concurrency?: number
  /** Called with the progress (on the main thread, shortly after each task). */
  onProgress?: (progress: SyncProgress) => void
  /**
   * Read every file of the range whole and check its checksum, not only list it (default
   * `false`): those that fail are set aside in `.corrupt/` and fetched again, counted in
   * {@link SyncReport.setAside}; {@link SyncReport.verified} counts the files read.
   */
  verify?: boolean
  /**
   * `'raise'` (default): when some task-days failed, the call rejects with a `PARTIAL_RESULT`
   * {@link MonapiError} carrying `result` (the {@link SyncReport}) and `failures`;
   * `'collect'`: it resolves with the report, whose `failures` lists them. Either way what
   * succeeded is in the store, and the next sync fetches what failed.
   */
  errors?: 'raise' | 'collect'
}

/**
 * A run of consecutive days of one task whose fetch (or write) failed: not kept, so the next
 * sync fetches it again.
 *
 * @example
 * for (const f of report.failures) console.log(`${f.report} ${f.taskId} ${f.start}..${f.end}: ${f.error.code}`)
 */
export interface SyncFailure {
  /** Which report: `'service_report'` or `'site_report'`. */
  report: 'service_report' | 'site_report'
  /** The task. */
  taskId: number
  /** The run's first day, `YYYY-MM-DD`. */
  start: string
  /** The run's last day, `YYYY-MM-DD`. */
  end: string
  /** Why. */
  error: MonapiError
}

/**
 * What {@link Client.sync} did. Counts are of task-days (a task on one day).
 *
 * @example
 * const report = await client.sync({ errors: 'collect' })
 * console.log(report.summary) // '30 task-days fetched, 3570 reused, 41000 rows, 2500000 bytes, 0 failed'
 */
export interface SyncReport {
  /** The first day covered, `YYYY-MM-DD`, or `null` when no day of the range asked is settled yet. */
  start: string | null
  /** The last day covered, or `null` as `start`. */
  end: string | null
  /** `(report, task)` pairs synced. */
  tasks: number
  /** Task-days fetched. */
  fetched: number
  /** Task-days the store already held. */
  reused: number
  /** Rows fetched. */
  rows: number
  /** Bytes of the answers fetched. */
  bytes: number
  /** Task-days whose fetch failed. */
  failed: number
  /** The runs of task-days that failed (empty when all succeeded); the next sync retries them. */
  failures: SyncFailure[]
  /** Files that did not read (truncated, garbled), set aside in the store's `.corrupt/` and fetched again. */
  setAside: string[]
  /** Files read whole and checked (a sync with `verify: true`; 0 without). */
  verified: number
  /** The one line a sync ends with, e.g. `30 task-days fetched, 3570 reused, 41000 rows, 2500000 bytes, 0 failed`. */
  summary: string
}

const SYNC_OPTIONS = ['tasks', 'kinds', 'concurrency', 'onProgress', 'errors', 'verify']

/** `kinds` as the core reads it: names separated by commas (the core checks the names). */
function kindsText(value: unknown): string | undefined {
  if (isUnset(value) || typeof value === 'string') return value ?? undefined
  if (Array.isArray(value) && value.every((kind) => typeof kind === 'string')) return value.join(',')
  throw invalid('kinds', 'must be an array of kinds of tables, or their names separated by commas')
}

/** The report of a sync; the call's `PARTIAL_RESULT` error carrying it when the core says the sync fails. */
function report(sync: native.NativeSync): SyncReport {
  const numbers = sync.report()
  const failures: SyncFailure[] = sync.failures().map((f, i) => ({
    report: f.report as SyncFailure['report'],
    taskId: f.taskId,
    start: f.start,
    end: f.end,
    error: fromNative(sync.failure(i)),
  }))
  const result: SyncReport = {
    start: numbers.start ?? null,
    end: numbers.end ?? null,
    tasks: numbers.tasks,
    fetched: numbers.fetched,
    reused: numbers.reused,
    rows: numbers.rows,
    bytes: numbers.bytes,
    failed: numbers.failed,
    failures,
    setAside: numbers.setAside,
    verified: numbers.verified,
    summary: numbers.summary,
  }
  const raised = sync.raised()
  if (raised !== null && raised !== undefined) {
    const error = fromNative(raised)
    error.failures = failures
    error.result = result
    throw error
  }
  return result
}

/** Runs {@link Client.sync} on the native client `n`. @internal */
export async function runSync(n: native.NativeClient, options_?: SyncOptions): Promise<SyncReport> {
  const [o, start, end] = range(options_, 'options', SYNC_OPTIONS)
  let tasks: Array<number | string> | undefined
  if (!isUnset(o.tasks)) {
    if (!Array.isArray(o.tasks)) throw invalid('tasks', 'must be an array of task ids')
    tasks = (o.tasks as Id[]).map(id)
  }
  const kinds = kindsText(o.kinds)
  const onProgress = progressCallback<SyncProgress>(o.onProgress)
  if (!isUnset(o.errors) && typeof o.errors !== 'string') throw invalid('errors', "must be 'raise' or 'collect'")
  const errors = o.errors as string | undefined
  const concurrency = numeric(o.concurrency)
  if (!isUnset(o.verify) && typeof o.verify !== 'boolean') throw invalid('verify', 'must be true or false')
  const verify = (o.verify as boolean | undefined) ?? undefined
  return report(await run(o, (call) => n.sync(start, end, tasks, kinds, concurrency, onProgress, errors, verify, call)))
}
