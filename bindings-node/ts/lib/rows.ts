/**
 * The tables' rows and the options and results of the table calls. Types only.
 */

import type { Id } from './data.js'
import type { TaskFailure } from './errors.js'
import type { CallOptions, DateRangeOptions, SiteReportOptions } from './options.js'
import type { Table } from './table.js'

/** A row of {@link Tables.serviceTasks}. */
export interface ServiceTaskRow {
  task_id: number
  task_name: string
  task_type: string
  /** Minutes; `null` when the service sent none or not a number. */
  frequency: number | null
  last_check_time: Date | null
  task_status: string
}

/** A row of {@link Tables.siteTasks} (`null` where the service left a field out). */
export interface SiteTaskRow {
  task_id: number
  task_name: string | null
  task_summary: string | null
  task_type: string | null
  /** Minutes. */
  frequency: number | null
  task_status: string | null
  group_id: number | null
  task_create_time: Date | null
  last_check_time: Date | null
  /** Milliseconds. */
  last_resp_time: number | null
  last_resp_result: number | null
  last_resp_status: string | null
  threshold_result: number | null
}

/** A row of {@link Tables.monitors} (`null` where the service left a field out). */
export interface MonitorRow {
  monitor_id: number
  monitor_name: string | null
  isp_id: number | null
  isp_name: string | null
  location_code: string | null
  location_name: string | null
  china_region: string | null
  world_region: string | null
}

/** A row of {@link Tables.serviceReport}: one metric of one record (the long form). */
export interface ServiceReportRow {
  task_id: number
  /** The series key, e.g. `apache_rps`. */
  series: string
  /** The record's instant (its day counted from `startDate`), `null` without a readable time. */
  time: Date | null
  /** The field, e.g. `rps`. */
  metric: string
  /** `null` where the service sent an empty or non-numeric value. */
  value: number | null
}

/** A row of a site report's availability table. */
export interface SiteAvailabilityRow {
  task_id: number
  /** `0` is the average of all points. */
  monitor_id: number
  /** The point's name as sent (e.g. `平均` for the average). */
  monitor: string
  time: Date
  /** Percent. */
  uprate: number | null
}

/** A row of a site report's response-time table (milliseconds). */
export interface SiteResponseTimeRow {
  task_id: number
  monitor_id: number
  monitor: string
  time: Date
  resptime_max: number | null
  resptime_avg: number | null
  resptime_min: number | null
  resp_process_time: number | null
  resp_connect_time: number | null
  resp_dns_time: number | null
  resp_download_time: number | null
}

/** A row of a site report's faults table. */
export interface SiteFaultRow {
  task_id: number
  monitor_id: number
  monitor: string
  start_time: Date
  /** `null` while the fault goes on. */
  end_time: Date | null
  ongoing: boolean
  /** `end_time - start_time` in seconds, `null` while the fault goes on. */
  duration_s: number | null
  /** The service's `fault_status`. */
  cause: string
  diff_time: string
  current_fault_period: string
}

/** A row of {@link Tables.responseTimeDistribution}: one bucket. */
export interface DistributionRow {
  task_id: number
  start_ms: number
  end_ms: number
  count: number
  percent: number | null
}

/** The three tables of a site report. */
export interface SiteTables {
  availability: Table<SiteAvailabilityRow>
  responseTime: Table<SiteResponseTimeRow>
  faults: Table<SiteFaultRow>
}

/** How far a bulk call has come, given to `onProgress`: at the start, then after each task. */
export interface BulkProgress {
  /** Tasks finished (succeeded or failed). */
  readonly done: number
  /** Tasks in the call. */
  readonly total: number
  /** Tasks that failed so far. */
  readonly failed: number
  /** Bytes of the answers so far. */
  readonly bytes: number
  /** Rows of the tables built so far. */
  readonly rows: number
}

/** Options of the bulk calls. */
export interface BulkOptions extends DateRangeOptions {
  /** Tasks fetched at once: 1 to 256 (default 8). */
  concurrency?: number
  /** Called with the progress (on the main thread, shortly after each task). */
  onProgress?: (progress: BulkProgress) => void
  /**
   * `'raise'` (default): when a task fails, the call rejects with a `PARTIAL_RESULT`
   * {@link MonapiError} carrying `result` (the tables of every task that succeeded) and
   * `failures`; `'collect'`: the call resolves with both.
   */
  errors?: 'raise' | 'collect'
}

/** Options of {@link Tables.serviceReports}. */
export interface ServiceReportsOptions extends BulkOptions {
  /** The service tasks (default: every task of the list, read first). */
  taskIds?: Id[]
}

/** Options of {@link Tables.siteReports}. */
export interface SiteReportsOptions extends BulkOptions {
  /** The site tasks (default: every task of the site task list, read first). */
  taskIds?: Id[]
  /** As in {@link SiteReportOptions.monitor}, the same for every task. */
  monitor?: Id
}

/** What {@link Tables.serviceReports} resolves with. */
export interface ServiceReportsResult {
  /** The rows of every task that succeeded, in task order: each task's rows as its single call gives them. */
  table: Table<ServiceReportRow>
  /** The tasks that failed (empty when all succeeded). */
  failures: TaskFailure[]
}

/** What {@link Tables.siteReports} resolves with. */
export interface SiteReportsResult extends SiteTables {
  /** The tasks that failed (empty when all succeeded). */
  failures: TaskFailure[]
}

/**
 * The calls that return tables: {@link Client.tables}. Each takes the options of the call it
 * mirrors, with `signal` and `timeoutMs`.
 */
export interface Tables {
  /**
   * Every service task (all pages) as one table.
   *
   * @example
   * ```js
   * const tasks = await client.tables.serviceTasks()
   * ```
   */
  serviceTasks(options?: CallOptions): Promise<Table<ServiceTaskRow>>
  /**
   * Every site task (all pages) as one table.
   *
   * @example
   * ```js
   * const sites = await client.tables.siteTasks()
   * ```
   */
  siteTasks(options?: CallOptions): Promise<Table<SiteTaskRow>>
  /**
   * The monitoring points as a table.
   *
   * @example
   * ```js
   * const points = await client.tables.monitors()
   * ```
   */
  monitors(options?: CallOptions): Promise<Table<MonitorRow>>
  /**
   * A service task's report as the long table: one row per record and metric.
   *
   * @example
   * ```js
   * const report = await client.tables.serviceReport(10001, { startDate: '2026-11-01', endDate: '2026-11-30' })
   * ```
   */
  serviceReport(taskId: Id, options?: DateRangeOptions): Promise<Table<ServiceReportRow>>
  /**
   * A site task's report as its three tables.
   *
   * @example
   * ```js
   * const { availability, responseTime, faults } = await client.tables.siteReport(20001, { monitor: 0 })
   * ```
   */
  siteReport(taskId: Id, options?: SiteReportOptions): Promise<SiteTables>
  /**
   * A site task's response-time distribution, buckets by lower bound.
   *
   * @example
   * ```js
   * const buckets = await client.tables.responseTimeDistribution(20001)
   * ```
   */
  responseTimeDistribution(taskId: Id, options?: DateRangeOptions): Promise<Table<DistributionRow>>
  /**
   * The service reports of many tasks at once (bounded concurrency), as one table. A task that
   * fails never loses the others: see {@link BulkOptions.errors}. Aborting stops every fetch.
   *
   * @throws {MonapiError} `PARTIAL_RESULT` (unless `errors: 'collect'`) with `result` and `failures`.
   * @example
   * ```js
   * const { table, failures } = await client.tables.serviceReports({
   *   taskIds: [10001, 10002], startDate: '2026-11-01', concurrency: 4, errors: 'collect',
   *   onProgress: (p) => console.log(`${p.done}/${p.total}`),
   * })
   * ```
   */
  serviceReports(options?: ServiceReportsOptions): Promise<ServiceReportsResult>
  /**
   * The site reports of many tasks at once, as three tables; see {@link Tables.serviceReports}.
   *
   * @example
   * ```js
   * const { availability, failures } = await client.tables.siteReports({ taskIds: [20001, 20002], monitor: 0 })
   * const everySite = await client.tables.siteReports({ startDate: '2026-11-01' })
   * ```
   */
  siteReports(options?: SiteReportsOptions): Promise<SiteReportsResult>
}
