// @ts-check
// The operations the spec names without describing them: the site task list and a site
// task's settings, the monitoring points, the users and groups, service task creation; their
// tables, and the bulk site reports of every site.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { emulator, fixture, rejects } from './helpers.mjs'

/** @type {import('monapi').ServiceTaskInput[]} */
const SERVICE_TASKS = fixture('service_create_request.json')
const ONE_DAY = { startDate: '2026-03-01', endDate: '2026-03-01' }

test('the site task list page by page and lazily', async (t) => {
  const emu = await emulator(t, { siteTasks: 120 })
  const client = emu.client()
  const pages = [await client.siteTasks(), await client.siteTasks({ page: 2 }), await client.siteTasks({ page: 3 })]
  assert.deepEqual(
    pages.map((page) => (Array.isArray(page) ? page.length : -1)),
    [50, 50, 20],
  )
  assert.deepEqual(await client.siteTasks({ page: 4 }), [])
  const listed = pages.flatMap((page) => (Array.isArray(page) ? page : []))
  const before = emu.counters().site_tasks
  const iterator = client.iterSiteTasks()
  const first = await iterator.next()
  assert.equal(emu.counters().site_tasks, before + 1, 'one page so far')
  const every = [first.value]
  for await (const task of iterator) every.push(task)
  assert.deepEqual(every, listed)
  assert.deepEqual(
    every.map((task) => Number(task?.task_id)),
    Array.from({ length: 120 }, (_, i) => 20001 + i),
  )
  assert.equal(every[0]?.frequency, '5')
})

for (const pastEndPage of /** @type {const} */ (['array', 'object', 'null'])) {
  test(`the site list ends at an empty page written as ${pastEndPage}`, async (t) => {
    const emu = await emulator(t, { siteTasks: 100, quirks: { pastEndPage } })
    const client = emu.client()
    let count = 0
    for await (const _ of client.iterSiteTasks()) count++
    assert.equal(count, 100)
    assert.equal((await client.tables.siteTasks()).numRows, 100)
  })
}

test('keyed lists arrive as sent and iterate as lists', async (t) => {
  const emu = await emulator(t, { siteTasks: 60 })
  const client = emu.client()
  const listed = []
  for await (const task of client.iterSiteTasks()) listed.push(task)
  const plain = [await client.monitors(), await client.users(), await client.userGroups()]
  emu.setQuirks({ keyedLists: true })
  const page = await client.siteTasks()
  assert.ok(!Array.isArray(page))
  assert.deepEqual(Object.keys(page), listed.slice(0, 50).map((task) => task.task_id))
  const again = []
  for await (const task of client.iterSiteTasks()) again.push(task)
  assert.deepEqual(again, listed)
  const keyed = [await client.monitors(), await client.users(), await client.userGroups()]
  keyed.forEach((list, i) => {
    assert.ok(!Array.isArray(list))
    assert.deepEqual(Object.values(list), plain[i])
  })
  assert.equal((await client.tables.siteTasks()).numRows, 60)
})

test('a site task, the points, the users and the groups, as sent', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const site = await client.siteTask('20002')
  const report = await client.siteReport(20002)
  assert.deepEqual(
    (site.monitors ?? []).map((p) => p.monitor_id).sort(),
    Object.keys(report).filter((id) => id !== '0').sort(),
  )
  const points = await client.monitors()
  assert.ok(Array.isArray(points))
  assert.equal(points[0].monitor_name, '北京电信')
  const users = await client.users()
  assert.ok(Array.isArray(users))
  assert.deepEqual(
    users.map((u) => u.user_id),
    ['101', '102', '103', '104'],
  )
  const groups = await client.userGroups()
  assert.ok(Array.isArray(groups))
  assert.equal(groups[0].organization_name, '运维部')
  const missing = await rejects(client.siteTask(20999), 'API_ERROR')
  assert.equal(missing.status, 404)
  await rejects(client.siteTask(0), 'INVALID_INPUT')
})

test('the site task and point tables are typed', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const listed = []
  for await (const task of client.iterSiteTasks()) listed.push(task)
  const table = await client.tables.siteTasks()
  const types = Object.fromEntries(table.schema.fields.map((f) => [f.name, f.type]))
  assert.equal(types.task_id, 'Int64')
  assert.equal(types.frequency, 'Int64')
  assert.equal(types.last_resp_time, 'Float64')
  const rows = table.toRows()
  assert.deepEqual(
    rows.map((r) => r.task_id),
    listed.map((task) => Number(task.task_id)),
  )
  assert.deepEqual(
    rows.map((r) => r.last_resp_time),
    listed.map((task) => Number(task.last_resp_time)),
  )
  assert.ok(rows[0].last_check_time instanceof Date)
  const points = (await client.tables.monitors()).toRows()
  assert.deepEqual(
    points.map((p) => p.monitor_id),
    [1, 2, 3, 4, 5, 6, 7, 8],
  )
  assert.equal(points[0].china_region, '华北')
})

test('siteReports without taskIds equals the single calls of every site', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const every = await client.tables.siteReports(ONE_DAY)
  assert.deepEqual(every.failures, [])
  const singles = []
  for (let id = 20001; id <= 20005; id++) singles.push(await client.tables.siteReport(id, ONE_DAY))
  for (const name of /** @type {const} */ (['availability', 'responseTime', 'faults'])) {
    /** @type {unknown[]} */
    const rows = every[name].toRows()
    assert.deepEqual(
      rows,
      singles.flatMap((single) => /** @type {unknown[]} */ (single[name].toRows())),
      name,
    )
  }
})

test('createServiceTasks: created, checked whole, partly refused, never sent twice', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  assert.deepEqual(await client.createServiceTasks(SERVICE_TASKS), [{ task_id: 200001 }, { task_id: 200002 }])
  const stored = emu.createdServiceTasks()
  assert.equal(stored[1].port, '3306')
  const bad = await rejects(
    client.createServiceTasks([
      { ...SERVICE_TASKS[1], port: 0 },
      { task_name: 'x', task_type: /** @type {any} */ ('pg') },
    ]),
    'INVALID_INPUT',
  )
  assert.deepEqual(
    bad.errors?.map((e) => [e.index, e.field]),
    [
      [0, 'port'],
      [1, 'task_type'],
    ],
  )
  const partial = await rejects(
    client.createServiceTasks([SERVICE_TASKS[0], { ...SERVICE_TASKS[1], use_agent: 1, plugin_task_uselist_id: '999999' }]),
    'PARTIAL_CREATE',
  )
  assert.deepEqual(partial.failedIndices, [1])
  emu.setFaults({ next: ['error503'] })
  await rejects(client.createServiceTasks(SERVICE_TASKS), 'API_ERROR')
  const sent = emu.counters().create_service
  emu.expireTokens()
  await client.createServiceTasks(SERVICE_TASKS)
  assert.equal(emu.counters().create_service, sent + 2, 'refused for its token, then sent once more')
  assert.equal(emu.createdServiceTasks().length, 5)
  await rejects(client.createServiceTasks(/** @type {any} */ (SERVICE_TASKS[0])), 'INVALID_INPUT')
})
