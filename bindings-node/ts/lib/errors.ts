/**
 * The one error class of the package, and how the native module's errors become it.
 *
 * The native module throws (or rejects with) a plain `Error` whose `code` and fields are
 * properties, set from the Rust core's error; {@link fromNative} makes it a
 * {@link MonapiError} by taking them over. Nothing is parsed out of a message.
 */

import native = require('../native.js')

/**
 * The stable codes of {@link MonapiError}. `AUTH_INVALID_CLIENT` / `AUTH_INVALID_GRANT`: the
 * token endpoint refused the client credentials / the account or refresh token;
 * `AUTH_ERROR`: another OAuth error (e.g. a fresh token rejected with `invalid_token`);
 * `API_ERROR`: the service answered with an error; `PARTIAL_CREATE`: some tasks of a create
 * batch failed, all others were created; `INVALID_INPUT`: bad input, nothing was sent;
 * `TIMEOUT`; `CONNECTION`; `DECODE`: the answer is not the JSON expected; `ABORTED`: the
 * call's `signal` aborted it; `PARTIAL_RESULT`: some tasks of a bulk table call, or some
 * task-days of a sync, failed (the error carries `result` and `failures`); `STORE`: a local
 * store's file or directory could not be read or written (the error carries `path`);
 * `INTERNAL`: a bug in the native module (a panic), reported as an error instead of a crash.
 *
 * @example
 * if (err instanceof MonapiError && (err.code === 'TIMEOUT' || err.code === 'CONNECTION')) retryLater()
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
  | 'STORE'
  | 'INTERNAL'

/**
 * Every code of {@link MonapiErrorCode}, in a frozen array.
 *
 * @example
 * import { ERROR_CODES } from 'monapi'
 * console.log(ERROR_CODES.includes('TIMEOUT')) // true
 */
export const ERROR_CODES: readonly MonapiErrorCode[] = Object.freeze([
  ...(native.errorCodes() as MonapiErrorCode[]),
  'INTERNAL',
])

/**
 * A task of a bulk call that failed, and why.
 *
 * @example
 * for (const { taskId, error } of result.failures) console.error(taskId, error.code, error.message)
 */
export interface TaskFailure {
  /** The task's id. */
  taskId: number
  /** Why it failed: the error its own call would have rejected with. */
  error: MonapiError
}

/**
 * One problem of invalid input: where (a task's index in a create batch), which field, what rule.
 *
 * @example
 * for (const p of err.errors ?? []) console.error(`task ${p.index}: ${p.field} ${p.rule}`)
 */
export interface ValidationProblem {
  /** The task's index in the caller's batch, or `null` for an option or parameter. */
  index: number | null
  /** The option, parameter or task field at fault (task fields keep the service's names). */
  field: string
  /** The rule it breaks. */
  rule: string
}

/**
 * The fields of a {@link MonapiError} besides its message, as its constructor takes them.
 *
 * @example
 * const fields = { code: 'API_ERROR', status: 503, retryAfterMs: 2000 }
 */
export interface MonapiErrorFields {
  /** See {@link MonapiError.code} (`INTERNAL` when unset or not a known code). */
  code?: MonapiErrorCode
  /** See {@link MonapiError.status}. */
  status?: number | null
  /** See {@link MonapiError.apiCode}. */
  apiCode?: number | string | null
  /** See {@link MonapiError.errKey}. */
  errKey?: string | null
  /** See {@link MonapiError.errContent}. */
  errContent?: string | null
  /** See {@link MonapiError.failedIndex}. */
  failedIndex?: number | null
  /** See {@link MonapiError.failedIndices}. */
  failedIndices?: number[] | null
  /** See {@link MonapiError.submitted}. */
  submitted?: number | null
  /** See {@link MonapiError.created}. */
  created?: number | null
  /** See {@link MonapiError.field}. */
  field?: string | null
  /** See {@link MonapiError.index}. */
  index?: number | null
  /** See {@link MonapiError.errors}. */
  errors?: ValidationProblem[] | null
  /** See {@link MonapiError.endpoint}. */
  endpoint?: string | null
  /** See {@link MonapiError.retryAfterMs}. */
  retryAfterMs?: number | null
  /** See {@link MonapiError.timeoutMs}. */
  timeoutMs?: number | null
  /** See {@link MonapiError.path}. */
  path?: string | null
  /** See {@link MonapiError.failures}. */
  failures?: TaskFailure[] | null
  /** See {@link MonapiError.result}. */
  result?: unknown
}

/**
 * Every error of the package. Branch on {@link MonapiError.code}; the other fields are set
 * where they apply and `null` elsewhere. Messages never hold a secret (tokens, password, its
 * MD5, client secret).
 *
 * @example
 * import { MonapiError } from 'monapi'
 * try {
 *   await client.createServerTasks(tasks)
 * } catch (err) {
 *   if (err instanceof MonapiError && err.code === 'PARTIAL_CREATE') {
 *     console.log(`task ${err.failedIndex} failed: ${err.errContent}; the others were created`)
 *   } else throw err
 * }
 */
export class MonapiError extends Error {
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
  /** `STORE`: the file or directory of the local store that could not be read or written. */
  readonly path: string | null
  /**
   * `PARTIAL_RESULT`: every task that failed, with its error (for a sync, every run of
   * task-days that failed: {@link SyncFailure}s).
   */
  failures: TaskFailure[] | null
  /**
   * `PARTIAL_RESULT`: what the call would have resolved with: for a bulk table call, a
   * {@link ServiceReportsResult} or a {@link SiteReportsResult} (the tables of the tasks that
   * succeeded, and `failures`); for {@link Client.sync}, its {@link SyncReport}.
   */
  result: unknown

  /**
   * Builds an error (the package creates them; this is for tests and wrappers).
   *
   * @param message - The message (it should hold no secret: the package's never do).
   * @param fields - Its `code` (`INTERNAL` when unset or unknown) and other fields; each left
   *   out is `null`.
   * @throws Never: a `code` that is not one of {@link ERROR_CODES} becomes `INTERNAL`.
   * @example
   * const err = new MonapiError('invalid input: `page` must be 1 or more', { code: 'INVALID_INPUT', field: 'page' })
   */
  constructor(message: string, fields: MonapiErrorFields = {}) {
    super(message)
    this.code = fields.code !== undefined && ERROR_CODES.includes(fields.code) ? fields.code : 'INTERNAL'
    this.status = fields.status ?? null
    this.apiCode = fields.apiCode ?? null
    this.errKey = fields.errKey ?? null
    this.errContent = fields.errContent ?? null
    this.failedIndex = fields.failedIndex ?? null
    this.failedIndices = fields.failedIndices ?? null
    this.submitted = fields.submitted ?? null
    this.created = fields.created ?? null
    this.field = fields.field ?? null
    this.index = fields.index ?? null
    this.errors = fields.errors ?? null
    this.endpoint = fields.endpoint ?? null
    this.retryAfterMs = fields.retryAfterMs ?? null
    this.timeoutMs = fields.timeoutMs ?? null
    this.path = fields.path ?? null
    this.failures = fields.failures ?? null
    this.result = fields.result ?? null
  }
}
Object.defineProperty(MonapiError.prototype, 'name', { value: 'MonapiError', writable: true, configurable: true })

/** Any error out of the native module, as a MonapiError (its fields are the error's properties). */
export function fromNative(error: unknown): MonapiError {
  if (error instanceof MonapiError) return error
  const message = error instanceof Error ? error.message : String(error)
  const fields = (typeof error === 'object' && error !== null ? error : {}) as MonapiErrorFields
  const code: unknown = fields.code
  if (typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code)) {
    return new MonapiError(message, fields)
  }
  if (code === 'InvalidArg' || code === 'NumberExpected' || code === 'StringExpected') {
    // N-API refused a value before the native code ran: a type the call never takes.
    return new MonapiError(`invalid input: ${message}`, { code: 'INVALID_INPUT' })
  }
  return new MonapiError(`internal error in the native module (a bug; please report it): ${message}`, {
    code: 'INTERNAL',
  })
}

/** A wrong type of argument, as the core words invalid input. */
export function invalid(field: string, rule: string): MonapiError {
  return fromNative(native.invalidInput(field, rule))
}

/** Runs a native call (sync or async), rethrowing its failure as a MonapiError. */
export async function invoke<T>(call: () => T | Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    const wrapped = fromNative(error)
    if (wrapped !== error) Error.captureStackTrace(wrapped, invoke)
    throw wrapped
  }
}

/** As {@link invoke}, for a synchronous call. */
export function invokeSync<T>(call: () => T): T {
  try {
    return call()
  } catch (error) {
    const wrapped = fromNative(error)
    if (wrapped !== error) Error.captureStackTrace(wrapped, invokeSync)
    throw wrapped
  }
}
