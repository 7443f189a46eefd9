'use strict'
/**
 * monapi: a client for the monitoring service API, over the Rust core (napi-rs).
 *
 * This file is the public API (types and documentation: index.d.ts). It is a thin layer over
 * the generated loader `native.js`: it checks arguments, turns every native failure into a
 * `MonapiError`, and parses answers with `JSON.parse` (the native side hands each body over
 * as one string, exactly as the service sent it).
 */

const util = require('node:util')
const native = require('./native.js')

const MARK = 'monapi-error:'

/** Every `code` a MonapiError can carry: the core's, and INTERNAL (a bug in the native module). */
const ERROR_CODES = Object.freeze([...native.errorCodes(), 'INTERNAL'])

const FIELDS = [
  'status',
  'apiCode',
  'errKey',
  'errContent',
  'failedIndex',
  'failedIndices',
  'submitted',
  'created',
  'field',
  'index',
  'errors',
  'endpoint',
  'retryAfterMs',
  'timeoutMs',
  'failures',
  'result',
]

/** The one error class of the package; branch on `code`. */
class MonapiError extends Error {
  constructor(message, fields = {}) {
    super(message)
    this.code = ERROR_CODES.includes(fields.code) ? fields.code : 'INTERNAL'
    for (const key of FIELDS) {
      this[key] = fields[key] === undefined ? null : fields[key]
    }
  }
}
Object.defineProperty(MonapiError.prototype, 'name', { value: 'MonapiError', writable: true, configurable: true })

/** Any error out of the native module, as a MonapiError. */
function fromNative(error) {
  if (error instanceof MonapiError) return error
  const message = error && typeof error.message === 'string' ? error.message : String(error)
  if (message.startsWith(MARK)) {
    try {
      const payload = JSON.parse(message.slice(MARK.length))
      return new MonapiError(payload.message, payload)
    } catch {
      // fall through: never hand out a bare native error
    }
  }
  if (error && (error.code === 'InvalidArg' || error.code === 'NumberExpected' || error.code === 'StringExpected')) {
    return new MonapiError(`invalid input: ${message}`, { code: 'INVALID_INPUT' })
  }
  return new MonapiError(`internal error in the native module (a bug; please report it): ${message}`, {
    code: 'INTERNAL',
  })
}

/** A wrong type of argument, as the core words invalid input. */
function invalid(field, rule) {
  return fromNative(new Error(native.invalidInput(field, rule)))
}

/** Task objects as JSON; a bigint is written as its digits (the core reads numbers from text). */
function tasksJson(tasks) {
  return JSON.stringify(tasks, (_key, value) => (typeof value === 'bigint' ? value.toString() : value))
}

/** Runs a native call (sync or async), rethrowing its failure as a MonapiError. */
async function invoke(call) {
  try {
    return await call()
  } catch (error) {
    const wrapped = fromNative(error)
    if (wrapped !== error) Error.captureStackTrace(wrapped, invoke)
    throw wrapped
  }
}

function invokeSync(call) {
  try {
    return call()
  } catch (error) {
    const wrapped = fromNative(error)
    if (wrapped !== error) Error.captureStackTrace(wrapped, invokeSync)
    throw wrapped
  }
}

/** Checks `signal` and `timeoutMs` of a call's options (`o`). */
function callOptions(o) {
  const signal = o.signal
  if (!isUnset(signal)) {
    if (typeof signal !== 'object' || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') {
      throw invalid('signal', 'must be an AbortSignal')
    }
  }
  return { signal: isUnset(signal) ? undefined : signal, timeoutMs: numeric(o.timeoutMs) }
}

/**
 * Runs a native call with the call's own timeout and abort switch (a NativeCall, when the
 * options have a `signal` or a `timeoutMs`): an abort makes the native side drop the call's
 * future, which rejects with ABORTED at once (before it starts: nothing is sent).
 */
async function run(o, start) {
  const { signal, timeoutMs } = callOptions(o)
  if (signal === undefined && timeoutMs === undefined) return invoke(() => start(undefined))
  const call = invokeSync(() => new native.NativeCall(timeoutMs))
  const abort = () => call.abort()
  if (signal !== undefined) {
    if (signal.aborted) abort()
    else signal.addEventListener('abort', abort, { once: true })
  }
  try {
    return await invoke(() => start(call))
  } finally {
    if (signal !== undefined) signal.removeEventListener('abort', abort)
  }
}

const CALL_OPTIONS = ['signal', 'timeoutMs']

/** Parses an answer; a body that is not JSON is a DECODE error naming the endpoint. */
function parse(text, endpoint) {
  try {
    return JSON.parse(text)
  } catch (error) {
    // V8's message quotes the body; name only the position, the body may hold anything.
    const at = /position (\d+)/.exec(String(error && error.message))
    const where = at ? ` at position ${at[1]}` : ''
    throw new MonapiError(`${endpoint}: could not decode the answer: invalid JSON${where}`, {
      code: 'DECODE',
      endpoint,
    })
  }
}

/** The endpoints' names, from the core (for a body that `JSON.parse` refuses). */
const ENDPOINTS = Object.freeze(native.endpointNames())

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** Checks an options argument: an object (or undefined) with only the known keys. */
function options(value, name, known) {
  if (value === undefined || value === null) return {}
  if (!isPlainObject(value)) throw invalid(name, 'must be an object')
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw invalid(`${name}.${key}`, `is not a known option (known: ${known.join(', ')})`)
    }
  }
  return value
}

function isUnset(value) {
  return value === undefined || value === null
}

function text(value, field) {
  if (isUnset(value)) return undefined
  // Never echo the value: some of these are secrets.
  if (typeof value !== 'string') throw invalid(field, 'must be a string')
  return value
}

/**
 * A number for the native side, which checks it and names the rule; any other type is NaN,
 * which every rule refuses (a huge value is INVALID_INPUT too, never a panic).
 */
function numeric(value) {
  if (isUnset(value)) return undefined
  return typeof value === 'number' ? value : Number.NaN
}

function count(value, field, max) {
  if (isUnset(value)) return undefined
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw invalid(field, `must be an integer from 0 to ${max}`)
  }
  return value
}

/** An id for the core's rules: a number as it is, anything else as text (a bigint's digits). */
function id(value) {
  return typeof value === 'number' ? value : String(value)
}

/** Query parameters or form fields of `request()`: an object of strings, numbers or bigints. */
function params(value, name) {
  if (isUnset(value)) return []
  if (!isPlainObject(value)) throw invalid(name, 'must be an object of names to strings or numbers')
  return Object.entries(value).map(([key, item]) => {
    if (!['string', 'number', 'bigint'].includes(typeof item)) {
      throw invalid(`${name}.${key}`, 'must be a string or a number')
    }
    return [key, String(item)]
  })
}

function pad(n, width) {
  return String(n).padStart(width, '0')
}

/** A day for the service: a Date (its local calendar day) or a "YYYY-MM-DD" string. */
function day(value, field) {
  if (isUnset(value)) return undefined
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw invalid(field, 'is an invalid Date')
    return `${pad(value.getFullYear(), 4)}-${pad(value.getMonth() + 1, 2)}-${pad(value.getDate(), 2)}`
  }
  if (typeof value === 'string') return value // the core checks the format and the date
  throw invalid(field, 'must be a Date or a "YYYY-MM-DD" string')
}

function range(value, name, extra = []) {
  const o = options(value, name, ['startDate', 'endDate', ...CALL_OPTIONS, ...extra])
  return [o, day(o.startDate, 'startDate'), day(o.endDate, 'endDate')]
}

/** `caBundle`: a path of a PEM file, or the PEM text as a Buffer / Uint8Array. */
function caBundle(value) {
  if (isUnset(value)) return {}
  if (typeof value === 'string') return { caBundlePath: value }
  if (value instanceof Uint8Array) return { caBundlePem: Buffer.from(value) }
  throw invalid('caBundle', 'must be a path (string) or the PEM text as a Buffer')
}

/** `proxy`: a URL, or `false` for no proxy at all (unset: the environment decides). */
function proxy(value) {
  if (isUnset(value)) return {}
  if (value === false) return { noProxy: true }
  if (typeof value === 'string') return { proxy: value }
  // Never echo the value: it may hold the proxy's password.
  throw invalid('proxy', 'must be a URL (string) or false')
}

const CLIENT_OPTIONS = [
  'baseUrl',
  'clientId',
  'clientSecret',
  'username',
  'password',
  'passwordMd5',
  'token',
  'onToken',
  'timeoutMs',
  'connectTimeoutMs',
  'maxRetries',
  'userAgent',
  'caBundle',
  'proxy',
  'maxConnections',
  'timezone',
  'logLevel',
  'logger',
]

const LOGGER_METHODS = ['error', 'warn', 'info', 'debug']

/** The function the native side hands each log record to: the logger's method of its level. */
function logSink(logger) {
  return (record) => {
    try {
      logger[record.level](`monapi: ${record.message}`)
    } catch {
      // A logger that throws must not break the call that logs.
    }
  }
}

function warnCallback(error) {
  const detail = error && error.message ? error.message : String(error)
  process.emitWarning(`monapi: the onToken callback failed: ${detail}`, { code: 'MONAPI_ON_TOKEN' })
}

/**
 * `util.inspect` of a token (`this`): its type and expiry, never the token values. Installed
 * as a non-enumerable own property, so JSON, spreading and deep equality ignore it.
 */
function inspectToken(depth, inspectOptions, inspect = util.inspect) {
  const expiresAt = typeof this.expires_at === 'number' ? this.expires_at : null
  const shown = {
    token_type: this.token_type,
    expires_in: this.expires_in,
    expires_at: expiresAt,
    expires: expiresAt === null ? null : safeIso(expiresAt),
    access_token: '[redacted]',
    refresh_token: isUnset(this.refresh_token) ? this.refresh_token : '[redacted]',
  }
  return `Token ${inspect(shown, { ...inspectOptions, depth })}`
}

function safeIso(seconds) {
  const date = new Date(seconds * 1000)
  return Number.isNaN(date.getTime()) ? null : date.toISOString()
}

/** A token (JSON from the native side) as a plain object that does not print its secrets. */
function token(json) {
  const value = JSON.parse(json)
  Object.defineProperty(value, util.inspect.custom, {
    value: inspectToken,
    enumerable: false,
    writable: true,
    configurable: true,
  })
  return value
}

const PAGE_SIZE = native.PAGE_SIZE
const VERSION = native.version()

/** A client of the monitoring service (see index.d.ts). */
class Client {
  #native
  #tables

  constructor(opts) {
    const o = options(opts, 'options', CLIENT_OPTIONS)
    let saved
    if (!isUnset(o.token)) {
      if (typeof o.token === 'string') saved = o.token
      else if (isPlainObject(o.token)) saved = JSON.stringify(o.token)
      else throw invalid('token', 'must be a token object (or its JSON) as returned by login() or client.token')
    }
    if (!isUnset(o.onToken) && typeof o.onToken !== 'function') {
      throw invalid('onToken', 'must be a function')
    }
    const config = {
      baseUrl: text(o.baseUrl, 'baseUrl'),
      clientId: text(o.clientId, 'clientId'),
      clientSecret: text(o.clientSecret, 'clientSecret'),
      username: text(o.username, 'username'),
      password: text(o.password, 'password'),
      passwordMd5: text(o.passwordMd5, 'passwordMd5'),
      token: saved,
      timeoutMs: numeric(o.timeoutMs),
      connectTimeoutMs: numeric(o.connectTimeoutMs),
      maxRetries: numeric(o.maxRetries),
      userAgent: text(o.userAgent, 'userAgent'),
      ...caBundle(o.caBundle),
      ...proxy(o.proxy),
      maxConnections: numeric(o.maxConnections),
      timezone: text(o.timezone, 'timezone'),
      logLevel: text(o.logLevel, 'logLevel'),
    }
    const logger = isUnset(o.logger) ? console : o.logger
    if (typeof logger !== 'object' || LOGGER_METHODS.some((m) => typeof logger[m] !== 'function')) {
      throw invalid('logger', `must be an object with the methods ${LOGGER_METHODS.join(', ')} (like console)`)
    }
    let listener
    if (typeof o.onToken === 'function') {
      const onToken = o.onToken
      listener = (json) => {
        try {
          const result = onToken(token(json))
          if (result && typeof result.then === 'function') result.then(undefined, warnCallback)
        } catch (error) {
          warnCallback(error)
        }
      }
    }
    this.#native = invokeSync(() => new native.NativeClient(config, listener, logSink(logger)))
    this.#tables = new Tables(TABLES, () => this.#open())
  }

  /** The calls that return tables (see index.d.ts). */
  get tables() {
    return this.#tables
  }

  get timezone() {
    return this.#native.timezone
  }

  #open() {
    if (this.#native.closed) throw invalid('client', 'is closed: create a new Client')
    return this.#native
  }

  get token() {
    if (this.#native.closed) return null
    const json = invokeSync(() => this.#native.token())
    return json === null ? null : token(json)
  }

  get baseUrl() {
    return this.#native.baseUrl
  }

  get closed() {
    return this.#native.closed
  }

  async login(opts) {
    const n = this.#open()
    const o = options(opts, 'options', CALL_OPTIONS)
    return token(await run(o, (call) => n.login(call)))
  }

  async refresh(opts) {
    const n = this.#open()
    const o = options(opts, 'options', CALL_OPTIONS)
    return token(await run(o, (call) => n.refresh(call)))
  }

  async createServerTasks(tasks, opts) {
    const n = this.#open()
    const o = options(opts, 'options', CALL_OPTIONS)
    if (!Array.isArray(tasks)) throw invalid('tasks', 'must be an array of task objects')
    let json
    try {
      json = tasksJson(tasks)
    } catch (error) {
      throw invalid('tasks', `cannot be converted to JSON: ${error && error.message}`)
    }
    return parse(await run(o, (call) => n.createServerTasks(json, call)), ENDPOINTS.createServerTasks)
  }

  async serviceTasks(opts) {
    const n = this.#open()
    const o = options(opts, 'options', ['page', ...CALL_OPTIONS])
    const page = isUnset(o.page) ? 1 : numeric(o.page)
    return parse(await run(o, (call) => n.serviceTasks(page, call)), ENDPOINTS.serviceTasks)
  }

  async *iterServiceTasks(opts) {
    const o = options(opts, 'options', CALL_OPTIONS)
    // The core says which page comes next (none after the last) and gives an empty page as [].
    for (let page = 1; page !== null; ) {
      const n = this.#open()
      const result = await run(o, (call) => n.serviceTaskPage(page, call))
      yield* parse(result.body, ENDPOINTS.serviceTasks)
      page = result.next
    }
  }

  async agents(opts) {
    const n = this.#open()
    const o = options(opts, 'options', CALL_OPTIONS)
    return parse(await run(o, (call) => n.agents(call)), ENDPOINTS.agents)
  }

  async serviceReport(taskId, opts) {
    const n = this.#open()
    const task = id(taskId)
    const [o, start, end] = range(opts, 'options')
    return parse(await run(o, (call) => n.serviceReport(task, start, end, call)), ENDPOINTS.serviceReport)
  }

  async siteReport(taskId, opts) {
    const n = this.#open()
    const task = id(taskId)
    const [o, start, end] = range(opts, 'options', ['monitor'])
    const monitor = isUnset(o.monitor) ? undefined : id(o.monitor)
    return parse(await run(o, (call) => n.siteReport(task, start, end, monitor, call)), ENDPOINTS.siteReport)
  }

  async request(opts) {
    const n = this.#open()
    const o = options(opts, 'options', ['method', 'path', 'query', 'form', ...CALL_OPTIONS])
    const method = text(o.method, 'method') ?? ''
    const path = text(o.path, 'path') ?? ''
    const query = params(o.query, 'query')
    const form = params(o.form, 'form')
    // The native side checks that the answer is JSON and names the call if it is not.
    return JSON.parse(await run(o, (call) => n.request(method, path, query, form, call)))
  }

  async responseTimeDistribution(taskId, opts) {
    const n = this.#open()
    const task = id(taskId)
    const [o, start, end] = range(opts, 'options')
    return parse(
      await run(o, (call) => n.responseTimeDistribution(task, start, end, call)),
      ENDPOINTS.responseTimeDistribution,
    )
  }

  async close() {
    this.#native.close()
  }

  [util.inspect.custom](depth, inspectOptions, inspect = util.inspect) {
    const n = this.#native
    // Never the token values: only whether there is one and when it expires.
    const expiresAt = n.tokenExpiresAt()
    let token = null
    if (expiresAt !== null) token = `[redacted, expires ${new Date(expiresAt * 1000).toISOString()}]`
    else if (this.token !== null) token = '[redacted]'
    const shown = { baseUrl: n.baseUrl, clientId: n.clientId, username: n.username, token, closed: n.closed }
    return `Client ${inspect(shown, { ...inspectOptions, depth })}`
  }
}

const TABLES = Symbol('monapi.Tables')

/** The JavaScript expression of one cell of column `i` at row `r`, by the column's kind. */
function cellExpression(kind, i) {
  switch (kind) {
    case 'number':
      return `((v = n${i}[r]) === v ? v : null)`
    case 'id':
      return `n${i}[r]`
    case 'timestamp':
      // Consecutive rows of one instant (the metrics of one record) share its Date, as rows
      // flattened by hand from a record do.
      return `((v = n${i}[r]) === v ? (v === t${i} ? d${i} : (d${i} = new Date((t${i} = v)))) : null)`
    case 'string':
      return `((k = k${i}[r]) < 0 ? null : s${i}[k])`
    default:
      return `((k = f${i}[r]) === 2 ? null : k === 1)`
  }
}

/** Row builders by schema: a function per shape of table, made once. */
const ROW_BUILDERS = new Map()

/**
 * The function that builds a table's rows from its columns (as the native side hands them
 * over). Generated for the schema, so that each row is one object literal of a fixed shape:
 * several times faster than setting the properties one column at a time.
 */
function rowBuilder(names, kinds) {
  const key = JSON.stringify([names, kinds])
  let build = ROW_BUILDERS.get(key)
  if (build === undefined) {
    const setup = kinds
      .map((_, i) => `const n${i} = c[${i}].numbers, k${i} = c[${i}].keys, s${i} = c[${i}].strings, f${i} = c[${i}].flags\nlet t${i} = Number.NaN, d${i} = null`)
      .join('\n')
    const fields = names.map((name, i) => `${JSON.stringify(name)}: ${cellExpression(kinds[i], i)}`).join(',\n')
    const body = `${setup}\nconst rows = new Array(count)\nlet v, k\nfor (let r = 0; r < count; r++) {\nrows[r] = {\n${fields}\n}\n}\nreturn rows`
    build = new Function('c', 'count', body)
    ROW_BUILDERS.set(key, build)
  }
  return build
}

/** A table of the service's data, built by the core (see index.d.ts). */
class Table {
  #native
  #schema

  constructor(key, handle) {
    if (key !== TABLES) throw invalid('Table', 'is made by the calls of client.tables, not `new`')
    this.#native = handle
    const fields = handle.fields().map((f) => Object.freeze({ name: f.name, type: f.type, nullable: f.nullable }))
    this.#schema = Object.freeze({ fields: Object.freeze(fields) })
  }

  get numRows() {
    return this.#native.numRows
  }

  get schema() {
    return this.#schema
  }

  #index(name) {
    const at = this.#schema.fields.findIndex((f) => f.name === name)
    if (at < 0) {
      const names = this.#schema.fields.map((f) => f.name).join(', ')
      throw invalid('name', `is not a column of this table (columns: ${names})`)
    }
    return at
  }

  column(name) {
    const at = this.#index(name)
    const column = invokeSync(() => this.#native.column(at))
    switch (column.kind) {
      case 'number':
      case 'timestamp':
        return column.numbers
      case 'id':
        return column.ids
      case 'string':
        return Array.from(column.keys, (k) => (k < 0 ? null : column.strings[k]))
      default:
        return Array.from(column.flags, (f) => (f === 2 ? null : f === 1))
    }
  }

  toRows() {
    const columns = this.#schema.fields.map((_, at) => invokeSync(() => this.#native.column(at)))
    const build = rowBuilder(
      this.#schema.fields.map((f) => f.name),
      columns.map((c) => c.kind),
    )
    return build(columns, this.numRows)
  }

  toArrowIPC() {
    const bytes = invokeSync(() => this.#native.toIpc())
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  [util.inspect.custom](depth, inspectOptions, inspect = util.inspect) {
    const columns = this.#schema.fields.map((f) => `${f.name}: ${f.type}`)
    return `Table ${inspect({ numRows: this.numRows, columns }, { ...inspectOptions, depth })}`
  }
}

function table(handle) {
  return new Table(TABLES, handle)
}

function siteTables(handles) {
  return { availability: table(handles[0]), responseTime: table(handles[1]), faults: table(handles[2]) }
}

const BULK_OPTIONS = ['taskIds', 'concurrency', 'onProgress', 'errors']

/** The options of a bulk call, checked for their types (the core checks the values). */
function bulkOptions(o) {
  let taskIds
  if (!isUnset(o.taskIds)) {
    if (!Array.isArray(o.taskIds)) throw invalid('taskIds', 'must be an array of task ids')
    taskIds = o.taskIds.map(id)
  }
  if (!isUnset(o.onProgress) && typeof o.onProgress !== 'function') throw invalid('onProgress', 'must be a function')
  const errors = isUnset(o.errors) ? 'throw' : o.errors
  if (errors !== 'throw' && errors !== 'collect') throw invalid('errors', "must be 'throw' or 'collect'")
  let onProgress
  if (typeof o.onProgress === 'function') {
    const callback = o.onProgress
    onProgress = (progress) => {
      try {
        callback(Object.freeze(progress))
      } catch (error) {
        process.emitWarning(`monapi: the onProgress callback failed: ${error && error.message}`, {
          code: 'MONAPI_ON_PROGRESS',
        })
      }
    }
  }
  return { taskIds, concurrency: numeric(o.concurrency), onProgress, errors }
}

/**
 * A bulk call's result: `result` (the tables) with `failures`; a PARTIAL_RESULT error carrying
 * both when a task failed, unless the caller collects the failures.
 */
function bulkResult(bulk, errors, result) {
  result.failures = bulk.failures().map((f) => ({ taskId: f.taskId, error: fromNative(new Error(f.error)) }))
  const partial = bulk.partialError()
  if (partial !== null && errors === 'throw') {
    const error = fromNative(new Error(partial))
    error.failures = result.failures
    error.result = result
    throw error
  }
  return result
}

/** The calls of a client that return tables (see index.d.ts). */
class Tables {
  #open

  constructor(key, open) {
    if (key !== TABLES) throw invalid('Tables', 'is reached as client.tables, not made with `new`')
    this.#open = open
  }

  async serviceTasks(opts) {
    const n = this.#open()
    const o = options(opts, 'options', CALL_OPTIONS)
    return table(await run(o, (call) => n.tableServiceTasks(call)))
  }

  async serviceReport(taskId, opts) {
    const n = this.#open()
    const task = id(taskId)
    const [o, start, end] = range(opts, 'options')
    return table(await run(o, (call) => n.tableServiceReport(task, start, end, call)))
  }

  async siteReport(taskId, opts) {
    const n = this.#open()
    const task = id(taskId)
    const [o, start, end] = range(opts, 'options', ['monitor'])
    const monitor = isUnset(o.monitor) ? undefined : id(o.monitor)
    return siteTables(await run(o, (call) => n.tableSiteReport(task, start, end, monitor, call)))
  }

  async responseTimeDistribution(taskId, opts) {
    const n = this.#open()
    const task = id(taskId)
    const [o, start, end] = range(opts, 'options')
    return table(await run(o, (call) => n.tableResponseTimeDistribution(task, start, end, call)))
  }

  async serviceReports(opts) {
    const n = this.#open()
    const [o, start, end] = range(opts, 'options', BULK_OPTIONS)
    const b = bulkOptions(o)
    const bulk = await run(o, (call) =>
      n.tableServiceReports(b.taskIds, start, end, b.concurrency, b.onProgress, call),
    )
    return bulkResult(bulk, b.errors, { table: table(bulk.tables()[0]) })
  }

  async siteReports(opts) {
    const n = this.#open()
    const [o, start, end] = range(opts, 'options', ['monitor', ...BULK_OPTIONS])
    const b = bulkOptions(o)
    if (b.taskIds === undefined) throw invalid('taskIds', 'is required (the site tasks to fetch)')
    const monitor = isUnset(o.monitor) ? undefined : id(o.monitor)
    const bulk = await run(o, (call) =>
      n.tableSiteReports(b.taskIds, start, end, monitor, b.concurrency, b.onProgress, call),
    )
    return bulkResult(bulk, b.errors, siteTables(bulk.tables()))
  }
}

if (typeof Symbol.asyncDispose === 'symbol') {
  Client.prototype[Symbol.asyncDispose] = Client.prototype.close
}

const FAULT_KEYS = [
  'error500',
  'error503',
  'error429',
  'retryAfterSecs',
  'dropConnection',
  'truncatedBody',
  'malformedBody',
  'next',
]
const FAULT_KINDS = ['error500', 'error503', 'error429', 'dropConnection', 'truncatedBody', 'malformedBody']
const SNAKE_KINDS = ['error_500', 'error_503', 'error_429', 'drop_connection', 'truncated_body', 'malformed_body']

/** Fault settings for the native side (kinds by the emulator's names), which checks the shares. */
function faultSettings(value, name) {
  const o = options(value, name, FAULT_KEYS)
  const out = {}
  for (const key of FAULT_KEYS) {
    const v = o[key]
    if (isUnset(v)) continue
    if (key === 'next') {
      if (!Array.isArray(v)) throw invalid(`${name}.next`, 'must be an array of fault kinds')
      out.next = v.map((kind, i) => {
        const at = FAULT_KINDS.indexOf(kind)
        const snakeAt = SNAKE_KINDS.indexOf(kind)
        if (at < 0 && snakeAt < 0) {
          throw invalid(`${name}.next[${i}]`, `must be one of ${FAULT_KINDS.join(', ')}`)
        }
        return SNAKE_KINDS[at < 0 ? snakeAt : at]
      })
    } else if (key === 'retryAfterSecs') {
      // The native side holds it as a u32; the emulator sets no bound of its own.
      out[key] = count(v, `${name}.${key}`, 0xffffffff)
    } else {
      if (typeof v !== 'number') throw invalid(`${name}.${key}`, 'must be a number (a share of requests)')
      out[key] = v
    }
  }
  return out
}

/** Quirks for the native side, which checks the values against the emulator's rules. */
function quirkSettings(value, name) {
  const o = options(value, name, ['pastEndPage', 'noAgents', 'noChecks'])
  for (const key of ['noAgents', 'noChecks']) {
    if (!isUnset(o[key]) && typeof o[key] !== 'boolean') throw invalid(`${name}.${key}`, 'must be a boolean')
  }
  return {
    pastEndPage: text(o.pastEndPage, `${name}.pastEndPage`),
    noAgents: isUnset(o.noAgents) ? undefined : o.noAgents,
    noChecks: isUnset(o.noChecks) ? undefined : o.noChecks,
  }
}

const DEMO = native.demoAccount()
const CONSTRUCT = Symbol('monapi.Emulator')

/** The bundled emulator of the service, in this process (see index.d.ts). */
class Emulator {
  #native

  constructor(key, handle) {
    if (key !== CONSTRUCT) throw invalid('Emulator', 'is started with `await Emulator.start(options)`, not `new`')
    this.#native = handle
  }

  static async start(opts) {
    const o = options(opts, 'options', ['seed', 'tokenTtl', 'latencyMs', 'serviceTasks', 'faults', 'quirks', 'timezone', 'tls'])
    if (!isUnset(o.tls) && typeof o.tls !== 'boolean') throw invalid('tls', 'must be a boolean')
    let seed
    if (!isUnset(o.seed)) {
      if (typeof o.seed === 'bigint' && o.seed >= 0n) seed = o.seed.toString()
      else if (Number.isSafeInteger(o.seed) && o.seed >= 0) seed = String(o.seed)
      else throw invalid('seed', 'must be a non-negative integer (a number or a bigint)')
    }
    const config = {
      seed,
      tokenTtl: numeric(o.tokenTtl),
      latencyMs: numeric(o.latencyMs),
      // A u32 for the native side, which checks the emulator's own bound.
      serviceTasks: count(o.serviceTasks, 'serviceTasks', 0xffffffff),
      faults: isUnset(o.faults) ? undefined : faultSettings(o.faults, 'faults'),
      quirks: isUnset(o.quirks) ? undefined : quirkSettings(o.quirks, 'quirks'),
      tls: o.tls,
      timezone: text(o.timezone, 'timezone'),
    }
    const handle = invokeSync(() => native.NativeEmulator.start(config))
    return new Emulator(CONSTRUCT, handle)
  }

  get baseUrl() {
    return this.#native.baseUrl
  }

  get caPem() {
    return this.#native.caPem ?? null
  }

  get caPath() {
    return this.#native.caPath ?? null
  }

  get timezone() {
    return this.#native.timezone
  }

  get clientId() {
    return DEMO.clientId
  }

  get clientSecret() {
    return DEMO.clientSecret
  }

  get username() {
    return DEMO.username
  }

  get password() {
    return DEMO.password
  }

  get stopped() {
    return this.#native.stopped
  }

  counters() {
    return JSON.parse(invokeSync(() => this.#native.counters()))
  }

  serverTasks() {
    return JSON.parse(invokeSync(() => this.#native.serverTasks()))
  }

  setTokenTtl(seconds) {
    const ttl = numeric(seconds)
    if (ttl === undefined) throw invalid('seconds', 'is required')
    invokeSync(() => this.#native.setTokenTtl(ttl))
  }

  setLatency(ms) {
    const latency = numeric(ms)
    if (latency === undefined) throw invalid('ms', 'is required')
    invokeSync(() => this.#native.setLatency(latency))
  }

  setFaults(faults) {
    const settings = faultSettings(faults, 'faults')
    invokeSync(() => this.#native.setFaults(settings))
  }

  setQuirks(quirks) {
    const settings = quirkSettings(quirks, 'quirks')
    invokeSync(() => this.#native.setQuirks(settings))
  }

  expireTokens() {
    invokeSync(() => this.#native.expireTokens())
  }

  revokeRefreshTokens() {
    invokeSync(() => this.#native.revokeRefreshTokens())
  }

  reset() {
    invokeSync(() => this.#native.reset())
  }

  client(overrides) {
    const o = options(overrides, 'overrides', CLIENT_OPTIONS)
    const base = {
      baseUrl: this.baseUrl,
      clientId: DEMO.clientId,
      clientSecret: DEMO.clientSecret,
      username: DEMO.username,
      password: DEMO.password,
    }
    if (this.caPath !== null) base.caBundle = this.caPath
    if ('passwordMd5' in o && !('password' in o)) delete base.password
    return new Client({ ...base, ...o })
  }

  async stop() {
    await invoke(() => this.#native.stop())
  }

  [util.inspect.custom](depth, inspectOptions, inspect = util.inspect) {
    const shown = { baseUrl: this.baseUrl, stopped: this.stopped }
    return `Emulator ${inspect(shown, { ...inspectOptions, depth })}`
  }
}

if (typeof Symbol.asyncDispose === 'symbol') {
  Emulator.prototype[Symbol.asyncDispose] = Emulator.prototype.stop
}

module.exports = {
  Client,
  Emulator,
  Table,
  MonapiError,
  ERROR_CODES,
  PAGE_SIZE,
  VERSION,
}

// Not public API: the test suite reaches the native module's panic hooks through this.
Object.defineProperty(module.exports, Symbol.for('monapi.internal'), {
  value: Object.freeze({ native, fromNative }),
})
