// Tables in Node, one task at a time: the samples of docs/guides/tables.md ("Node"). Run by
// tests/node/samples.test.mjs against the emulator, the account in the MONAPI_* variables.

// --8<-- [start:report]
import { Client } from 'monapi'

const client = new Client()
const yesterday = new Date(Date.now() - 86_400_000) // a Date stands for its local calendar day

const report = await client.tables.serviceReport(10001, { startDate: yesterday, endDate: yesterday })
console.log(report) // Table { numRows, columns: ['task_id: Int64', 'series: Dictionary(Int32, Utf8)', ...] }
for (const field of report.schema.fields) console.log(`${field.name}: ${field.type}${field.nullable ? ' (null)' : ''}`)
// --8<-- [end:report]

// --8<-- [start:rows]
// Rows: plain objects; times as Dates, null where the service sent nothing usable.
const rows = report.toRows()
const { series, time, metric, value } = rows[0]
console.log(`${rows.length} rows; the first: ${series} ${metric} = ${value} at ${time?.toISOString()}`)
// --8<-- [end:rows]

// --8<-- [start:columns]
// Columns: typed arrays, no object per cell. Numbers and times (epoch ms) as Float64Array,
// NaN where null; task_id as BigInt64Array (exact); names as arrays of strings.
const values = report.column('value')
let sum = 0
let count = 0
for (const v of values) {
  if (Number.isNaN(v)) continue
  sum += v
  count++
}
console.log(`${values.length} values, ${values.length - count} null, mean ${(sum / count).toFixed(2)}`)
const [taskId] = report.column('task_id') // 10001n
console.log(`task ${taskId}, the first at ${new Date(report.column('time')[0]).toISOString()}`)
// --8<-- [end:columns]

// --8<-- [start:site]
// A site report is three tables. monitor 0: the average of the points only; unset: every point too.
const { availability, responseTime, faults } = await client.tables.siteReport(20001, {
  startDate: yesterday,
  endDate: yesterday,
  monitor: 0,
})
console.log(`${availability.numRows} checks, ${responseTime.numRows} response times, ${faults.numRows} faults`)
// --8<-- [end:site]

// --8<-- [start:lists]
const tasks = await client.tables.serviceTasks() // every page
const sites = await client.tables.siteTasks()
const points = await client.tables.monitors()
const buckets = await client.tables.responseTimeDistribution(20001, { startDate: yesterday, endDate: yesterday })
console.log(`${tasks.numRows} service tasks, ${sites.numRows} sites, ${points.numRows} points, ${buckets.numRows} buckets`)
// --8<-- [end:lists]

// --8<-- [start:timezone]
// Times are instants. The client reads the service's clock times in its timezone (default
// +08:00, the service's); to show them elsewhere, format them there.
const first = availability.toRows()[0]
console.log(`client.timezone ${client.timezone}; the first check at`, first.time.toISOString())
console.log('  in Shanghai', first.time.toLocaleString('sv-SE', { timeZone: 'Asia/Shanghai' }))
console.log('  in New York', first.time.toLocaleString('sv-SE', { timeZone: 'America/New_York' }))
// --8<-- [end:timezone]

await client.close()
