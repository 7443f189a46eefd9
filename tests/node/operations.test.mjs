// @ts-check
// Every operation against the emulator: plain objects with the service's own keys and values,
// exactly as sent.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Client, PAGE_SIZE } from 'monapi'

import { day, emulator, fixture, linuxTask, rejects } from './helpers.mjs'

test('login returns a bearer token and caches it', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  assert.equal(client.token, null)
  const token = await client.login()
  assert.equal(token.token_type, 'bearer')
  assert.equal(token.expires_in, 3600)
  assert.match(token.access_token, /^\S{8,}$/)
  assert.equal(typeof token.refresh_token, 'string')
  assert.ok(token.expires_at !== null && token.expires_at > Date.now() / 1000 + 3500)
  assert.deepEqual(client.token, token)
  assert.equal(emu.counters().token_password, 1)
})

test('the first call logs in once; later calls reuse the token', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  await client.agents()
  await client.agents()
  const counters = emu.counters()
  assert.deepEqual([counters.token, counters.agents], [1, 2])
})

test('service tasks page by page, and all of them with the async iterator', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  assert.equal(PAGE_SIZE, 50)
  const first = await client.serviceTasks()
  assert.equal(first.length, 50)
  assert.deepEqual(await client.serviceTasks({ page: 1 }), first)
  const third = await client.serviceTasks({ page: 3 })
  assert.equal(third.length, 20)
  for (const task of first) {
    assert.equal(typeof task.task_id, 'string', 'values exactly as sent: strings')
    assert.equal(typeof task.frequency, 'string')
    assert.match(task.last_check_time, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
  }
  // Not ASCII: the body takes the UTF-8 path into JavaScript and arrives intact.
  assert.ok(first.some((task) => task.task_status === '启用'), 'the service word for enabled')
  const before = emu.counters().service_tasks
  const all = []
  for await (const task of client.iterServiceTasks()) all.push(task)
  assert.equal(all.length, 120)
  assert.deepEqual(all.slice(0, 50), first)
  assert.equal(new Set(all.map((task) => task.task_id)).size, 120)
  assert.equal(new Set(all.map((task) => task.task_type)).size, 8)
  assert.equal(emu.counters().service_tasks - before, 3, 'stopped at the short third page')
})

test('the iterator stops after an exactly full last page with one empty page', async (t) => {
  const emu = await emulator(t, { serviceTasks: 100 })
  let n = 0
  for await (const task of emu.client().iterServiceTasks()) n += task ? 1 : 0
  assert.equal(n, 100)
  assert.equal(emu.counters().service_tasks, 3)
})

test('breaking out of the iterator stops fetching pages', async (t) => {
  const emu = await emulator(t)
  let n = 0
  for await (const _ of emu.client().iterServiceTasks()) {
    if (++n === 10) break
  }
  assert.equal(emu.counters().service_tasks, 1)
})

test('agents keyed by id, with download URLs and plugins', async (t) => {
  const emu = await emulator(t)
  const agents = await emu.client().agents()
  const ids = Object.keys(agents)
  assert.ok(ids.length >= 3)
  assert.ok(Object.values(agents).some((agent) => agent.plugin.length === 0))
  for (const [id, agent] of Object.entries(agents)) {
    assert.match(id, /^\d+$/)
    assert.match(agent.agentUrl.linux, /^http/)
    assert.notEqual(agent.agentUrl.linux, agent.agentUrl.windows)
    for (const plugin of agent.plugin) assert.match(plugin.plugin_task_uselist_id, /^\d+$/)
  }
})

test('service report of every service type: one record per check, values as strings', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const seen = new Set()
  for await (const task of client.iterServiceTasks()) {
    if (seen.has(task.task_type)) continue
    seen.add(task.task_type)
    const report = await client.serviceReport(task.task_id, { startDate: day(3), endDate: day(3) })
    const perDay = 1440 / Number(task.frequency)
    const series = Object.entries(report)
    assert.ok(series.length > 0)
    for (const [name, records] of series) {
      assert.ok(name.startsWith(`${task.task_type}_`), `${name} in a ${task.task_type} report`)
      assert.equal(records.length, perDay, name)
      for (const [field, value] of Object.entries(records[0])) {
        assert.equal(typeof value, 'string', `${name}.${field}`)
      }
    }
  }
  assert.equal(seen.size, 8)
})

test('dates may be Date objects or YYYY-MM-DD strings; a range spans whole days', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const [task] = await client.serviceTasks()
  const threeDaysAgo = new Date()
  threeDaysAgo.setDate(threeDaysAgo.getDate() - 3)
  const yesterday = new Date()
  yesterday.setDate(yesterday.getDate() - 1)
  const byDate = await client.serviceReport(Number(task.task_id), { startDate: threeDaysAgo, endDate: yesterday })
  const byText = await client.serviceReport(task.task_id, { startDate: day(3), endDate: day(1) })
  assert.deepEqual(byDate, byText)
  const checks = (3 * 1440) / Number(task.frequency)
  for (const records of Object.values(byText)) assert.equal(records.length, checks)
  const oneDay = await client.serviceReport(BigInt(task.task_id), { startDate: day(1), endDate: day(1) })
  assert.deepEqual(Object.keys(oneDay), Object.keys(byText))
})

test('site report: all points, the average only (monitor 0), one point', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const all = await client.siteReport(20001)
  const ids = Object.keys(all)
  assert.ok(ids.length >= 3)
  assert.ok(ids.includes('0'))
  assert.ok(Object.values(all).some((point) => point.fault === null), 'some point has fault: null')
  for (const point of Object.values(all)) {
    assert.ok(point.name.length > 0)
    assert.equal(Object.keys(point.uprate).length, Object.keys(point.resptime).length)
    for (const record of Object.values(point.uprate)) assert.match(record.uprate, /^\d+\.\d\d$/)
    if (point.fault !== null) {
      const records = Object.keys(point.fault).filter((key) => key !== 'count')
      assert.equal(point.fault.count, records.length)
    }
  }
  const average = await client.siteReport('20001', { monitor: 0 })
  assert.deepEqual(Object.keys(average), ['0'])
  assert.equal(average['0'].name, '平均')
  const id = ids.find((key) => key !== '0') ?? assert.fail('a monitoring point')
  const one = await client.siteReport(20001, { monitor: id })
  assert.deepEqual(Object.keys(one), [id])
  assert.deepEqual(one[id], all[id])
})

test('some site has a fault that has not ended (end_time is text)', async (t) => {
  // The stressed world, its clock at 23:59:59 today (+08:00): each site's fault of today began.
  const today = new Date(Date.now() + 8 * 3600e3).toISOString().slice(0, 10)
  const emu = await emulator(t, { world: 'stressed', now: `${today}T23:59:59+08:00` })
  const client = emu.client()
  let ongoing = false
  for (let task = 20001; task <= 20005; task++) {
    const report = await client.siteReport(task)
    for (const point of Object.values(report)) {
      for (const [key, record] of Object.entries(point.fault ?? {})) {
        if (key !== 'count' && typeof record === 'object' && !/^\d+$/.test(record.end_time)) ongoing = true
      }
    }
  }
  assert.ok(ongoing)
})

test('response-time distribution: numbers and percent strings, counting every check', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const dist = await client.responseTimeDistribution(20001, { startDate: day(1), endDate: day(1) })
  const buckets = Object.entries(dist)
  assert.ok(buckets.length > 0)
  let percent = 0
  let total = 0
  for (const [lower, bucket] of buckets) {
    assert.equal(lower, String(bucket.start))
    // The emulator sends numbers, as the service's examples do (the type allows strings too).
    assert.equal(typeof bucket.start, 'number')
    assert.equal(typeof bucket.end, 'number')
    assert.equal(typeof bucket.count, 'number')
    assert.ok(Number(bucket.end) > Number(bucket.start))
    assert.ok(Number(bucket.count) > 0)
    assert.match(bucket.percent, /^\d+\.\d\d$/)
    percent += Number(bucket.percent)
    total += Number(bucket.count)
  }
  assert.ok(Math.abs(percent - 100) < 0.1, String(percent))
  const site = await client.siteReport(20001, { startDate: day(1), endDate: day(1), monitor: 0 })
  assert.equal(total, Object.keys(site['0'].resptime).length)
})

test('create server tasks: increasing ids, stored by the service', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  /** @type {import('monapi').ServerTaskInput} */
  const windows = {
    ...linuxTask('win-01'),
    server_systype: 1,
    snmp_v: 1,
    snmp_user: 'monitor',
    snmp_pass: 's3cret-phrase',
    task_type: ['cpu_windows', 'netio'],
  }
  /** @type {import('monapi').ServerTaskInput} */
  const numbers = { ...linuxTask('web-02'), frequency: 10, snmp_port: 161, use_agent: false }
  const created = await client.createServerTasks([linuxTask('web-01'), windows, numbers])
  assert.equal(created.length, 3)
  assert.equal(typeof created[0].task_id, 'number')
  const ids = created.map((task) => Number(task.task_id))
  assert.ok(ids[0] >= 30001)
  assert.ok(ids[1] > ids[0] && ids[2] > ids[1])
  const stored = emu.serverTasks()
  assert.deepEqual(
    stored.map((task) => task.server_name),
    ['web-01', 'win-01', 'web-02'],
  )
  assert.deepEqual(
    stored.map((task) => task.task_id),
    created.map((task) => task.task_id),
  )
  // The SDK sends the service's string form whatever the caller used.
  assert.equal(stored[2].frequency, '10')
  assert.equal(stored[1].server_systype, '1')
})

test("the documented create example is accepted as it is", async (t) => {
  const emu = await emulator(t)
  const created = await emu.client().createServerTasks(fixture('create_request.json'))
  assert.equal(created.length, 2)
  assert.equal(emu.serverTasks().length, 2)
})

test('answers are the bodies exactly as sent (same values, same key order)', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const { access_token } = await client.login()
  const date = day(2)
  const report = await client.siteReport(20002, { startDate: date, endDate: date })
  const url = `${emu.baseUrl}/v2/site/report/20002.json?start_date=${date}&end_date=${date}&access_token=${access_token}`
  const direct = await (await fetch(url)).text()
  assert.equal(JSON.stringify(report), JSON.stringify(JSON.parse(direct)))
  const agents = await client.agents()
  const directAgents = await (await fetch(`${emu.baseUrl}/v2/agent/lists.json?access_token=${access_token}`)).text()
  assert.equal(JSON.stringify(agents), JSON.stringify(JSON.parse(directAgents)))
})

test('close: later calls fail, the token is forgotten, closing twice is fine', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  await client.login()
  assert.equal(client.closed, false)
  await client.close()
  await client.close()
  assert.equal(client.closed, true)
  assert.equal(client.token, null)
  const err = await rejects(client.agents(), 'INVALID_INPUT')
  assert.equal(err.field, 'client')
  await rejects(client.login(), 'INVALID_INPUT')
  assert.ok(client instanceof Client)
})

test('calls in flight when the client is closed still finish', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  await client.login()
  emu.setLatency(200)
  const pending = client.agents()
  await client.close()
  assert.ok(Object.keys(await pending).length > 0)
})
