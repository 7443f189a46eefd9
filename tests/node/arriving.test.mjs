// @ts-check
// Reports built while they arrive: over a paced link the objects equal what a fast link's
// whole body gives; an attempt cut or corrupted half-way is repeated and its objects dropped,
// never doubled; an error answer rejects as before. (Which answers are read in pieces, by
// how fast they come, is the core's rule, tested there.)

import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { test } from 'node:test'

import { emulator } from './helpers.mjs'

// The layer's own module (the package exports only its entry points), to count the calls
// built from pieces: a report that arrived fast is parsed whole and never reaches it.
const { Arrival } = createRequire(import.meta.url)('../../bindings-node/lib/arriving.js')

const week = { startDate: '2026-11-01', endDate: '2026-11-07' }

/**
 * How many reports were built from pieces while `run` ran.
 *
 * @param {() => Promise<unknown>} run
 */
async function builtFromPieces(run) {
  const value = Arrival.prototype.value
  let calls = 0
  Arrival.prototype.value = function (/** @type {number} */ attempt) {
    calls += 1
    return value.call(this, attempt)
  }
  try {
    return { result: await run(), calls }
  } finally {
    Arrival.prototype.value = value
  }
}

test('reports read as they arrive equal the whole body', async (t) => {
  const fast = (await emulator(t)).client()
  // Gzipped (the default) over a link slow enough that reports are read in pieces.
  const paced = (await emulator(t, { bandwidthMbps: 20 })).client()
  const { result, calls } = await builtFromPieces(async () => [
    await paced.serviceReport(10001, week),
    await paced.siteReport(20001, week),
  ])
  assert.equal(calls, 2, 'both built from pieces')
  assert.deepStrictEqual(result, [await fast.serviceReport(10001, week), await fast.siteReport(20001, week)])
  const [, site] = /** @type {[unknown, Record<string, {uprate: object}>]} */ (result)
  assert.ok(Object.keys(site['0'].uprate).length > 1000)
})

test('an attempt broken half-way is repeated without doubling', async (t) => {
  const emu = await emulator(t, { bandwidthMbps: 20 })
  const client = emu.client()
  const expected = await client.siteReport(20001, week)
  for (const fault of /** @type {const} */ (['truncatedBody', 'corruptGzip', 'dropConnection'])) {
    const before = emu.counters().site_report
    emu.setFaults({ next: [fault] })
    const { result, calls } = await builtFromPieces(() => client.siteReport(20001, week))
    assert.deepStrictEqual(result, expected, fault)
    assert.equal(calls, 1, fault)
    assert.equal(emu.counters().site_report, before + 2, `${fault}: repeated once`)
  }
})

test('an error answer rejects as before', async (t) => {
  const paced = (await emulator(t, { bandwidthMbps: 20 })).client()
  await assert.rejects(paced.serviceReport(99999, week), { code: 'API_ERROR' })
})
