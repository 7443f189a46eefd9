/**
 * The service's data as it sends it (its own keys and values), and the task objects a create
 * takes. Types only: nothing here exists at run time. The answers' shapes are generated from
 * core/answers.toml into answers.ts (`make answers`) and exported from here with the rest.
 */

import type { JsonValue } from './json.js'

export type { JsonValue } from './json.js'
export type * from './answers.js'

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
 * const token = await client.login()
 * console.log(token) // Token { token_type: 'bearer', expires_in: 3600, ..., access_token: '[redacted]', ... }
 * fs.writeFileSync('token.json', JSON.stringify(token)) // the full token, to resume with
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
 * const saved = { access_token: 'a1', expires_in: 3600, token_type: 'bearer', scope: null, refresh_token: 'r1' }
 * const client = new Client({ token: saved })
 */
export interface SavedToken {
  /** A secret. */
  access_token: string
  /** Lifetime of the access token in seconds, when it was issued (a number or its digits). */
  expires_in: number | string
  /** `"bearer"`. */
  token_type?: string
  /** As the service sent it (`null`). */
  scope?: JsonValue
  /** A secret; without it the token cannot be refreshed. */
  refresh_token?: string | null
  /** Unix seconds; absent or `null` when not known. */
  expires_at?: number | null
}

/** A list the service may send as an array or as an object keyed by id (a PHP keyed array). */
export type Records<T> = T[] | { [id: string]: T }

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

/**
 * `alert_setting` of a server task; a field left out takes its default (no recipients, scope 3).
 *
 * @example
 * const alert_setting = {
 *   alert: { email: ['1001', '1002'], sms: '1001' },
 *   scope: 4,
 *   user_ids: '1001,1002',
 * }
 */
export interface AlertSettingInput {
  /** Alert channels, each with the user ids that receive that kind of alert. */
  alert?: {
    /** E-mail recipients. */
    email?: Ids
    /** SMS recipients. */
    sms?: Ids
    /** MSN recipients. */
    msn?: Ids
    /** Chat recipients. */
    gtalk?: Ids
    /** Recipients of repeated (continuous) alerts. */
    remind?: Ids
  }
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
 *
 * @example
 * const [created] = await client.createServerTasks([{
 *   server_name: 'db-01', private_ip: '10.0.0.7', server_ip: '203.0.113.7',
 *   server_systype: 'linux', frequency: 10, task_type: ['cpu', 'mem'],
 * }])
 */
export interface ServerTaskInput {
  /** The server's name. */
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
  /** SNMP v3 user. */
  snmp_user?: string
  /** A secret: never printed by the SDK. */
  snmp_pass?: string
  /** `0` MD5 (default), `1` SHA. */
  snmp_authtype?: Flag | 'md5' | 'sha'
  /** Whether agent plugins are used (default no); when 1, `plugin_task_uselist_id` must name one. */
  use_agent?: Flag | boolean
  /** `plugin_task_uselist_id` values from {@link Client.agents}. */
  plugin_task_uselist_id?: Ids
  /** Who gets alerts, by which channel (default: the creator only). */
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
 *
 * @example
 * const [created] = await client.createServiceTasks([{
 *   task_name: 'redis-01', task_type: 'redis', status_url: 'http://10.0.0.9:8080/status',
 *   open_scope: 2, organization: 301,
 * }])
 */
export interface ServiceTaskInput {
  /** The task's name. */
  task_name: string
  /** The kind of service; it decides which other fields are required (the table above). */
  task_type: ServiceType
  /** Minutes between checks, 1 to 1440 (default 5). */
  frequency?: number | string | bigint
  /** Whether agent plugins are used (default no); when 1, `plugin_task_uselist_id` must name one. */
  use_agent?: Flag | boolean
  /** `plugin_task_uselist_id` values from {@link Client.agents}. */
  plugin_task_uselist_id?: Ids
  /** Who gets alerts, by which channel (default: the creator only). */
  alert_setting?: AlertSettingInput
  /** Who sees a task without alerts: `1` all enterprise users, `2` a group, `3` the creator, `4` some users. */
  open_scope?: '1' | '2' | '3' | '4' | 1 | 2 | 3 | 4
  /** The user group, with `open_scope` 2. */
  organization?: string | number
  /** The users, with `open_scope` 4. */
  user_ids?: Ids
  /** An `http://` or `https://` status page. */
  status_url?: string
  /** IPv4 or IPv6 address. */
  ip?: string
  /** 1 to 65535. */
  port?: number | string | bigint
  /** The monitoring account (mysql, tomcat, sqlserver, oracle). */
  user?: string
  /** A secret: never printed by the SDK. */
  password?: string
  /** The application or instance name (tomcat, sqlserver, oracle). */
  appname?: string
  /** The log directory (iis). */
  logPath?: string
}
