// @ts-check
// The service's empty answers, shaped as PHP writes them (the emulator's quirks), arrive in one
// shape: a last page of [], {} or null ends the task list, any other non-list is DECODE; keyed
// maps written [] are objects. The Rust, Python and CLI suites feed the same answers.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { day, emulator, rejects } from './helpers.mjs'

for (const pastEndPage of /** @type {const} */ (['array', 'object', 'null'])) {
  test(`an empty last page (${pastEndPage}) ends the list`, async (t) => {
    // Two full pages: the iteration asks for page 3, past the end.
    const emu = await emulator(t, { serviceTasks: 100, quirks: { pastEndPage } })
    const client = emu.client()
    const tasks = []
    for await (const task of client.iterServiceTasks()) tasks.push(task)
    assert.equal(tasks.length, 100)
    assert.equal(emu.counters().service_tasks, 3)
    assert.deepEqual(await client.serviceTasks({ page: 3 }), [])
  })
}

test('a last page that is an object is DECODE, from the iterator and the page alike', async (t) => {
  const emu = await emulator(t, { serviceTasks: 100, quirks: { pastEndPage: 'status' } })
  const client = emu.client()
  const iterate = async () => {
    for await (const _ of client.iterServiceTasks());
  }
  for (const err of [await rejects(iterate(), 'DECODE'), await rejects(client.serviceTasks({ page: 3 }), 'DECODE')]) {
    assert.equal(err.endpoint, 'GET /v2/service/lists.json')
    assert.match(err.message, /expected a list of tasks/)
  }
})

test('keyed maps written as empty lists are objects', async (t) => {
  const emu = await emulator(t, { quirks: { noAgents: true, noChecks: true } })
  const client = emu.client()
  const dates = { startDate: day(2), endDate: day(2) }
  assert.deepEqual(await client.agents(), {})
  assert.deepEqual(await client.serviceReport(10001, dates), {})
  assert.deepEqual(await client.responseTimeDistribution(20001, dates), {})
  const site = await client.siteReport(20001, { ...dates, monitor: 0 })
  assert.deepEqual(site, { 0: { name: '平均', uprate: {}, fault: {}, resptime: {} } })
  // request() hands the answer back as sent.
  assert.deepEqual(await client.request({ method: 'GET', path: '/v2/agent/lists.json' }), [])
})
