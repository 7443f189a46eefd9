/**
 * The service's data as it sends it (its own keys and values), and the task objects a create
 * takes. Types only: nothing here exists at run time.
 */

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

/**
 * An OAuth token pair, as the token endpoint issued it, plus `expires_at` (when the access
 * token expires, in unix seconds; stamped by the SDK on arrival). Save it and pass it back as
 * the `token` option to resume without logging in again.
 *
 * It is a plain object (`JSON.stringify`, spreading and deep equality see only the fields
 * below), but `console.log(token)` / `util.inspect(token)` show only its type and expiry,
 * never the two secrets. What bypasses custom inspection prints everything: a copy made by
 * spreading, `console.dir(token)`, `util.inspect(token, { customInspect: false })`.
 *
 * @example
 * ```js
 * const token = await client.login()
 * console.log(token) // Token { token_type: 'bearer', expires_in: 3600, ..., access_token: '[redacted]', ... }
 * fs.writeFileSync('token.json', JSON.stringify(token)) // the full token, to resume with
 * ```
 */
export interface Token {
  /** Sent as `access_token` with every call. A secret. */
  access_token: string
  /** Lifetime of the access token in seconds (3600 in the service's examples). */
  expires_in: number
  /** `"bearer"`. */
  token_type: string
  /** `null` in the service's answers. */
  scope: JsonValue
  /** Used to get a new access token without the password. A secret. */
  refresh_token: string | null
  /** When the access token expires (unix seconds); `null` for a saved token that lacks it. */
  expires_at: number | null
}

/**
 * A token to resume with (the `token` option of {@link Client}): a {@link Token} from
 * `login()`, `refresh()`, `client.token` or `onToken`, or the token endpoint's answer saved
 * as it came, without `expires_at` (such a token is used until the service rejects it, then
 * renewed). Only `access_token` and `expires_in` are required; `expires_in` may be a string,
 * as the service's documentation types it.
 *
 * @example
 * ```js
 * const saved = { access_token: 'a1', expires_in: 3600, token_type: 'bearer', scope: null, refresh_token: 'r1' }
 * const client = new Client({ token: saved })
 * ```
 */
export interface SavedToken {
  /** A secret. */
  access_token: string
  expires_in: number | string
  token_type?: string
  scope?: JsonValue
  /** A secret; without it the token cannot be refreshed. */
  refresh_token?: string | null
  /** Unix seconds; absent or `null` when not known. */
  expires_at?: number | null
}

/** One service monitoring task of the service task list (all values are strings). */
export interface ServiceTask {
  /** Task id, e.g. `"10001"`; pass it to {@link Client.serviceReport}. */
  task_id: string
  task_name: string
  /** Kind of service: apache, nginx, lighttpd, memcache, mongodb, mysql, redis, tomcat, ... */
  task_type: string
  /** Minutes between checks, e.g. `"5"`. */
  frequency: string
  /** Time of the last check, `YYYY-MM-DD HH:MM:SS`. */
  last_check_time: string
  /** Status text (the service's word for enabled is `启用`). */
  task_status: string
}

/**
 * One site monitoring task of the site task list, as sent (values are strings). The service
 * does not publish these fields; they are those of the API's other generations, and any
 * other field it sends is kept.
 */
export interface SiteTask {
  /** Task id, e.g. `"20001"`; pass it to {@link Client.siteReport}. */
  task_id: string
  task_name?: string
  /** What it checks (its address, for a web site). */
  task_summary?: string
  /** Kind of check: `http`, `https`, `ping`, `dns`, ... */
  task_type?: string
  /** `YYYY-MM-DD HH:MM:SS`. */
  task_create_time?: string
  /** Minutes between checks, e.g. `"5"`. */
  frequency?: string
  task_status?: string
  group_id?: string
  /** Response time of the last check, milliseconds (e.g. `"163.735571"`). */
  last_resp_time?: string
  /** `"1"`: the last check succeeded. */
  last_resp_result?: string
  /** e.g. `"HTTP OK"`. */
  last_resp_status?: string
  threshold_result?: string
  /** `YYYY-MM-DD HH:MM:SS`. */
  last_check_time?: string
  [field: string]: JsonValue | undefined
}

/** One site task's settings ({@link Client.siteTask}): the listed fields and the points it uses. */
export interface SiteTaskSettings extends SiteTask {
  monitors?: Array<{ monitor_id: string; monitor_name: string }>
}

/** A list the service may send as an array or as an object keyed by id (a PHP keyed array). */
export type Records<T> = T[] | { [id: string]: T }

/** A monitoring point of the account (its id keys site reports). */
export interface MonitorPoint {
  monitor_id: string
  /** City and carrier, e.g. `陕西西安电信`. */
  monitor_name?: string
  isp_id?: string
  /** The carrier, e.g. `电信`. */
  isp_name?: string
  location_code?: string
  location_name?: string
  china_region?: string
  world_region?: string
  [field: string]: JsonValue | undefined
}

/** A user of the account (its id is what `alert_setting` names). */
export interface User {
  user_id: string
  user_email?: string
  user_name?: string
  /** `"0"` paused, `"1"` normal, `"2"` deleted. */
  user_status?: string
  mobile?: string
  telephone?: string
  /** Unix seconds. */
  signup_time?: string
  last_visit_time?: string
  /** `"1"` administrator, `"2"` advanced, `"3"` read-only. */
  role_id?: string
  organization?: Array<{ organization_id: string; organization_name: string }>
  [field: string]: JsonValue | undefined
}

/** A user group (its id is what `organization` names). */
export interface UserGroup {
  organization_id: string
  organization_name?: string
  parent_organization_id?: string
  user_num?: string
  [field: string]: JsonValue | undefined
}

/** A plugin of an agent. */
export interface Plugin {
  plugin_id: string
  plugin_name: string
  /** Put this value in {@link ServerTaskInput.plugin_task_uselist_id} to use the plugin. */
  plugin_task_uselist_id: string
}

/** A collector agent. */
export interface Agent {
  name: string
  /** Download addresses; each URL embeds a per-agent key. */
  agentUrl: { windows: string; linux: string }
  plugin: Plugin[]
}

/** The agent list: agent id to agent, in the service's order. */
export interface Agents {
  [agentId: string]: Agent
}

/**
 * One check of a service report series: `time` (`HH:MM`, where the service sends one) and
 * the series' fields, values as strings (e.g. `{ time: "00:05", rps: "12.50" }`).
 */
export interface ServiceRecord {
  time?: string
  [field: string]: string | undefined
}

/** The series of a service task report: series name to its records, one per check. */
export interface ServiceReportSeries {
  [series: string]: ServiceRecord[]
}

/**
 * A service task report: series name (depends on the service type, e.g. `apache_rps`) to its
 * records, one per check. An empty report may arrive as `[]` (the service is PHP, whose empty
 * map is a JSON array); `Object.entries(report)` works on either form.
 */
export type ServiceReport = ServiceReportSeries | []

/** Response times at one check (decimal strings; milliseconds, very likely). */
export interface ResponseTime {
  resptime_max: string
  resptime_avg: string
  resptime_min: string
  resp_process_time: string
  resp_connect_time: string
  resp_dns_time: string
  resp_download_time: string
}

/** One fault of a monitoring point (all strings). */
export interface FaultRecord {
  /** Unix timestamp. */
  start_time: string
  /** Unix timestamp, or a text meaning the fault has not ended. */
  end_time: string
  diff_time: string
  fault_status: string
  current_fault_period: string
}

/** The faults of a monitoring point: records under `"0"`, `"1"`, ... plus their `count`. */
export interface Faults {
  count: number
  [index: string]: FaultRecord | number
}

/** The data of one monitoring point in a site report. */
export interface MonitoringPoint {
  /** Point name (`平均`, "average", for point `0`). */
  name: string
  /** Availability per check time (unix timestamp string). */
  uprate: { [time: string]: { uprate: string } }
  /** `null` when there was no fault. */
  fault: Faults | null
  /** Response times per check time (unix timestamp string). */
  resptime: { [time: string]: ResponseTime }
}

/** A site task report: monitoring-point id to its data; `"0"` is the average of all points. */
export interface SiteReport {
  [pointId: string]: MonitoringPoint
}

/**
 * A bucket of the response-time distribution. The service's examples send `start`, `end` and
 * `count` as JSON numbers, its documentation calls them strings: either arrives as sent.
 */
export interface Bucket {
  /** Bucket start, milliseconds (a number, or a string of digits). */
  start: number | string
  /** Bucket end, milliseconds (a number, or a string of digits). */
  end: number | string
  /** Checks whose response time fell in the bucket (a number, or a string of digits). */
  count: number | string
  /** Share of all checks, percent with two decimals, e.g. `"11.81"`. */
  percent: string
}

/** The response-time distribution: bucket lower bound (ms, as a string) to bucket. */
export interface Distribution {
  [lowerBound: string]: Bucket
}

/** One created task of a create batch. */
export interface CreatedTask {
  /** The new task's id: a JSON number in the service's examples, possibly a string. */
  task_id: number | string
}

/**
 * An id: a whole number (above 0 for a task; `0` is the average monitoring point), a string of
 * its digits (as the service sends them), or a bigint. A number past 2^53 - 1 is refused (it
 * may have been rounded): give such an id as a string or a bigint.
 */
export type Id = number | string | bigint

/** A day: a `Date` (its local calendar day) or a `"YYYY-MM-DD"` string. */
export type Day = Date | string

/** A `0`/`1` code, as a string or a number. */
export type Flag = '0' | '1' | 0 | 1

/** An indicator a server task can monitor. */
export type Indicator =
  | 'cpu'
  | 'load'
  | 'mem'
  | 'netio'
  | 'diskstore'
  | 'procsum'
  | 'diskio'
  | 'cpu_windows'
  | 'mem_windows'

/** User ids: one comma-separated string, a number, or a list. */
export type Ids = string | number | Array<string | number>

/** `alert_setting` of a server task; a field left out takes its default (no recipients, scope 3). */
export interface AlertSettingInput {
  /** Alert channels, each with the user ids that receive that kind of alert. */
  alert?: { email?: Ids; sms?: Ids; msn?: Ids; gtalk?: Ids; remind?: Ids }
  /** `1` all enterprise users, `2` a user group, `3` only the creator (default), `4` selected users. */
  scope?: '1' | '2' | '3' | '4' | 1 | 2 | 3 | 4
  /** The user group; required when `scope` is 2. */
  organization?: string | number
  /** The users; required when `scope` is 4. */
  user_ids?: Ids
}

/**
 * A server monitoring task for {@link Client.createServerTasks}, with the service's keys.
 * Values may be given as strings (as the service takes them) or as numbers, bigints and
 * booleans. Only `server_name`, `private_ip`, `server_ip` and `server_systype` are required:
 * every other field left out takes the default of the Rust core's `ServerTask::new` (frequency
 * 5, SNMP v2c on port 161 with community `public`, no agent plugins, alerts for the creator
 * only, every indicator the system allows; the table is in that function's documentation).
 * A key the service does not know is refused (a misspelt field would otherwise take its
 * default unnoticed). The SDK checks every rule of the service before sending and names every
 * problem (`err.errors`).
 */
export interface ServerTaskInput {
  server_name: string
  /** The server's IP address (IPv4 or IPv6). */
  private_ip: string
  /** The IP address SNMP is polled on. */
  server_ip: string
  /** `0` linux, `1` windows (or `"linux"`, `"windows"`). */
  server_systype: Flag | 'linux' | 'windows'
  /** Minutes between checks, 1 to 1440 (default 5). */
  frequency?: number | string | bigint
  /** SNMP port, 1 to 65535 (default 161). */
  snmp_port?: number | string | bigint
  /** `0` SNMP v2c (default; needs `snmp_comm`), `1` SNMP v3 (needs `snmp_user`, `snmp_pass`). */
  snmp_v?: Flag | 'v2c' | 'v3'
  /** Community (default `public`). */
  snmp_comm?: string
  snmp_user?: string
  /** A secret: never printed by the SDK. */
  snmp_pass?: string
  /** `0` MD5 (default), `1` SHA. */
  snmp_authtype?: Flag | 'md5' | 'sha'
  /** Whether agent plugins are used (default no); when 1, `plugin_task_uselist_id` must name one. */
  use_agent?: Flag | boolean
  /** `plugin_task_uselist_id` values from {@link Client.agents}. */
  plugin_task_uselist_id?: Ids
  alert_setting?: AlertSettingInput
  /** Indicators to monitor (default: every one the system type allows); each must be allowed for it. */
  task_type?: Indicator[] | Indicator
}

/** The kinds of service a service task monitors. */
export type ServiceType =
  | 'apache'
  | 'lighttpd'
  | 'nginx'
  | 'mongodb'
  | 'redis'
  | 'memcache'
  | 'mysql'
  | 'tomcat'
  | 'iis'
  | 'sqlserver'
  | 'oracle'

/**
 * A service monitoring task for {@link Client.createServiceTasks}, with the service's keys.
 * `task_name` and `task_type` are required, with the fields of that type:
 *
 * | task_type | fields |
 * |---|---|
 * | apache, lighttpd, nginx, mongodb, redis, memcache | `status_url` |
 * | mysql | `ip`, `port`, `user`, `password` |
 * | tomcat | `status_url`, `user`, `password`, `appname` |
 * | iis | `logPath` |
 * | sqlserver | `ip`, `port`, `user`, `password`, `appname` |
 * | oracle | `user`, `password`, `appname` |
 *
 * Alerts: `alert_setting` (as a server task's; default: the creator only) or, without alerts,
 * `open_scope` with `organization` (scope 2) or `user_ids` (scope 4). The SDK checks every rule
 * before sending and names every problem (`err.errors`).
 */
export interface ServiceTaskInput {
  task_name: string
  task_type: ServiceType
  /** Minutes between checks, 1 to 1440 (default 5). */
  frequency?: number | string | bigint
  use_agent?: Flag | boolean
  plugin_task_uselist_id?: Ids
  alert_setting?: AlertSettingInput
  /** Who sees a task without alerts: `1` all enterprise users, `2` a group, `3` the creator, `4` some users. */
  open_scope?: '1' | '2' | '3' | '4' | 1 | 2 | 3 | 4
  organization?: string | number
  user_ids?: Ids
  /** An `http://` or `https://` status page. */
  status_url?: string
  /** IPv4 or IPv6 address. */
  ip?: string
  /** 1 to 65535. */
  port?: number | string | bigint
  user?: string
  /** A secret: never printed by the SDK. */
  password?: string
  appname?: string
  logPath?: string
}
