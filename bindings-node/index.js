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

/** Every `code` a MonapiError can carry. */
const ERROR_CODES = Object.freeze([
  'AUTH_INVALID_CLIENT',
  'AUTH_INVALID_GRANT',
  'AUTH_ERROR',
  'API_ERROR',
  'PARTIAL_CREATE',
  'INVALID_INPUT',
  'TIMEOUT',
  'CONNECTION',
  'DECODE',
  'INTERNAL',
])

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
  const o = options(value, name, ['startDate', 'endDate', ...extra])
  return [o, day(o.startDate, 'startDate'), day(o.endDate, 'endDate')]
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
]

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
    this.#native = invokeSync(() => new native.NativeClient(config, listener))
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

  async login() {
    const n = this.#open()
    return token(await invoke(() => n.login()))
  }

  async refresh() {
    const n = this.#open()
    return token(await invoke(() => n.refresh()))
  }

  async createServerTasks(tasks) {
    const n = this.#open()
    if (!Array.isArray(tasks)) throw invalid('tasks', 'must be an array of task objects')
    let json
    try {
      json = tasksJson(tasks)
    } catch (error) {
      throw invalid('tasks', `cannot be converted to JSON: ${error && error.message}`)
    }
    return parse(await invoke(() => n.createServerTasks(json)), ENDPOINTS.createServerTasks)
  }

  async serviceTasks(opts) {
    const n = this.#open()
    const o = options(opts, 'options', ['page'])
    const page = isUnset(o.page) ? 1 : numeric(o.page)
    return parse(await invoke(() => n.serviceTasks(page)), ENDPOINTS.serviceTasks)
  }

  async *iterServiceTasks() {
    // The core says which page comes next (none after the last) and gives an empty page as [].
    for (let page = 1; page !== null; ) {
      const n = this.#open()
      const result = await invoke(() => n.serviceTaskPage(page))
      yield* parse(result.body, ENDPOINTS.serviceTasks)
      page = result.next
    }
  }

  async agents() {
    const n = this.#open()
    return parse(await invoke(() => n.agents()), ENDPOINTS.agents)
  }

  async serviceReport(taskId, opts) {
    const n = this.#open()
    const task = id(taskId)
    const [, start, end] = range(opts, 'options')
    return parse(await invoke(() => n.serviceReport(task, start, end)), ENDPOINTS.serviceReport)
  }

  async siteReport(taskId, opts) {
    const n = this.#open()
    const task = id(taskId)
    const [o, start, end] = range(opts, 'options', ['monitor'])
    const monitor = isUnset(o.monitor) ? undefined : id(o.monitor)
    return parse(await invoke(() => n.siteReport(task, start, end, monitor)), ENDPOINTS.siteReport)
  }

  async request(opts) {
    const n = this.#open()
    const o = options(opts, 'options', ['method', 'path', 'query', 'form'])
    const method = text(o.method, 'method') ?? ''
    const path = text(o.path, 'path') ?? ''
    const query = params(o.query, 'query')
    const form = params(o.form, 'form')
    // The native side checks that the answer is JSON and names the call if it is not.
    return JSON.parse(await invoke(() => n.request(method, path, query, form)))
  }

  async responseTimeDistribution(taskId, opts) {
    const n = this.#open()
    const task = id(taskId)
    const [, start, end] = range(opts, 'options')
    return parse(
      await invoke(() => n.responseTimeDistribution(task, start, end)),
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
    const o = options(opts, 'options', ['seed', 'tokenTtl', 'latencyMs', 'serviceTasks', 'faults', 'quirks', 'timezone'])
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
      serviceTasks: count(o.serviceTasks, 'serviceTasks', 100000),
      faults: isUnset(o.faults) ? undefined : faultSettings(o.faults, 'faults'),
      quirks: isUnset(o.quirks) ? undefined : quirkSettings(o.quirks, 'quirks'),
      timezone: text(o.timezone, 'timezone'),
    }
    const handle = invokeSync(() => native.NativeEmulator.start(config))
    return new Emulator(CONSTRUCT, handle)
  }

  get baseUrl() {
    return this.#native.baseUrl
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
  MonapiError,
  ERROR_CODES,
  PAGE_SIZE,
  VERSION,
}

// Not public API: the test suite reaches the native module's panic hooks through this.
Object.defineProperty(module.exports, Symbol.for('monapi.internal'), {
  value: Object.freeze({ native, fromNative }),
})
