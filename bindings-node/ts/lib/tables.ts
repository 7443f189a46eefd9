/** The calls of `client.tables`: the service's data as typed tables, built by the Rust core. */

import { CALL_OPTIONS, id, isUnset, numeric, options, progressCallback, range, run } from './args.js'
import type { Id } from './data.js'
import { fromNative, invalid, type TaskFailure } from './errors.js'
import type { CallOptions, DateRangeOptions, SiteReportOptions } from './options.js'
import type {
  BulkProgress,
  DistributionRow,
  ServiceReportRow,
  ServiceReportsOptions,
  ServiceReportsResult,
  MonitorRow,
  ServiceTaskRow,
  SiteReportsOptions,
  SiteTaskRow,
  SiteReportsResult,
  SiteTables,
  Tables,
} from './rows.js'
import { table, type Table } from './table.js'
import type native = require('../native.js')

/** A site report's three tables, from the native side's three. */
export function siteTables(handles: native.NativeTable[]): SiteTables {
  return { availability: table(handles[0]), responseTime: table(handles[1]), faults: table(handles[2]) }
}

const BULK_OPTIONS = ['taskIds', 'concurrency', 'onProgress', 'errors']

/** The options of a bulk call, checked for their types (the core checks the values and the words of `errors`). */
function bulkOptions(o: Record<string, unknown>) {
  let taskIds: Array<number | string> | undefined
  if (!isUnset(o.taskIds)) {
    if (!Array.isArray(o.taskIds)) throw invalid('taskIds', 'must be an array of task ids')
    taskIds = (o.taskIds as Id[]).map(id)
  }
  const onProgress = progressCallback<BulkProgress>(o.onProgress)
  if (!isUnset(o.errors) && typeof o.errors !== 'string') throw invalid('errors', "must be 'raise' or 'collect'")
  return { taskIds, concurrency: numeric(o.concurrency), onProgress, errors: o.errors as string | undefined }
}

/**
 * A bulk call's result: the tables with `failures`; the call's `PARTIAL_RESULT` error
 * carrying both when the core says the call fails (a task failed, `errors: 'raise'`).
 */
function bulkResult<R extends { failures: TaskFailure[] }>(bulk: native.NativeBulk, tables: Omit<R, 'failures'>): R {
  const result = { ...tables, failures: [] } as unknown as R
  result.failures = bulk.failedTasks().map((taskId, i) => ({ taskId, error: fromNative(bulk.failure(i)) }))
  const raised = bulk.raised()
  if (raised !== null && raised !== undefined) {
    const error = fromNative(raised)
    error.failures = result.failures
    error.result = result
    throw error
  }
  return result
}

/** The calls of a client that return tables (see {@link Tables}). */
export class TablesOf implements Tables {
  #open: () => native.NativeClient

  constructor(open: () => native.NativeClient) {
    this.#open = open
  }

  async serviceTasks(options_?: CallOptions): Promise<Table<ServiceTaskRow>> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    return table(await run(o, (call) => n.tableServiceTasks(call)))
  }

  async siteTasks(options_?: CallOptions): Promise<Table<SiteTaskRow>> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    return table(await run(o, (call) => n.tableSiteTasks(call)))
  }

  async monitors(options_?: CallOptions): Promise<Table<MonitorRow>> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    return table(await run(o, (call) => n.tableMonitors(call)))
  }

  async serviceReport(taskId: Id, options_?: DateRangeOptions): Promise<Table<ServiceReportRow>> {
    const n = this.#open()
    const [o, start, end] = range(options_, 'options')
    return table(await run(o, (call) => n.tableServiceReport(id(taskId), start, end, call)))
  }

  async siteReport(taskId: Id, options_?: SiteReportOptions): Promise<SiteTables> {
    const n = this.#open()
    const [o, start, end] = range(options_, 'options', ['monitor'])
    const monitor = isUnset(o.monitor) ? undefined : id(o.monitor)
    return siteTables(await run(o, (call) => n.tableSiteReport(id(taskId), start, end, monitor, call)))
  }

  async responseTimeDistribution(taskId: Id, options_?: DateRangeOptions): Promise<Table<DistributionRow>> {
    const n = this.#open()
    const [o, start, end] = range(options_, 'options')
    return table(await run(o, (call) => n.tableResponseTimeDistribution(id(taskId), start, end, call)))
  }

  async serviceReports(options_?: ServiceReportsOptions): Promise<ServiceReportsResult> {
    const n = this.#open()
    const [o, start, end] = range(options_, 'options', BULK_OPTIONS)
    const b = bulkOptions(o)
    const bulk = await run(o, (call) =>
      n.tableServiceReports(b.taskIds, start, end, b.concurrency, b.onProgress, b.errors, call),
    )
    return bulkResult<ServiceReportsResult>(bulk, { table: table<ServiceReportRow>(bulk.tables()[0]) })
  }

  async siteReports(options_?: SiteReportsOptions): Promise<SiteReportsResult> {
    const n = this.#open()
    const [o, start, end] = range(options_, 'options', ['monitor', ...BULK_OPTIONS])
    const b = bulkOptions(o)
    const taskIds = b.taskIds
    const monitor = isUnset(o.monitor) ? undefined : id(o.monitor)
    const bulk = await run(o, (call) =>
      n.tableSiteReports(taskIds, start, end, monitor, b.concurrency, b.onProgress, b.errors, call),
    )
    return bulkResult<SiteReportsResult>(bulk, siteTables(bulk.tables()))
  }
}
