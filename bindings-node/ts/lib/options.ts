/**
 * The options of a client and of its calls. Types only: the settings are read by the Rust
 * core's declaration (`monapi::settings`), which the suite checks `ClientOptions` against.
 */

import type { Day, Id, SavedToken, Token } from './data.js'

/**
 * Options of {@link Client}. Unset values fall back to the environment: `MONAPI_BASE_URL`,
 * `MONAPI_CLIENT_ID`, `MONAPI_CLIENT_SECRET`, `MONAPI_USERNAME`, `MONAPI_PASSWORD`.
 *
 * @example
 * const client = new Client({
 *   baseUrl: 'https://api.example.com',
 *   clientId: 'demo_id',
 *   clientSecret: process.env.MONAPI_CLIENT_SECRET,
 *   username: 'ops@example.com',
 *   password: process.env.MONAPI_PASSWORD,
 *   timeoutMs: 10000,
 *   logLevel: 'info',
 * })
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
   * A file holding the password, instead of `password`: read once when the client is made,
   * one trailing newline dropped. Keeps the password out of code, command lines and the
   * environment.
   */
  passwordFile?: string
  /** A file holding the client secret, instead of `clientSecret`, read as `passwordFile` is. */
  clientSecretFile?: string
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
   * const client = new Client({ caBundle: '/etc/company/ca.pem' }) // and MONAPI_* variables
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
   * The largest answer accepted, in bytes once decompressed (default 1 GiB). Answers arrive
   * compressed (gzip or deflate) when the service compresses them; a larger one is rejected
   * with `DECODE` naming this option, without reading further.
   */
  maxResponseBytes?: number
  /**
   * The service's time zone, as an offset from UTC (`+08:00`, `-05:30`, `UTC`); default
   * `+08:00`, China Standard Time. It says which instant a report's day and `HH:MM` are, in
   * the tables, and which day "today" is.
   */
  timezone?: string
  /**
   * Where to keep a store of report tables: a directory, or a bucket's prefix
   * (`s3://bucket/prefix`, `gs://bucket/prefix`, `az://container/prefix`, with
   * {@link ClientOptions.storageOptions}); default: the `MONAPI_STORE` environment variable,
   * else none. The table calls of `client.tables` (`serviceReport`, `siteReport`,
   * `serviceReports`, `siteReports`) then read the settled days it holds and fetch only the
   * others, keeping those that are settled; {@link Client.sync} fills it ahead of time. One
   * zstd Parquet file per task and day, `DIR/<kind>/day=YYYY-MM-DD/task-<id>.parquet`,
   * readable by DuckDB, polars or pyarrow as a Hive-partitioned dataset; a store is shared
   * with the Python package and the `monapi` command. Nothing is created until a day is
   * written; a directory that cannot be read or written is a `STORE` error naming it.
   *
   * @example
   * const client = new Client({ store: '/data/monapi' }) // and MONAPI_* variables
   * const week = await client.tables.serviceReport(10001, { startDate: '2026-11-01', endDate: '2026-11-07' })
   */
  store?: string
  /**
   * Options of a store in a bucket (`s3://`, `gs://`, `az://`), as `object_store` names them:
   * `aws_endpoint_url`, `aws_region`, `aws_access_key_id`, `aws_secret_access_key`,
   * `azure_storage_account_name`, ... They override the cloud's own variables (`AWS_*`,
   * `GOOGLE_*`, `AZURE_*`), which are read too. Keys, tokens and secrets never show in an
   * error; an unknown name is an `INVALID_INPUT` error naming `storageOptions`.
   *
   * @example
   * const client = new Client({ store: 's3://lake/monapi', storageOptions: { aws_region: 'eu-west-1' } })
   */
  storageOptions?: Record<string, string>
  /**
   * How long after a day ends (in the client's {@link ClientOptions.timezone}) it counts as
   * settled, in milliseconds: more than 0, at most 2^31 - 1 (default 7200000, two hours).
   * Only settled days are kept in {@link ClientOptions.store}; the others (today, and
   * yesterday until it settles) are fetched every time.
   *
   * @example
   * const client = new Client({ store: '/data/monapi', settleMs: 6 * 3600 * 1000 })
   */
  settleMs?: number
  /**
   * Whether each request carries the caller's trace context to the service (default `false`,
   * or the `MONAPI_PROPAGATE_TRACE_CONTEXT` environment variable): a W3C `traceparent` header
   * naming the span active when the call was made. Only where the program has OpenTelemetry
   * (`@opentelemetry/api` and a registered provider), which sees every call as spans whether
   * this is on or off. Off by default: the service is a third party, and a trace id tells it
   * which requests belong together.
   *
   * @example
   * const client = new Client({ propagateTraceContext: true }) // and MONAPI_* variables
   */
  propagateTraceContext?: boolean
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

/**
 * A level of {@link ClientOptions.logLevel}: each logs its own lines and those of the levels
 * before it; `'off'` logs nothing.
 *
 * @example
 * const client = new Client({ logLevel: 'debug' })
 */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug'

/**
 * Anything with console's logging methods (`console`, pino, winston...): the
 * {@link ClientOptions.logger}. Each method receives one line, `monapi: ...`, with no secret in
 * it; what it returns is ignored, and what it throws too.
 *
 * @example
 * import pino from 'pino'
 * const client = new Client({ logger: pino(), logLevel: 'info' })
 */
export interface Logger {
  /**
   * Receives a line of level `'error'`.
   *
   * @param message - The line, `monapi: ...`.
   * @returns Anything: ignored (a throw is ignored too).
   */
  error(message: string): unknown
  /**
   * Receives a line of level `'warn'`.
   *
   * @param message - The line, `monapi: ...`.
   * @returns Anything: ignored (a throw is ignored too).
   */
  warn(message: string): unknown
  /**
   * Receives a line of level `'info'`.
   *
   * @param message - The line, `monapi: ...`.
   * @returns Anything: ignored (a throw is ignored too).
   */
  info(message: string): unknown
  /**
   * Receives a line of level `'debug'`.
   *
   * @param message - The line, `monapi: ...`.
   * @returns Anything: ignored (a throw is ignored too).
   */
  debug(message: string): unknown
}

/**
 * What every call takes besides its own options: a `signal` to abort it and its own timeout.
 *
 * @example
 * const agents = await client.agents({ signal: AbortSignal.timeout(5000), timeoutMs: 2000 })
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

/**
 * A period of whole days; an omitted date means the current day (the service's default).
 *
 * @example
 * const report = await client.serviceReport(10001, { startDate: '2026-11-01', endDate: new Date() })
 */
export interface DateRangeOptions extends CallOptions {
  /** The first day: a `Date` (its local calendar day) or `YYYY-MM-DD`; default today. */
  startDate?: Day
  /** The last day, as `startDate`, not before it; default today. */
  endDate?: Day
}

/**
 * Options of {@link Client.siteReport}.
 *
 * @example
 * const average = await client.siteReport(20001, { monitor: 0, startDate: '2026-11-01' })
 */
export interface SiteReportOptions extends DateRangeOptions {
  /** Unset: every monitoring point and the average; `0`: only the average; `n`: point `n`. */
  monitor?: Id
}

/**
 * Options of {@link Client.request}.
 *
 * @example
 * const users = await client.request({ method: 'GET', path: '/v2/user/lists.json' })
 */
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

/**
 * Options of {@link Client.serviceTasks} and {@link Client.siteTasks}.
 *
 * @example
 * const third = await client.serviceTasks({ page: 3 })
 */
export interface PageOptions extends CallOptions {
  /** Page number, from 1 (default 1); a page holds up to {@link PAGE_SIZE} tasks. */
  page?: number
}
