// @ts-check
// Compressed answers: every call asks for them, and gzip or deflate decode to exactly what the
// identity answer gives (objects and tables); a corrupt gzip body is DECODE, retried; an
// answer past maxResponseBytes fails naming it; a slow link's bytes take their time.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Emulator } from 'monapi'

import { emulator, rejects, throws } from './helpers.mjs'

const dates = { startDate: '2026-03-01', endDate: '2026-03-03' }

/**
 * Every read's result on an emulator compressing with `compression`.
 *
 * @param {import('node:test').TestContext} t
 * @param {import('monapi').Encoding[]} compression
 */
async function results(t, compression) {
  const emu = await emulator(t, { compression })
  const client = emu.client()
  const out = [
    await client.agents(),
    await client.serviceTasks(),
    await client.serviceReport(10001, dates),
    await client.siteReport(20001, dates),
    await client.responseTimeDistribution(20001, dates),
    await client.siteTasks(),
    await client.siteTask(20001),
    await client.monitors(),
    await client.users(),
    await client.userGroups(),
    (await client.tables.serviceReport(10001, dates)).toRows(),
    Array.from((await client.tables.serviceReport(10001, dates)).column('value')),
  ]
  const counters = emu.counters()
  // Every call asked for a compressed answer; this emulator gave one when it had any.
  assert.equal(counters.compressed, compression.length > 0 ? counters.total : 0)
  return out
}

test('every answer decodes to what the identity answer gives', async (t) => {
  const identity = await results(t, [])
  assert.deepEqual(await results(t, ['gzip']), identity)
  assert.deepEqual(await results(t, ['deflate']), identity)
})

test('the emulator refuses an encoding it does not have', async () => {
  const err = await rejects(Emulator.start({ compression: /** @type {any} */ (['br']) }), 'INVALID_INPUT')
  assert.equal(err.field, 'compression')
})

test('a corrupt gzip body is DECODE, and a read is retried', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  await client.login()
  emu.setFaults({ next: ['corruptGzip'] })
  assert.ok(await client.agents())
  assert.equal(emu.counters().agents, 2)
  const once = emu.client({ maxRetries: 0 })
  await once.login()
  emu.setFaults({ next: ['corruptGzip'] })
  const err = await rejects(once.agents(), 'DECODE')
  assert.match(err.message, /does not decompress \(.+\)$/)
  assert.doesNotMatch(err.message, /body starts/)
})

test('an answer past maxResponseBytes fails naming the option, not repeated', async (t) => {
  const emu = await emulator(t)
  const small = emu.client({ maxResponseBytes: 4096 })
  const err = await rejects(small.serviceReport(10001, dates), 'DECODE')
  assert.match(err.message, /larger than maxResponseBytes \(4096 bytes once decompressed\)/)
  assert.equal(emu.counters().service_report, 1)
  assert.equal(throws(() => emu.client({ maxResponseBytes: 0 }), 'INVALID_INPUT').field, 'maxResponseBytes')
})

test('an answer crosses a slow link at its bandwidth', async (t) => {
  // Uncompressed, so that the bytes on the wire are the body's.
  const twoDays = { startDate: '2026-03-01', endDate: '2026-03-02' }
  const fast = await emulator(t, { compression: [] })
  const { access_token: token } = await fast.client().login()
  const url = `${fast.baseUrl}/v2/service/report/10001.json?start_date=2026-03-01&end_date=2026-03-02&access_token=${token}`
  const size = (await (await fetch(url)).arrayBuffer()).byteLength
  assert.ok(size > 1_000_000, String(size))
  const slow = await emulator(t, { compression: [], bandwidthMbps: 8 })
  const client = slow.client()
  await client.login()
  const started = performance.now()
  await client.serviceReport(10001, twoDays)
  const elapsed = (performance.now() - started) / 1000
  assert.ok(elapsed >= (size * 8) / 8e6, `${elapsed} s for ${size} bytes`)
})

test('the link settings are checked', async () => {
  assert.equal((await rejects(Emulator.start({ bandwidthMbps: 0 }), 'INVALID_INPUT')).field, 'bandwidthMbps')
  assert.equal((await rejects(Emulator.start({ rttMs: 20_000 }), 'INVALID_INPUT')).field, 'rttMs')
})
