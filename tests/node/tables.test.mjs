// @ts-check
// client.tables: the core's tables against the faithful objects (numbers, Dates in the
// service's time zone, nulls), read back from Arrow IPC by apache-arrow, nodejs-polars and
// DuckDB, and the bulk calls.

import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { test } from 'node:test'

import { tableFromIPC } from 'apache-arrow'
import pl from 'nodejs-polars'
import { MonapiError, Table } from 'monapi'

import { emulator, rejects, throws } from './helpers.mjs'

const DAY = '2026-11-01'
/** One day: a range left open ends today, weeks of every-minute data. */
const ONE_DAY = { startDate: DAY, endDate: DAY }
const TS = 'Timestamp(s, "+08:00")'
const CATEGORY = 'Dictionary(Int32, Utf8)'

/**
 * A table's columns as [name, type, nullable].
 *
 * @param {import('monapi').Table<any>} table
 */
function columns(table) {
  return table.schema.fields.map((f) => [f.name, f.type, f.nullable])
}

/**
 * A decimal text as the service sends it, as a number (null when empty or not a number).
 *
 * @param {unknown} raw
 */
function number(raw) {
  if (raw === null || raw === undefined || raw === '') return null
  const value = Number(raw)
  return Number.isFinite(value) ? value : null
}

/**
 * A unix-seconds text as a Date.
 *
 * @param {string} seconds
 */
function instant(seconds) {
  return new Date(Number(seconds) * 1000)
}

/**
 * @param {import('node:test').TestContext} t
 * @param {import('monapi').ClientOptions} [overrides]
 */
async function setup(t, overrides) {
  const emu = await emulator(t)
  const client = emu.client(overrides)
  t.after(() => client.close())
  return { emu, client }
}

test('serviceReport: the schema, and rows equal the faithful report with its clock times read as days in +08:00', async (t) => {
  const { client } = await setup(t)
  const range = { startDate: DAY, endDate: '2026-11-02' }
  const table = await client.tables.serviceReport(10001, range)
  assert.ok(table instanceof Table)
  assert.deepEqual(columns(table), [
    ['task_id', 'Int64', false],
    ['series', CATEGORY, false],
    ['time', TS, true],
    ['metric', CATEGORY, false],
    ['value', 'Float64', true],
  ])
  const faithful = /** @type {Record<string, Array<Record<string, string>>>} */ (
    await client.serviceReport(10001, range)
  )
  /** @type {import('monapi').ServiceReportRow[]} */
  const expected = []
  const midnight = Date.parse(`${DAY}T00:00:00+08:00`)
  for (const [series, records] of Object.entries(faithful)) {
    let days = 0
    let previous = -1
    for (const record of records) {
      const [hours, minutes] = String(record.time).split(':').map(Number)
      const clock = hours * 60 + minutes
      if (clock < previous) days += 1
      previous = clock
      const time = new Date(midnight + days * 86400000 + clock * 60000)
      for (const [metric, raw] of Object.entries(record)) {
        if (metric !== 'time') expected.push({ task_id: 10001, series, time, metric, value: number(raw) })
      }
    }
  }
  assert.ok(expected.length > 2 * 24 * 60, 'two days of every-minute records')
  assert.ok(
    expected.some((row) => Number(row.time?.getTime()) >= midnight + 86400000),
    'the second day is read as such',
  )
  assert.equal(table.numRows, expected.length)
  assert.deepEqual(table.toRows(), expected)
  const values = table.column('value')
  assert.ok(values instanceof Float64Array)
  assert.deepEqual(
    Array.from(values, (v) => (Number.isNaN(v) ? null : v)),
    expected.map((row) => row.value),
  )
  const ids = table.column('task_id')
  assert.ok(ids instanceof BigInt64Array)
  assert.equal(ids[0], 10001n)
  const times = table.column('time')
  assert.equal(times[0], expected[0].time?.getTime(), 'times as epoch milliseconds')
  assert.deepEqual(table.column('metric').slice(0, 3), expected.slice(0, 3).map((row) => row.metric))
  throws(() => table.column(/** @type {any} */ ('nope')), 'INVALID_INPUT')
})

test('serviceTasks: every task of every page, frequencies as numbers, check times as Dates', async (t) => {
  const { client } = await setup(t)
  const table = await client.tables.serviceTasks()
  assert.deepEqual(columns(table), [
    ['task_id', 'Int64', false],
    ['task_name', 'Utf8', false],
    ['task_type', CATEGORY, false],
    ['frequency', 'Int64', true],
    ['last_check_time', TS, true],
    ['task_status', CATEGORY, false],
  ])
  /** @type {import('monapi').ServiceTask[]} */
  const faithful = []
  for await (const task of client.iterServiceTasks()) faithful.push(task)
  const expected = faithful.map((task) => ({
    task_id: Number(task.task_id),
    task_name: task.task_name,
    task_type: task.task_type,
    frequency: number(task.frequency),
    last_check_time: task.last_check_time
      ? new Date(`${task.last_check_time.replace(' ', 'T')}+08:00`)
      : null,
    task_status: task.task_status,
  }))
  assert.deepEqual(table.toRows(), expected)
})

test('siteReport: availability, response times and faults equal the faithful report', async (t) => {
  // The stressed world: faults on every day.
  const emu = await emulator(t, { world: 'stressed' })
  const client = emu.client()
  t.after(() => client.close())
  const tables = await client.tables.siteReport(20001, ONE_DAY)
  const faithful = /** @type {Record<string, any>} */ (await client.siteReport(20001, ONE_DAY))
  const sort = (/** @type {any[]} */ rows) =>
    rows.sort((a, b) => a.monitor_id - b.monitor_id || a.time - b.time || a.start_time - b.start_time)
  const availability = []
  const responseTime = []
  const faults = []
  for (const [point, data] of Object.entries(faithful)) {
    const base = { task_id: 20001, monitor_id: Number(point), monitor: data.name }
    for (const [time, check] of Object.entries(data.uprate ?? {})) {
      availability.push({ ...base, time: instant(time), uprate: number(check.uprate) })
    }
    for (const [time, check] of Object.entries(data.resptime ?? {})) {
      const row = /** @type {Record<string, unknown>} */ ({ ...base, time: instant(time) })
      for (const name of [
        'resptime_max',
        'resptime_avg',
        'resptime_min',
        'resp_process_time',
        'resp_connect_time',
        'resp_dns_time',
        'resp_download_time',
      ]) {
        row[name] = number(check[name])
      }
      responseTime.push(row)
    }
    for (const [key, fault] of Object.entries(data.fault ?? {})) {
      if (key === 'count') continue
      const ended = /^\d+$/.test(String(fault.end_time))
      faults.push({
        ...base,
        start_time: instant(fault.start_time),
        end_time: ended ? instant(fault.end_time) : null,
        ongoing: !ended,
        duration_s: ended ? Number(fault.end_time) - Number(fault.start_time) : null,
        cause: fault.fault_status,
        diff_time: fault.diff_time,
        current_fault_period: fault.current_fault_period,
      })
    }
  }
  assert.ok(availability.length > 0 && faults.length > 0, 'the emulator sends checks and faults')
  assert.deepEqual(sort(tables.availability.toRows()), sort(availability))
  assert.deepEqual(sort(tables.responseTime.toRows()), sort(responseTime))
  assert.deepEqual(sort(tables.faults.toRows()), sort(faults))
  assert.equal(tables.faults.schema.fields.find((f) => f.name === 'ongoing')?.type, 'Boolean')
  assert.deepEqual(
    tables.faults.column('ongoing'),
    tables.faults.toRows().map((row) => row.ongoing),
  )
  const average = await client.tables.siteReport(20001, { ...ONE_DAY, monitor: 0 })
  assert.ok(average.availability.toRows().every((row) => row.monitor_id === 0))
})

test('responseTimeDistribution: one row per bucket, by lower bound', async (t) => {
  const { client } = await setup(t)
  const table = await client.tables.responseTimeDistribution(20001, ONE_DAY)
  const faithful = await client.responseTimeDistribution(20001, ONE_DAY)
  const expected = Object.values(faithful)
    .map((bucket) => ({
      task_id: 20001,
      start_ms: Number(bucket.start),
      end_ms: Number(bucket.end),
      count: Number(bucket.count),
      percent: number(bucket.percent),
    }))
    .sort((a, b) => a.start_ms - b.start_ms)
  assert.ok(expected.length > 0)
  assert.deepEqual(table.toRows(), expected)
})

/**
 * Rows read by another library equal `toRows()`: the same numbers (64-bit integers read as
 * BigInt), the same instants, nulls where monapi has them.
 *
 * @param {Record<string, unknown>[]} read
 * @param {import('monapi').Table<any>} table
 * @param {string} reader
 */
function assertSameRows(read, table, reader) {
  const rows = /** @type {Record<string, unknown>[]} */ (/** @type {unknown} */ (table.toRows()))
  assert.equal(read.length, rows.length, reader)
  rows.forEach((row, i) => {
    const other = read[i]
    assert.deepEqual(Object.keys(other), Object.keys(row), `${reader}: the columns of row ${i}`)
    for (const [name, value] of Object.entries(row)) {
      const got = other[name]
      const where = `${reader}: ${name} of row ${i}`
      if (value instanceof Date) assert.equal(Number(got), value.getTime(), where)
      else if (typeof got === 'bigint') assert.equal(got, BigInt(/** @type {number} */ (value)), where)
      else assert.equal(got, value, where)
    }
  })
}

/** @param {import('monapi').Client} client */
async function everyKindOfTable(client) {
  const site = await client.tables.siteReport(20001, ONE_DAY)
  return [
    await client.tables.serviceReport(10001, ONE_DAY),
    await client.tables.serviceTasks(),
    site.availability,
    site.responseTime,
    site.faults,
    await client.tables.responseTimeDistribution(20001, ONE_DAY),
  ]
}

test('toArrowIPC is read back by apache-arrow and equals toRows()', async (t) => {
  const { client } = await setup(t)
  for (const table of await everyKindOfTable(client)) {
    const bytes = table.toArrowIPC()
    assert.ok(bytes instanceof Uint8Array)
    const arrow = tableFromIPC(bytes)
    assert.equal(arrow.numRows, table.numRows)
    assert.deepEqual(
      arrow.schema.fields.map((f) => f.name),
      table.schema.fields.map((f) => f.name),
    )
    assertSameRows(arrow.toArray(), table, 'apache-arrow')
  }
})

test('toArrowIPC is read by nodejs-polars (readIPCStream) with the types and rows of toRows()', async (t) => {
  const { client } = await setup(t)
  for (const table of await everyKindOfTable(client)) {
    const bytes = table.toArrowIPC()
    const frame = pl.readIPCStream(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    assert.equal(frame.height, table.numRows)
    assert.deepEqual(
      frame.columns,
      table.schema.fields.map((f) => f.name),
    )
    // Timestamps stay instants in the service's zone (polars names +08:00 Etc/GMT-8), ids
    // signed 64-bit, categories categorical.
    const types = frame.dtypes.map(String)
    table.schema.fields.forEach((field, i) => {
      if (field.type.startsWith('Timestamp')) assert.equal(types[i], 'DataType(Datetime(ms,Etc/GMT-8))', field.name)
      if (field.type === 'Int64') assert.equal(types[i], 'DataType(Int64)', field.name)
      if (field.type === CATEGORY) assert.equal(types[i], 'DataType(Categorical)', field.name)
      if (field.type === 'Float64') assert.equal(types[i], 'DataType(Float64)', field.name)
    })
    assertSameRows(frame.toRecords(), table, 'nodejs-polars')
  }
})

/**
 * What the tests use of a DuckDB connection (the package's own declarations need the DOM and
 * Emscripten types, so it is loaded untyped).
 *
 * @typedef {{
 *   insertArrowFromIPCStream(bytes: Uint8Array, options: { name: string }): void,
 *   query(sql: string): { toArray(): Array<{ toJSON(): Record<string, any> }> },
 *   close(): void,
 * }} DuckDBConnection
 */

/**
 * An in-memory DuckDB: DuckDB's WebAssembly build, whose npm package holds the engine and reads
 * Arrow IPC streams itself (the native `duckdb` packages need an extension downloaded at run time).
 *
 * @returns {Promise<DuckDBConnection>}
 */
async function duckdb() {
  const require = createRequire(import.meta.url)
  const entry = require.resolve('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs')
  const { createDuckDB, NODE_RUNTIME, VoidLogger } = require(entry)
  const dist = dirname(entry)
  const bundle = (/** @type {string} */ kind) => ({
    mainModule: join(dist, `duckdb-${kind}.wasm`),
    mainWorker: join(dist, `duckdb-node-${kind}.worker.cjs`),
  })
  const db = await createDuckDB({ mvp: bundle('mvp'), eh: bundle('eh') }, new VoidLogger(), NODE_RUNTIME)
  await db.instantiate(() => {})
  return db.connect()
}

test('toArrowIPC is read by DuckDB (insertArrowFromIPCStream) with the types and rows of toRows()', async (t) => {
  const { client } = await setup(t)
  const db = await duckdb()
  t.after(() => db.close())
  const tables = await everyKindOfTable(client)
  for (const [i, table] of tables.entries()) {
    db.insertArrowFromIPCStream(table.toArrowIPC(), { name: `t${i}` })
    const described = db.query(`DESCRIBE t${i}`).toArray().map((row) => row.toJSON())
    assert.deepEqual(
      described.map((row) => row.column_name),
      table.schema.fields.map((f) => f.name),
    )
    // Instants with their zone, signed 64-bit ids, doubles, text (a dictionary is read as text).
    table.schema.fields.forEach((field, j) => {
      const type = described[j].column_type
      if (field.type.startsWith('Timestamp')) assert.equal(type, 'TIMESTAMP WITH TIME ZONE', field.name)
      if (field.type === 'Int64') assert.equal(type, 'BIGINT', field.name)
      if (field.type === 'Float64') assert.equal(type, 'DOUBLE', field.name)
      if (field.type === CATEGORY) assert.equal(type, 'VARCHAR', field.name)
    })
    const rows = db.query(`SELECT * FROM t${i}`).toArray().map((row) => row.toJSON())
    assertSameRows(rows, table, 'DuckDB')
  }
})

test('the timezone option moves every timestamp; a zone that is not an offset is INVALID_INPUT', async (t) => {
  const { client } = await setup(t, { timezone: '+00:00' })
  assert.equal(client.timezone, '+00:00')
  const table = await client.tables.serviceReport(10001, ONE_DAY)
  assert.equal(table.schema.fields[2].type, 'Timestamp(s, "+00:00")')
  const first = table.toRows()[0]
  const faithful = /** @type {Record<string, Array<Record<string, string>>>} */ (
    await client.serviceReport(10001, ONE_DAY)
  )
  const [series, records] = Object.entries(faithful)[0]
  assert.equal(first.series, series)
  assert.equal(first.time?.toISOString(), `${DAY}T${records[0].time}:00.000Z`)
  const bad = await setup(t, { timezone: 'Mars/Base' }).catch((/** @type {unknown} */ e) => e)
  assert.ok(bad instanceof MonapiError && bad.code === 'INVALID_INPUT' && bad.field === 'timezone')
})

test('serviceReports equals the single calls, in task order; onProgress sees every task', async (t) => {
  const { client } = await setup(t)
  const ids = [10011, 10014, 10015]
  /** @type {import('monapi').BulkProgress[]} */
  const seen = []
  const { table, failures } = await client.tables.serviceReports({
    taskIds: ids,
    ...ONE_DAY,
    concurrency: 2,
    onProgress: (progress) => void seen.push(progress),
  })
  assert.deepEqual(failures, [])
  /** @type {unknown[]} */
  let single = []
  for (const id of ids) single = single.concat((await client.tables.serviceReport(id, ONE_DAY)).toRows())
  assert.deepEqual(table.toRows(), single)
  const deadline = Date.now() + 5000
  while (seen.length < ids.length + 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
  assert.deepEqual(
    seen.map((p) => p.done),
    [0, 1, 2, 3],
  )
  assert.ok(seen.every((p) => p.total === 3 && p.failed === 0))
  assert.equal(seen[3].rows, table.numRows)
})

test('a failed task: PARTIAL_RESULT with the other rows and the failure, or both with errors: collect', async (t) => {
  const { emu, client } = await setup(t)
  await client.login()
  // An error page is retried (maxRetries 2): three in a row make the first task fail.
  const errorPages = /** @type {const} */ (['malformedBody', 'malformedBody', 'malformedBody'])
  emu.setFaults({ next: [...errorPages] })
  const error = await rejects(
    client.tables.siteReports({ taskIds: [20001, 20002], ...ONE_DAY, concurrency: 1 }),
    'PARTIAL_RESULT',
  )
  assert.match(error.message, /1 of 2 tasks failed/)
  assert.equal(error.failures?.length, 1)
  const failure = /** @type {import('monapi').TaskFailure[]} */ (error.failures)[0]
  assert.equal(failure.taskId, 20001)
  assert.ok(failure.error instanceof MonapiError)
  assert.equal(failure.error.code, 'DECODE')
  const result = /** @type {import('monapi').SiteReportsResult} */ (error.result)
  const single = await client.tables.siteReport(20002, ONE_DAY)
  assert.deepEqual(result.availability.toRows(), single.availability.toRows())
  assert.deepEqual(result.faults.toRows(), single.faults.toRows())

  emu.setFaults({ next: [...errorPages] })
  const collected = await client.tables.serviceReports({
    taskIds: [10011, 10014],
    ...ONE_DAY,
    concurrency: 1,
    errors: 'collect',
  })
  assert.deepEqual(
    collected.failures.map((f) => [f.taskId, f.error.code]),
    [[10011, 'DECODE']],
  )
  assert.deepEqual(
    collected.table.toRows(),
    (await client.tables.serviceReport(10014, ONE_DAY)).toRows(),
  )
})

test('serviceReports without taskIds fetches every task of the list', async (t) => {
  const emu = await emulator(t, { serviceTasks: 5 })
  const client = emu.client()
  t.after(() => client.close())
  const { table } = await client.tables.serviceReports(ONE_DAY)
  const ids = new Set(table.column('task_id'))
  assert.deepEqual([...ids].sort(), [10001n, 10002n, 10003n, 10004n, 10005n])
  assert.equal(emu.counters().service_report, 5)
})

test('bad input is refused before any request, naming the option', async (t) => {
  const { emu, client } = await setup(t)
  const concurrency = await rejects(
    client.tables.serviceReports({ taskIds: [10001], concurrency: 0 }),
    'INVALID_INPUT',
  )
  assert.equal(concurrency.field, 'concurrency')
  const errors = await rejects(
    client.tables.serviceReports({ taskIds: [10001], errors: /** @type {any} */ ('ignore') }),
    'INVALID_INPUT',
  )
  assert.equal(errors.field, 'errors')
  const dates = await rejects(
    client.tables.serviceReport(10001, { startDate: '2026-11-02', endDate: '2026-11-01' }),
    'INVALID_INPUT',
  )
  assert.equal(dates.field, 'startDate')
  await rejects(client.tables.siteReports({ ...ONE_DAY, taskIds: /** @type {any} */ ('20001') }), 'INVALID_INPUT')
  throws(() => new /** @type {any} */ (Table)(), 'INVALID_INPUT')
  assert.equal(emu.counters().total, 0)
})
