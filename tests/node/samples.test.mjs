// @ts-check
// The JavaScript samples of the Node and Tables guides (docs/guides/node.md and tables.md,
// which include docs/samples/node/node-*.mjs and tables-*.mjs whole or by region), run as a
// reader runs them: `node <sample>` in an empty folder, with an emulator's demo account in
// the MONAPI_* variables (a fresh emulator per sample, on 127.0.0.1 and a port the system
// chose). The samples check nothing themselves; each test here asserts exit 0, no secret in
// the output, and what the sample's output (or the emulator, or the folder) should then show.

import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

import { DEMO_SECRETS, ROOT, assertNoSecret, demoEnv, emulator, runNode } from './helpers.mjs'

const SAMPLES = join(ROOT, 'docs', 'samples', 'node')
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
/** The emulator's site tasks: one more than the default, as the Python samples' world. */
const SITES = 6

/**
 * The environment of a sample: this one's (helpers.mjs dropped any MONAPI_* of the caller's),
 * without node:test's own variable (a sample that is a test file would report to this
 * runner instead of printing), and the emulator's demo account. TZ=UTC: a sample's `Date`s
 * stand for their calendar day in UTC, never a day after the service's (+08:00), whatever
 * the machine's zone, so the days a sample asks for are the ones the tests count on.
 *
 * @param {import('monapi').Emulator} emu
 * @returns {NodeJS.ProcessEnv}
 */
function sampleEnv(emu) {
  const env = demoEnv(emu)
  delete env.NODE_TEST_CONTEXT
  env.TZ = 'UTC'
  return env
}

/**
 * Runs sample `name` against a fresh emulator in an empty temporary folder (removed when the
 * test ends); it must exit 0 and print no secret of the account.
 *
 * @param {import('node:test').TestContext} t
 * @param {string} name
 */
async function run(t, name) {
  const emu = await emulator(t, { siteTasks: SITES })
  const cwd = mkdtempSync(join(tmpdir(), 'monapi-sample-'))
  t.after(() => rmSync(cwd, { recursive: true, force: true }))
  const result = await runNode([join(SAMPLES, name)], { cwd, env: sampleEnv(emu), timeoutMs: 120_000 })
  const output = `${result.stdout}${result.stderr}`
  assert.equal(result.code, 0, `${name} exited with ${result.code} (${result.signal}):\n${output}`)
  assertNoSecret(output, DEMO_SECRETS)
  return { stdout: result.stdout, emu, cwd }
}

/** Every sample this file runs. */
const TESTED = [
  'node-cancel.mjs',
  'node-client.mjs',
  'node-emulator.mjs',
  'node-errors.mjs',
  'node-logging.mjs',
  'node-networks.mjs',
  'node-store.mjs',
  'node-tokens.mjs',
  'node-typed.mjs',
  'quickstart.mjs',
  'tables-arrow.mjs',
  'tables-bulk.mjs',
  'tables-single.mjs',
  'telemetry.mjs',
]

test('every JavaScript sample of the documentation is run here', () => {
  const included = new Set()
  const pages = readdirSync(join(ROOT, 'docs'), { recursive: true }).map(String)
  for (const page of pages.filter((name) => name.endsWith('.md'))) {
    const text = readFileSync(join(ROOT, 'docs', page), 'utf8')
    for (const [, name] of text.matchAll(/--8<-- "docs\/samples\/node\/([^":]+\.mjs)/g)) included.add(name)
  }
  assert.deepEqual([...included].sort(), TESTED)
  // No sample file that no page shows, or that this file does not run.
  const files = readdirSync(SAMPLES).filter((name) => name.endsWith('.mjs'))
  assert.deepEqual(files.sort(), TESTED)
})

test('quickstart.mjs: the task list and a week of a report as a table', async (t) => {
  const { stdout, emu } = await run(t, 'quickstart.mjs')
  assert.match(stdout, /^10001 /m)
  assert.match(stdout, /^\d+ rows: \[/m)
  assert.equal(emu.counters().service_report, 1)
})

test('node-client.mjs: the operations, from the MONAPI_* variables alone', async (t) => {
  const { stdout, emu } = await run(t, 'node-client.mjs')
  assert.match(stdout, /^first service task: 10001 /m)
  assert.match(stdout, /^120 service tasks$/m)
  assert.match(stdout, /^\w+: \d+ records, the first \{"time":"00:00",/m)
  assert.match(stdout, new RegExp(`^site task 2000${SITES} site-0${SITES}$`, 'm'))
  assert.match(stdout, /^8 monitoring points, \d+ users, \d+ user groups$/m)
  assert.match(stdout, new RegExp(`answered a list of ${SITES}$`, 'm'))
  // The two creates reached the emulator once each, with the defaults filled in.
  const [server] = emu.serverTasks()
  assert.equal(emu.serverTasks().length, 1)
  assert.equal(server.server_name, 'web-01')
  assert.equal(String(server.frequency), '5')
  assert.deepEqual(
    emu.createdServiceTasks().map((task) => task.task_type),
    ['redis'],
  )
  assert.match(stdout, new RegExp(`^created server task ${server.task_id} and service task \\d+$`, 'm'))
})

test('node-tokens.mjs: the token saved is resumed without a second login', async (t) => {
  const { stdout, emu, cwd } = await run(t, 'node-tokens.mjs')
  assert.match(stdout, /access_token: '\[redacted\]'/)
  assert.match(stdout, /^resumed with the saved token: no new login$/m)
  assert.equal(emu.counters().token, 1, 'one token request for both clients')
  const file = join(cwd, 'token.json')
  assert.equal(statSync(file).mode & 0o777, 0o600)
  const saved = JSON.parse(readFileSync(file, 'utf8'))
  assert.equal(typeof saved.refresh_token, 'string')
  assert.match(stdout, new RegExp(`expires at ${new Date(saved.expires_at * 1000).toISOString()}`))
})

test('node-errors.mjs: each error with its code and fields; nothing sent for bad input', async (t) => {
  const { stdout, emu } = await run(t, 'node-errors.mjs')
  assert.match(stdout, /^API_ERROR: HTTP 404, the service's code 404, at GET \/v2\/service\/report\/\{task_id\}\.json$/m)
  assert.match(stdout, /^task 0: status_url is required for a nginx task$/m)
  assert.match(stdout, /^task 1: user is required for a mysql task\ntask 1: password is required for a mysql task$/m)
  assert.match(stdout, /^INVALID_INPUT \(timeoutMs\): invalid input: `timeoutMs` must be/m)
  assert.equal(emu.counters().create_service, 0)
})

test('node-cancel.mjs: a deadline, a call timeout, and a bulk call stopped at its first failure', async (t) => {
  const { stdout, emu } = await run(t, 'node-cancel.mjs')
  assert.match(stdout, /^\d+ agents\n[1-9]\d* rows$/m)
  assert.match(stdout, /^ABORTED: /m)
  // The week's report, task 999, and not the 19 tasks after it: the abort started no other.
  assert.ok(emu.counters().service_report < 21, `${emu.counters().service_report} reports asked for`)
})

test('node-logging.mjs: the core\'s debug lines reach the logger', async (t) => {
  const { stdout } = await run(t, 'node-logging.mjs')
  const lines = stdout.trim().split('\n').map((line) => JSON.parse(line))
  assert.ok(lines.length >= 2, stdout)
  for (const line of lines) {
    assert.equal(line.level, 'debug')
    assert.match(line.message, /^monapi: /)
    assert.ok(!Number.isNaN(Date.parse(line.time)))
  }
  // Logged before the login's request was sent, and its answer before the next call began.
  assert.match(lines[0].message, /requesting a token with the password grant/)
  assert.match(lines[1].message, /endpoint=POST \/v2\/oauth\/token\.json status=200/)
})

test('node-emulator.mjs: a node:test file, its tests pass', async (t) => {
  const { stdout } = await run(t, 'node-emulator.mjs')
  assert.match(stdout, /^# tests 4$/m)
  assert.match(stdout, /^# pass 4$/m)
  assert.match(stdout, /^# fail 0$/m)
})

test('node-networks.mjs: trusted with caBundle, refused without it', async (t) => {
  const { stdout } = await run(t, 'node-networks.mjs')
  assert.match(stdout, /^\d+ agents over https:$/m)
  assert.match(stdout, /^CONNECTION: .*not trusted.*caBundle/m)
})

test('node-store.mjs: days kept as Parquet, read back, and a sync', async (t) => {
  const { stdout, emu, cwd } = await run(t, 'node-store.mjs')
  const match = /^(\d+) rows fetched, the same (\d+) read back$/m.exec(stdout)
  assert.ok(match, stdout)
  assert.ok(Number(match[1]) > 0)
  assert.equal(match[1], match[2])
  assert.match(stdout, /^\d+ task-days fetched, \d+ reused, \d+ rows, \d+ bytes, 0 failed$/m)
  const store = join(cwd, 'data', 'monapi')
  assert.equal(JSON.parse(readFileSync(join(store, 'store.json'), 'utf8')).timezone, '+08:00')
  // Days 7 to 3 ago were kept by the table calls, and the sync's days from 5 ago as well.
  const days = readdirSync(join(store, 'service_report')).filter((day) =>
    readdirSync(join(store, 'service_report', day)).includes('task-10001.parquet'),
  )
  assert.ok(days.length >= 5, days.join(', '))
  assert.ok(readdirSync(join(store, 'site_availability')).length >= 1)
  // One request for the five days, none to read them back, one for the days the sync lacked.
  assert.equal(emu.counters().service_report, 2)
})

test('node-typed.mjs: type-checks with tsc (strict) and runs', async (t) => {
  const tsc = await runNode(
    [
      TSC,
      '--noEmit',
      '--strict',
      '--allowJs',
      '--checkJs',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      'node',
      join(SAMPLES, 'node-typed.mjs'),
    ],
    { timeoutMs: 120_000 },
  )
  assert.equal(tsc.code, 0, `tsc failed:\n${tsc.stdout}${tsc.stderr}`)
  const { stdout } = await run(t, 'node-typed.mjs')
  assert.match(stdout, /^globalLock_ratio: \d+\.\d\d$/m)
})

test('tables-single.mjs: a report, its rows and columns, a site report, the lists, times', async (t) => {
  const { stdout } = await run(t, 'tables-single.mjs')
  assert.match(stdout, /^time: Timestamp\(s, "\+08:00"\) \(null\)\nmetric: Dictionary\(Int32, Utf8\)\nvalue: Float64 \(null\)$/m)
  assert.match(stdout, /^(\d+) rows; the first: \w+ \w+ = [\d.]+ at \d{4}-\d\d-\d\dT16:00:00\.000Z$/m)
  assert.match(stdout, /^\d+ values, \d+ null, mean \d+\.\d\d$/m)
  assert.match(stdout, /^task 10001, the first at /m)
  assert.match(stdout, /^[1-9]\d* checks, [1-9]\d* response times, \d+ faults$/m)
  assert.match(stdout, new RegExp(`^120 service tasks, ${SITES} sites, 8 points, \\d+ buckets$`, 'm'))
  // The day's first check: midnight in the service's zone (Shanghai's), the day before in New York.
  const shown = /^ {2}in Shanghai (\d{4}-\d\d-\d\d) 00:00:00\n {2}in New York (\d{4}-\d\d-\d\d) 1[12]:00:00$/m.exec(stdout)
  assert.ok(shown, stdout)
  assert.ok(shown[2] < shown[1])
})

test('tables-bulk.mjs: failures collected, raised as PARTIAL_RESULT, every site', async (t) => {
  const { stdout } = await run(t, 'tables-bulk.mjs')
  assert.match(stdout, /^0\/4 tasks, 0 failed, 0 rows, 0 bytes$/m)
  assert.match(stdout, /^[1-9]\d* rows$/m)
  assert.match(stdout, /^task 999: API_ERROR .*404/m)
  assert.match(stdout, /^PARTIAL_RESULT: [1-9]\d* rows of the others; failed: 999$/m)
  assert.match(stdout, /^[1-9]\d* checks, \d+ faults, 0 failed$/m)
})

test('tables-arrow.mjs: the IPC bytes read by apache-arrow, nodejs-polars and DuckDB', async (t) => {
  const { stdout } = await run(t, 'tables-arrow.mjs')
  const rows = /^apache-arrow: (\d+) rows, time is Timestamp<SECOND, \+08:00>$/m.exec(stdout)
  assert.ok(rows, stdout)
  assert.match(stdout, new RegExp(`^nodejs-polars: ${rows[1]} rows$`, 'm'))
  assert.equal(stdout.match(/^duckdb: \w+ peaked at [\d.]+$/gm)?.length, 3, stdout)
})

test('telemetry.mjs: a call\'s spans under the program\'s, printed as a tree', async (t) => {
  const { stdout, emu } = await run(t, 'telemetry.mjs')
  // The first call of the client logs in: its token request is part of the call.
  assert.equal(
    stdout,
    ['nightly job', '  monapi service_report', '    monapi token', '      POST', '    GET', ''].join('\n'),
  )
  assert.equal(emu.counters().service_report, 1)
})
