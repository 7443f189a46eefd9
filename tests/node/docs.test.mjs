// @ts-check
// The Node samples of the documentation (docs/samples/node/), compiled by tsc as a user's
// project compiles them and run as a user runs them: service.ts, the HTTP service of
// docs/getting-started/node-service.md, as a child process against an emulator, both on
// 127.0.0.1 with ports chosen by the system. What the service answers is compared with the
// emulator's own answers, read here as the service sent them (raw JSON, not tables).

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'

import { DEMO_SECRETS, ROOT, assertNoSecret, emulator, eventually, runNode } from './helpers.mjs'

const SAMPLES = join(ROOT, 'docs', 'samples', 'node')
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
/** The emulator's and the service's time zone (both defaults: the service's, +08:00). */
const ZONE_MS = 8 * 3600 * 1000
const DAY_MS = 24 * 3600 * 1000
/** Latency of the emulator's answers while a request is aborted: far beyond any wait below. */
const SLOW_MS = 60_000
/** A fault that has not ended has a text instead of a unix time as its end. */
const UNIX_TIME = /^\d+$/

/**
 * @typedef {{ taskId: number, name: string | null, address: string | null, status: string,
 *   lastCheck: string | null, uprate: number | null, responseTimeMs: number | null,
 *   faultOngoing: boolean, error?: string }} SiteStatus
 */

/** @param {number} ms */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * `promise`'s value, or `late` when it takes more than `ms`.
 *
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} late
 * @returns {Promise<T | string>}
 */
async function within(promise, ms, late) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer
  /** @type {Promise<string>} */
  const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve(late), ms)))
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Compiles the samples with their tsconfig.json into a directory of the repository, where
 * their imports resolve as in a user's project: 'monapi' (this package) and fastify.
 */
async function compile() {
  mkdirSync(join(ROOT, 'target'), { recursive: true })
  const out = mkdtempSync(join(ROOT, 'target', 'docs-node-'))
  const tsc = await runNode([TSC, '-p', join(SAMPLES, 'tsconfig.json'), '--rootDir', SAMPLES, '--outDir', out], { timeoutMs: 120_000 })
  return { out, tsc }
}

/** @type {Promise<{ out: string, tsc: { code: number | null, stdout: string, stderr: string } }>} */
let compiled
before(() => void (compiled = compile()))
after(async () => rmSync((await compiled).out, { recursive: true, force: true }))

/**
 * The compiled sample `name` (tsc must have succeeded).
 *
 * @param {string} name
 */
async function sample(name) {
  const { out, tsc } = await compiled
  assert.equal(tsc.code, 0, `tsc failed:\n${tsc.stdout}${tsc.stderr}`)
  return join(out, name)
}

/**
 * Noon today in the service's time zone, as the emulator's clock: "today" of the service's
 * calls (the system clock's day there) is the emulator's day, and its reports stand still.
 * Within a minute of midnight there, waits for the new day first (bounded: a minute), so
 * that the day cannot change while the test runs.
 */
async function noonToday() {
  const untilMidnight = DAY_MS - ((Date.now() + ZONE_MS) % DAY_MS)
  if (untilMidnight < 60_000) await sleep(untilMidnight + 1000)
  return `${new Date(Date.now() + ZONE_MS).toISOString().slice(0, 10)} 12:00`
}

/**
 * The MONAPI_* variables of the emulator's demo account.
 *
 * @param {import('monapi').Emulator} emu
 */
function demoAccount(emu) {
  return {
    MONAPI_BASE_URL: emu.baseUrl,
    MONAPI_CLIENT_ID: emu.clientId,
    MONAPI_CLIENT_SECRET: emu.clientSecret,
    MONAPI_USERNAME: emu.username,
    MONAPI_PASSWORD: emu.password,
  }
}

/**
 * Runs `script` with `variables` and PORT=0, and waits (bounded) for the port the service
 * announces. Killed when the test ends, if still running.
 *
 * @param {import('node:test').TestContext} t
 * @param {string} script
 * @param {Record<string, string>} variables
 */
async function startService(t, script, variables) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, ...variables, PORT: '0' }
  delete env.HOST // loopback: the service's default
  delete env.NODE_TEST_CONTEXT // node:test's own, for test files it runs
  const child = spawn(process.execPath, [script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const output = { stdout: '', stderr: '' }
  child.stdout.on('data', (chunk) => (output.stdout += chunk))
  child.stderr.on('data', (chunk) => (output.stderr += chunk))
  /** @type {Promise<{ code: number | null, signal: string | null }>} */
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  let running = true
  void exited.then(() => (running = false))
  t.after(() => {
    if (running) child.kill('SIGKILL')
  })
  const announced = () => /listening on http:\/\/127\.0\.0\.1:(\d+)\n/.exec(output.stdout)
  await eventually(() => announced() !== null || !running, 20_000)
  const match = announced()
  assert.ok(match, `the service announced no port:\n${output.stdout}${output.stderr}`)
  const port = Number(match[1])
  assert.ok(port > 0)
  /** SIGTERM, then its exit (bounded). */
  const terminate = async () => {
    child.kill('SIGTERM')
    return within(exited, 10_000, 'still running 10 s after SIGTERM')
  }
  return { child, port, output, exited, terminate }
}

/**
 * GET /sites of the service: its status and its JSON.
 *
 * @param {number} port
 * @param {AbortSignal} [signal]
 * @returns {Promise<{ status: number, body: any }>}
 */
async function getSites(port, signal = AbortSignal.timeout(30_000)) {
  const response = await fetch(`http://127.0.0.1:${port}/sites`, { signal })
  return { status: response.status, body: await response.json() }
}

/**
 * What GET /sites should say of each site, from the emulator's own answers as sent: the site
 * list, and today's report of each site (the last check of point 0, the average; any fault
 * of a point without an end).
 *
 * @param {import('monapi').Client} raw
 * @returns {Promise<SiteStatus[]>}
 */
async function expected(raw) {
  /** @type {SiteStatus[]} */
  const sites = []
  for await (const site of raw.iterSiteTasks()) {
    const taskId = Number(site.task_id)
    const report = await raw.siteReport(taskId)
    const average = report['0']
    const last = Math.max(...Object.keys(average.uprate).map(Number))
    const uprate = Number(average.uprate[String(last)].uprate)
    const ongoing = Object.entries(report).some(
      ([point, data]) =>
        point !== '0' &&
        data.fault !== null &&
        Object.entries(data.fault).some(([key, fault]) => key !== 'count' && typeof fault === 'object' && !UNIX_TIME.test(fault.end_time)),
    )
    sites.push({
      taskId,
      name: site.task_name ?? null,
      address: site.task_summary ?? null,
      status: uprate > 0 ? 'up' : 'down',
      lastCheck: new Date(last * 1000).toISOString(),
      uprate,
      responseTimeMs: uprate > 0 ? Number(average.resptime[String(last)].resptime_avg) : null,
      faultOngoing: ongoing,
    })
  }
  return sites
}

test('docs/samples/node/service.ts: GET /sites as the emulator has the sites; survives an abort; exits 0 on SIGTERM', async (t) => {
  const script = await sample('service.js')
  const emu = await emulator(t, { now: await noonToday() })
  const raw = emu.client()
  t.after(() => raw.close())
  const since = emu.failSite(20001)
  const service = await startService(t, script, demoAccount(emu))

  await t.test('every site with its status now, one down with an ongoing fault', async () => {
    const { status, body } = await getSites(service.port)
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(body.sites, await expected(raw))
    assert.deepEqual(
      body.sites.map((/** @type {SiteStatus} */ site) => site.taskId),
      [20001, 20002, 20003, 20004, 20005],
    )
    const [failed, ...others] = /** @type {SiteStatus[]} */ (body.sites)
    assert.deepEqual(
      { status: failed.status, uprate: failed.uprate, responseTimeMs: failed.responseTimeMs, faultOngoing: failed.faultOngoing },
      { status: 'down', uprate: 0, responseTimeMs: null, faultOngoing: true },
    )
    // The clock stands at the check the failure started with.
    assert.equal(failed.lastCheck, new Date(since * 1000).toISOString())
    // The realistic world's sites are up at almost every check, without a fault.
    assert.ok(others.some((site) => site.status === 'up' && /** @type {number} */ (site.responseTimeMs) > 0 && !site.faultOngoing))
  })

  await t.test('a recovered site: its next check is there', async () => {
    emu.recoverSite(20001)
    emu.advance(300) // 20001 is checked every 5 minutes
    const { status, body } = await getSites(service.port)
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(body.sites, await expected(raw))
    assert.equal(body.sites[0].lastCheck, new Date((since + 300) * 1000).toISOString())
  })

  await t.test('a client that goes away aborts the calls to the service; the service goes on', async () => {
    const before = emu.counters()
    emu.setLatency(SLOW_MS)
    const controller = new AbortController()
    const request = getSites(service.port, controller.signal).then(
      () => assert.fail('the request was aborted'),
      (/** @type {unknown} */ error) => error,
    )
    // The site list is on its way (its answer SLOW_MS away): the client goes away.
    await eventually(() => emu.counters().site_tasks > before.site_tasks, 10_000)
    controller.abort()
    assert.equal(/** @type {Error} */ (await request).name, 'AbortError')
    // Far sooner than the answer or the client's timeout: the call was aborted.
    await eventually(() => service.output.stderr.includes('the client went away'), 10_000)
    assert.equal(emu.counters().site_report, before.site_report, 'no report was asked for after the abort')
    emu.setLatency(0)
    const { status, body } = await getSites(service.port)
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(body.sites, await expected(raw))
  })

  await t.test('a failure of the service is a 502 with its code', async () => {
    // The site list fails three times: the first try and the client's two retries.
    emu.setFaults({ next: ['error500', 'error500', 'error500'] })
    const { status, body } = await getSites(service.port)
    emu.setFaults({})
    assert.deepEqual({ status, body }, { status: 502, body: { error: 'API_ERROR' } })
  })

  await t.test('SIGTERM: the request in flight is answered, then the process exits 0', async () => {
    const before = emu.counters().site_tasks
    emu.setLatency(300)
    const request = getSites(service.port)
    await eventually(() => emu.counters().site_tasks > before, 10_000)
    const exit = service.terminate()
    const { status, body } = await request
    assert.equal(status, 200, JSON.stringify(body))
    assert.equal(body.sites.length, 5)
    assert.deepEqual(await exit, { code: 0, signal: null }, `${service.output.stdout}${service.output.stderr}`)
    assert.match(service.output.stdout, /SIGTERM: shutting down/)
  })

  // Nothing the service printed holds a secret of the account.
  assertNoSecret(service.output.stdout + service.output.stderr, DEMO_SECRETS)
})

test('docs/samples/node/try-it.ts: the service against the bundled emulator, one site down; SIGTERM ends both', async (t) => {
  const launcher = await startService(t, await sample('try-it.js'), {})
  const { status, body } = await getSites(launcher.port)
  assert.equal(status, 200, JSON.stringify(body))
  assert.deepEqual(
    body.sites.map((/** @type {SiteStatus} */ site) => [site.taskId, site.name]),
    [[20001, 'site-01'], [20002, 'site-02'], [20003, 'site-03'], [20004, 'site-04'], [20005, 'site-05']],
  )
  assert.equal(body.sites[0].status, 'down')
  assert.equal(body.sites[0].faultOngoing, true)
  // Passed on to the service, which closes; then the emulator stops and the launcher exits.
  assert.deepEqual(await launcher.terminate(), { code: 0, signal: null }, `${launcher.output.stdout}${launcher.output.stderr}`)
  assert.match(launcher.output.stdout, /SIGTERM: shutting down/)
  assertNoSecret(launcher.output.stdout + launcher.output.stderr, DEMO_SECRETS)
})
