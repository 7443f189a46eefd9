// @ts-check
// The bundled emulator: start options, knobs, counters, stored tasks, stop.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import util from 'node:util'

import { Emulator } from 'monapi'

import { day, emulator, linuxTask, rejects, throws } from './helpers.mjs'

test('starts on 127.0.0.1 with a free port and the demo account', async (t) => {
  const emu = await emulator(t)
  assert.match(emu.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/)
  assert.notEqual(emu.baseUrl, 'http://127.0.0.1:0')
  assert.deepEqual(
    [emu.clientId, emu.clientSecret, emu.username, emu.password],
    ['demo_id', 'demo_secret', 'test@example.com', '123456'],
  )
  assert.deepEqual(emu.counters(), {
    token: 0,
    token_password: 0,
    token_refresh: 0,
    create: 0,
    service_tasks: 0,
    agents: 0,
    service_report: 0,
    site_report: 0,
    distribution: 0,
    site_tasks: 0,
    site_task: 0,
    monitors: 0,
    users: 0,
    groups: 0,
    create_service: 0,
    total: 0,
    connections: 0,
    peak_in_progress: 0,
    compressed: 0,
    traced: 0,
    traceparent: null,
  })
  assert.equal(util.inspect(emu), `Emulator { baseUrl: '${emu.baseUrl}', stopped: false }`)
  const other = await emulator(t)
  assert.notEqual(other.baseUrl, emu.baseUrl)
})

test('the seed decides the data; the same seed gives the same data', async (t) => {
  const [a, b, c] = await Promise.all([emulator(t, { seed: 7 }), emulator(t, { seed: 7 }), emulator(t, { seed: 8n })])
  const [agentsA, agentsB, agentsC] = await Promise.all([a.client().agents(), b.client().agents(), c.client().agents()])
  assert.deepEqual(agentsA, agentsB)
  assert.notDeepEqual(agentsA, agentsC)
})

test('tokenTtl, latencyMs and serviceTasks at start', async (t) => {
  const emu = await emulator(t, { tokenTtl: 120, latencyMs: 150, serviceTasks: 7 })
  const client = emu.client()
  const started = Date.now()
  const token = await client.login()
  assert.ok(Date.now() - started >= 140, 'latency applies')
  assert.equal(token.expires_in, 120)
  assert.equal((await client.serviceTasks()).length, 7)
})

test('setTokenTtl and setLatency apply from the next request on', async (t) => {
  const emu = await emulator(t)
  emu.setTokenTtl(42)
  const client = emu.client()
  assert.equal((await client.login()).expires_in, 42)
  emu.setLatency(200)
  const started = Date.now()
  await client.agents()
  assert.ok(Date.now() - started >= 190)
  emu.setLatency(0)
})

test('the time zone decides the days (+08:00 unless told)', async (t) => {
  const day = '2026-11-01'
  /** @type {Array<[string | undefined, number, string]>} */
  const zones = [[undefined, 8, '+08:00'], ['UTC', 0, '+00:00'], ['-05:30', -5.5, '-05:30']]
  for (const [timezone, hours, shown] of zones) {
    const emu = await emulator(t, timezone === undefined ? {} : { timezone })
    assert.equal(emu.timezone, shown)
    const report = await emu.client().siteReport(20001, { startDate: day, endDate: day, monitor: 0 })
    const first = Number(Object.keys(report['0'].uprate)[0])
    assert.equal(first, Date.UTC(2026, 10, 1) / 1000 - hours * 3600, `${timezone}`)
  }
  const bad = await rejects(Emulator.start({ timezone: 'Asia/Shanghai' }), 'INVALID_INPUT')
  assert.equal(bad.field, 'timezone')
  assert.match(bad.message, /offset from UTC/)
  assert.equal((await rejects(Emulator.start({ timezone: /** @type {any} */ (8) }), 'INVALID_INPUT')).field, 'timezone')
})

test('tokenTtl and latency out of range are INVALID_INPUT naming the option and the rule (never a panic)', async (t) => {
  const ttlRule = /must be a number of seconds from 0 to 4294967295/
  const latencyRule = /must be a number of milliseconds from 0 to 2147483647/
  const huge = [1e30, 1e300, Number.MAX_VALUE, Infinity, -1, Number.NaN]
  for (const value of huge) {
    const ttl = await rejects(Emulator.start({ tokenTtl: value }), 'INVALID_INPUT')
    assert.equal(ttl.field, 'tokenTtl', `tokenTtl ${value}`)
    assert.match(ttl.message, ttlRule)
    const latency = await rejects(Emulator.start({ latencyMs: value }), 'INVALID_INPUT')
    assert.equal(latency.field, 'latencyMs', `latencyMs ${value}`)
    assert.match(latency.message, latencyRule)
  }
  await rejects(Emulator.start({ tokenTtl: 2 ** 32 }), 'INVALID_INPUT')
  await rejects(Emulator.start({ latencyMs: 2 ** 31 }), 'INVALID_INPUT')
  await rejects(Emulator.start({ tokenTtl: /** @type {any} */ ('60') }), 'INVALID_INPUT')

  const emu = await emulator(t)
  for (const value of [...huge, 2 ** 32]) {
    const err = throws(() => emu.setTokenTtl(value), 'INVALID_INPUT')
    assert.equal(err.field, 'seconds')
    assert.match(err.message, ttlRule)
  }
  for (const value of [1e300, ...huge, 2 ** 31]) {
    const err = throws(() => emu.setLatency(value), 'INVALID_INPUT')
    assert.equal(err.field, 'ms')
    assert.match(err.message, latencyRule)
  }
  // The bounds themselves work: a token for 2^32 - 1 seconds, a latency of 2^31 - 1 ms.
  emu.setTokenTtl(2 ** 32 - 1)
  assert.equal((await emu.client().login()).expires_in, 2 ** 32 - 1)
  emu.setLatency(2 ** 31 - 1)
  emu.setLatency(0)
  const longest = await emulator(t, { tokenTtl: 2 ** 32 - 1, latencyMs: 2 ** 31 - 1 })
  longest.setLatency(0)
  assert.equal((await longest.client().login()).expires_in, 2 ** 32 - 1)
})

test('serviceTasks beyond the emulator\'s bound is INVALID_INPUT naming it, as in Python', async () => {
  const err = await rejects(Emulator.start({ serviceTasks: 100001 }), 'INVALID_INPUT')
  assert.equal(err.field, 'serviceTasks')
  assert.match(err.message, /must be a number of tasks from 0 to 100000/)
  for (const value of [-1, 1.5, 2 ** 32]) {
    assert.equal((await rejects(Emulator.start({ serviceTasks: value }), 'INVALID_INPUT')).field, 'serviceTasks')
  }
})

test('setFaults: the next queue in order (camelCase or snake_case kinds), and shares', async (t) => {
  const emu = await emulator(t)
  const client = emu.client({ maxRetries: 6 })
  await client.login()
  emu.setFaults({ next: ['error503', 'error429', 'dropConnection', 'truncatedBody'], retryAfterSecs: 0 })
  assert.equal((await client.serviceTasks()).length, 50)
  assert.equal(emu.counters().service_tasks, 5, 'four faults, then the answer')
  emu.setFaults({ next: /** @type {any} */ (['error_500']) })
  assert.equal((await rejects(emu.client({ maxRetries: 0, token: client.token }).agents(), 'API_ERROR')).status, 500)
  emu.setFaults({ error503: 1, retryAfterSecs: 0 })
  await rejects(emu.client({ maxRetries: 1, token: client.token }).agents(), 'API_ERROR')
  emu.setFaults({})
  assert.ok(Object.keys(await client.agents()).length > 0)
  assert.equal(throws(() => emu.setFaults(/** @type {any} */ ({ error_503: 1 })), 'INVALID_INPUT').field, 'faults.error_503')
  assert.equal(throws(() => emu.setFaults({ next: /** @type {any} */ (['meteor']) }), 'INVALID_INPUT').field, 'faults.next[0]')
})

test('faults at start', async (t) => {
  const emu = await emulator(t, { faults: { next: ['malformedBody'] } })
  await rejects(emu.client({ maxRetries: 0 }).login(), 'DECODE')
})

test('expireTokens and revokeRefreshTokens', async (t) => {
  const emu = await emulator(t)
  const client = emu.client({ password: undefined, username: undefined, token: await emu.client().login() })
  emu.expireTokens()
  await client.agents()
  assert.equal(emu.counters().token_refresh, 1)
  emu.expireTokens()
  emu.revokeRefreshTokens()
  await rejects(client.agents(), 'AUTH_INVALID_GRANT')
})

test('serverTasks shows created tasks; reset forgets them, the counters and the tokens', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  await client.createServerTasks([linuxTask('a'), linuxTask('b')])
  const stored = emu.serverTasks()
  assert.deepEqual(
    stored.map((task) => [task.server_name, task.task_id]),
    [
      ['a', 30001],
      ['b', 30002],
    ],
  )
  assert.deepEqual(stored[0].task_type, ['cpu', 'mem'])
  emu.reset()
  assert.deepEqual(emu.serverTasks(), [])
  assert.equal(emu.counters().total, 0)
  // The old token was revoked: the client renews it (refresh refused, so the password).
  await client.agents()
  assert.ok(emu.counters().token >= 1)
})

test('client(overrides): the demo account with changes', async (t) => {
  const emu = await emulator(t)
  const md5 = emu.client({ passwordMd5: 'e10adc3949ba59abbe56e057f20f883e' })
  await md5.login()
  const slow = emu.client({ timeoutMs: 250, maxRetries: 0 })
  await slow.login()
  emu.setLatency(1000)
  await rejects(slow.agents(), 'TIMEOUT')
  emu.setLatency(0)
})

test('stop: idempotent; knobs then fail with INVALID_INPUT, calls with CONNECTION', async () => {
  const emu = await Emulator.start()
  const client = emu.client({ maxRetries: 0 })
  await client.login()
  await emu.stop()
  await emu.stop()
  assert.equal(emu.stopped, true)
  assert.equal(throws(() => emu.counters(), 'INVALID_INPUT').field, 'emulator')
  throws(() => emu.expireTokens(), 'INVALID_INPUT')
  const refused = await rejects(client.agents(), 'CONNECTION')
  // Where the connection went, so that a wrong baseUrl or port shows.
  const address = emu.baseUrl.replace('http://', '')
  assert.ok(refused.message.includes(`could not connect to ${address}:`), refused.message)
})

/**
 * The raw body of a GET on the emulator, with the client's access token.
 *
 * @param {import('monapi').Emulator} emu
 * @param {string} token
 * @param {string} path
 */
async function raw(emu, token, path) {
  const sep = path.includes('?') ? '&' : '?'
  const response = await fetch(`${emu.baseUrl}${path}${sep}access_token=${token}`)
  assert.equal(response.status, 200, path)
  return response.text()
}

test('setQuirks: a page past the end in each shape', async (t) => {
  const emu = await emulator(t)
  const { access_token: token } = await emu.client().login()
  /** @type {[import('monapi').PastEndPage, string][]} */
  const shapes = [
    ['array', '[]'],
    ['object', '{}'],
    ['null', 'null'],
    ['status', '{"code":0,"msg":"no more data"}'],
  ]
  for (const [pastEndPage, body] of shapes) {
    emu.setQuirks({ pastEndPage })
    assert.equal(await raw(emu, token, '/v2/service/lists.json?page=4'), body, pastEndPage)
    assert.equal(JSON.parse(await raw(emu, token, '/v2/service/lists.json?page=3')).length, 20)
  }
  emu.setQuirks({})
  assert.equal(await raw(emu, token, '/v2/service/lists.json?page=4'), '[]')
})

test('quirks at start: no agents and reports without checks, written as PHP does', async (t) => {
  const emu = await emulator(t, { quirks: { noAgents: true, noChecks: true } })
  const client = emu.client()
  const { access_token: token } = await client.login()
  const date = day(2)
  const range = `start_date=${date}&end_date=${date}`
  assert.equal(await raw(emu, token, '/v2/agent/lists.json'), '[]')
  assert.equal(await raw(emu, token, `/v2/service/report/10001.json?${range}`), '[]')
  assert.equal(await raw(emu, token, `/v2/site/respose_time_distribute/20001.json?${range}`), '[]')
  const site = JSON.parse(await raw(emu, token, `/v2/site/report/20001.json?${range}`))
  assert.deepEqual(Object.keys(site)[0], '0')
  assert.ok(Object.keys(site).length >= 5, 'the average and four to six points')
  for (const point of Object.values(site)) {
    assert.deepEqual({ ...point, name: '' }, { name: '', uprate: [], fault: [], resptime: [] })
  }
  assert.equal(site['0'].name, '平均')
  // Through the client: the agent list and the reports hold nothing.
  assert.equal(Object.keys(await client.agents()).length, 0)
  assert.equal(Object.keys(await client.serviceReport(10001, { startDate: date, endDate: date })).length, 0)
  assert.equal(Object.keys(await client.responseTimeDistribution(20001, { startDate: date, endDate: date })).length, 0)
  const report = await client.siteReport(20001, { startDate: date, endDate: date, monitor: 0 })
  assert.deepEqual(Object.keys(report), ['0'])
  assert.equal(Object.keys(report['0'].uprate).length, 0)
  assert.equal(Object.keys(report['0'].resptime).length, 0)
  // reset goes back to the quirks of the start.
  emu.setQuirks({})
  assert.equal(Object.keys(await client.agents()).length, 3)
  emu.reset()
  assert.equal(Object.keys(await client.agents()).length, 0)
})

/**
 * The fault records of a site report's point (none for `null`).
 *
 * @param {import('monapi').MonitoringPoint} point
 * @returns {import('monapi').FaultRecord[]}
 */
function faultRecords(point) {
  return Object.entries(point.fault ?? {})
    .filter(([key, value]) => key !== 'count' && typeof value !== 'number')
    .map(([, value]) => /** @type {import('monapi').FaultRecord} */ (value))
}

test('failSite: every point of the site is down from the moment on; recoverSite ends it; reset forgets it', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const before = await client.siteReport(20003) // today; fetched (and cached) before the knob
  const since = emu.failSite(20003)
  assert.equal(since % 900, 0, 'a check of the fifteen-minute task (+08:00 is whole quarters)')
  assert.equal(emu.failSite('20003'), since, 'already failing: unchanged')
  const failing = await client.siteReport(20003)
  for (const [key, point] of Object.entries(failing)) {
    for (const [ts, rate] of Object.entries(point.uprate)) {
      const expected = Number(ts) < since ? before[key].uprate[ts] : { uprate: '0.00' }
      assert.deepEqual(rate, expected, `${key} at ${ts}`)
    }
    assert.equal(point.uprate[since].uprate, '0.00')
    const ongoing = faultRecords(point).filter((f) => f.end_time === '未结束')
    if (key === '0') {
      assert.equal(point.fault, null, 'the average has no faults of its own')
    } else {
      assert.deepEqual(ongoing.map((f) => f.start_time), [String(since)], key)
      assert.ok(ongoing[0].fault_status)
    }
  }

  const up = emu.recoverSite(20003)
  assert.ok(up !== null && up > since && (up - since) % 900 === 0, `${up}`)
  assert.equal(emu.recoverSite(20003n), null, 'not failing any more')
  // The fault ends once the clock reaches its first check up again.
  emu.setNow(new Date(up * 1000))
  // The day of the outage: from 23:45 (+08:00) on, the recovery's check is the next day's.
  const day = new Date((since + 8 * 3600) * 1000).toISOString().slice(0, 10)
  const recovered = await client.siteReport(20003, { startDate: day, endDate: day })
  for (const [key, point] of Object.entries(recovered)) {
    for (const [ts, rate] of Object.entries(point.uprate)) {
      if (Number(ts) >= since && Number(ts) < up) assert.equal(rate.uprate, '0.00', `${key} at ${ts}`)
      else if (ts in before[key].uprate) assert.deepEqual(rate, before[key].uprate[ts], `${key} at ${ts}`)
    }
    if (key === '0') continue
    const ended = faultRecords(point).filter((f) => f.start_time === String(since))
    assert.deepEqual(ended.map((f) => f.end_time), [String(up)], key)
  }

  emu.failSite(20003)
  emu.reset()
  assert.deepEqual(await client.siteReport(20003), before, 'reset forgets the failure')

  for (const taskId of [10001, 20006, '99999']) {
    const err = throws(() => emu.failSite(taskId), 'INVALID_INPUT')
    assert.equal(err.field, 'taskId')
    assert.match(err.message, new RegExp(`must be a site task \\(20001 to 20005\\), got ${taskId}`))
    assert.equal(throws(() => emu.recoverSite(taskId), 'INVALID_INPUT').field, 'taskId')
  }
  assert.equal(throws(() => emu.failSite(0), 'INVALID_INPUT').field, 'taskId', 'no task id at all, by the client\'s rule')
})

test('removeTask: the task leaves its list and answers as an unknown id; restoreTask and reset bring it back', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const siteIds = async () => {
    const sites = await client.siteTasks()
    assert.ok(Array.isArray(sites))
    return sites.map((s) => s.task_id)
  }
  const serviceIds = async () => {
    /** @type {string[]} */
    const ids = []
    for await (const task of client.iterServiceTasks()) ids.push(task.task_id)
    return ids
  }
  const sites = await siteIds()
  const services = await serviceIds()
  assert.equal(emu.removeTask(20002), true)
  assert.equal(emu.removeTask('20002'), false, 'removed already')
  assert.equal(emu.removeTask(10001n), true)
  assert.deepEqual(await siteIds(), sites.filter((id) => id !== '20002'))
  assert.deepEqual(await serviceIds(), services.slice(1))
  const last = await client.serviceTasks({ page: 3 })
  assert.deepEqual(last.map((task) => task.task_id), services.slice(101), '19 on the last page')

  // Every operation naming a removed task fails as for an id that does not exist.
  const range = { startDate: day(2), endDate: day(2) }
  /** @type {[number, (id: number) => Promise<unknown>][]} */
  const calls = [
    [10001, (id) => client.serviceReport(id, range)],
    [20002, (id) => client.siteReport(id, range)],
    [20002, (id) => client.responseTimeDistribution(id, range)],
    [20002, (id) => client.siteTask(id)],
  ]
  for (const [removed, call] of calls) {
    const error = await rejects(call(removed), 'API_ERROR')
    const unknown = await rejects(call(29999), 'API_ERROR')
    assert.deepEqual([error.status, error.apiCode], [404, 404])
    assert.deepEqual([error.status, error.apiCode], [unknown.status, unknown.apiCode])
    assert.equal(error.message, unknown.message.replaceAll('29999', String(removed)))
  }

  assert.equal(emu.restoreTask(20002), true)
  assert.equal(emu.restoreTask(20002), false, 'present already')
  assert.deepEqual(await siteIds(), sites)
  assert.equal((await client.siteTask(20002)).task_id, '20002')
  emu.reset()
  assert.deepEqual(await serviceIds(), services, 'reset brings back what is still removed')
  assert.equal(emu.restoreTask(10001), false)

  for (const taskId of [10121, 20006, '30001']) {
    const err = throws(() => emu.removeTask(taskId), 'INVALID_INPUT')
    assert.equal(err.field, 'taskId')
    assert.match(
      err.message,
      new RegExp(`must be a service task \\(10001 to 10120\\) or a site task \\(20001 to 20005\\), got ${taskId}`),
    )
    assert.equal(throws(() => emu.restoreTask(taskId), 'INVALID_INPUT').field, 'taskId')
  }
})

test('bad quirks are INVALID_INPUT naming the quirk, and change nothing', async (t) => {
  const emu = await emulator(t)
  emu.setQuirks({ pastEndPage: 'null' })
  const bad = throws(() => emu.setQuirks({ pastEndPage: /** @type {any} */ ('list') }), 'INVALID_INPUT')
  assert.equal(bad.field, 'quirks.pastEndPage')
  assert.match(bad.message, /must be one of array, object, null, status, got "list"/)
  assert.equal(throws(() => emu.setQuirks({ noAgents: /** @type {any} */ ('yes') }), 'INVALID_INPUT').field, 'quirks.noAgents')
  assert.equal(throws(() => emu.setQuirks(/** @type {any} */ ({ no_agents: true })), 'INVALID_INPUT').field, 'quirks.no_agents')
  const atStart = await rejects(Emulator.start({ quirks: { pastEndPage: /** @type {any} */ ('[]') } }), 'INVALID_INPUT')
  assert.equal(atStart.field, 'quirks.pastEndPage')
  const { access_token: token } = await emu.client().login()
  assert.equal(await raw(emu, token, '/v2/service/lists.json?page=4'), 'null')
})

test('a share out of range is refused by the emulator: INVALID_INPUT naming it, nothing changed', async (t) => {
  const emu = await emulator(t)
  emu.setFaults({ next: ['error500'] })
  /** @type {(keyof import('monapi').FaultSettings)[]} */
  const shares = ['error500', 'error503', 'error429', 'dropConnection', 'truncatedBody', 'malformedBody', 'corruptGzip']
  for (const share of shares) {
    for (const value of [-0.01, 1.5, Number.NaN, Infinity]) {
      const err = throws(() => emu.setFaults({ [share]: value }), 'INVALID_INPUT')
      assert.equal(err.field, `faults.${share}`, `${share} ${value}`)
      assert.match(err.message, /must be a share of requests from 0\.0 to 1\.0, got /)
    }
    assert.equal(throws(() => emu.setFaults({ [share]: /** @type {any} */ ('half') }), 'INVALID_INPUT').field, `faults.${share}`)
    const atStart = await rejects(Emulator.start({ faults: { [share]: 2 } }), 'INVALID_INPUT')
    assert.equal(atStart.field, `faults.${share}`)
  }
  // The queued fault set first is still served: the refusals changed nothing.
  await rejects(emu.client({ maxRetries: 0 }).agents(), 'API_ERROR')
  emu.setFaults({ error500: 1, error503: 0 })
  emu.setFaults({})
})

test('the clock and the world: options and knobs', async (t) => {
  const emu = await emulator(t, { now: '2026-11-01 10:02', world: 'stressed' })
  assert.equal(emu.world, 'stressed')
  const tenOhTwo = new Date('2026-11-01T10:02:00+08:00')
  assert.equal(emu.now.getTime(), tenOhTwo.getTime())
  const client = emu.client()
  const report = await client.siteReport(20001) // today, on the emulator's clock
  const last = Math.max(...Object.keys(report['0'].uprate).map(Number))
  assert.equal(last, tenOhTwo.getTime() / 1000 - 120, "a five-minute task's last check is 10:00")
  assert.equal(emu.advance(3600).getTime(), tenOhTwo.getTime() + 3600e3)
  emu.setNow(new Date('2026-11-01T23:59:00+08:00'))
  const late = await client.siteReport(20001, { startDate: '2026-11-01', endDate: '2026-11-01' })
  assert.equal(Object.keys(late['0'].uprate).length, 288)
  for (const bad of ['2026-10-31 23:00', 'soon']) {
    const err = throws(() => emu.setNow(bad), 'INVALID_INPUT')
    assert.equal(err.field, 'now')
  }
  emu.reset()
  assert.equal(emu.now.getTime(), tenOhTwo.getTime())
  const plain = await emulator(t)
  assert.equal(plain.world, 'realistic')
  // @ts-expect-error: not a world
  await rejects(Emulator.start({ world: 'calm' }), 'INVALID_INPUT')
})
