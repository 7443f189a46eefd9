/** The bundled emulator of the service, for tests and offline work. */

import util = require('node:util')

import { count, id, isUnset, numeric, options, text } from './args.js'
import { Client, CLIENT_OPTIONS } from './client.js'
import type { Id, JsonValue } from './data.js'
import { invalid, invoke, invokeSync } from './errors.js'
import type { ClientOptions } from './options.js'
import { instant, world, type World } from './emulator_clock.js'
import { faultSettings, quirkSettings, type EmulatorOptions, type FaultSettings, type Quirks } from './emulator_settings.js'
import native = require('../native.js')

export type { ClockOptions, World } from './emulator_clock.js'
export type { EmulatorOptions, Encoding, FaultKind, FaultSettings, PastEndPage, Quirks } from './emulator_settings.js'

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
  site_tasks: number
  site_task: number
  monitors: number
  users: number
  groups: number
  create_service: number
  total: number
  /** Answers sent compressed (their request accepted an encoding the emulator offers). */
  compressed: number
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

/** A service task as the emulator stored it: the submitted object plus its `task_id`. */
export interface StoredServiceTask {
  task_id: number
  [field: string]: JsonValue
}

const DEMO = native.demoAccount()

/** Makes an Emulator (set by the class, whose constructor is private). */
let make: (handle: native.NativeEmulator) => Emulator

/**
 * The bundled emulator of the service, running in this process on 127.0.0.1 (a free port) on
 * a thread of its own. It serves the demo account (`clientId`, `clientSecret`, `username`,
 * `password`), seeded data (service tasks 10001..., site tasks 20001...) and test knobs.
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
export class Emulator {
  #native: native.NativeEmulator

  static {
    make = (handle) => new Emulator(handle)
  }

  private constructor(handle: native.NativeEmulator) {
    if (!(handle instanceof native.NativeEmulator)) {
      throw invalid('Emulator', 'is started with `await Emulator.start(options)`, not `new`')
    }
    this.#native = handle
  }

  /**
   * Starts an emulator.
   *
   * @example
   * ```js
   * const emulator = await Emulator.start({ tokenTtl: 2, latencyMs: 10, serviceTasks: 100 })
   * ```
   */
  static async start(options_?: EmulatorOptions): Promise<Emulator> {
    const o = options(options_, 'options', [
      'seed',
      'tokenTtl',
      'latencyMs',
      'serviceTasks',
      'siteTasks',
      'refreshTokenTtl',
      'faults',
      'quirks',
      'timezone',
      'tls',
      'compression',
      'bandwidthMbps',
      'rttMs',
      'world',
      'now',
    ])
    if (!isUnset(o.tls) && typeof o.tls !== 'boolean') throw invalid('tls', 'must be a boolean')
    if (!isUnset(o.compression) && !(Array.isArray(o.compression) && o.compression.every((e) => typeof e === 'string'))) {
      throw invalid('compression', 'must be an array of encodings (gzip, deflate)')
    }
    let seed: string | undefined
    if (!isUnset(o.seed)) {
      if (typeof o.seed === 'bigint' && o.seed >= 0n) seed = o.seed.toString()
      else if (typeof o.seed === 'number' && Number.isSafeInteger(o.seed) && o.seed >= 0) seed = String(o.seed)
      else throw invalid('seed', 'must be a non-negative integer (a number or a bigint)')
    }
    const config: native.NativeEmulatorOptions = {
      seed,
      tokenTtl: numeric(o.tokenTtl),
      latencyMs: numeric(o.latencyMs),
      // A u32 for the native side, which checks the emulator's own bound.
      serviceTasks: count(o.serviceTasks, 'serviceTasks', 0xffffffff),
      siteTasks: count(o.siteTasks, 'siteTasks', 0xffffffff),
      refreshTokenTtl: numeric(o.refreshTokenTtl),
      faults: isUnset(o.faults) ? undefined : faultSettings(o.faults, 'faults'),
      quirks: isUnset(o.quirks) ? undefined : quirkSettings(o.quirks, 'quirks'),
      tls: o.tls as boolean | undefined,
      timezone: text(o.timezone, 'timezone'),
      compression: o.compression as string[] | undefined,
      bandwidthMbps: numeric(o.bandwidthMbps),
      rttMs: numeric(o.rttMs),
      world: world(o.world),
      now: instant(o.now, 'now'),
    }
    const handle = invokeSync(() => native.NativeEmulator.start(config))
    return make(handle)
  }

  /**
   * `http://127.0.0.1:PORT`.
   *
   * @example
   * ```js
   * const client = new Client({ baseUrl: emulator.baseUrl, clientId: emulator.clientId, clientSecret: emulator.clientSecret, username: emulator.username, password: emulator.password })
   * ```
   */
  get baseUrl(): string {
    return this.#native.baseUrl
  }
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
  get caPem(): string | null {
    return this.#native.caPem ?? null
  }
  /**
   * The path of a file holding {@link Emulator.caPem} (removed when the emulator stops), when
   * it serves HTTPS, else `null`: give it as `caBundle` or `NODE_EXTRA_CA_CERTS`.
   *
   * @example
   * ```js
   * process.env.NODE_EXTRA_CA_CERTS = emulator.caPath // read by clients made after this
   * ```
   */
  get caPath(): string | null {
    return this.#native.caPath ?? null
  }
  /**
   * The time zone of its days, as an offset from UTC (`'+08:00'` unless started with another).
   *
   * @example
   * ```js
   * const emulator = await Emulator.start({ timezone: 'UTC' })
   * console.log(emulator.timezone) // '+00:00'
   * ```
   */
  get timezone(): string {
    return this.#native.timezone
  }
  /**
   * The demo client id, `demo_id`.
   *
   * @example
   * ```js
   * process.env.MONAPI_CLIENT_ID = emulator.clientId
   * ```
   */
  get clientId(): string {
    return DEMO.clientId
  }
  /**
   * The demo client secret, `demo_secret`.
   *
   * @example
   * ```js
   * process.env.MONAPI_CLIENT_SECRET = emulator.clientSecret
   * ```
   */
  get clientSecret(): string {
    return DEMO.clientSecret
  }
  /**
   * The demo login, `test@example.com`.
   *
   * @example
   * ```js
   * process.env.MONAPI_USERNAME = emulator.username
   * ```
   */
  get username(): string {
    return DEMO.username
  }
  /**
   * The demo password, `123456`.
   *
   * @example
   * ```js
   * process.env.MONAPI_PASSWORD = emulator.password
   * ```
   */
  get password(): string {
    return DEMO.password
  }
  /**
   * Whether {@link Emulator.stop} was called.
   *
   * @example
   * ```js
   * await emulator.stop(); console.log(emulator.stopped) // true
   * ```
   */
  get stopped(): boolean {
    return this.#native.stopped
  }

  /**
   * A snapshot of the request counters.
   *
   * @example
   * ```js
   * await client.agents()
   * console.log(emulator.counters().agents) // 1
   * ```
   */
  counters(): Counters {
    return JSON.parse(invokeSync(() => this.#native.counters())) as Counters
  }

  /**
   * Created server tasks as stored.
   *
   * @example
   * ```js
   * console.log(emulator.serverTasks().map((t) => t.server_name))
   * ```
   */
  serverTasks(): StoredServerTask[] {
    return JSON.parse(invokeSync(() => this.#native.serverTasks())) as StoredServerTask[]
  }

  /**
   * Created service tasks as stored.
   *
   * @example
   * ```js
   * console.log(emulator.createdServiceTasks().map((t) => t.task_type))
   * ```
   */
  createdServiceTasks(): StoredServiceTask[] {
    return JSON.parse(invokeSync(() => this.#native.createdServiceTasks())) as StoredServiceTask[]
  }

  /**
   * Lifetime of access tokens issued from now on, in seconds (0 to 2^32 - 1).
   *
   * @example
   * ```js
   * emulator.setTokenTtl(1)
   * ```
   */
  setTokenTtl(seconds: number): void {
    const ttl = numeric(seconds)
    if (ttl === undefined) throw invalid('seconds', 'is required')
    invokeSync(() => this.#native.setTokenTtl(ttl))
  }

  /**
   * Delay before every answer from now on, in milliseconds (0 to 2^31 - 1).
   *
   * @example
   * ```js
   * emulator.setLatency(2000) // provoke a TIMEOUT with timeoutMs: 300
   * ```
   */
  setLatency(ms: number): void {
    const latency = numeric(ms)
    if (latency === undefined) throw invalid('ms', 'is required')
    invokeSync(() => this.#native.setLatency(latency))
  }

  /**
   * Replaces the fault settings.
   *
   * @example
   * ```js
   * emulator.setFaults({ next: ['error503', 'dropConnection'] }) // the next two requests fail
   * emulator.setFaults({}) // no faults
   * ```
   */
  setFaults(faults: FaultSettings): void {
    const settings = faultSettings(faults, 'faults')
    invokeSync(() => this.#native.setFaults(settings))
  }

  /**
   * Replaces the quirks (those left out are off), from the next request on.
   *
   * @example
   * ```js
   * emulator.setQuirks({ pastEndPage: 'object', noAgents: true }) // page 4 is {}, the agent list []
   * emulator.setQuirks({}) // no quirks
   * ```
   */
  setQuirks(quirks: Quirks): void {
    const settings = quirkSettings(quirks, 'quirks')
    invokeSync(() => this.#native.setQuirks(settings))
  }

  /**
   * Every access token issued so far expires now (refresh tokens stay valid).
   *
   * @example
   * ```js
   * emulator.expireTokens()
   * await client.agents() // refreshes the token, then repeats the call
   * ```
   */
  expireTokens(): void {
    invokeSync(() => this.#native.expireTokens())
  }

  /**
   * Every refresh token becomes invalid (the next refresh gets `invalid_grant`).
   *
   * @example
   * ```js
   * emulator.revokeRefreshTokens()
   * ```
   */
  revokeRefreshTokens(): void {
    invokeSync(() => this.#native.revokeRefreshTokens())
  }

  /**
   * Every refresh token issued so far expires now (the next refresh gets `invalid_grant`,
   * "Refresh token has expired").
   *
   * @example
   * ```js
   * emulator.expireRefreshTokens()
   * ```
   */
  expireRefreshTokens(): void {
    invokeSync(() => this.#native.expireRefreshTokens())
  }

  /**
   * The world of its site reports.
   *
   * @example
   * ```js
   * console.log((await Emulator.start({ world: 'stressed' })).world) // 'stressed'
   * ```
   */
  get world(): World {
    return invokeSync(() => this.#native.world()) as World
  }

  /**
   * Its clock: no report has a check after it.
   *
   * @example
   * ```js
   * const emulator = await Emulator.start({ now: '2026-11-01T10:02:00+08:00' })
   * console.log(emulator.now.toISOString()) // '2026-11-01T02:02:00.000Z'
   * ```
   */
  get now(): Date {
    return new Date(invokeSync(() => this.#native.nowMs()))
  }

  /**
   * Fixes its clock at `now` (as the `now` option takes it), or with `null` makes it follow the
   * system clock. An instant before the day its task lists were built for is `INVALID_INPUT`.
   *
   * @example
   * ```js
   * emulator.setNow('2026-11-01 23:59')
   * ```
   */
  setNow(now: Date | string | null): void {
    const text = now === null ? null : (instant(now, 'now') ?? null)
    invokeSync(() => this.#native.setNow(text))
  }

  /**
   * Fixes its clock `seconds` later; returns the new reading.
   *
   * @example
   * ```js
   * const later = emulator.advance(300)
   * ```
   */
  advance(seconds: number): Date {
    return new Date(invokeSync(() => this.#native.advance(numeric(seconds) ?? Number.NaN)))
  }

  /**
   * Back to the state at start: counters zero, knobs (faults, quirks and the clock included) as
   * configured, created tasks gone, all tokens revoked, no site failing, every removed task back.
   *
   * @example
   * ```js
   * emulator.reset()
   * ```
   */
  reset(): void {
    invokeSync(() => this.#native.reset())
  }

  /**
   * Site task `taskId` fails from now on, at every monitoring point. From the site's last check
   * at or before this moment (the moment rounded down to its frequency), every check of every
   * point fails: `uprate` `'0.00'` (the average's too) and response times of `'0.00'`; each
   * point has an ongoing fault (`end_time` `'未结束'`) starting at that check, with a cause of
   * the service's. Until {@link Emulator.recoverSite} or {@link Emulator.reset}; a site already
   * failing stays as it is. Throws `INVALID_INPUT` (field `taskId`) for an id that is not one of
   * its site tasks.
   *
   * @param taskId a site task of this emulator (20001, 20002, ...)
   * @returns the unix time of the first failed check (the faults' `start_time`)
   *
   * @example
   * ```js
   * const since = emulator.failSite(20001)
   * const report = await client.siteReport(20001)
   * console.log(report['0'].uprate[since].uprate) // '0.00'
   * ```
   */
  failSite(taskId: Id): number {
    const task = id(taskId)
    return invokeSync(() => this.#native.failSite(task))
  }

  /**
   * Ends the failure of site task `taskId` ({@link Emulator.failSite}): its last check at or
   * before this moment failed still; the check after it is up again and is the faults'
   * `end_time` (no longer `'未结束'`), and the checks from it on are as before the failure.
   *
   * @param taskId a site task of this emulator
   * @returns the unix time of the first check up again, or `null` when the site was not failing
   * (nothing changes)
   *
   * @example
   * ```js
   * const up = emulator.recoverSite(20001)
   * ```
   */
  recoverSite(taskId: Id): number | null {
    const task = id(taskId)
    return invokeSync(() => this.#native.recoverSite(task)) ?? null
  }

  /**
   * Takes seeded task `taskId` out of the account, as a user deleting it in the service's
   * console. From the next request on, its list ({@link Client.serviceTasks} or
   * {@link Client.siteTasks}) is paged without it, 50 a page (the later pages shift), and every
   * operation naming it (reports, response-time distribution, {@link Client.siteTask}) answers
   * as for an id that does not exist. Until {@link Emulator.restoreTask} or
   * {@link Emulator.reset}. Throws `INVALID_INPUT` (field `taskId`) for an id that is not one of
   * its seeded tasks.
   *
   * @param taskId a service task (10001, 10002, ...) or a site task (20001, 20002, ...) of this
   * emulator
   * @returns whether anything changed (`false` for a task removed already)
   *
   * @example
   * ```js
   * emulator.removeTask(20002) // true
   * const sites = await client.siteTasks() // without 20002
   * ```
   */
  removeTask(taskId: Id): boolean {
    const task = id(taskId)
    return invokeSync(() => this.#native.removeTask(task))
  }

  /**
   * Brings back task `taskId` taken out by {@link Emulator.removeTask}, at its place in its list.
   *
   * @param taskId a seeded task of this emulator
   * @returns whether anything changed (`false` for a task that was not removed)
   *
   * @example
   * ```js
   * emulator.restoreTask(20002) // true
   * ```
   */
  restoreTask(taskId: Id): boolean {
    const task = id(taskId)
    return invokeSync(() => this.#native.restoreTask(task))
  }

  /**
   * A {@link Client} for the demo account of this emulator, with `overrides` applied.
   *
   * @example
   * ```js
   * const client = emulator.client({ timeoutMs: 300, maxRetries: 0 })
   * ```
   */
  client(overrides?: ClientOptions): Client {
    const o: ClientOptions = options(overrides, 'overrides', CLIENT_OPTIONS)
    const base: ClientOptions = {
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

  /**
   * Stops the server (in-flight requests get about a second) and waits for its thread.
   * Calling it again does nothing.
   *
   * @example
   * ```js
   * await emulator.stop()
   * ```
   */
  async stop(): Promise<void> {
    await invoke(() => this.#native.stop())
  }

  /** What `console.log(emulator)` shows. */
  [util.inspect.custom](depth: number, inspectOptions: util.InspectOptionsStylized, inspect = util.inspect): string {
    const shown = { baseUrl: this.baseUrl, stopped: this.stopped }
    return `Emulator ${inspect(shown, { ...inspectOptions, depth })}`
  }
}

if (typeof Symbol.asyncDispose === 'symbol') {
  ;(Emulator.prototype as unknown as Record<symbol, unknown>)[Symbol.asyncDispose] = Emulator.prototype.stop
}
