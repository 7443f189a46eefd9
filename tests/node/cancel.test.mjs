// @ts-check
// Cancellation (`signal`) and per-call timeouts (`timeoutMs`) of every kind of call, with the
// emulator's latency knob and counters: an abort rejects with ABORTED at once and no request
// starts after it; no rejection is ever left unhandled.

import assert from 'node:assert/strict'
import { after, test } from 'node:test'

import { emulator, rejects } from './helpers.mjs'

/** @type {unknown[]} */
const unhandled = []
process.on('unhandledRejection', (reason) => void unhandled.push(reason))
after(async () => {
  // Rejections are reported after a turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 100))
  assert.deepEqual(unhandled, [], 'no rejection may go unhandled')
})

const DAY = '2026-11-01'
/** Latency of the emulator's answers while a call is aborted: far longer than any abort takes. */
const SLOW_MS = 3000

/**
 * Waits (bounded) until the emulator has counted `count` requests of `name`.
 *
 * @param {import('monapi').Emulator} emu
 * @param {Exclude<keyof import('monapi').Counters, 'traceparent'>} name
 * @param {number} count
 */
async function arrived(emu, name, count) {
  const deadline = Date.now() + 10000
  while (emu.counters()[name] < count) {
    assert.ok(Date.now() < deadline, `${count} ${name} requests never arrived`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** @param {number} ms */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** @param {import('node:test').TestContext} t */
async function setup(t) {
  const emu = await emulator(t)
  const client = emu.client({ maxRetries: 0 })
  t.after(() => client.close())
  return { emu, client }
}

test('a signal aborted before the call rejects with ABORTED and sends nothing, for every kind of call', async (t) => {
  const { emu, client } = await setup(t)
  const signal = AbortSignal.abort()
  const calls = [
    () => client.login({ signal }),
    () => client.agents({ signal }),
    () => client.serviceTasks({ signal }),
    () => client.serviceReport(10001, { startDate: DAY, endDate: DAY, signal }),
    () => client.siteReport(20001, { startDate: DAY, endDate: DAY, signal }),
    () => client.responseTimeDistribution(20001, { startDate: DAY, endDate: DAY, signal }),
    () => client.request({ method: 'GET', path: '/v2/agent/lists.json', signal }),
    () => client.createServerTasks([], { signal }),
    () => client.iterServiceTasks({ signal }).next(),
    () => client.tables.serviceTasks({ signal }),
    () => client.tables.serviceReport(10001, { startDate: DAY, endDate: DAY, signal }),
    () => client.tables.siteReport(20001, { startDate: DAY, endDate: DAY, signal }),
    () => client.tables.responseTimeDistribution(20001, { startDate: DAY, endDate: DAY, signal }),
    () => client.tables.serviceReports({ taskIds: [10001], startDate: DAY, endDate: DAY, signal }),
    () => client.tables.siteReports({ taskIds: [20001], startDate: DAY, endDate: DAY, signal }),
  ]
  for (const call of calls) {
    const error = await rejects(call(), 'ABORTED')
    assert.match(error.message, /aborted/)
  }
  assert.equal(emu.counters().total, 0, 'nothing was sent')
})

test('an abort during a call rejects at once and drops the request; an abort after it changes nothing', async (t) => {
  const { emu, client } = await setup(t)
  await client.login()
  emu.setLatency(SLOW_MS)
  const controller = new AbortController()
  const call = client.agents({ signal: controller.signal })
  await arrived(emu, 'agents', 1)
  const started = Date.now()
  controller.abort()
  await rejects(call, 'ABORTED')
  assert.ok(Date.now() - started < SLOW_MS / 2, `rejected ${Date.now() - started} ms after the abort`)
  await sleep(SLOW_MS + 500)
  assert.equal(emu.counters().agents, 1, 'not retried, not repeated')

  emu.setLatency(0)
  const done = new AbortController()
  const agents = await client.agents({ signal: done.signal })
  done.abort()
  assert.equal(typeof agents, 'object')
  assert.equal(emu.counters().agents, 2)
})

test('an aborted bulk call stops fetching: no request starts after the abort', async (t) => {
  const { emu, client } = await setup(t)
  await client.login()
  emu.setLatency(SLOW_MS)
  const controller = new AbortController()
  /** @type {number[]} */
  const done = []
  const ids = Array.from({ length: 20 }, (_, i) => 10001 + i)
  const call = client.tables.serviceReports({
    taskIds: ids,
    startDate: DAY, endDate: DAY,
    concurrency: 2,
    signal: controller.signal,
    onProgress: (progress) => void done.push(progress.done),
  })
  await arrived(emu, 'service_report', 2)
  controller.abort()
  await rejects(call, 'ABORTED')
  // Had the fetches gone on, the first two would have finished and two more would have started.
  await sleep(SLOW_MS + 1000)
  assert.equal(emu.counters().service_report, 2)
  assert.deepEqual(done, [0], 'no task finished after the abort')
})

test('an abort between the pages of iterServiceTasks stops the iteration', async (t) => {
  const emu = await emulator(t, { serviceTasks: 120 })
  const client = emu.client()
  t.after(() => client.close())
  const controller = new AbortController()
  let seen = 0
  const error = await (async () => {
    for await (const _task of client.iterServiceTasks({ signal: controller.signal })) {
      seen += 1
      if (seen === 1) controller.abort()
    }
  })().catch((/** @type {any} */ e) => e)
  assert.equal(error?.code, 'ABORTED')
  assert.equal(seen, 50, 'the first page, then nothing')
  assert.equal(emu.counters().service_tasks, 1)
})

test('timeoutMs of a call overrides the client timeout', async (t) => {
  const { emu, client } = await setup(t)
  await client.login()
  emu.setLatency(1500)
  const error = await rejects(client.agents({ timeoutMs: 200 }), 'TIMEOUT')
  assert.equal(error.timeoutMs, 200)
  assert.equal(error.endpoint, 'GET /v2/agent/lists.json')
  const table = await client.tables.serviceReport(10001, { startDate: DAY, endDate: DAY })
  assert.ok(table.numRows > 0, 'without it, the client timeout (30 s) applies')
  await rejects(client.tables.serviceReport(10001, { startDate: DAY, endDate: DAY, timeoutMs: 200 }), 'TIMEOUT')
  const bad = await rejects(client.agents({ timeoutMs: 0 }), 'INVALID_INPUT')
  assert.equal(bad.field, 'timeoutMs')
  const signal = await rejects(client.agents(/** @type {any} */ ({ signal: 'stop' })), 'INVALID_INPUT')
  assert.equal(signal.field, 'signal')
})
