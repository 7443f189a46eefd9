/**
 * monapi: a client for the monitoring service API (OAuth tokens, batch creation of server
 * tasks, service tasks, agents, service and site reports, response-time distributions), with
 * a bundled emulator of the service for tests and offline work.
 *
 * Every operation returns a Promise of plain objects with the API's own keys and values,
 * exactly as the service sent them. Every failure is a {@link MonapiError} with a stable
 * `code`.
 *
 * Where the program has OpenTelemetry (`@opentelemetry/api` and a registered tracer or meter
 * provider: the Node SDK, a vendor's distro), every call is a span of the tracer `monapi`
 * under the span active when it was made, with a child per HTTP attempt, and the attempts'
 * durations and retries are metrics (`http.client.request.duration`, `monapi.client.retries`).
 * `@opentelemetry/api` is an optional peer: without it, or without a provider, nothing changes.
 *
 * @packageDocumentation
 * @example
 * import { Client } from 'monapi'
 * const client = new Client() // MONAPI_BASE_URL, MONAPI_CLIENT_ID, ... from the environment
 * for await (const task of client.iterServiceTasks()) console.log(task.task_id, task.task_name)
 */

import { fromNative } from './lib/errors.js'
import native = require('./native.js')

export { Client } from './lib/client.js'
export { Emulator } from './lib/emulator.js'
export type {
  ClockOptions,
  Counters,
  EmulatorOptions,
  Encoding,
  FaultKind,
  FaultSettings,
  PastEndPage,
  Quirks,
  StoredServerTask,
  StoredServiceTask,
  World,
} from './lib/emulator.js'
export { ERROR_CODES, MonapiError } from './lib/errors.js'
export type { MonapiErrorCode, MonapiErrorFields, TaskFailure, ValidationProblem } from './lib/errors.js'
export { Table } from './lib/table.js'
export type { ColumnOf, TableField, TableSchema } from './lib/table.js'
export type * from './lib/data.js'
export type * from './lib/options.js'
export type * from './lib/rows.js'
export type * from './lib/sync.js'

/**
 * Records per page of the service task list (50).
 *
 * @example
 * const tasks = await client.serviceTasks({ page: 2 })
 * const last = tasks.length < PAGE_SIZE // a short page is the last one
 */
export const PAGE_SIZE: number = native.PAGE_SIZE

/**
 * The package version (the Cargo workspace version).
 *
 * @example
 * import { VERSION } from 'monapi'
 * console.log(VERSION) // e.g. '0.1.0'
 */
export const VERSION: string = native.version()

// Not public API: the test suite reaches the native module's panic hooks through this.
Object.defineProperty(exports, Symbol.for('monapi.internal'), {
  value: Object.freeze({ native, fromNative }),
})
