/** The client of the monitoring service. */

import util = require('node:util')

import { Arrival } from './arriving.js'
import { CALL_OPTIONS, id, isPlainObject, isUnset, numeric, options, params, parse, range, run, text } from './args.js'
import type {
  Agents,
  CreatedTask,
  Distribution,
  Id,
  JsonValue,
  MonitorPoint,
  Records,
  ServerTaskInput,
  ServiceReport,
  ServiceTask,
  ServiceTaskInput,
  SiteReport,
  SiteTask,
  SiteTaskSettings,
  Token,
  User,
  UserGroup,
} from './data.js'
import { invalid, invokeSync } from './errors.js'
import type {
  CallOptions,
  ClientOptions,
  DateRangeOptions,
  Logger,
  PageOptions,
  RequestOptions,
  SiteReportOptions,
} from './options.js'
import type { Tables } from './rows.js'
import { runSync, type SyncOptions, type SyncReport } from './sync.js'
import { TablesOf } from './tables.js'
import { token } from './token.js'
import native = require('../native.js')

/** The options that are the package's own; every other one is a setting of the core's declaration. */
const OWN_OPTIONS = ['token', 'onToken', 'logLevel', 'logger']

/** Every option a client takes: the settings the core declares (by their JavaScript names), and the package's own. */
export const CLIENT_OPTIONS: readonly string[] = Object.freeze([...native.settingNames(), ...OWN_OPTIONS])

const LOGGER_METHODS = ['error', 'warn', 'info', 'debug'] as const

/** The function the native side hands each log record to: the logger's method of its level. */
function logSink(logger: Logger): (record: native.LogRecord) => void {
  return (record) => {
    try {
      logger[record.level as keyof Logger](`monapi: ${record.message}`)
    } catch {
      // A logger that throws must not break the call that logs.
    }
  }
}

function warnCallback(error: unknown): void {
  const detail = error instanceof Error ? error.message : String(error)
  process.emitWarning(`monapi: the onToken callback failed: ${detail}`, { code: 'MONAPI_ON_TOKEN' })
}

/** Task objects as JSON; a bigint is written as its digits (the core reads numbers from text). */
function tasksJson(tasks: unknown): string {
  if (!Array.isArray(tasks)) throw invalid('tasks', 'must be an array of task objects')
  try {
    return JSON.stringify(tasks, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))
  } catch (error) {
    throw invalid('tasks', `cannot be converted to JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** The saved token of the `token` option, as the JSON the native side reads. */
function savedToken(value: unknown): string | undefined {
  if (isUnset(value)) return undefined
  if (typeof value === 'string') return value
  if (isPlainObject(value)) return JSON.stringify(value)
  throw invalid('token', 'must be a token object (or its JSON) as returned by login() or client.token')
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
 * A call rejects with a {@link MonapiError}: with a code its method names, or any of these:
 * `INVALID_INPUT` (an argument of the wrong type or breaking a rule, or the client closed:
 * nothing sent), `AUTH_INVALID_CLIENT`, `AUTH_INVALID_GRANT`, `AUTH_ERROR` (the login or token
 * renewal it needed failed), `API_ERROR` (the service's error: `status`, `apiCode`), `CONNECTION`,
 * `TIMEOUT`, `DECODE` (not the JSON expected), `ABORTED` (its `signal`), `INTERNAL` (a bug).
 *
 * @example
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
 */
export class Client {
  #native: native.NativeClient
  #tables: Tables

  /**
   * Builds a client; no request is made. Options not given are read from the `MONAPI_*`
   * environment variables.
   *
   * @param options_ - The settings and the package's own options.
   * @throws {@link MonapiError}: `INVALID_INPUT` naming the option at fault (unknown, missing, bad).
   * @example
   * const client = new Client({ timeoutMs: 5000, onToken: (token) => save(token) })
   */
  constructor(options_?: ClientOptions) {
    const given = options(options_, 'options', CLIENT_OPTIONS)
    // Every other option is a setting, read by the core's declaration (its names, types and bounds).
    const settings = Object.fromEntries(Object.entries(given).filter(([key]) => !OWN_OPTIONS.includes(key)))
    const saved = savedToken(given.token)
    const onToken = given.onToken
    if (!isUnset(onToken) && typeof onToken !== 'function') throw invalid('onToken', 'must be a function')
    const logger = (isUnset(given.logger) ? console : given.logger) as Logger
    if (typeof logger !== 'object' || LOGGER_METHODS.some((m) => typeof logger[m] !== 'function')) {
      throw invalid('logger', `must be an object with the methods ${LOGGER_METHODS.join(', ')} (like console)`)
    }
    let listener: ((json: string) => void) | undefined
    if (typeof onToken === 'function') {
      listener = (json) => {
        try {
          const result: unknown = onToken(token(json))
          if (result instanceof Promise) result.then(undefined, warnCallback)
        } catch (error) {
          warnCallback(error)
        }
      }
    }
    const level = text(given.logLevel, 'logLevel')
    this.#native = invokeSync(() => new native.NativeClient(settings, saved, level, listener, logSink(logger)))
    this.#tables = new TablesOf(() => this.#open())
  }

  /**
   * The calls that return the service's data as typed tables ({@link Tables}).
   *
   * @example
   * const report = await client.tables.serviceReport(10001, { startDate: '2026-11-01' })
   * const values = report.column('value') // Float64Array
   */
  get tables(): Tables {
    return this.#tables
  }

  /**
   * The service's time zone ({@link ClientOptions.timezone}), e.g. `+08:00`.
   *
   * @throws {@link MonapiError}: `INVALID_INPUT` once the client is closed.
   * @example
   * console.log(client.timezone) // '+08:00'
   */
  get timezone(): string {
    return invokeSync(() => this.#native.timezone)
  }

  #open(): native.NativeClient {
    if (this.#native.closed) throw invalid('client', 'is closed: create a new Client')
    return this.#native
  }

  /**
   * The current token, or `null` before the first login (and after `close()`).
   *
   * @example
   * await client.login()
   * fs.writeFileSync('token.json', JSON.stringify(client.token))
   */
  get token(): Token | null {
    if (this.#native.closed) return null
    const json = invokeSync(() => this.#native.token())
    return json === null || json === undefined ? null : token(json)
  }

  /**
   * The service's base URL.
   *
   * @example
   * console.log(client.baseUrl) // 'http://127.0.0.1:8080'
   */
  get baseUrl(): string {
    return this.#native.baseUrl
  }

  /**
   * Whether {@link Client.close} was called.
   *
   * @example
   * await client.close(); console.log(client.closed) // true
   */
  get closed(): boolean {
    return this.#native.closed
  }

  /**
   * Logs in with the password grant now and resolves with the new token. (Not needed before
   * other calls: the first call logs in by itself.)
   *
   * @param options_ - `signal` and `timeoutMs`.
   * @returns The new {@link Token}, which the client uses from now on (and `onToken` receives).
   * @throws {@link MonapiError}: `AUTH_INVALID_CLIENT`, `AUTH_INVALID_GRANT`, `INVALID_INPUT` (no
   *   password); any code of a call (see {@link Client}).
   * @example
   * const token = await client.login()
   * console.log(`expires in ${token.expires_in} s`)
   */
  async login(options_?: CallOptions): Promise<Token> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    return token(await run(o, (call) => n.login(call)))
  }

  /**
   * Gets a new token with the refresh grant now and resolves with it.
   *
   * @param options_ - `signal` and `timeoutMs`.
   * @returns The new {@link Token}, which the client uses from now on (and `onToken` receives).
   * @throws {@link MonapiError}: `AUTH_INVALID_GRANT` (refresh token refused), `INVALID_INPUT` (no
   *   token yet); any code of a call (see {@link Client}).
   * @example
   * const token = await client.refresh()
   */
  async refresh(options_?: CallOptions): Promise<Token> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    return token(await run(o, (call) => n.refresh(call)))
  }

  /**
   * Creates server monitoring tasks in one batch. The whole batch is checked against the
   * service's rules first (nothing is sent if a task fails one). A field left out takes the
   * default of the Rust core's `ServerTask::new` (see {@link ServerTaskInput}). Never retried
   * once it may have reached the service.
   *
   * @param tasks - The tasks, with the service's keys.
   * @param options_ - `signal` and `timeoutMs`.
   * @returns One {@link CreatedTask} (`task_id`) per task created, as the service sent them.
   * @throws {@link MonapiError}: `INVALID_INPUT` with `errors` (every problem: `index`, `field`, `rule`)
   *   and the first one's `index` and `field`; `PARTIAL_CREATE` with `failedIndex`/`failedIndices`
   *   when some lines failed (all others were created); any code of a call (see {@link Client}).
   * @example
   * const created = await client.createServerTasks([{
   *   server_name: 'web-01', private_ip: '192.168.1.10', server_ip: '203.0.113.10',
   *   server_systype: 0, frequency: 5, task_type: ['cpu', 'mem'],
   * }])
   * console.log(created[0].task_id)
   */
  async createServerTasks(tasks: ServerTaskInput[], options_?: CallOptions): Promise<CreatedTask[]> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    const json = tasksJson(tasks)
    return parse(await run(o, (call) => n.createServerTasks(json, call)), 'createServerTasks')
  }

  /**
   * Creates service monitoring tasks in one batch. The whole batch is checked first against the
   * rules of the service's documentation (the fields each `task_type` needs, ...): nothing is
   * sent when a task breaks one, and the error lists every problem. A task's `password` never
   * appears in an error or a log line. Never sent twice once it may have reached the service.
   *
   * @param tasks - The tasks, with the service's keys.
   * @param options_ - `signal` and `timeoutMs`.
   * @returns One {@link CreatedTask} (`task_id`) per task created, as the service sent them.
   * @throws {@link MonapiError}: `INVALID_INPUT` (with `errors`), `PARTIAL_CREATE` (`failedIndices`;
   *   the others were created); any code of a call (see {@link Client}).
   * @example
   * const created = await client.createServiceTasks([
   *   { task_name: 'web', task_type: 'nginx', status_url: 'http://10.0.0.5/nginx_status' },
   *   { task_name: 'db', task_type: 'mysql', ip: '10.0.0.7', port: 3306, user: 'monitor', password: process.env.DB_PASSWORD },
   * ])
   */
  async createServiceTasks(tasks: ServiceTaskInput[], options_?: CallOptions): Promise<CreatedTask[]> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    const json = tasksJson(tasks)
    return parse(await run(o, (call) => n.createServiceTasks(json, call)), 'createServiceTasks')
  }

  /**
   * One page (from 1) of the service task list; a page holds up to {@link PAGE_SIZE} tasks.
   *
   * @param options_ - `page` (default 1), `signal`, `timeoutMs`.
   * @returns The page's {@link ServiceTask}s as sent (every value a string); none past the last.
   * @throws {@link MonapiError}: `INVALID_INPUT` (`page` below 1 or not whole); any code of a call
   *   (see {@link Client}).
   * @example
   * const firstPage = await client.serviceTasks()
   * const second = await client.serviceTasks({ page: 2 })
   */
  async serviceTasks(options_?: PageOptions): Promise<ServiceTask[]> {
    const n = this.#open()
    const o = options(options_, 'options', ['page', ...CALL_OPTIONS])
    const page = isUnset(o.page) ? 1 : (numeric(o.page) as number)
    return parse(await run(o, (call) => n.serviceTasks(page, call)), 'serviceTasks')
  }

  /**
   * Every service task, page after page (fetched as the iteration goes); stops after the
   * first page with fewer than {@link PAGE_SIZE} tasks. An empty page, however the service
   * writes it (`[]`, `{}` or `null`), ends the iteration.
   *
   * @param options_ - `signal` and `timeoutMs` of each page's request.
   * @returns An async generator of every {@link ServiceTask}, as sent.
   * @throws {@link MonapiError}: from the `next()` that fetches a page: `DECODE` (with `endpoint`) when
   *   it is neither a list nor empty; any code of a call (see {@link Client}).
   * @example
   * for await (const task of client.iterServiceTasks()) console.log(task.task_id, task.task_type)
   */
  async *iterServiceTasks(options_?: CallOptions): AsyncGenerator<ServiceTask, void, undefined> {
    yield* this.#pages<ServiceTask>('service', options_)
  }

  /** Every task of a list, page after page. */
  async *#pages<T>(list: 'service' | 'site', options_?: CallOptions): AsyncGenerator<T, void, undefined> {
    const o = options(options_, 'options', CALL_OPTIONS)
    // The core says which page comes next (none after the last), gives an empty page as []
    // and a keyed page as the list of its tasks.
    for (let page: number | null = 1; page !== null; ) {
      const n = this.#open()
      const at: number = page
      const result = await run(o, (call) => n.taskPage(list, at, call))
      yield* parse<T[]>(result.body, list === 'service' ? 'serviceTasks' : 'siteTasks')
      page = result.next
    }
  }

  /**
   * One page (from 1) of the site task list, as sent: up to {@link PAGE_SIZE} tasks, as an
   * array or (as PHP's keyed arrays are sent) an object keyed by task id;
   * {@link Client.iterSiteTasks} and `tables.siteTasks()` read both.
   *
   * @param options_ - `page` (default 1), `signal`, `timeoutMs`.
   * @returns The page's {@link SiteTask}s ({@link Records}: an array, or an object by task id).
   * @throws {@link MonapiError}: `INVALID_INPUT` (`page` below 1 or not whole); any code of a call
   *   (see {@link Client}).
   * @example
   * const sites = await client.siteTasks({ page: 1 })
   */
  async siteTasks(options_?: PageOptions): Promise<Records<SiteTask>> {
    const n = this.#open()
    const o = options(options_, 'options', ['page', ...CALL_OPTIONS])
    const page = isUnset(o.page) ? 1 : (numeric(o.page) as number)
    return parse(await run(o, (call) => n.siteTasks(page, call)), 'siteTasks')
  }

  /**
   * Every site task, page after page, by the rule of {@link Client.iterServiceTasks}.
   *
   * @param options_ - `signal` and `timeoutMs` of each page's request.
   * @returns An async generator of every {@link SiteTask}, as sent.
   * @throws {@link MonapiError}: from the `next()` that fetches a page: `DECODE` (with `endpoint`) when
   *   it is neither a list nor empty; any code of a call (see {@link Client}).
   * @example
   * for await (const site of client.iterSiteTasks()) console.log(site.task_id, site.task_name)
   */
  async *iterSiteTasks(options_?: CallOptions): AsyncGenerator<SiteTask, void, undefined> {
    yield* this.#pages<SiteTask>('site', options_)
  }

  /**
   * One site task's settings: the listed fields and the monitoring points it uses.
   *
   * @param taskId - The site task's id.
   * @param options_ - `signal` and `timeoutMs`.
   * @returns Its {@link SiteTaskSettings}, as sent (`monitors`: the points it uses).
   * @throws {@link MonapiError}: `API_ERROR` (e.g. an unknown task); any code of a call (see {@link Client}).
   * @example
   * const site = await client.siteTask(20001)
   */
  async siteTask(taskId: Id, options_?: CallOptions): Promise<SiteTaskSettings> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    return parse(await run(o, (call) => n.siteTask(id(taskId), call)), 'siteTask')
  }

  /**
   * The monitoring points of the account (their ids key site reports), as sent.
   *
   * @param options_ - `signal` and `timeoutMs`.
   * @returns The {@link MonitorPoint}s ({@link Records}: an array, or an object by id).
   * @throws {@link MonapiError}: any code of a call (see {@link Client}).
   * @example
   * const points = Object.values(await client.monitors())
   */
  async monitors(options_?: CallOptions): Promise<Records<MonitorPoint>> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    return parse(await run(o, (call) => n.monitors(call)), 'monitors')
  }

  /**
   * Every user of the account (their ids are what `alert_setting` names), as sent.
   *
   * @param options_ - `signal` and `timeoutMs`.
   * @returns The {@link User}s ({@link Records}: an array, or an object by user id).
   * @throws {@link MonapiError}: any code of a call (see {@link Client}).
   * @example
   * const emails = Object.values(await client.users()).map((u) => u.user_email)
   */
  async users(options_?: CallOptions): Promise<Records<User>> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    return parse(await run(o, (call) => n.users(call)), 'users')
  }

  /**
   * The user groups of the account (their ids are what `organization` names), as sent.
   *
   * @param options_ - `signal` and `timeoutMs`.
   * @returns The {@link UserGroup}s ({@link Records}: an array, or an object by group id).
   * @throws {@link MonapiError}: any code of a call (see {@link Client}).
   * @example
   * const groups = Object.values(await client.userGroups())
   */
  async userGroups(options_?: CallOptions): Promise<Records<UserGroup>> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    return parse(await run(o, (call) => n.userGroups(call)), 'userGroups')
  }

  /**
   * The collector agents, keyed by agent id, with their plugins.
   *
   * @param options_ - `signal` and `timeoutMs`.
   * @returns {@link Agents}: agent id to {@link Agent} (`name`, `agentUrl`, `plugin`), as sent.
   * @throws {@link MonapiError}: any code of a call (see {@link Client}).
   * @example
   * for (const [id, agent] of Object.entries(await client.agents())) {
   *   console.log(id, agent.name, agent.plugin.length)
   * }
   */
  async agents(options_?: CallOptions): Promise<Agents> {
    const n = this.#open()
    const o = options(options_, 'options', CALL_OPTIONS)
    return parse(await run(o, (call) => n.agents(call)), 'agents')
  }

  /**
   * The report of a service task over whole days (default: today).
   *
   * @param taskId - The service task's id.
   * @param options_ - `startDate`, `endDate`, `signal`, `timeoutMs`.
   * @returns The {@link ServiceReport} as sent: series name to its records; `[]` when empty.
   * @throws {@link MonapiError}: `API_ERROR` (e.g. status 404 for an unknown task), `INVALID_INPUT`
   *   (a bad id, a bad date, `startDate` after `endDate`); any code of a call (see {@link Client}).
   * @example
   * const report = await client.serviceReport('10001', { startDate: '2026-11-01', endDate: new Date() })
   * for (const [series, records] of Object.entries(report)) console.log(series, records.length)
   */
  async serviceReport(taskId: Id, options_?: DateRangeOptions): Promise<ServiceReport> {
    const n = this.#open()
    const [o, start, end] = range(options_, 'options')
    const arrival = new Arrival('serviceReport')
    const answer = await run(o, (call) => n.serviceReport(id(taskId), start, end, arrival.onPiece, call))
    return (typeof answer === 'string' ? parse(answer, 'serviceReport') : await arrival.value(answer)) as ServiceReport
  }

  /**
   * The report of a site task: availability, faults and response times per monitoring point.
   * `monitor` unset: all points (and the average `"0"`); `0`: only the average; `n`: point n.
   *
   * @param taskId - The site task's id.
   * @param options_ - `monitor`, the days, `signal`, `timeoutMs`.
   * @returns The {@link SiteReport} as sent: point id to its {@link MonitoringPoint}.
   * @throws {@link MonapiError}: `API_ERROR` (e.g. an unknown task), `INVALID_INPUT` (a bad id,
   *   `monitor` or date); any code of a call (see {@link Client}).
   * @example
   * const report = await client.siteReport(20001, { monitor: 0 })
   * console.log(report['0'].name, Object.keys(report['0'].uprate).length)
   */
  async siteReport(taskId: Id, options_?: SiteReportOptions): Promise<SiteReport> {
    const n = this.#open()
    const [o, start, end] = range(options_, 'options', ['monitor'])
    const monitor = isUnset(o.monitor) ? undefined : id(o.monitor)
    const arrival = new Arrival('siteReport')
    const answer = await run(o, (call) => n.siteReport(id(taskId), start, end, monitor, arrival.onPiece, call))
    return (typeof answer === 'string' ? parse(answer, 'siteReport') : await arrival.value(answer)) as SiteReport
  }

  /**
   * The response-time distribution of a site task over whole days (default: today).
   *
   * @param taskId - The site task's id.
   * @param options_ - `startDate`, `endDate`, `signal`, `timeoutMs`.
   * @returns The {@link Distribution} as sent: bucket lower bound (ms) to its {@link Bucket}.
   * @throws {@link MonapiError}: `API_ERROR` (e.g. an unknown task), `INVALID_INPUT` (a bad id or
   *   date); any code of a call (see {@link Client}).
   * @example
   * const buckets = await client.responseTimeDistribution(20001, { startDate: '2026-11-20' })
   * for (const b of Object.values(buckets)) console.log(`${b.start}-${b.end} ms: ${b.percent} %`)
   */
  async responseTimeDistribution(taskId: Id, options_?: DateRangeOptions): Promise<Distribution> {
    const n = this.#open()
    const [o, start, end] = range(options_, 'options')
    const answer = await run(o, (call) => n.responseTimeDistribution(id(taskId), start, end, call))
    return parse(answer, 'responseTimeDistribution')
  }

  /**
   * Brings the client's local store ({@link ClientOptions.store}) up to date, the step a daily
   * job runs: every settled day of the range (default: the last 30), for every task asked
   * (default: every task of the account) and every kind of table asked. Task-days the store
   * holds are not fetched; a task's missing days are fetched in runs of consecutive days (at
   * most 10 days each), one request each, and written as they come. A run that fails is listed
   * in `failures`, the others go on, and the next sync fetches it again. Input is checked, a
   * token obtained and the task lists read before any report is asked for: a failure there rejects it.
   *
   * @param options_ - What to sync (days, tasks, kinds) and how (`concurrency`, `onProgress`...).
   * @returns The {@link SyncReport}: days covered, task-days counted, `failures`, `summary`.
   * @throws {@link MonapiError}: `INVALID_INPUT` (no `store`, a task not in the account, bad kinds or
   *   dates; nothing sent), `PARTIAL_RESULT` (unless `errors: 'collect'`) with `result` (the
   *   {@link SyncReport}) and `failures`, `STORE` (with `path`) when the store cannot be
   *   read or written; any code of a call (see {@link Client}).
   * @example
   * const client = new Client({ store: '/data/monapi' })
   * const report = await client.sync({
   *   startDate: '2026-11-01', kinds: ['service'], concurrency: 4, errors: 'collect',
   *   onProgress: (p) => console.log(`${p.done}/${p.total}`),
   * })
   * console.log(report.summary)
   * for (const f of report.failures) console.error(f.taskId, f.start, f.end, f.error.message)
   */
  async sync(options_?: SyncOptions): Promise<SyncReport> {
    return runSync(this.#open(), options_)
  }

  /**
   * Calls any operation of the service by its method and path, for those without a method of
   * their own (the site task list, monitoring points, users, user groups...), with the same
   * token management, retries of reads and errors as the other methods. Resolves with the
   * answer's JSON exactly as the service sent it.
   *
   * @param options_ - `method`, `path`, `query`, `form`, `signal`, `timeoutMs`.
   * @returns The answer's JSON, parsed ({@link JsonValue}).
   * @throws {@link MonapiError}: `INVALID_INPUT` (nothing sent) for a method other than GET or POST,
   *   a path that does not start with `/` or holds a host or query, or `access_token` given;
   *   `DECODE` for an answer that is not JSON; any code of a call (see {@link Client}).
   * @example
   * const sites = await client.request({ method: 'GET', path: '/v2/site/lists.json', query: { page: 1 } })
   */
  async request(options_: RequestOptions): Promise<JsonValue> {
    const n = this.#open()
    const o = options(options_, 'options', ['method', 'path', 'query', 'form', ...CALL_OPTIONS])
    const method = text(o.method, 'method') ?? ''
    const path = text(o.path, 'path') ?? ''
    const query = params(o.query, 'query')
    const form = params(o.form, 'form')
    // The native side checks that the answer is JSON and names the call if it is not.
    return JSON.parse(await run(o, (call) => n.request(method, path, query, form, call))) as JsonValue
  }

  /**
   * Releases the client: later calls reject with `INVALID_INPUT`, and `onToken` is not called
   * again. Calls already in flight finish. Closing again does nothing.
   *
   * @returns A Promise that resolves at once.
   * @throws Never: closing cannot fail.
   * @example
   * try { await client.agents() } finally { await client.close() }
   */
  async close(): Promise<void> {
    this.#native.close()
  }

  /** What `console.log(client)` shows: never the token values, only when it expires. @internal */
  [util.inspect.custom](depth: number, inspectOptions: util.InspectOptionsStylized, inspect = util.inspect): string {
    const n = this.#native
    const expiresAt = n.tokenExpiresAt()
    let shownToken: string | null = null
    if (expiresAt !== null && expiresAt !== undefined) {
      shownToken = `[redacted, expires ${new Date(expiresAt * 1000).toISOString()}]`
    } else if (this.token !== null) shownToken = '[redacted]'
    const shown = { baseUrl: n.baseUrl, clientId: n.clientId, username: n.username, token: shownToken, closed: n.closed }
    return `Client ${inspect(shown, { ...inspectOptions, depth })}`
  }
}

if (typeof Symbol.asyncDispose === 'symbol') {
  ;(Client.prototype as unknown as Record<symbol, unknown>)[Symbol.asyncDispose] = Client.prototype.close
}
