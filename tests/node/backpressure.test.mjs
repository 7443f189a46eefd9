// @ts-check
// Back-pressure from the JavaScript thread: a large report read in pieces while that thread is
// busy is held up (only a bounded number of pieces wait for it, then the core stops reading
// the answer), so the process's memory stays far below the body's size instead of filling
// with the whole body (the emulator runs in a child process, so that its own copy of the body
// is not counted here); a sync's progress waits a bounded number at a time, in order, the
// last one always delivered.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { test } from 'node:test'

import { Client } from 'monapi'

import { ROOT, day, emulator, eventually } from './helpers.mjs'

const { Arrival } = createRequire(import.meta.url)('../../bindings-node/lib/arriving.js')

/** Serves an emulator with the options in argv until its stdin closes; prints its client options. */
const SERVE = `
import { Emulator } from 'monapi'
const emulator = await Emulator.start(JSON.parse(process.argv[1]))
const { baseUrl, clientId, clientSecret, username, password } = emulator
process.stdout.write(JSON.stringify({ baseUrl, clientId, clientSecret, username, password }) + '\\n')
process.stdin.on('end', () => void emulator.stop().then(() => process.exit(0)))
process.stdin.resume()
`

/**
 * Starts an emulator in a child process for one test; resolves with the options of a client
 * of its demo account.
 *
 * @param {import('node:test').TestContext} t
 * @param {import('monapi').EmulatorOptions} options
 * @returns {Promise<import('monapi').ClientOptions>}
 */
async function childEmulator(t, options) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SERVE, JSON.stringify(options)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  t.after(() => {
    child.stdin.end()
    // Bounded: a child that does not stop by itself is killed.
    setTimeout(() => child.kill(), 5000).unref()
  })
  const [line] = await Promise.race([
    createInterface({ input: child.stdout })[Symbol.asyncIterator]().next().then((next) => [next.value]),
    new Promise((_, reject) => child.on('exit', (code) => reject(new Error(`the emulator exited (${code})`)))),
  ])
  return JSON.parse(line)
}

/**
 * Keeps the JavaScript thread busy for `ms` milliseconds (nothing queued to it runs), sampling
 * the process's resident memory; resolves with the most it reached.
 *
 * @param {number} ms
 */
function busyFor(ms) {
  let most = process.memoryUsage.rss()
  const until = Date.now() + ms
  while (Date.now() < until) most = Math.max(most, process.memoryUsage.rss())
  return most
}

test('a busy JavaScript thread holds up a report read in pieces, not its whole body', async (t) => {
  // Uncompressed over a link of 40 MB/s (320 Mbit/s): slow enough to be read in pieces, and
  // the bytes on the link are the bytes of the body.
  const megabytesPerSecond = 40
  const served = await childEmulator(t, { compression: [], bandwidthMbps: megabytesPerSecond * 8, siteTasks: 1 })
  // The call is held up on purpose (the thread below is busy for 5 s), and the emulator, a
  // debug build, takes 5-8 s of CPU to write the 100 MB: with both cores loaded (make
  // test-stress) the call took more than the default 30 s. What is checked here is memory.
  const client = new Client({ ...served, timeoutMs: 120_000 })
  t.after(() => client.close())
  // About 100 MB: what waits in the core's own bounded queues is small beside it.
  const range = { startDate: day(242), endDate: day(2) }
  await client.login()
  await client.siteReport(20001, { startDate: day(2), endDate: day(2) })

  const value = Arrival.prototype.value
  let fromPieces = 0
  Arrival.prototype.value = function (/** @type {number} */ attempt) {
    fromPieces += 1
    return value.call(this, attempt)
  }
  t.after(() => {
    Arrival.prototype.value = value
  })
  // Pieces are parsed by JSON.parse as they come: the first one says the body is arriving.
  const parse = JSON.parse
  let parsed = 0
  JSON.parse = /** @type {typeof JSON.parse} */ (
    function (text, reviver) {
      parsed += 1
      return parse.call(JSON, text, reviver)
    }
  )
  t.after(() => {
    JSON.parse = parse
  })
  const call = client.siteReport(20001, range)
  await eventually(() => parsed > 0, 30_000)
  const before = process.memoryUsage.rss()
  // Long enough for the whole body to arrive at the link's rate twice over: without
  // back-pressure, the rest of it would be read and queued for this thread meanwhile.
  const bodyBytes = 100e6
  const most = busyFor((2 * 1000 * bodyBytes) / (megabytesPerSecond * 1e6))
  const report = await call

  const size = JSON.stringify(report).length
  assert.equal(fromPieces, 1, 'the report was read in pieces as it arrived')
  assert.ok(size > bodyBytes / 2, `a large report (${size} bytes)`)
  const grown = most - before
  t.diagnostic(`memory grew by ${(grown / 1e6).toFixed(1)} MB while the thread was busy; body ${(size / 1e6).toFixed(1)} MB`)
  assert.ok(
    grown < size / 4,
    `memory grew by ${(grown / 1e6).toFixed(1)} MB while the thread was busy, for a body of ${(size / 1e6).toFixed(1)} MB`,
  )
})

test('a sync whose progress waits for a busy thread: a bounded number wait, in order, the last one comes', async (t) => {
  const tasks = 120
  const emu = await emulator(t, { serviceTasks: tasks })
  const dir = mkdtempSync(join(tmpdir(), 'monapi-node-progress-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const client = emu.client({ store: dir, settleMs: 1000 })
  t.after(() => client.close())
  await client.login()
  /** @type {import('monapi').SyncProgress[]} */
  const seen = []
  const startDate = day(3)
  const call = client.sync({ startDate, endDate: startDate, kinds: 'service_report', onProgress: (p) => void seen.push(p) })
  // Busy (bounded) until every task's day is in the store: by then every progress has been
  // handed over, and none could run.
  const written = () => readdirSync(join(dir, 'service_report'), { recursive: true }).filter((f) => String(f).endsWith('.parquet')).length
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    try {
      if (written() === tasks) break
    } catch {
      // The directory is not there yet.
    }
  }
  busyFor(200)
  const report = await call
  await eventually(() => seen.length > 0 && seen[seen.length - 1].done === tasks)

  assert.equal(report.fetched, tasks)
  const done = seen.map((p) => p.done)
  assert.deepEqual(done, [...done].sort((a, b) => a - b), 'in order')
  assert.deepEqual({ ...seen[seen.length - 1] }, { total: tasks, done: tasks, fetched: tasks, reused: 0, failed: 0, rows: report.rows, bytes: report.bytes })
  assert.ok(seen.length < tasks / 2, `${seen.length} progress calls for ${tasks + 1} progresses while the thread was busy`)
})
