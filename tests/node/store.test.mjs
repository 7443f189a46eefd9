// @ts-check
// The local store (`store`, `settleMs`) and `client.sync()` against the emulator, whose
// request counters say what was fetched: settled days are fetched once and then read from
// the store, days not settled (today) every time and never written; a sync's counts, its
// failures (PARTIAL_RESULT, or collected) and their retry; STORE errors; a store written by
// one client (or another process) read by another with no request.

import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

import { MonapiError } from 'monapi'

import { DEMO_SECRETS, ROOT, assertNoSecret, daysAgo, demoEnv, emulator, rejects, runNode, runProgram, throws } from './helpers.mjs'

const KINDS = ['service_report', 'site_availability', 'site_response_time', 'site_faults']

/**
 * A fresh directory under the system's temporary one, removed when the test ends.
 *
 * @param {import('node:test').TestContext} t
 */
function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'monapi-node-store-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * A table's rows as sorted JSON texts: the same rows in any order compare equal.
 *
 * @param {import('monapi').Table<any>} table
 */
function rowSet(table) {
  const json = (/** @type {unknown} */ row) =>
    JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? value.toString() : value))
  return table.toRows().map(json).sort()
}

/**
 * What a store holds of `kind`: `task-day` names from its files, sorted (none opened).
 *
 * @param {string} dir
 * @param {string} kind
 */
function held(dir, kind) {
  const root = join(dir, kind)
  if (!existsSync(root)) return []
  const found = []
  for (const day of readdirSync(root)) {
    for (const file of readdirSync(join(root, day))) {
      const task = /^task-(\d+)\.parquet$/.exec(file)
      if (day.startsWith('day=') && task) found.push(`${task[1]}@${day.slice(4)}`)
    }
  }
  return found.sort()
}

/**
 * `task@day` names for these tasks over these days.
 *
 * @param {number[]} tasks
 * @param {string[]} days
 */
function taskDays(tasks, days) {
  return tasks.flatMap((task) => days.map((day) => `${task}@${day}`)).sort()
}

/**
 * The days from `first` to `last` days ago, oldest first.
 *
 * @param {import('monapi').Emulator} emu
 * @param {number} first
 * @param {number} last
 */
function days(emu, first, last) {
  const out = []
  for (let n = first; n >= last; n--) out.push(daysAgo(emu, n))
  return out
}

/** @param {import('monapi').Emulator} emu */
function reportRequests(emu) {
  const counters = emu.counters()
  return counters.service_report + counters.site_report
}

/**
 * An emulator, a plain client and a client with a store whose days settle a second after
 * they end.
 *
 * @param {import('node:test').TestContext} t
 * @param {import('monapi').ClientOptions} [overrides]
 */
async function setup(t, overrides) {
  const emu = await emulator(t)
  const dir = tempDir(t)
  const plain = emu.client()
  const stored = emu.client({ store: dir, settleMs: 1000, ...overrides })
  t.after(() => Promise.all([plain.close(), stored.close()]))
  return { emu, dir, plain, stored }
}

test('serviceReport through the store: one request for the missing settled days, none the second time, the plain rows', async (t) => {
  const { emu, dir, plain, stored } = await setup(t)
  const range = { startDate: daysAgo(emu, 4), endDate: daysAgo(emu, 2) }
  const expected = rowSet(await plain.tables.serviceReport(10003, range))
  assert.ok(expected.length > 0)

  let before = emu.counters().service_report
  const cold = await stored.tables.serviceReport(10003, range)
  assert.equal(emu.counters().service_report - before, 1, 'three missing days are one request')
  assert.deepEqual(rowSet(cold), expected)
  assert.deepEqual(held(dir, 'service_report'), taskDays([10003], days(emu, 4, 2)))
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'store.json'), 'utf8')).timezone, '+08:00')

  before = emu.counters().service_report
  const warm = await stored.tables.serviceReport(10003, range)
  assert.equal(emu.counters().service_report - before, 0, 'every day is held')
  assert.deepEqual(rowSet(warm), expected)
  assert.equal(warm.numRows, cold.numRows)
  assert.deepEqual(warm.schema, cold.schema)
})

test('today is fetched every time and never written; the settled days before it are kept', async (t) => {
  const { emu, dir, plain, stored } = await setup(t)
  const today = daysAgo(emu, 0)
  const range = { startDate: daysAgo(emu, 3), endDate: today }
  const midnight = Date.parse(`${today}T00:00:00${emu.timezone}`)
  /** The rows of the settled days (today's grow while the test runs). @param {import('monapi').Table<import('monapi').ServiceReportRow>} table */
  const settled = (table) =>
    table
      .toRows()
      .filter((row) => row.time !== null && row.time.getTime() < midnight)
      .map((row) => JSON.stringify({ ...row, task_id: String(row.task_id) }))
      .sort()
  const expected = settled(await plain.tables.serviceReport(10004, range))
  for (let i = 0; i < 2; i++) {
    const before = emu.counters().service_report
    const table = await stored.tables.serviceReport(10004, range)
    assert.ok(emu.counters().service_report - before >= 1, 'today is asked for again')
    assert.deepEqual(settled(table), expected)
    assert.ok(!existsSync(join(dir, 'service_report', `day=${today}`)), 'today is never written')
    assert.deepEqual(
      held(dir, 'service_report').filter((name) => name.endsWith(daysAgo(emu, 3))),
      [`10004@${daysAgo(emu, 3)}`],
    )
  }
  // A site report of today alone: asked for every time, nothing written.
  for (let i = 0; i < 2; i++) {
    const before = emu.counters().site_report
    await stored.tables.siteReport(20002, { startDate: today, endDate: today })
    assert.equal(emu.counters().site_report - before, 1)
  }
  for (const kind of KINDS.slice(1)) assert.ok(!existsSync(join(dir, kind, `day=${today}`)), kind)
})

test('siteReport through the store: every point kept, each monitor picked from it, rows equal the plain client', async (t) => {
  const { emu, dir, plain, stored } = await setup(t)
  const range = { startDate: daysAgo(emu, 5), endDate: daysAgo(emu, 2) }
  const all = await plain.tables.siteReport(20001, range)
  const point = all.availability.toRows().find((row) => row.monitor_id !== 0)?.monitor_id
  assert.ok(point !== undefined, 'a monitoring point besides the average')
  /** @type {Array<number | undefined>} */
  const monitors = [undefined, 0, point, undefined]
  for (const [i, monitor] of monitors.entries()) {
    const options = monitor === undefined ? range : { ...range, monitor }
    const want = await plain.tables.siteReport(20001, options)
    const before = emu.counters().site_report
    const got = await stored.tables.siteReport(20001, options)
    assert.equal(emu.counters().site_report - before, i === 0 ? 1 : 0, `monitor ${monitor}`)
    assert.deepEqual(rowSet(got.availability), rowSet(want.availability), `monitor ${monitor}`)
    assert.deepEqual(rowSet(got.responseTime), rowSet(want.responseTime), `monitor ${monitor}`)
    assert.deepEqual(rowSet(got.faults), rowSet(want.faults), `monitor ${monitor}`)
  }
  for (const kind of KINDS.slice(1)) assert.deepEqual(held(dir, kind), taskDays([20001], days(emu, 5, 2)), kind)
  assert.deepEqual(held(dir, 'service_report'), [])
})

test('sync: counts and progress, a re-run fetches nothing and sends no report request, the table calls read it', async (t) => {
  const { emu, dir, plain, stored } = await setup(t)
  const range = { startDate: daysAgo(emu, 6), endDate: daysAgo(emu, 2) }
  /** @type {import('monapi').SyncProgress[]} */
  const seen = []
  const report = await stored.sync({
    tasks: [10001, '10002', 20001n],
    ...range,
    concurrency: 2,
    onProgress: (p) => void seen.push(p),
  })
  assert.deepEqual(
    { ...report, rows: 0, bytes: 0, summary: '' },
    {
      start: range.startDate,
      end: range.endDate,
      tasks: 3,
      fetched: 15,
      reused: 0,
      rows: 0,
      bytes: 0,
      failed: 0,
      failures: [],
      setAside: [],
      verified: 0,
      summary: '',
    },
  )
  assert.ok(report.rows > 0 && report.bytes > 0)
  assert.equal(report.summary, `15 task-days fetched, 0 reused, ${report.rows} rows, ${report.bytes} bytes, 0 failed`)
  assert.equal(reportRequests(emu), 3, 'one request per task: its five days in one run')
  assert.deepEqual(held(dir, 'service_report'), taskDays([10001, 10002], days(emu, 6, 2)))
  for (const kind of KINDS.slice(1)) assert.deepEqual(held(dir, kind), taskDays([20001], days(emu, 6, 2)), kind)
  const deadline = Date.now() + 5000
  while (seen.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
  assert.deepEqual(
    seen.map((p) => p.done),
    [0, 5, 10, 15],
  )
  assert.ok(seen.every((p) => p.total === 15 && p.failed === 0 && Object.isFrozen(p)))
  assert.deepEqual({ ...seen[3] }, { total: 15, done: 15, fetched: 15, reused: 0, failed: 0, rows: report.rows, bytes: report.bytes })

  const before = reportRequests(emu)
  const again = await stored.sync({ tasks: [10001, 10002, 20001], ...range })
  assert.deepEqual([again.fetched, again.reused, again.rows, again.bytes, again.failed], [0, 15, 0, 0, 0])
  assert.equal(again.summary, '0 task-days fetched, 15 reused, 0 rows, 0 bytes, 0 failed')
  assert.equal(reportRequests(emu), before, 'nothing new: no report request')

  // What the sync wrote is what the table calls read, without a request.
  const want = rowSet(await plain.tables.serviceReport(10002, range))
  const wantSites = await plain.tables.siteReport(20001, range)
  const asked = reportRequests(emu)
  assert.deepEqual(rowSet(await stored.tables.serviceReport(10002, range)), want)
  assert.deepEqual(rowSet((await stored.tables.siteReport(20001, range)).faults), rowSet(wantSites.faults))
  assert.equal(reportRequests(emu), asked)

  // Kinds: an array or a comma-separated string, as the core reads them.
  const only = await stored.sync({ tasks: [10005], kinds: ['service'], ...range })
  assert.deepEqual([only.tasks, only.fetched], [1, 5])
  const faults = await stored.sync({ tasks: [20002], kinds: 'site_faults, site_availability', ...range })
  assert.deepEqual([faults.tasks, faults.fetched], [1, 5])
  assert.deepEqual(held(dir, 'site_faults').filter((name) => name.startsWith('20002@')).length, 5)
  assert.deepEqual(held(dir, 'site_response_time').filter((name) => name.startsWith('20002@')), [])

  // Only days not settled yet: nothing to do, nothing asked.
  const today = daysAgo(emu, 0)
  const none = await stored.sync({ tasks: [10001], startDate: today, endDate: today })
  assert.deepEqual([none.start, none.end, none.fetched, none.tasks], [null, null, 0, 0])
})

test('sync: bad input is refused, naming the option, before any report is asked for', async (t) => {
  const { emu, plain, stored } = await setup(t)
  const range = { startDate: daysAgo(emu, 3), endDate: daysAgo(emu, 2) }
  assert.equal((await rejects(plain.sync({ tasks: [10001] }), 'INVALID_INPUT')).field, 'store')
  const unknown = await rejects(stored.sync({ tasks: [10001, 424242], ...range }), 'INVALID_INPUT')
  assert.equal(unknown.field, 'tasks')
  assert.match(unknown.message, /424242/)
  const siteInService = await rejects(stored.sync({ tasks: [20001], kinds: 'service', ...range }), 'INVALID_INPUT')
  assert.equal(siteInService.field, 'tasks')
  /** @type {Array<[Record<string, unknown>, string]>} */
  const bad = [
    [{ kinds: 'sites' }, 'kinds'],
    [{ kinds: [] }, 'kinds'],
    [{ kinds: [1] }, 'kinds'],
    [{ kinds: 5 }, 'kinds'],
    [{ tasks: '10001' }, 'tasks'],
    [{ tasks: [0] }, 'taskId'],
    [{ concurrency: 0 }, 'concurrency'],
    [{ errors: 'ignore' }, 'errors'],
    [{ onProgress: 'log' }, 'onProgress'],
    [{ startDate: daysAgo(emu, 2), endDate: daysAgo(emu, 3) }, 'startDate'],
    [{ startDate: '2026-13-01' }, 'startDate'],
    [{ taskIds: [10001] }, 'options.taskIds'],
  ]
  for (const [options, field] of bad) {
    const error = await rejects(stored.sync(/** @type {any} */ (options)), 'INVALID_INPUT')
    assert.equal(error.field, field, JSON.stringify(options))
  }
  const controller = new AbortController()
  controller.abort()
  await rejects(stored.sync({ tasks: [10001], ...range, signal: controller.signal }), 'ABORTED')
  assert.equal(reportRequests(emu), 0)
  throws(() => emu.client({ store: /** @type {any} */ (5) }), 'INVALID_INPUT')
  assert.equal(throws(() => emu.client({ settleMs: 0 }), 'INVALID_INPUT').field, 'settleMs')
})

/** Bytes of answer a failing sync's client takes: the task lists (about 10 kB) fit, a service
 * task's five-day report (megabytes) does not. */
const SMALL_ANSWERS = 100_000

/**
 * A sync of three tasks over five days in which 10001's report fails for sure: 10002 and 20001
 * are synced first, then a client that takes no answer as large as a report syncs the three
 * (its task lists are still read). A fault armed from onProgress would race the sync, which the
 * callback follows on the main thread rather than leads.
 *
 * @param {import('monapi').Emulator} emu
 * @param {string} dir
 * @param {import('node:test').TestContext} t
 * @param {'raise' | 'collect'} [errors]
 */
async function failingSync(emu, dir, t, errors) {
  const range = { startDate: daysAgo(emu, 6), endDate: daysAgo(emu, 2) }
  const held = emu.client({ store: dir, settleMs: 1000 })
  const small = emu.client({ store: dir, settleMs: 1000, maxRetries: 0, maxResponseBytes: SMALL_ANSWERS })
  t.after(() => Promise.all([held.close(), small.close()]))
  const synced = await held.sync({ tasks: [10002, 20001], ...range })
  assert.deepEqual([synced.fetched, synced.failed], [10, 0])
  return small.sync({ tasks: [10001, 10002, 20001], ...range, concurrency: 1, errors })
}

/**
 * Checks a failed sync's report: 10001's five days failed, the others held already, nothing of
 * it in the store; then a sync fetches exactly those days, with one request.
 *
 * @param {import('monapi').Emulator} emu
 * @param {import('monapi').Client} client
 * @param {string} dir
 * @param {import('monapi').SyncReport} report
 */
async function checkFailedAndRetried(emu, client, dir, report) {
  assert.equal(report.failures.length, 1, JSON.stringify(report.failures))
  const [failure] = report.failures
  assert.equal(failure.taskId, 10001)
  assert.equal(failure.report, 'service_report')
  assert.deepEqual([failure.start, failure.end], [daysAgo(emu, 6), daysAgo(emu, 2)])
  assert.ok(failure.error instanceof MonapiError)
  assert.equal(failure.error.code, 'DECODE')
  assert.match(failure.error.message, new RegExp(`larger than maxResponseBytes \\(${SMALL_ANSWERS} bytes`))
  assert.deepEqual([report.tasks, report.fetched, report.reused, report.failed], [3, 0, 10, 5])
  assert.match(report.summary, /^0 task-days fetched, 10 reused, 0 rows, 0 bytes, 5 failed$/)
  assert.deepEqual(held(dir, 'service_report').filter((name) => name.startsWith('10001@')), [])
  const before = reportRequests(emu)
  const retry = await client.sync({ tasks: [10001, 10002, 20001], startDate: daysAgo(emu, 6), endDate: daysAgo(emu, 2) })
  assert.deepEqual([retry.fetched, retry.reused, retry.failed, retry.failures.length], [5, 10, 0, 0])
  assert.equal(reportRequests(emu) - before, 1, 'only the failed task is asked for')
  assert.equal(held(dir, 'service_report').filter((name) => name.startsWith('10001@')).length, 5)
}

test('sync: a failed task rejects with PARTIAL_RESULT carrying the report; the next sync fetches its days', async (t) => {
  const { emu, dir, stored } = await setup(t)
  const error = await rejects(failingSync(emu, dir, t), 'PARTIAL_RESULT')
  assert.match(error.message, /^1 of 3 tasks failed \(the first, task 10001: service_report from /)
  const report = /** @type {import('monapi').SyncReport} */ (error.result)
  assert.ok(report && Array.isArray(report.failures))
  assert.equal(error.failures, report.failures)
  await checkFailedAndRetried(emu, stored, dir, report)
})

test("sync: errors: 'collect' resolves with the failures listing the task and its error", async (t) => {
  const { emu, dir, stored } = await setup(t)
  const report = await failingSync(emu, dir, t, 'collect')
  await checkFailedAndRetried(emu, stored, dir, report)
})

test('STORE: a store that cannot be read or written rejects with code STORE and its path, no secret in the message', async (t) => {
  const emu = await emulator(t)
  const dir = tempDir(t)
  const file = join(dir, 'a-file')
  writeFileSync(file, 'not a directory')
  const client = emu.client({ store: join(file, 'store'), settleMs: 1000 })
  t.after(() => client.close())
  const range = { startDate: daysAgo(emu, 3), endDate: daysAgo(emu, 2) }
  for (const call of [
    () => client.tables.serviceReport(10001, range),
    () => client.tables.siteReports({ taskIds: [20001], ...range }),
    () => client.sync({ tasks: [10001], ...range }),
  ]) {
    const error = await rejects(call(), 'STORE')
    assert.ok(error instanceof MonapiError)
    assert.ok(error.path?.startsWith(join(file, 'store')), String(error.path))
    assert.ok(error.message.includes(/** @type {string} */ (error.path)), error.message)
    assert.equal(error.endpoint, null)
    assertNoSecret(error.message, DEMO_SECRETS)
  }
  assert.equal(reportRequests(emu), 0)
  assert.equal(new MonapiError('x', { code: 'STORE', path: '/d' }).path, '/d')
})

test('a store written by one client is read by a fresh one with no request at all', async (t) => {
  const { emu, dir, plain, stored } = await setup(t)
  const range = { startDate: daysAgo(emu, 4), endDate: daysAgo(emu, 2) }
  await stored.sync({ tasks: [10006, 20003], ...range })
  // A client that never logged in, with the default settleMs (two hours).
  const fresh = emu.client({ store: dir })
  t.after(() => fresh.close())
  const want = rowSet(await plain.tables.serviceReport(10006, range))
  const wantSite = await plain.tables.siteReport(20003, { ...range, monitor: 0 })
  const before = emu.counters().total
  assert.deepEqual(rowSet(await fresh.tables.serviceReport(10006, range)), want)
  const site = await fresh.tables.siteReport(20003, { ...range, monitor: 0 })
  assert.deepEqual(rowSet(site.availability), rowSet(wantSite.availability))
  assert.deepEqual(rowSet(site.responseTime), rowSet(wantSite.responseTime))
  assert.equal(emu.counters().total, before, 'no token, no report: the store holds every day')
})

test('a store synced by another process (MONAPI_STORE) is read here with no request', async (t) => {
  const { emu, dir, plain } = await setup(t)
  const range = { startDate: daysAgo(emu, 3), endDate: daysAgo(emu, 2) }
  const script = `
    const { Client } = require('monapi')
    new Client().sync({ tasks: [10007], startDate: process.argv[1], endDate: process.argv[2] })
      .then((report) => console.log(JSON.stringify(report)), (error) => { console.error(error.code, error.message); process.exit(1) })
  `
  const env = { ...demoEnv(emu), MONAPI_STORE: dir }
  const child = await runNode(['-e', script, range.startDate, range.endDate], { env, timeoutMs: 30000 })
  assert.equal(child.code, 0, child.stderr)
  const report = JSON.parse(child.stdout)
  assert.deepEqual([report.tasks, report.fetched, report.failed], [1, 2, 0])
  assert.deepEqual(held(dir, 'service_report'), taskDays([10007], days(emu, 3, 2)))

  const want = rowSet(await plain.tables.serviceReport(10007, range))
  const reader = emu.client({ store: dir })
  t.after(() => reader.close())
  const before = emu.counters().total
  assert.deepEqual(rowSet(await reader.tables.serviceReport(10007, range)), want)
  assert.equal(emu.counters().total, before)
})

test('a store synced by the Python package is read here with no request', async (t) => {
  const { emu, dir, plain } = await setup(t)
  const range = { startDate: daysAgo(emu, 3), endDate: daysAgo(emu, 2) }
  const script = [
    'import json, sys, monapi',
    'report = monapi.Client().sync(sys.argv[1], sys.argv[2], tasks=[10008, 20002])',
    'print(json.dumps({k: report[k] for k in ("fetched", "failed")}))',
  ].join('\n')
  const env = { ...demoEnv(emu), MONAPI_STORE: dir }
  const python = join(ROOT, '.venv', 'bin', 'python')
  const child = await runProgram(python, ['-c', script, range.startDate, range.endDate], { env, timeoutMs: 60000 })
  assert.equal(child.code, 0, child.stderr)
  assert.deepEqual(JSON.parse(child.stdout), { fetched: 4, failed: 0 })

  const reader = emu.client({ store: dir })
  t.after(() => reader.close())
  const want = rowSet(await plain.tables.serviceReport(10008, range))
  const wantSite = await plain.tables.siteReport(20002, range)
  const before = emu.counters().total
  assert.deepEqual(rowSet(await reader.tables.serviceReport(10008, range)), want)
  const site = await reader.tables.siteReport(20002, range)
  assert.deepEqual(rowSet(site.availability), rowSet(wantSite.availability))
  assert.deepEqual(rowSet(site.faults), rowSet(wantSite.faults))
  assert.equal(emu.counters().total, before, 'read from the store Python wrote')
})

test('sync with verify: reads every file, sets aside a garbled one and fetches it again; without, the name is trusted', async (t) => {
  const { emu, dir, stored } = await setup(t)
  const day = daysAgo(emu, 3)
  const range = { tasks: [10001], kinds: 'service_report', startDate: day, endDate: day }
  await stored.sync(range)
  const file = join(dir, 'service_report', `day=${day}`, 'task-10001.parquet')
  const whole = readFileSync(file)
  const garbled = Buffer.from(whole)
  garbled.fill(0xa5, Math.floor(garbled.length / 3), Math.floor(garbled.length / 3) + 64)
  writeFileSync(file, garbled)

  const plain = await stored.sync(range)
  assert.deepEqual([plain.fetched, plain.reused, plain.verified, plain.setAside.length], [0, 1, 0, 0])
  const before = reportRequests(emu)
  const verified = await stored.sync({ ...range, verify: true })
  assert.deepEqual([verified.fetched, verified.reused, verified.verified, verified.setAside.length], [1, 0, 1, 1])
  assert.equal(reportRequests(emu) - before, 1, 'the garbled day alone is fetched again')
  assert.match(verified.summary, /, 1 files verified, 1 corrupt files set aside$/)
  assert.ok(readFileSync(file).equals(whole), 'written again whole')
  // @ts-expect-error: a string where a boolean goes
  const typed = stored.sync({ ...range, verify: 'yes' })
  assert.equal((await rejects(typed, 'INVALID_INPUT')).field, 'verify')
})
