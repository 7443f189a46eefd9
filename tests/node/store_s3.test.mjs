// The store in a bucket (`store: 's3://…'`, `storageOptions`) against moto's S3 server on
// loopback (tests/support/moto_server.py, run by the python of .venv/): a sync, a warm one that
// sends no report request, the table calls reading it, and the checks of the options.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { test } from 'node:test'

import { ROOT, daysAgo, emulator, throws } from './helpers.mjs'

const SECRET_KEY = 's3cr3t-never-shown-node-91fa'

/**
 * moto's server with the bucket `lake`, stopped when the test ends; its endpoint.
 *
 * @param {import('node:test').TestContext} t
 */
async function s3(t) {
  const python = process.env.MONAPI_TEST_PYTHON ?? join(ROOT, '.venv', 'bin', 'python')
  const child = spawn(python, [join(ROOT, 'tests', 'support', 'moto_server.py'), 'lake'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  })
  t.after(() => child.kill())
  const lines = createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) })
  const [line] = await Promise.race([
    new Promise((resolve) => lines.once('line', (l) => resolve([l]))),
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`moto exited (${code})`)))),
  ])
  const port = Number(line)
  assert.ok(port > 0, `moto printed ${line}`)
  return `http://127.0.0.1:${port}`
}

/** @param {string} endpoint */
function storageOptions(endpoint) {
  return {
    aws_endpoint_url: endpoint,
    aws_access_key_id: 'test',
    aws_secret_access_key: SECRET_KEY,
    aws_region: 'us-east-1',
  }
}

/** @param {import('monapi').Emulator} emu */
function reportRequests(emu) {
  const counters = emu.counters()
  return counters.service_report + counters.site_report
}

test('a sync into s3://, a warm one with no report request, the table calls read the bucket', async (t) => {
  const [emu, endpoint] = await Promise.all([emulator(t), s3(t)])
  const stored = emu.client({ store: 's3://lake/node', storageOptions: storageOptions(endpoint), settleMs: 1000 })
  const plain = emu.client()
  t.after(() => Promise.all([stored.close(), plain.close()]))
  const range = { startDate: daysAgo(emu, 4), endDate: daysAgo(emu, 1) }
  const report = await stored.sync({ tasks: [10011, 20001], ...range })
  assert.deepEqual([report.fetched, report.reused, report.failed], [8, 0, 0])

  const before = reportRequests(emu)
  const again = await stored.sync({ tasks: [10011, 20001], ...range })
  assert.deepEqual([again.fetched, again.reused, again.rows], [0, 8, 0])
  const read = await stored.tables.serviceReport(10011, range)
  assert.equal(reportRequests(emu), before, 'the warm sync and the read send no report request')
  const want = await plain.tables.serviceReport(10011, range)
  const values = (/** @type {import('monapi').Table<any>} */ table) => table.toRows().map((row) => row.value).sort()
  assert.equal(read.numRows, want.numRows)
  assert.deepEqual(values(read), values(want))
})

test('storage options: an unknown name and a value that is not a string are refused; no secret shows', async (t) => {
  const [emu, endpoint] = await Promise.all([emulator(t), s3(t)])
  const unknown = throws(() => emu.client({ store: 's3://lake/a', storageOptions: { aws_no_such_option: '1' } }), 'INVALID_INPUT')
  assert.equal(unknown.field, 'storageOptions')
  assert.match(unknown.message, /aws_no_such_option/)
  // @ts-expect-error: a number where a string goes
  const typed = throws(() => emu.client({ store: 's3://lake/a', storageOptions: { aws_region: 1 } }), 'INVALID_INPUT')
  assert.equal(typed.field, 'storageOptions')
  assert.equal(throws(() => emu.client({ store: 'ftp://lake/a' }), 'INVALID_INPUT').field, 'store')

  const client = emu.client({ store: 's3://nowhere/a', storageOptions: storageOptions(endpoint) })
  t.after(() => client.close())
  await assert.rejects(client.sync({ tasks: [10011], startDate: daysAgo(emu, 2), endDate: daysAgo(emu, 1) }), (error) => {
    assert.equal(/** @type {any} */ (error).code, 'STORE')
    const shown = `${error} ${JSON.stringify(error)}`
    assert.match(shown, /s3:\/\/nowhere\/a\//)
    assert.ok(!shown.includes(SECRET_KEY), shown)
    return true
  })
})
