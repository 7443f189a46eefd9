// @ts-check
// Chaos: 2,000 calls against the emulator while 20% of its answers are faults (every kind the
// emulator has, in equal shares), with maxRetries 3 and `Retry-After: 0`.
//
// 400 calls one at a time, then 1,600 with 32 in flight: one at a time, the backoff's waits add
// up (100 to 200 ms before the first repeat after a 500, a broken connection or an error page),
// 32 at once overlap them, which keeps the suite within about 20 s. Every kind of read and
// creates (one call in ten). A read's result must equal the same call's without faults
// (fetched before the faults are switched on): no wrong result, every failure a MonapiError
// with one of the documented codes, at least 99% of the reads successful. Each create carries a
// server_name of its own; the emulator must have stored each at most once, and exactly once
// when the client saw it succeed.

import assert from 'node:assert/strict'
import test from 'node:test'
import { isDeepStrictEqual } from 'node:util'

import { ERROR_CODES, MonapiError } from 'monapi'

import { emulator, linuxTask } from './helpers.mjs'

const FAULT_SHARE = 0.2
const CREATE_EVERY = 10
// A past day: its reports do not change while the suite runs.
const DAY = '2026-11-01'

/** @typedef {(client: import('monapi').Client) => Promise<unknown>} Read */

test('2,000 calls under 20% faults of every kind: no wrong result, only typed errors, no create twice', async (t) => {
  const emu = await emulator(t)
  const referenceClient = emu.client()
  const dates = { startDate: DAY, endDate: DAY }
  /** @type {[string, Read][]} */
  const reads = [1, 2, 3, 4].map((page) => [`serviceTasks(${page})`, (c) => c.serviceTasks({ page })])
  reads.push(['agents()', (c) => c.agents()])
  const small = (await referenceClient.serviceTasks()).filter((task) => task.frequency !== '1').slice(0, 3)
  for (const task of small) reads.push([`serviceReport(${task.task_id})`, (c) => c.serviceReport(task.task_id, dates)])
  for (const site of [20001, 20002, 20003, 20004]) {
    reads.push([`siteReport(${site})`, (c) => c.siteReport(site, dates)])
    reads.push([`siteReport(${site}, 0)`, (c) => c.siteReport(site, { ...dates, monitor: 0 })])
    reads.push([`responseTimeDistribution(${site})`, (c) => c.responseTimeDistribution(site, dates)])
  }
  /** @type {unknown[]} */
  const references = []
  for (const [, read] of reads) references.push(await read(referenceClient))

  const share = FAULT_SHARE / 7
  emu.setFaults({
    error500: share,
    error503: share,
    error429: share,
    dropConnection: share,
    truncatedBody: share,
    malformedBody: share,
    corruptGzip: share,
    retryAfterSecs: 0,
  })
  // Made after the faults are on: its login meets the faults too.
  const client = emu.client({ maxRetries: 3, timeoutMs: 30_000 })
  const tally = {
    calls: 0,
    successes: 0,
    /** @type {Record<string, number>} */
    failures: {},
    /** @type {string[]} */
    untyped: [],
    /** @type {string[]} */
    wrong: [],
    reads: 0,
    readSuccesses: 0,
    /** @type {string[]} */
    created: [],
  }

  /** @param {number} i */
  async function call(i) {
    tally.calls += 1
    const create = i % CREATE_EVERY === CREATE_EVERY - 1
    const name = `chaos-node-${i}`
    const index = i % reads.length
    if (!create) tally.reads += 1
    try {
      const result = create ? await client.createServerTasks([linuxTask(name)]) : await reads[index][1](client)
      if (create) {
        tally.created.push(name)
      } else if (!isDeepStrictEqual(result, references[index])) {
        tally.wrong.push(`${reads[index][0]}: ${JSON.stringify(result).slice(0, 200)}`)
        return
      } else {
        tally.readSuccesses += 1
      }
      tally.successes += 1
    } catch (error) {
      if (error instanceof MonapiError && ERROR_CODES.includes(error.code)) {
        tally.failures[error.code] = (tally.failures[error.code] ?? 0) + 1
      } else {
        tally.untyped.push(String(error))
      }
    }
  }

  const started = performance.now()
  for (let i = 0; i < 400; i++) await call(i)
  let next = 400
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < 2000) await call(next++)
    }),
  )
  const seconds = (performance.now() - started) / 1000
  emu.setFaults({})

  /** @type {Map<string, number>} */
  const stored = new Map()
  for (const task of emu.serverTasks()) stored.set(String(task.server_name), (stored.get(String(task.server_name)) ?? 0) + 1)
  const twice = [...stored].filter(([, count]) => count > 1).map(([name]) => name)
  const lost = tally.created.filter((name) => stored.get(name) !== 1)
  const rate = tally.readSuccesses / tally.reads
  console.log(
    `chaos (Node): ${tally.calls} calls in ${seconds.toFixed(1)} s, ${tally.successes} successes, ` +
      `typed failures ${JSON.stringify(tally.failures)}, untyped: ${tally.untyped.length}, wrong: ${tally.wrong.length}; ` +
      `reads ${tally.readSuccesses}/${tally.reads} (${(rate * 100).toFixed(2)}%); creates stored twice: ${twice.length}, lost: ${lost.length}`,
  )
  assert.equal(tally.calls, 2000)
  assert.deepEqual(tally.wrong, [])
  assert.deepEqual(tally.untyped, [])
  assert.ok(rate >= 0.99, `only ${(rate * 100).toFixed(2)}% of the reads succeeded`)
  assert.deepEqual(twice, [], 'creates applied twice')
  assert.deepEqual(lost, [], 'creates the client saw succeed but not stored once')
  await client.close()
  await referenceClient.close()
})
