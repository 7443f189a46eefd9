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

/**
 * Request counters of an emulator (per endpoint, and `total`), from its start or its last
 * {@link Emulator.reset}.
 *
 * @example
 * const { token_password, total } = emulator.counters()
 */
export interface Counters {
  /** Token endpoint, any grant. */
  token: number
  /** Token endpoint, password grant (logins). */
  token_password: number
  /** Token endpoint, refresh grant. */
  token_refresh: number
  /** Server task creation (`POST /v2/server/create.json`). */
  create: number
  /** Service task list pages. */
  service_tasks: number
  /** Agent list. */
  agents: number
  /** Service reports. */
  service_report: number
  /** Site reports. */
  site_report: number
  /** Response-time distributions. */
  distribution: number
  /** Site task list pages. */
  site_tasks: number
  /** Site task settings. */
  site_task: number
  /** Monitoring point list. */
  monitors: number
  /** User list. */
  users: number
  /** User group list. */
  groups: number
  /** Service task creation (`POST /v2/service/create.json`). */
  create_service: number
  /** Every request, of any endpoint. */
  total: number
  /** Answers sent compressed (their request accepted an encoding the emulator offers). */
  compressed: number
  /** TCP connections accepted (HTTPS ones too, even when the client refused the certificate). */
  connections: number
  /** The most API requests in progress at once (from arrival to answer). */
  peak_in_progress: number
  /** API requests that carried a W3C trace context (a `traceparent` header). */
  traced: number
  /** The `traceparent` header of the last API request that carried one, or `null`. */
  traceparent: string | null
}

/**
 * A server task as the emulator stored it: the submitted object plus its `task_id`.
 *
 * @example
 * const [first] = emulator.serverTasks()
 * console.log(first.task_id, first.server_name)
 */
export interface StoredServerTask {
  /** The id the emulator gave it. */
  task_id: number
  /** Every field as the service received it (the service's keys). */
  [field: string]: JsonValue
}

/**
 * A service task as the emulator stored it: the submitted object plus its `task_id`.
 *
 * @example
 * const types = emulator.createdServiceTasks().map((t) => t.task_type)
 */
export interface StoredServiceTask {
  /** The id the emulator gave it. */
  task_id: number
  /** Every field as the service received it (the service's keys). */
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
 * Once it is stopped, its methods and the getters {@link Emulator.world} and
 * {@link Emulator.now} throw a {@link MonapiError} `INVALID_INPUT` (field `emulator`, "is
 * stopped"); its address, account and {@link Emulator.client} stay as they were.
 *
 * @example
 * import { Emulator } from 'monapi'
 * const emulator = await Emulator.start()
 * const client = emulator.client()
 * console.log(Object.keys(await client.agents()))
 * await emulator.stop()
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
   * Starts an emulator, serving on a free port of 127.0.0.1 when the Promise resolves.
   *
   * @param options_ - Its data, tokens, faults, quirks, clock, link, TLS.
   * @returns The running {@link Emulator}.
   * @throws {@link MonapiError}: `INVALID_INPUT` naming the option at fault (unknown, or out of its
   *   range); `CONNECTION` when it cannot listen on 127.0.0.1.
   * @example
   * const emulator = await Emulator.start({ tokenTtl: 2, latencyMs: 10, serviceTasks: 100 })
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
   * const { baseUrl, clientId, clientSecret, username, password } = emulator
   * const client = new Client({ baseUrl, clientId, clientSecret, username, password })
   */
  get baseUrl(): string {
    return this.#native.baseUrl
  }
  /**
   * The private CA's certificate (PEM text) when the emulator serves HTTPS (`tls: true`),
   * else `null`. {@link Emulator.client} trusts it already.
   *
   * @example
   * const emulator = await Emulator.start({ tls: true })
   * const { baseUrl, clientId, clientSecret, username, password } = emulator
   * const caBundle = Buffer.from(emulator.caPem)
   * const client = new Client({ baseUrl, caBundle, clientId, clientSecret, username, password })
   */
  get caPem(): string | null {
    return this.#native.caPem ?? null
  }
  /**
   * The path of a file holding {@link Emulator.caPem} (removed when the emulator stops), when
   * it serves HTTPS, else `null`: give it as `caBundle` or `NODE_EXTRA_CA_CERTS`.
   *
   * @example
   * process.env.NODE_EXTRA_CA_CERTS = emulator.caPath // read by clients made after this
   */
  get caPath(): string | null {
    return this.#native.caPath ?? null
  }
  /**
   * The time zone of its days, as an offset from UTC (`'+08:00'` unless started with another).
   *
   * @example
   * const emulator = await Emulator.start({ timezone: 'UTC' })
   * console.log(emulator.timezone) // '+00:00'
   */
  get timezone(): string {
    return this.#native.timezone
  }
  /**
   * The demo client id, `demo_id`.
   *
   * @example
   * process.env.MONAPI_CLIENT_ID = emulator.clientId
   */
  get clientId(): string {
    return DEMO.clientId
  }
  /**
   * The demo client secret, `demo_secret`.
   *
   * @example
   * process.env.MONAPI_CLIENT_SECRET = emulator.clientSecret
   */
  get clientSecret(): string {
    return DEMO.clientSecret
  }
  /**
   * The demo login, `test@example.com`.
   *
   * @example
   * process.env.MONAPI_USERNAME = emulator.username
   */
  get username(): string {
    return DEMO.username
  }
  /**
   * The demo password, `123456`.
   *
   * @example
   * process.env.MONAPI_PASSWORD = emulator.password
   */
  get password(): string {
    return DEMO.password
  }
  /**
   * Whether {@link Emulator.stop} was called.
   *
   * @example
   * await emulator.stop(); console.log(emulator.stopped) // true
   */
  get stopped(): boolean {
    return this.#native.stopped
  }

  /**
   * A snapshot of the request counters.
   *
   * @returns The {@link Counters}: requests per endpoint and in all, since the start or
   *   {@link Emulator.reset}.
   * @throws {@link MonapiError}: `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * await client.agents()
   * console.log(emulator.counters().agents) // 1
   */
  counters(): Counters {
    return JSON.parse(invokeSync(() => this.#native.counters())) as Counters
  }

  /**
   * Created server tasks as stored.
   *
   * @returns Every server task created since the start or {@link Emulator.reset}, in order: the
   *   task as the service received it, plus its `task_id`.
   * @throws {@link MonapiError}: `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * console.log(emulator.serverTasks().map((t) => t.server_name))
   */
  serverTasks(): StoredServerTask[] {
    return JSON.parse(invokeSync(() => this.#native.serverTasks())) as StoredServerTask[]
  }

  /**
   * Created service tasks as stored.
   *
   * @returns Every service task created since the start or {@link Emulator.reset}, in order:
   *   the task as the service received it, plus its `task_id`.
   * @throws {@link MonapiError}: `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * console.log(emulator.createdServiceTasks().map((t) => t.task_type))
   */
  createdServiceTasks(): StoredServiceTask[] {
    return JSON.parse(invokeSync(() => this.#native.createdServiceTasks())) as StoredServiceTask[]
  }

  /**
   * Lifetime of access tokens issued from now on, in seconds (0 to 2^32 - 1).
   *
   * @param seconds - The lifetime, in seconds.
   * @throws {@link MonapiError}: `INVALID_INPUT` (`seconds` missing or out of range; `emulator` stopped).
   * @example
   * emulator.setTokenTtl(1)
   */
  setTokenTtl(seconds: number): void {
    const ttl = numeric(seconds)
    if (ttl === undefined) throw invalid('seconds', 'is required')
    invokeSync(() => this.#native.setTokenTtl(ttl))
  }

  /**
   * Delay before every answer from now on, in milliseconds (0 to 2^31 - 1).
   *
   * @param ms - The delay, in milliseconds.
   * @throws {@link MonapiError}: `INVALID_INPUT` (`ms` missing or out of range; `emulator` stopped).
   * @example
   * emulator.setLatency(2000) // provoke a TIMEOUT with timeoutMs: 300
   */
  setLatency(ms: number): void {
    const latency = numeric(ms)
    if (latency === undefined) throw invalid('ms', 'is required')
    invokeSync(() => this.#native.setLatency(latency))
  }

  /**
   * Replaces the fault settings, from the next request on.
   *
   * @param faults - The faults: shares of requests and the next ones.
   * @throws {@link MonapiError}: `INVALID_INPUT` naming the setting at fault (`faults.next[0]`, ...): an
   *   unknown key or kind, a share outside 0 to 1; `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * emulator.setFaults({ next: ['error503', 'dropConnection'] }) // the next two requests fail
   * emulator.setFaults({}) // no faults
   */
  setFaults(faults: FaultSettings): void {
    const settings = faultSettings(faults, 'faults')
    invokeSync(() => this.#native.setFaults(settings))
  }

  /**
   * Replaces the quirks (those left out are off), from the next request on.
   *
   * @param quirks - The quirks ({@link Quirks}); `{}` turns every one off.
   * @throws {@link MonapiError}: `INVALID_INPUT` naming the quirk at fault (an unknown one, a value of
   *   the wrong type); `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * emulator.setQuirks({ pastEndPage: 'object', noAgents: true }) // page 4 is {}, agents []
   * emulator.setQuirks({}) // no quirks
   */
  setQuirks(quirks: Quirks): void {
    const settings = quirkSettings(quirks, 'quirks')
    invokeSync(() => this.#native.setQuirks(settings))
  }

  /**
   * Every access token issued so far expires now (refresh tokens stay valid).
   *
   * @throws {@link MonapiError}: `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * emulator.expireTokens()
   * await client.agents() // refreshes the token, then repeats the call
   */
  expireTokens(): void {
    invokeSync(() => this.#native.expireTokens())
  }

  /**
   * Every refresh token becomes invalid (the next refresh gets `invalid_grant`).
   *
   * @throws {@link MonapiError}: `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * emulator.revokeRefreshTokens()
   */
  revokeRefreshTokens(): void {
    invokeSync(() => this.#native.revokeRefreshTokens())
  }

  /**
   * Every refresh token issued so far expires now (the next refresh gets `invalid_grant`,
   * "Refresh token has expired").
   *
   * @throws {@link MonapiError}: `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * emulator.expireRefreshTokens()
   */
  expireRefreshTokens(): void {
    invokeSync(() => this.#native.expireRefreshTokens())
  }

  /**
   * The world of its site reports ({@link World}).
   *
   * @throws {@link MonapiError}: `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * console.log((await Emulator.start({ world: 'stressed' })).world) // 'stressed'
   */
  get world(): World {
    return invokeSync(() => this.#native.world()) as World
  }

  /**
   * Its clock's reading, as a new `Date`: no report has a check after it.
   *
   * @throws {@link MonapiError}: `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * const emulator = await Emulator.start({ now: '2026-11-01T10:02:00+08:00' })
   * console.log(emulator.now.toISOString()) // '2026-11-01T02:02:00.000Z'
   */
  get now(): Date {
    return new Date(invokeSync(() => this.#native.nowMs()))
  }

  /**
   * Fixes its clock at `now` (as the `now` option takes it), or with `null` makes it follow the
   * system clock. An instant before the day its task lists were built for is `INVALID_INPUT`.
   *
   * @param now - A `Date`, RFC 3339 text, or a local date and time in its time zone
   *   (`'2026-11-01 10:02'`); `null` to follow the system clock.
   * @throws {@link MonapiError}: `INVALID_INPUT` (field `now`) for an instant it cannot read or before
   *   that day; `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * emulator.setNow('2026-11-01 23:59')
   */
  setNow(now: Date | string | null): void {
    const text = now === null ? null : (instant(now, 'now') ?? null)
    invokeSync(() => this.#native.setNow(text))
  }

  /**
   * Fixes its clock `seconds` later than its reading (the system clock's, when it follows it).
   *
   * @param seconds - How far to move it, in seconds (0 to 2^32 - 1).
   * @returns The new reading, as a `Date`.
   * @throws {@link MonapiError}: `INVALID_INPUT` (`seconds` out of range, not a number or past what
   *   its clock holds; `emulator` stopped).
   * @example
   * const later = emulator.advance(300)
   */
  advance(seconds: number): Date {
    return new Date(invokeSync(() => this.#native.advance(numeric(seconds) ?? Number.NaN)))
  }

  /**
   * Back to the state at start: counters zero, knobs (faults, quirks and the clock included) as
   * configured, created tasks gone, all tokens revoked, no site failing, every removed task back.
   *
   * @throws {@link MonapiError}: `INVALID_INPUT` (field `emulator`) once stopped.
   * @example
   * emulator.reset()
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
   * failing stays as it is.
   *
   * @param taskId - A site task of this emulator (20001, 20002, ...).
   * @returns The unix time of the first failed check (the faults' `start_time`).
   * @throws {@link MonapiError}: `INVALID_INPUT` (`taskId` not a site task; `emulator` stopped).
   * @example
   * const since = emulator.failSite(20001)
   * const report = await client.siteReport(20001)
   * console.log(report['0'].uprate[since].uprate) // '0.00'
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
   * @param taskId - A site task of this emulator.
   * @returns The unix time of the first check up again, or `null` when the site was not failing
   *   (nothing changes).
   * @throws {@link MonapiError}: `INVALID_INPUT` (`taskId` not a site task; `emulator` stopped).
   * @example
   * const up = emulator.recoverSite(20001)
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
   * {@link Emulator.reset}.
   *
   * @param taskId - A service task (10001, 10002, ...) or a site task (20001, 20002, ...) of this
   *   emulator.
   * @returns Whether anything changed (`false` for a task removed already).
   * @throws {@link MonapiError}: `INVALID_INPUT` (`taskId` not a seeded task; `emulator` stopped).
   * @example
   * emulator.removeTask(20002) // true
   * const sites = await client.siteTasks() // without 20002
   */
  removeTask(taskId: Id): boolean {
    const task = id(taskId)
    return invokeSync(() => this.#native.removeTask(task))
  }

  /**
   * Brings back task `taskId` taken out by {@link Emulator.removeTask}, at its place in its list.
   *
   * @param taskId - A seeded task of this emulator.
   * @returns Whether anything changed (`false` for a task that was not removed).
   * @throws {@link MonapiError}: `INVALID_INPUT` (`taskId` not a seeded task; `emulator` stopped).
   * @example
   * emulator.restoreTask(20002) // true
   */
  restoreTask(taskId: Id): boolean {
    const task = id(taskId)
    return invokeSync(() => this.#native.restoreTask(task))
  }

  /**
   * A {@link Client} for the demo account of this emulator, with `overrides` applied. It
   * trusts the emulator's CA when it serves HTTPS.
   *
   * @param overrides - Options that replace or add to the demo account's.
   * @returns A new {@link Client}; no request is made.
   * @throws {@link MonapiError}: `INVALID_INPUT` naming the option at fault, as `new Client()`.
   * @example
   * const client = emulator.client({ timeoutMs: 300, maxRetries: 0 })
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
   * @returns A Promise that resolves once the server has stopped.
   * @throws {@link MonapiError}: only `INTERNAL` (a bug of the native module).
   * @example
   * await emulator.stop()
   */
  async stop(): Promise<void> {
    await invoke(() => this.#native.stop())
  }

  /** What `console.log(emulator)` shows: its address and whether it is stopped. @internal */
  [util.inspect.custom](depth: number, inspectOptions: util.InspectOptionsStylized, inspect = util.inspect): string {
    const shown = { baseUrl: this.baseUrl, stopped: this.stopped }
    return `Emulator ${inspect(shown, { ...inspectOptions, depth })}`
  }
}

if (typeof Symbol.asyncDispose === 'symbol') {
  ;(Emulator.prototype as unknown as Record<symbol, unknown>)[Symbol.asyncDispose] = Emulator.prototype.stop
}
