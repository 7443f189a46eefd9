/**
 * The tables' rows and the options and results of the table calls. Types only.
 */

import type { Id } from './data.js'
import type { TaskFailure } from './errors.js'
import type { CallOptions, DateRangeOptions, SiteReportOptions } from './options.js'
import type { Table } from './table.js'

/**
 * A row of {@link Tables.serviceTasks}.
 *
 * @example
 * const tasks = (await client.tables.serviceTasks()).toRows()
 * const nginx = tasks.filter((t) => t.task_type === 'nginx')
 */
export interface ServiceTaskRow {
  /** The task's id. */
  task_id: number
  /** Its name. */
  task_name: string
  /** The kind of service (`nginx`, `mysql`, ...). */
  task_type: string
  /** Minutes; `null` when the service sent none or not a number. */
  frequency: number | null
  /** The last check; `null` when empty or unreadable. */
  last_check_time: Date | null
  /** The service's status text. */
  task_status: string
}

/**
 * A row of {@link Tables.siteTasks} (`null` where the service left a field out, or sent it empty).
 *
 * @example
 * const sites = (await client.tables.siteTasks()).toRows()
 * const failing = sites.filter((s) => s.last_resp_result !== 1)
 */
export interface SiteTaskRow {
  /** The task's id. */
  task_id: number
  /** Its name. */
  task_name: string | null
  /** What it checks (its address, for a web site). */
  task_summary: string | null
  /** The kind of check (`http`, `ping`, ...). */
  task_type: string | null
  /** Minutes. */
  frequency: number | null
  /** The service's status text. */
  task_status: string | null
  /** Its group's id. */
  group_id: number | null
  /** When it was created (`null` too when unreadable). */
  task_create_time: Date | null
  /** The last check (`null` too when unreadable). */
  last_check_time: Date | null
  /** Milliseconds. */
  last_resp_time: number | null
  /** The last check's result as sent (`1`: it succeeded). */
  last_resp_result: number | null
  /** The last check's status text, e.g. `HTTP OK`. */
  last_resp_status: string | null
  /** The service's `threshold_result`, as sent. */
  threshold_result: number | null
}

/**
 * A row of {@link Tables.monitors} (`null` where the service left a field out).
 *
 * @example
 * const points = (await client.tables.monitors()).toRows()
 * const names = new Map(points.map((m) => [m.monitor_id, m.monitor_name]))
 */
export interface MonitorRow {
  /** The point's id, which keys site reports. */
  monitor_id: number
  /** City and carrier, e.g. `陕西西安电信`. */
  monitor_name: string | null
  /** The carrier's id. */
  isp_id: number | null
  /** The carrier, e.g. `电信`. */
  isp_name: string | null
  /** The location's code, as sent. */
  location_code: string | null
  /** The location's name. */
  location_name: string | null
  /** Its region of China, as sent. */
  china_region: string | null
  /** Its region of the world, as sent. */
  world_region: string | null
}

/**
 * A row of {@link Tables.serviceReport}: one metric of one record (the long form).
 *
 * @example
 * const rps = report.toRows().filter((r) => r.metric === 'rps').map((r) => r.value)
 */
export interface ServiceReportRow {
  /** The task's id. */
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

/**
 * A row of a site report's availability table: one check of one point.
 *
 * @example
 * const down = availability.toRows().filter((r) => r.monitor_id === 0 && r.uprate === 0)
 */
export interface SiteAvailabilityRow {
  /** The task's id. */
  task_id: number
  /** `0` is the average of all points. */
  monitor_id: number
  /** The point's name as sent (e.g. `平均` for the average). */
  monitor: string
  /** The check's instant. */
  time: Date
  /** Percent. */
  uprate: number | null
}

/**
 * A row of a site report's response-time table (milliseconds): one check of one point.
 *
 * @example
 * const slow = responseTime.toRows().filter((r) => (r.resptime_avg ?? 0) > 1000)
 */
export interface SiteResponseTimeRow {
  /** The task's id. */
  task_id: number
  /** `0` is the average of all points. */
  monitor_id: number
  /** The point's name as sent. */
  monitor: string
  /** The check's instant. */
  time: Date
  /** The longest response time. */
  resptime_max: number | null
  /** The average response time. */
  resptime_avg: number | null
  /** The shortest response time. */
  resptime_min: number | null
  /** Time the server took to process the request. */
  resp_process_time: number | null
  /** Time to connect. */
  resp_connect_time: number | null
  /** Time to resolve the name. */
  resp_dns_time: number | null
  /** Time to download the answer. */
  resp_download_time: number | null
}

/**
 * A row of a site report's faults table: one fault of one point.
 *
 * @example
 * const open = faults.toRows().filter((f) => f.ongoing)
 */
export interface SiteFaultRow {
  /** The task's id. */
  task_id: number
  /** `0` is the average of all points. */
  monitor_id: number
  /** The point's name as sent. */
  monitor: string
  /** When the fault began. */
  start_time: Date
  /** `null` while the fault goes on. */
  end_time: Date | null
  /** Whether the fault goes on. */
  ongoing: boolean
  /** `end_time - start_time` in seconds, `null` while the fault goes on. */
  duration_s: number | null
  /** The service's `fault_status`. */
  cause: string
  /** The service's `diff_time`, as sent. */
  diff_time: string
  /** The service's `current_fault_period`, as sent. */
  current_fault_period: string
}

/**
 * A row of {@link Tables.responseTimeDistribution}: one bucket.
 *
 * @example
 * for (const b of buckets.toRows()) console.log(`${b.start_ms}-${b.end_ms} ms: ${b.percent} %`)
 */
export interface DistributionRow {
  /** The task's id. */
  task_id: number
  /** The bucket's lower bound, milliseconds. */
  start_ms: number
  /** Its upper bound, milliseconds. */
  end_ms: number
  /** Checks whose response time fell in it. */
  count: number
  /** Their share of all checks, percent. */
  percent: number | null
}

/**
 * The three tables of a site report.
 *
 * @example
 * const { availability, responseTime, faults } = await client.tables.siteReport(20001)
 */
export interface SiteTables {
  /** One row per check of each point: its availability ({@link SiteAvailabilityRow}). */
  availability: Table<SiteAvailabilityRow>
  /** One row per check of each point: its response times ({@link SiteResponseTimeRow}). */
  responseTime: Table<SiteResponseTimeRow>
  /** One row per fault of each point ({@link SiteFaultRow}). */
  faults: Table<SiteFaultRow>
}

/**
 * How far a bulk call has come, given to `onProgress`: at the start, then after each task.
 *
 * @example
 * const onProgress = (p) => console.log(`${p.done}/${p.total} tasks, ${p.failed} failed`)
 */
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

/**
 * Options of the bulk calls ({@link Tables.serviceReports}, {@link Tables.siteReports}).
 *
 * @example
 * const options = { startDate: '2026-11-01', concurrency: 4, errors: 'collect' }
 */
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

/**
 * Options of {@link Tables.serviceReports}.
 *
 * @example
 * const { table } = await client.tables.serviceReports({ taskIds: [10001, 10002] })
 */
export interface ServiceReportsOptions extends BulkOptions {
  /** The service tasks (default: every task of the list, read first). */
  taskIds?: Id[]
}

/**
 * Options of {@link Tables.siteReports}.
 *
 * @example
 * const { availability } = await client.tables.siteReports({ taskIds: [20001], monitor: 0 })
 */
export interface SiteReportsOptions extends BulkOptions {
  /** The site tasks (default: every task of the site task list, read first). */
  taskIds?: Id[]
  /** As in {@link SiteReportOptions.monitor}, the same for every task. */
  monitor?: Id
}

/**
 * What {@link Tables.serviceReports} resolves with.
 *
 * @example
 * const { table, failures } = await client.tables.serviceReports({ errors: 'collect' })
 */
export interface ServiceReportsResult {
  /** The rows of every task that succeeded, in task order: each task's rows as its single call gives them. */
  table: Table<ServiceReportRow>
  /** The tasks that failed (empty when all succeeded). */
  failures: TaskFailure[]
}

/**
 * What {@link Tables.siteReports} resolves with.
 *
 * @example
 * const { availability, responseTime, faults, failures } = await client.tables.siteReports()
 */
export interface SiteReportsResult extends SiteTables {
  /** The tasks that failed (empty when all succeeded). */
  failures: TaskFailure[]
}

/**
 * The calls that return tables: {@link Client.tables}. Each takes the options of the call it
 * mirrors, with `signal` and `timeoutMs`, and rejects as the client's calls do (the codes every
 * call may reject with are on {@link Client}). With a store ({@link ClientOptions.store}), the
 * report tables read the settled days it holds, fetch the others and keep those that settled;
 * a store that cannot be read or written is a `STORE` error (with `path`).
 *
 * @example
 * const tables = client.tables
 * const tasks = await tables.serviceTasks()
 */
export interface Tables {
  /**
   * Every service task (all pages) as one table.
   *
   * @param options - `signal` and `timeoutMs` of each page's request.
   * @returns A {@link Table} of {@link ServiceTaskRow}s, in the list's order.
   * @throws {@link MonapiError}: any code of a call (see {@link Client}).
   * @example
   * const tasks = await client.tables.serviceTasks()
   */
  serviceTasks(options?: CallOptions): Promise<Table<ServiceTaskRow>>
  /**
   * Every site task (all pages) as one table.
   *
   * @param options - `signal` and `timeoutMs` of each page's request.
   * @returns A {@link Table} of {@link SiteTaskRow}s, in the list's order.
   * @throws {@link MonapiError}: any code of a call (see {@link Client}).
   * @example
   * const sites = await client.tables.siteTasks()
   */
  siteTasks(options?: CallOptions): Promise<Table<SiteTaskRow>>
  /**
   * The monitoring points as a table.
   *
   * @param options - `signal` and `timeoutMs`.
   * @returns A {@link Table} of {@link MonitorRow}s.
   * @throws {@link MonapiError}: any code of a call (see {@link Client}).
   * @example
   * const points = await client.tables.monitors()
   */
  monitors(options?: CallOptions): Promise<Table<MonitorRow>>
  /**
   * A service task's report as the long table: one row per record and metric.
   *
   * @param taskId - The service task's id.
   * @param options - `startDate`, `endDate`, `signal`, `timeoutMs`.
   * @returns A {@link Table} of {@link ServiceReportRow}s, in the service's order (series,
   *   records, fields); empty, with every column, for an empty report.
   * @throws {@link MonapiError}: `API_ERROR` (e.g. an unknown task), `INVALID_INPUT` (a bad id or date),
   *   `STORE` (with a store); any code of a call (see {@link Client}).
   * @example
   * const range = { startDate: '2026-11-01', endDate: '2026-11-30' }
   * const report = await client.tables.serviceReport(10001, range)
   */
  serviceReport(taskId: Id, options?: DateRangeOptions): Promise<Table<ServiceReportRow>>
  /**
   * A site task's report as its three tables.
   *
   * @param taskId - The site task's id.
   * @param options - `monitor`, `startDate`, `endDate`, `signal`, `timeoutMs`.
   * @returns The {@link SiteTables}: `availability`, `responseTime` and `faults`.
   * @throws {@link MonapiError}: `API_ERROR` (e.g. an unknown task), `INVALID_INPUT` (a bad id,
   *   `monitor` or date), `STORE` (with a store); any code of a call (see {@link Client}).
   * @example
   * const { availability, faults } = await client.tables.siteReport(20001, { monitor: 0 })
   */
  siteReport(taskId: Id, options?: SiteReportOptions): Promise<SiteTables>
  /**
   * A site task's response-time distribution, buckets by lower bound.
   *
   * @param taskId - The site task's id.
   * @param options - `startDate`, `endDate`, `signal`, `timeoutMs`.
   * @returns A {@link Table} of {@link DistributionRow}s, one per bucket.
   * @throws {@link MonapiError}: `API_ERROR` (e.g. an unknown task), `INVALID_INPUT` (a bad id or
   *   date); any code of a call (see {@link Client}).
   * @example
   * const buckets = await client.tables.responseTimeDistribution(20001)
   */
  responseTimeDistribution(taskId: Id, options?: DateRangeOptions): Promise<Table<DistributionRow>>
  /**
   * The service reports of many tasks at once (bounded concurrency), as one table. A task that
   * fails never loses the others: see {@link BulkOptions.errors}. Aborting stops every fetch.
   *
   * @param options - The tasks, days, `concurrency`, `onProgress`, `errors`, `signal`, `timeoutMs`.
   * @returns The {@link ServiceReportsResult}: one `table` of the tasks that succeeded, and
   *   `failures`.
   * @throws {@link MonapiError}: `PARTIAL_RESULT` (unless `errors: 'collect'`) with `result` and
   *   `failures`; `INVALID_INPUT` (bad options: nothing sent); `STORE` (with a store); for the
   *   task list read first, any code of a call (see {@link Client}).
   * @example
   * const { table, failures } = await client.tables.serviceReports({
   *   taskIds: [10001, 10002], startDate: '2026-11-01', concurrency: 4, errors: 'collect',
   *   onProgress: (p) => console.log(`${p.done}/${p.total}`),
   * })
   */
  serviceReports(options?: ServiceReportsOptions): Promise<ServiceReportsResult>
  /**
   * The site reports of many tasks at once, as three tables; see {@link Tables.serviceReports}.
   *
   * @param options - The tasks, `monitor`, days, `concurrency`, `onProgress`, `errors`, `signal`
   *   and `timeoutMs`.
   * @returns The {@link SiteReportsResult}: the three tables of the tasks that succeeded, and
   *   `failures`.
   * @throws {@link MonapiError}: as {@link Tables.serviceReports}.
   * @example
   * const pair = { taskIds: [20001, 20002], monitor: 0 }
   * const { availability, failures } = await client.tables.siteReports(pair)
   * const everySite = await client.tables.siteReports({ startDate: '2026-11-01' })
   */
  siteReports(options?: SiteReportsOptions): Promise<SiteReportsResult>
}
