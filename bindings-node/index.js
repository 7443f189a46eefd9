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

function invalid(field, rule) {
  return new MonapiError(`invalid input: \`${field}\` ${rule}`, { code: 'INVALID_INPUT', field })
}

/** Bad input in task `index` of a create batch, worded as the core words it. */
function invalidTask(index, field, rule) {
  const what = field === '' ? rule : `\`${field}\` ${rule}`
  return new MonapiError(`invalid input: task ${index}: ${what}`, {
    code: 'INVALID_INPUT',
    field: field === '' ? 'tasks' : field,
    index,
    failedIndex: index,
  })
}

/**
 * Where the first bigint in `value` is, as the core names task fields (`a.b`, `a[0]`): `''`
 * for `value` itself, `undefined` if there is none.
 */
function bigintPath(value, path, seen) {
  if (typeof value === 'bigint') return path
  if (value === null || typeof value !== 'object' || seen.has(value)) return undefined
  seen.add(value)
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = bigintPath(value[i], `${path}[${i}]`, seen)
      if (found !== undefined) return found
    }
    return undefined
  }
  for (const key of Object.keys(value)) {
    const found = bigintPath(value[key], path === '' ? key : `${path}.${key}`, seen)
    if (found !== undefined) return found
  }
  return undefined
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

const ENDPOINTS = Object.freeze({
  createServerTasks: 'POST /v2/server/create.json',
  serviceTasks: 'GET /v2/service/lists.json',
  agents: 'GET /v2/agent/lists.json',
  serviceReport: 'GET /v2/service/report/{task_id}.json',
  siteReport: 'GET /v2/site/report/{task_id}.json',
  responseTimeDistribution: 'GET /v2/site/respose_time_distribute/{task_id}.json',
})

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
 * A number for the native side, which checks its range and names the rule (the same rules as
 * here): a huge value must be INVALID_INPUT, never a panic when it becomes a Duration.
 */
function number(value, field, rule) {
  if (isUnset(value)) return undefined
  if (typeof value !== 'number') throw invalid(field, rule)
  return value
}

const TIMEOUT_RULE = 'must be a positive number of milliseconds, at most 2147483647 (2^31 - 1, about 24.8 days)'
const LATENCY_RULE = 'must be a number of milliseconds from 0 to 2147483647 (2^31 - 1, about 24.8 days)'
const TTL_RULE = 'must be a number of seconds from 0 to 4294967295 (2^32 - 1, about 136 years)'

function count(value, field, max) {
  if (isUnset(value)) return undefined
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw invalid(field, `must be an integer from 0 to ${max}`)
  }
  return value
}

/** A task or monitoring-point id: a non-negative integer, a string of digits, or a bigint. */
function id(value, field) {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value)
  if (typeof value === 'bigint' && value >= 0n) return value.toString()
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return value
  throw invalid(field, 'must be an id: a non-negative integer or a string of digits')
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
      timeoutMs: number(o.timeoutMs, 'timeoutMs', TIMEOUT_RULE),
      connectTimeoutMs: number(o.connectTimeoutMs, 'connectTimeoutMs', TIMEOUT_RULE),
      maxRetries: count(o.maxRetries, 'maxRetries', 1000),
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
      json = JSON.stringify(tasks)
    } catch (error) {
      for (let i = 0; i < tasks.length; i += 1) {
        const path = bigintPath(tasks[i], '', new Set())
        if (path === '') throw invalidTask(i, '', 'must be a task object, not a bigint')
        if (path !== undefined) {
          throw invalidTask(i, path, 'is a bigint, which JSON cannot hold: give a number or a string')
        }
      }
      throw invalid('tasks', `cannot be converted to JSON: ${error && error.message}`)
    }
    return parse(await invoke(() => n.createServerTasks(json)), ENDPOINTS.createServerTasks)
  }

  async serviceTasks(opts) {
    const n = this.#open()
    const o = options(opts, 'options', ['page'])
    const page = isUnset(o.page) ? 1 : o.page
    if (!Number.isSafeInteger(page) || page < 1 || page > 0xffffffff) {
      throw invalid('page', 'must be an integer from 1 (pages count from 1)')
    }
    return parse(await invoke(() => n.serviceTasks(page)), ENDPOINTS.serviceTasks)
  }

  async *iterServiceTasks() {
    for (let page = 1; ; page += 1) {
      const tasks = await this.serviceTasks({ page })
      if (!Array.isArray(tasks)) {
        const endpoint = ENDPOINTS.serviceTasks
        // Say what arrived, never what it says.
        const kind = tasks === null ? 'null' : typeof tasks
        throw new MonapiError(
          `${endpoint}: could not decode the answer: page ${page} is not a JSON array of tasks (got ${kind === 'object' ? 'an object' : kind})`,
          { code: 'DECODE', endpoint },
        )
      }
      yield* tasks
      if (tasks.length < PAGE_SIZE) return
    }
  }

  async agents() {
    const n = this.#open()
    return parse(await invoke(() => n.agents()), ENDPOINTS.agents)
  }

  async serviceReport(taskId, opts) {
    const n = this.#open()
    const task = id(taskId, 'taskId')
    const [, start, end] = range(opts, 'options')
    return parse(await invoke(() => n.serviceReport(task, start, end)), ENDPOINTS.serviceReport)
  }

  async siteReport(taskId, opts) {
    const n = this.#open()
    const task = id(taskId, 'taskId')
    const [o, start, end] = range(opts, 'options', ['monitor'])
    const monitor = isUnset(o.monitor) ? undefined : id(o.monitor, 'monitor')
    return parse(await invoke(() => n.siteReport(task, start, end, monitor)), ENDPOINTS.siteReport)
  }

  async responseTimeDistribution(taskId, opts) {
    const n = this.#open()
    const task = id(taskId, 'taskId')
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

const FAULT_KEYS = {
  error500: 'error_500',
  error503: 'error_503',
  error429: 'error_429',
  retryAfterSecs: 'retry_after_secs',
  dropConnection: 'drop_connection',
  truncatedBody: 'truncated_body',
  malformedBody: 'malformed_body',
  next: 'next',
}
const FAULT_KINDS = ['error500', 'error503', 'error429', 'dropConnection', 'truncatedBody', 'malformedBody']
const SNAKE_KINDS = ['error_500', 'error_503', 'error_429', 'drop_connection', 'truncated_body', 'malformed_body']

/** Fault settings as the emulator's JSON (snake_case keys and kinds). */
function faultsJson(value, name) {
  const o = options(value, name, Object.keys(FAULT_KEYS))
  const out = {}
  for (const [key, snake] of Object.entries(FAULT_KEYS)) {
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
      out[snake] = count(v, `${name}.${key}`, 86400)
    } else {
      if (typeof v !== 'number' || !(v >= 0 && v <= 1)) {
        throw invalid(`${name}.${key}`, 'must be a share from 0 to 1')
      }
      out[snake] = v
    }
  }
  return JSON.stringify(out)
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
      tokenTtl: number(o.tokenTtl, 'tokenTtl', TTL_RULE),
      latencyMs: number(o.latencyMs, 'latencyMs', LATENCY_RULE),
      serviceTasks: count(o.serviceTasks, 'serviceTasks', 100000),
      faults: isUnset(o.faults) ? undefined : faultsJson(o.faults, 'faults'),
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
    const ttl = number(seconds, 'seconds', TTL_RULE)
    if (ttl === undefined) throw invalid('seconds', 'is required')
    invokeSync(() => this.#native.setTokenTtl(ttl))
  }

  setLatency(ms) {
    const latency = number(ms, 'ms', LATENCY_RULE)
    if (latency === undefined) throw invalid('ms', 'is required')
    invokeSync(() => this.#native.setLatency(latency))
  }

  setFaults(faults) {
    const json = faultsJson(faults, 'faults')
    invokeSync(() => this.#native.setFaults(json))
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
