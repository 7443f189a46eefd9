/**
 * monapi: a client for the monitoring service API (OAuth tokens, batch creation of server
 * tasks, service tasks, agents, service and site reports, response-time distributions), with
 * a bundled emulator of the service for tests and offline work.
 *
 * Every operation returns a Promise of plain objects with the API's own keys and values,
 * exactly as the service sent them. Every failure is a {@link MonapiError} with a stable
 * `code`.
 *
 * @example
 * ```js
 * import { Client } from 'monapi'
 * const client = new Client() // MONAPI_BASE_URL, MONAPI_CLIENT_ID, ... from the environment
 * for await (const task of client.iterServiceTasks()) console.log(task.task_id, task.task_name)
 * ```
 *
 * @packageDocumentation
 */

// ---------------------------------------------------------------------------------------
// Data shapes (the service's own keys)
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/**
 * The stable codes of {@link MonapiError}. `AUTH_INVALID_CLIENT` / `AUTH_INVALID_GRANT`: the
 * token endpoint refused the client credentials / the account or refresh token;
 * `AUTH_ERROR`: another OAuth error (e.g. a fresh token rejected with `invalid_token`);
 * `API_ERROR`: the service answered with an error; `PARTIAL_CREATE`: some tasks of a create
 * batch failed, all others were created; `INVALID_INPUT`: bad input, nothing was sent;
 * `TIMEOUT`; `CONNECTION`; `DECODE`: the answer is not the JSON expected; `ABORTED`: the
 * call's `signal` aborted it; `PARTIAL_RESULT`: some tasks of a bulk table call failed (the
 * error carries `result` and `failures`); `INTERNAL`: a bug in the native module (a panic),
 * reported as an error instead of a crash.
 */
export type MonapiErrorCode =
  | 'AUTH_INVALID_CLIENT'
  | 'AUTH_INVALID_GRANT'
  | 'AUTH_ERROR'
  | 'API_ERROR'
  | 'PARTIAL_CREATE'
  | 'INVALID_INPUT'
  | 'TIMEOUT'
  | 'CONNECTION'
  | 'DECODE'
  | 'ABORTED'
  | 'PARTIAL_RESULT'
  | 'INTERNAL'

/** Every code, in a frozen array. */
export declare const ERROR_CODES: readonly MonapiErrorCode[]

/** One problem of invalid input: where (a task's index in a create batch), which field, what rule. */
export interface ValidationProblem {
  /** The task's index in the caller's batch, or `null` for an option or parameter. */
  index: number | null
  /** The option, parameter or task field at fault (task fields keep the service's names). */
  field: string
  /** The rule it breaks. */
  rule: string
}

/** The fields of a {@link MonapiError} besides its message. */
export interface MonapiErrorFields {
  code?: MonapiErrorCode
  status?: number | null
  apiCode?: number | string | null
  errKey?: string | null
  errContent?: string | null
  failedIndex?: number | null
  failedIndices?: number[] | null
  submitted?: number | null
  created?: number | null
  field?: string | null
  index?: number | null
  errors?: ValidationProblem[] | null
  endpoint?: string | null
  retryAfterMs?: number | null
  timeoutMs?: number | null
  failures?: TaskFailure[] | null
  result?: unknown
}

/**
 * Every error of the package. Branch on {@link MonapiError.code}; the other fields are set
 * where they apply and `null` elsewhere. Messages never hold a secret (tokens, password, its
 * MD5, client secret).
 *
 * @example
 * ```js
 * import { MonapiError } from 'monapi'
 * try {
 *   await client.createServerTasks(tasks)
 * } catch (err) {
 *   if (err instanceof MonapiError && err.code === 'PARTIAL_CREATE') {
 *     console.log(`task ${err.failedIndex} failed: ${err.errContent}; the others were created`)
 *   } else throw err
 * }
 * ```
 */
export declare class MonapiError extends Error {
  /**
   * Builds an error (the package creates them; this is for tests and wrappers).
   *
   * @example
   * ```js
   * const err = new MonapiError('invalid input: `page` must be 1 or more', { code: 'INVALID_INPUT', field: 'page' })
   * ```
   */
  constructor(message: string, fields?: MonapiErrorFields)
  /** The stable category; see {@link MonapiErrorCode}. */
  readonly code: MonapiErrorCode
  /** HTTP status of the service's answer, where there was one (400 for `PARTIAL_CREATE`). */
  readonly status: number | null
  /** The service's own code: the number of a `{code, msg}` body, or the OAuth `error` string. */
  readonly apiCode: number | string | null
  /** `PARTIAL_CREATE`: the service's `err_key`, naming the failed line(s). */
  readonly errKey: string | null
  /** `PARTIAL_CREATE`: the service's `err_content`, why the line failed. */
  readonly errContent: string | null
  /** The failed task's index in the caller's batch (`PARTIAL_CREATE`, `INVALID_INPUT`). */
  readonly failedIndex: number | null
  /** `PARTIAL_CREATE`: every failed index (empty when `err_key` is not a list of indexes). */
  readonly failedIndices: number[] | null
  /** `PARTIAL_CREATE`: how many tasks the batch held. */
  readonly submitted: number | null
  /** `PARTIAL_CREATE`: how many were created. */
  readonly created: number | null
  /** `INVALID_INPUT`: the option, parameter or task field at fault (the first problem's). */
  readonly field: string | null
  /** `INVALID_INPUT`: the index of the task in a create batch (the first problem's). */
  readonly index: number | null
  /**
   * `INVALID_INPUT`: every problem found, the first one first (the one `field`, `index` and
   * the message name). A create batch is checked whole, task by task, each task's fields in
   * the order the service checks them.
   */
  readonly errors: ValidationProblem[] | null
  /** The operation, as its path template, e.g. `GET /v2/agent/lists.json`. */
  readonly endpoint: string | null
  /** `API_ERROR`: how long the service asked to wait (`Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | null
  /** `TIMEOUT`: the timeout that ran out, in milliseconds. */
  readonly timeoutMs: number | null
  /** `PARTIAL_RESULT`: every task that failed, with its error. */
  failures: TaskFailure[] | null
  /**
   * `PARTIAL_RESULT`: what the call would have resolved with (the tables of the tasks that
   * succeeded, and `failures`): a {@link ServiceReportsResult} or a {@link SiteReportsResult}.
   */
  result: unknown
}

// ---------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------

/**
 * Options of {@link Client}. Unset values fall back to the environment: `MONAPI_BASE_URL`,
 * `MONAPI_CLIENT_ID`, `MONAPI_CLIENT_SECRET`, `MONAPI_USERNAME`, `MONAPI_PASSWORD`.
 */
export interface ClientOptions {
  /** Where the service is, e.g. `https://api.example.com` (the `/v2/...` paths are added). */
  baseUrl?: string
  /** The registered client's id. */
  clientId?: string
  /** The registered client's secret. */
  clientSecret?: string
  /** The account login (an e-mail address). */
  username?: string
  /** The account password in plain text; the SDK sends its lowercase hex MD5. */
  password?: string
  /** The password already hashed: 32 hexadecimal characters (instead of `password`). */
  passwordMd5?: string
  /**
   * A saved token to resume with: an object from `login()`/`client.token`/`onToken`, the
   * token endpoint's answer as saved (without `expires_at`), or the JSON text of either.
   */
  token?: SavedToken | string | null
  /**
   * Called with every new token (login, refresh, re-login), e.g. to save it. It runs on the
   * main thread shortly after the token arrives (possibly after the call that caused it has
   * resolved); it never keeps the process alive and is not called after `close()`. A throw or
   * a rejected Promise from it becomes a process warning (`MONAPI_ON_TOKEN`), not a crash.
   */
  onToken?: (token: Token) => void | Promise<void>
  /** Overall timeout of one HTTP exchange, in milliseconds: more than 0, at most 2^31 - 1 (default 30000). */
  timeoutMs?: number
  /** Timeout for making a connection, in milliseconds: more than 0, at most 2^31 - 1 (default 10000). */
  connectTimeoutMs?: number
  /**
   * Retries of a read after a transient failure (a connection that failed or broke, a body cut
   * short, 429, 500, 502, 503, 504, a 2xx error page instead of JSON): 0 to 100 (default 2).
   */
  maxRetries?: number
  /** The `User-Agent` header (default `monapi-node/<version>`). */
  userAgent?: string
  /**
   * CA certificates to trust besides the system's store: the path of a PEM file, or the PEM
   * text as a Buffer (a company's own CA, a TLS-inspecting proxy's). The files named by
   * `MONAPI_CA_BUNDLE`, `SSL_CERT_FILE`, `NODE_EXTRA_CA_CERTS` and the directories of
   * `SSL_CERT_DIR` are trusted too. A file that does not exist or holds no certificate is an
   * `INVALID_INPUT` error at construction.
   *
   * @example
   * ```js
   * const client = new Client({ caBundle: '/etc/company/ca.pem' }) // and MONAPI_* variables
   * ```
   */
  caBundle?: string | Uint8Array
  /**
   * The proxy for every call (`http://` or `https://`, with `user:password@` if it needs them;
   * HTTPS goes through it with `CONNECT`); `false` means no proxy even when the environment
   * names one. Unset, the environment decides: `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and
   * `NO_PROXY` (upper or lower case). The password never appears in an error or log.
   */
  proxy?: string | false
  /**
   * The most connections the client uses at once to the service, 1 to 10000 (default 100):
   * at most this many calls are in flight, each on its own connection. Calls beyond it wait
   * for a free connection; the wait counts toward `timeoutMs`.
   */
  maxConnections?: number
  /**
   * The service's time zone, as an offset from UTC (`+08:00`, `-05:30`, `UTC`); default
   * `+08:00`, China Standard Time. It says which instant a report's day and `HH:MM` are, in
   * the tables, and which day "today" is.
   */
  timezone?: string
  /**
   * How much the client logs to {@link ClientOptions.logger}: `'off'`, `'error'`, `'warn'`,
   * `'info'` or `'debug'` (each request, retry and token renewal). Default: the
   * `MONAPI_LOG` environment variable, else `'warn'`. Secrets never appear in a log line.
   */
  logLevel?: LogLevel
  /**
   * Receives the client's log lines (`monapi: ...`), each by the method of its level; default
   * `console`. Lines arrive on the main thread shortly after the event; logging never blocks
   * a call and never keeps the process alive.
   */
  logger?: Logger
}

/** A level of {@link ClientOptions.logLevel}. */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug'

/** Anything with console's logging methods (`console`, pino, winston...). */
export interface Logger {
  error(message: string): unknown
  warn(message: string): unknown
  info(message: string): unknown
  debug(message: string): unknown
}

/**
 * What every call takes besides its own options: a `signal` to abort it and its own timeout.
 */
export interface CallOptions {
  /**
   * Aborts the call: its Promise rejects at once with an `ABORTED` {@link MonapiError}, and
   * the request in flight (for a bulk call, every task still to come) is dropped. A signal
   * already aborted rejects before anything is sent.
   */
  signal?: AbortSignal
  /** This call's timeout of each HTTP exchange, in milliseconds (instead of the client's `timeoutMs`). */
  timeoutMs?: number
}

/** A period of whole days; an omitted date means the current day (the service's default). */
export interface DateRangeOptions extends CallOptions {
  startDate?: Day
  endDate?: Day
}

/** Options of {@link Client.siteReport}. */
export interface SiteReportOptions extends DateRangeOptions {
  /** Unset: every monitoring point and the average; `0`: only the average; `n`: point `n`. */
  monitor?: Id
}

/** Options of {@link Client.request}. */
export interface RequestOptions extends CallOptions {
  /** `GET` (retried as reads are) or `POST` (never repeated once it may have reached the service). */
  method: 'GET' | 'POST' | 'get' | 'post'
  /** The path under the base URL, e.g. `/v2/site/lists.json` (no scheme, host or query). */
  path: string
  /** Query parameters (never `access_token`: the client adds it). */
  query?: Record<string, string | number | bigint>
  /** Form fields of a POST (`application/x-www-form-urlencoded`). */
  form?: Record<string, string | number | bigint>
}

/** Options of {@link Client.serviceTasks}. */
export interface PageOptions extends CallOptions {
  /** Page number, from 1 (default 1); a page holds up to {@link PAGE_SIZE} tasks. */
  page?: number
}

/**
 * A client of the monitoring service. Safe under heavy concurrency: all calls share one
 * connection pool and one token, and however many calls run at once, only one token request
 * is in flight. Tokens look after themselves: the first call logs in, a token is renewed
 * shortly before it expires, and a rejected one is renewed once and the call repeated once.
 * Reads are retried after transient failures (a connection that failed or broke, a body cut
 * short, 429, 500, 502, 503, 504, a 2xx error page instead of JSON), honouring `Retry-After`.
 *
 * The HTTP work runs on a small native thread pool (one thread per core less one, at least
 * one; set `MONAPI_NODE_THREADS` to change it); answers are parsed with `JSON.parse` on the
 * main thread.
 *
 * @example
 * ```js
 * import { Client } from 'monapi'
 * const client = new Client({
 *   baseUrl: 'https://api.example.com',
 *   clientId: 'demo_id',
 *   clientSecret: process.env.MONAPI_CLIENT_SECRET,
 *   username: 'test@example.com',
 *   password: process.env.MONAPI_PASSWORD,
 * })
 * const agents = await client.agents()
 * await client.close()
 * ```
 */
export declare class Client {
  /**
   * Builds a client; no request is made. Options not given are read from the `MONAPI_*`
   * environment variables.
   *
   * @throws {MonapiError} `INVALID_INPUT` naming the option at fault.
   * @example
   * ```js
   * const client = new Client({ timeoutMs: 5000, onToken: (token) => save(token) })
   * ```
   */
  constructor(options?: ClientOptions)

  /**
   * The current token, or `null` before the first login (and after `close()`).
   *
   * @example
   * ```js
   * await client.login()
   * fs.writeFileSync('token.json', JSON.stringify(client.token))
   * ```
   */
  get token(): Token | null

  /**
   * The service's base URL.
   *
   * @example
   * ```js
   * console.log(client.baseUrl) // 'http://127.0.0.1:8080'
   * ```
   */
  get baseUrl(): string

  /**
   * The service's time zone ({@link ClientOptions.timezone}), e.g. `+08:00`.
   *
   * @example
   * ```js
   * console.log(client.timezone) // '+08:00'
   * ```
   */
  get timezone(): string

  /**
   * The calls that return the service's data as typed tables ({@link Tables}).
   *
   * @example
   * ```js
   * const report = await client.tables.serviceReport(10001, { startDate: '2026-11-01' })
   * const values = report.column('value') // Float64Array
   * ```
   */
  get tables(): Tables

  /**
   * Whether {@link Client.close} was called.
   *
   * @example
   * ```js
   * await client.close(); console.log(client.closed) // true
   * ```
   */
  get closed(): boolean

  /**
   * Logs in with the password grant now and resolves with the new token. (Not needed before
   * other calls: the first call logs in by itself.)
   *
   * @throws {MonapiError} `AUTH_INVALID_CLIENT`, `AUTH_INVALID_GRANT`, `INVALID_INPUT` (no password).
   * @example
   * ```js
   * const token = await client.login()
   * console.log(`expires in ${token.expires_in} s`)
   * ```
   */
  login(options?: CallOptions): Promise<Token>

  /**
   * Gets a new token with the refresh grant now and resolves with it.
   *
   * @throws {MonapiError} `AUTH_INVALID_GRANT` (refresh token refused), `INVALID_INPUT` (no token yet).
   * @example
   * ```js
   * const token = await client.refresh()
   * ```
   */
  refresh(options?: CallOptions): Promise<Token>

  /**
   * Creates server monitoring tasks in one batch. The whole batch is checked against the
   * service's rules first (nothing is sent if a task fails one). A field left out takes the
   * default of the Rust core's `ServerTask::new` (see {@link ServerTaskInput}). Never retried
   * once it may have reached the service.
   *
   * @throws {MonapiError} `INVALID_INPUT` with `errors` (every problem: `index`, `field`,
   *   `rule`) and the first one's `index` and `field`; `PARTIAL_CREATE` with
   *   `failedIndex`/`failedIndices` when some lines failed (all others were created).
   * @example
   * ```js
   * const created = await client.createServerTasks([{
   *   server_name: 'web-01', private_ip: '192.168.1.10', server_ip: '203.0.113.10',
   *   server_systype: 0, frequency: 5, task_type: ['cpu', 'mem'],
   * }])
   * console.log(created[0].task_id)
   * ```
   */
  createServerTasks(tasks: ServerTaskInput[], options?: CallOptions): Promise<CreatedTask[]>

  /**
   * One page (from 1) of the service task list; a page holds up to {@link PAGE_SIZE} tasks.
   *
   * @example
   * ```js
   * const firstPage = await client.serviceTasks()
   * const second = await client.serviceTasks({ page: 2 })
   * ```
   */
  serviceTasks(options?: PageOptions): Promise<ServiceTask[]>

  /**
   * Every service task, page after page (fetched as the iteration goes); stops after the
   * first page with fewer than {@link PAGE_SIZE} tasks. An empty page, however the service
   * writes it (`[]`, `{}` or `null`), ends the iteration.
   *
   * @throws {MonapiError} `DECODE` (with `endpoint`) when a page is neither a list nor empty.
   * @example
   * ```js
   * for await (const task of client.iterServiceTasks()) {
   *   console.log(task.task_id, task.task_type)
   * }
   * ```
   */
  iterServiceTasks(options?: CallOptions): AsyncGenerator<ServiceTask, void, undefined>

  /**
   * The collector agents, keyed by agent id, with their plugins.
   *
   * @example
   * ```js
   * for (const [id, agent] of Object.entries(await client.agents())) {
   *   console.log(id, agent.name, agent.plugin.length)
   * }
   * ```
   */
  agents(options?: CallOptions): Promise<Agents>

  /**
   * The report of a service task over whole days (default: today).
   *
   * @throws {MonapiError} `API_ERROR` (e.g. status 404 for an unknown task), `INVALID_INPUT` (bad dates).
   * @example
   * ```js
   * const report = await client.serviceReport('10001', { startDate: '2026-11-01', endDate: new Date() })
   * for (const [series, records] of Object.entries(report)) console.log(series, records.length)
   * ```
   */
  serviceReport(taskId: Id, options?: DateRangeOptions): Promise<ServiceReport>

  /**
   * The report of a site task: availability, faults and response times per monitoring point.
   * `monitor` unset: all points (and the average `"0"`); `0`: only the average; `n`: point n.
   *
   * @example
   * ```js
   * const report = await client.siteReport(20001, { monitor: 0 })
   * console.log(report['0'].name, Object.keys(report['0'].uprate).length)
   * ```
   */
  siteReport(taskId: Id, options?: SiteReportOptions): Promise<SiteReport>

  /**
   * The response-time distribution of a site task over whole days (default: today).
   *
   * @example
   * ```js
   * const buckets = await client.responseTimeDistribution(20001, { startDate: '2026-11-20' })
   * for (const b of Object.values(buckets)) console.log(`${b.start}-${b.end} ms: ${b.percent} %`)
   * ```
   */
  responseTimeDistribution(taskId: Id, options?: DateRangeOptions): Promise<Distribution>

  /**
   * Calls any operation of the service by its method and path, for those without a method of
   * their own (the site task list, monitoring points, users, user groups...), with the same
   * token management, retries of reads and errors as the other methods. Resolves with the
   * answer's JSON exactly as the service sent it.
   *
   * @throws {MonapiError} `INVALID_INPUT` (nothing sent) for a method other than GET or POST,
   * a path that does not start with `/` or holds a host or query, or `access_token` given.
   * @example
   * ```js
   * const sites = await client.request({ method: 'GET', path: '/v2/site/lists.json', query: { page: 1 } })
   * ```
   */
  request(options: RequestOptions): Promise<JsonValue>

  /**
   * Releases the client: later calls reject with `INVALID_INPUT`, and `onToken` is not called
   * again. Calls already in flight finish.
   *
   * @example
   * ```js
   * try { await client.agents() } finally { await client.close() }
   * ```
   */
  close(): Promise<void>
}

// ---------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------

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

/**
 * The typed array {@link Table.column} gives for a column whose rows hold `T`: ids
 * (`task_id`) as a `BigUint64Array` (exact); every other number and every time as a
 * `Float64Array` (times in milliseconds since the epoch, as `Date.getTime()`; null as `NaN`);
 * texts and booleans as arrays (null as `null`).
 */
export type ColumnOf<K, T> = K extends 'task_id'
  ? BigUint64Array
  : [T] extends [number | null]
    ? Float64Array
    : [T] extends [Date | null]
      ? Float64Array
      : Array<T>

/** A column's name, its Arrow type (e.g. `Timestamp(s, "+08:00")`) and whether it holds nulls. */
export interface TableField {
  readonly name: string
  readonly type: string
  readonly nullable: boolean
}

/** The columns of a {@link Table}, in order. */
export interface TableSchema {
  readonly fields: readonly TableField[]
}

/**
 * A table of the service's data, built once by the Rust core (numbers parsed, times read in
 * the service's time zone, nulls where the service sent nothing usable) and held in native
 * memory. Read it as rows, as typed columns, or as Arrow IPC bytes for apache-arrow,
 * nodejs-polars, DuckDB or any other reader of the Arrow IPC stream format. Made by the calls of
 * {@link Client.tables}.
 *
 * @example
 * ```js
 * const report = await client.tables.serviceReport(10001, { startDate: '2026-11-01', endDate: '2026-11-30' })
 * console.log(report.numRows, report.schema.fields.map((f) => f.name))
 * const values = report.column('value') // Float64Array, NaN where null
 * ```
 */
export declare class Table<Row extends object = Record<string, unknown>> {
  private constructor()
  /**
   * How many rows.
   *
   * @example
   * ```js
   * console.log(table.numRows)
   * ```
   */
  get numRows(): number
  /**
   * The columns' names and Arrow types, in order.
   *
   * @example
   * ```js
   * for (const field of table.schema.fields) console.log(field.name, field.type)
   * ```
   */
  get schema(): TableSchema
  /**
   * The rows as plain objects keyed by column: numbers, `Date`s for times, `null` where a
   * value is missing (ids as numbers: exact up to 2^53; {@link Table.column} gives them exactly).
   * Consecutive rows of the same instant (the metrics of one record) share one `Date` object:
   * treat the Dates as values and do not mutate them.
   *
   * @example
   * ```js
   * for (const row of table.toRows()) console.log(row.time?.toISOString(), row.metric, row.value)
   * ```
   */
  toRows(): Row[]
  /**
   * One column as a typed array (see {@link ColumnOf}); a fresh copy at each call.
   *
   * @throws {MonapiError} `INVALID_INPUT` for a name that is not a column.
   * @example
   * ```js
   * const values = table.column('value')
   * let sum = 0
   * for (const v of values) if (!Number.isNaN(v)) sum += v
   * ```
   */
  column<K extends keyof Row & string>(name: K): ColumnOf<K, Row[K]>
  /**
   * The table in the Arrow IPC stream format, for apache-arrow (`tableFromIPC`),
   * nodejs-polars (`pl.readIPCStream`, which takes a `Buffer`: `Buffer.from(bytes.buffer,
   * bytes.byteOffset, bytes.byteLength)` shares the memory), DuckDB (`@duckdb/duckdb-wasm`'s
   * `connection.insertArrowFromIPCStream(bytes, { name })`) or any other reader of the format.
   *
   * @example
   * ```js
   * import { tableFromIPC } from 'apache-arrow'
   * const arrow = tableFromIPC(table.toArrowIPC())
   * ```
   */
  toArrowIPC(): Uint8Array
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

/** A task of a bulk call that failed, and why. */
export interface TaskFailure {
  taskId: number
  error: MonapiError
}

/** Options of the bulk calls. */
export interface BulkOptions extends DateRangeOptions {
  /** Tasks fetched at once: 1 to 256 (default 8). */
  concurrency?: number
  /** Called with the progress (on the main thread, shortly after each task). */
  onProgress?: (progress: BulkProgress) => void
  /**
   * `'throw'` (default): when a task fails, the call rejects with a `PARTIAL_RESULT`
   * {@link MonapiError} carrying `result` (the tables of every task that succeeded) and
   * `failures`; `'collect'`: the call resolves with both.
   */
  errors?: 'throw' | 'collect'
}

/** Options of {@link Tables.serviceReports}. */
export interface ServiceReportsOptions extends BulkOptions {
  /** The service tasks (default: every task of the list, read first). */
  taskIds?: Id[]
}

/** Options of {@link Tables.siteReports}. */
export interface SiteReportsOptions extends BulkOptions {
  /** The site tasks. */
  taskIds: Id[]
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
   * ```
   */
  siteReports(options: SiteReportsOptions): Promise<SiteReportsResult>
}

// ---------------------------------------------------------------------------------------
// Emulator
// ---------------------------------------------------------------------------------------

/** A kind of injected fault. */
export type FaultKind = 'error500' | 'error503' | 'error429' | 'dropConnection' | 'truncatedBody' | 'malformedBody'

/**
 * Faults injected into the emulator's answers. `next` is served first, one fault per
 * request in order; after it, each request gets a fault with the given share (0 to 1: the
 * emulator refuses any other share, NaN included, with `INVALID_INPUT` naming it).
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
  /** Faults for the next requests, in order. */
  next?: FaultKind[]
}

/** A body for a service task list page past the last one: `[]`, `{}`, `null` or `{"code":0,"msg":"no more data"}`. */
export type PastEndPage = 'array' | 'object' | 'null' | 'status'

/**
 * Answers shaped as the real service, a PHP application, may send them (PHP's `json_encode`
 * writes an empty keyed array as `[]`). Each left out is off: the emulator's usual answers.
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
}

/** Options of {@link Emulator.start}. */
export interface EmulatorOptions {
  /** Seed of the generated data (default 42). */
  seed?: number | bigint
  /** Lifetime of access tokens, in seconds, 0 to 2^32 - 1 (default 3600). */
  tokenTtl?: number
  /** Delay before every answer, in milliseconds, 0 to 2^31 - 1 (default 0). */
  latencyMs?: number
  /** Number of seeded service tasks, 0 to 100,000, ids from 10001 (default 120: three pages). */
  serviceTasks?: number
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
}

/** Request counters of an emulator (per endpoint, and `total`). */
export interface Counters {
  /** Token endpoint, any grant. */
  token: number
  token_password: number
  token_refresh: number
  create: number
  service_tasks: number
  agents: number
  service_report: number
  site_report: number
  distribution: number
  total: number
  /** TCP connections accepted (HTTPS ones too, even when the client refused the certificate). */
  connections: number
  /** The most API requests in progress at once (from arrival to answer). */
  peak_in_progress: number
}

/** A server task as the emulator stored it: the submitted object plus its `task_id`. */
export interface StoredServerTask {
  task_id: number
  [field: string]: JsonValue
}

/**
 * The bundled emulator of the service, running in this process on 127.0.0.1 (a free port) on
 * a thread of its own. It serves the demo account (`clientId`, `clientSecret`, `username`,
 * `password`), seeded data (service tasks 10001..., site tasks 20001-20005) and test knobs.
 * It does not keep Node alive; stop it with {@link Emulator.stop} (one that is forgotten is
 * stopped when it is garbage-collected, without blocking the main thread).
 *
 * @example
 * ```js
 * import { Emulator } from 'monapi'
 * const emulator = await Emulator.start()
 * const client = emulator.client()
 * console.log(Object.keys(await client.agents()))
 * await emulator.stop()
 * ```
 */
export declare class Emulator {
  private constructor()

  /**
   * Starts an emulator.
   *
   * @example
   * ```js
   * const emulator = await Emulator.start({ tokenTtl: 2, latencyMs: 10, serviceTasks: 100 })
   * ```
   */
  static start(options?: EmulatorOptions): Promise<Emulator>

  /**
   * `http://127.0.0.1:PORT`.
   *
   * @example
   * ```js
   * const client = new Client({ baseUrl: emulator.baseUrl, clientId: emulator.clientId, clientSecret: emulator.clientSecret, username: emulator.username, password: emulator.password })
   * ```
   */
  get baseUrl(): string
  /**
   * The private CA's certificate (PEM text) when the emulator serves HTTPS (`tls: true`),
   * else `null`. {@link Emulator.client} trusts it already.
   *
   * @example
   * ```js
   * const emulator = await Emulator.start({ tls: true })
   * const client = new Client({ baseUrl: emulator.baseUrl, caBundle: Buffer.from(emulator.caPem), clientId: emulator.clientId, clientSecret: emulator.clientSecret, username: emulator.username, password: emulator.password })
   * ```
   */
  get caPem(): string | null
  /**
   * The path of a file holding {@link Emulator.caPem} (removed when the emulator stops), when
   * it serves HTTPS, else `null`: give it as `caBundle` or `NODE_EXTRA_CA_CERTS`.
   *
   * @example
   * ```js
   * process.env.NODE_EXTRA_CA_CERTS = emulator.caPath // read by clients made after this
   * ```
   */
  get caPath(): string | null
  /**
   * The time zone of its days, as an offset from UTC (`'+08:00'` unless started with another).
   *
   * @example
   * ```js
   * const emulator = await Emulator.start({ timezone: 'UTC' })
   * console.log(emulator.timezone) // '+00:00'
   * ```
   */
  get timezone(): string
  /**
   * The demo client id, `demo_id`.
   *
   * @example
   * ```js
   * process.env.MONAPI_CLIENT_ID = emulator.clientId
   * ```
   */
  get clientId(): string
  /**
   * The demo client secret, `demo_secret`.
   *
   * @example
   * ```js
   * process.env.MONAPI_CLIENT_SECRET = emulator.clientSecret
   * ```
   */
  get clientSecret(): string
  /**
   * The demo login, `test@example.com`.
   *
   * @example
   * ```js
   * process.env.MONAPI_USERNAME = emulator.username
   * ```
   */
  get username(): string
  /**
   * The demo password, `123456`.
   *
   * @example
   * ```js
   * process.env.MONAPI_PASSWORD = emulator.password
   * ```
   */
  get password(): string
  /**
   * Whether {@link Emulator.stop} was called.
   *
   * @example
   * ```js
   * await emulator.stop(); console.log(emulator.stopped) // true
   * ```
   */
  get stopped(): boolean

  /**
   * A snapshot of the request counters.
   *
   * @example
   * ```js
   * await client.agents()
   * console.log(emulator.counters().agents) // 1
   * ```
   */
  counters(): Counters

  /**
   * Created server tasks as stored.
   *
   * @example
   * ```js
   * console.log(emulator.serverTasks().map((t) => t.server_name))
   * ```
   */
  serverTasks(): StoredServerTask[]

  /**
   * Lifetime of access tokens issued from now on, in seconds (0 to 2^32 - 1).
   *
   * @example
   * ```js
   * emulator.setTokenTtl(1)
   * ```
   */
  setTokenTtl(seconds: number): void

  /**
   * Delay before every answer from now on, in milliseconds (0 to 2^31 - 1).
   *
   * @example
   * ```js
   * emulator.setLatency(2000) // provoke a TIMEOUT with timeoutMs: 300
   * ```
   */
  setLatency(ms: number): void

  /**
   * Replaces the fault settings.
   *
   * @example
   * ```js
   * emulator.setFaults({ next: ['error503', 'dropConnection'] }) // the next two requests fail
   * emulator.setFaults({}) // no faults
   * ```
   */
  setFaults(faults: FaultSettings): void

  /**
   * Replaces the quirks (those left out are off), from the next request on.
   *
   * @example
   * ```js
   * emulator.setQuirks({ pastEndPage: 'object', noAgents: true }) // page 4 is {}, the agent list []
   * emulator.setQuirks({}) // no quirks
   * ```
   */
  setQuirks(quirks: Quirks): void

  /**
   * Every access token issued so far expires now (refresh tokens stay valid).
   *
   * @example
   * ```js
   * emulator.expireTokens()
   * await client.agents() // refreshes the token, then repeats the call
   * ```
   */
  expireTokens(): void

  /**
   * Every refresh token becomes invalid (the next refresh gets `invalid_grant`).
   *
   * @example
   * ```js
   * emulator.revokeRefreshTokens()
   * ```
   */
  revokeRefreshTokens(): void

  /**
   * Back to the state at start: counters zero, knobs (faults and quirks included) as configured,
   * created tasks gone, all tokens revoked.
   *
   * @example
   * ```js
   * emulator.reset()
   * ```
   */
  reset(): void

  /**
   * A {@link Client} for the demo account of this emulator, with `overrides` applied.
   *
   * @example
   * ```js
   * const client = emulator.client({ timeoutMs: 300, maxRetries: 0 })
   * ```
   */
  client(overrides?: ClientOptions): Client

  /**
   * Stops the server (in-flight requests get about a second) and waits for its thread.
   * Calling it again does nothing.
   *
   * @example
   * ```js
   * await emulator.stop()
   * ```
   */
  stop(): Promise<void>
}

/** Records per page of the service task list (50). */
export declare const PAGE_SIZE: number

/** The package version (the Cargo workspace version). */
export declare const VERSION: string
