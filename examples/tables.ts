// Tables, typed: the service's data ready for analysis (numbers, Dates, nulls), checked by
// `tsc --noEmit` (see tests/node/tsconfig.json). Run it against the emulator started from
// Node itself: every type below comes from 'monapi'.

import {
  Emulator,
  MonapiError,
  type BulkProgress,
  type ServiceReportRow,
  type ServiceReportsResult,
  type SiteTables,
  type Table,
} from 'monapi'

async function main(): Promise<void> {
  const emulator: Emulator = await Emulator.start()
  const client = emulator.client({ timezone: '+08:00', logLevel: 'warn' })
  try {
    const range = { startDate: '2026-11-01', endDate: '2026-11-02' }
    const report: Table<ServiceReportRow> = await client.tables.serviceReport(10001, range)
    console.log(`${report.numRows} rows: ${report.schema.fields.map((f) => `${f.name} ${f.type}`).join(', ')}`)

    // Rows: plain objects, typed.
    const first: ServiceReportRow = report.toRows()[0]
    console.log(first.series, first.metric, first.time?.toISOString(), first.value)

    // Columns: typed arrays (NaN where a value is missing), ids exactly as bigints.
    const values: Float64Array = report.column('value')
    const ids: BigInt64Array = report.column('task_id')
    const metrics: string[] = report.column('metric')
    let sum = 0
    for (const v of values) if (!Number.isNaN(v)) sum += v
    console.log(`task ${ids[0]}: ${metrics.length} values, sum ${sum.toFixed(1)}`)

    // Arrow IPC bytes, for apache-arrow, nodejs-polars or DuckDB.
    const ipc: Uint8Array = report.toArrowIPC()
    console.log(`${ipc.byteLength} bytes of Arrow IPC`)

    const site: SiteTables = await client.tables.siteReport(20001, { ...range, monitor: 0 })
    console.log(`availability: ${site.availability.numRows} checks, ${site.faults.numRows} faults`)

    // Many tasks at once, with progress and a deadline; failures collected.
    const controller = new AbortController()
    const deadline = setTimeout(() => controller.abort(), 60_000)
    const bulk: ServiceReportsResult = await client.tables.serviceReports({
      taskIds: [10010, 10011, 999999],
      ...range,
      concurrency: 2,
      errors: 'collect',
      signal: controller.signal,
      onProgress: (p: BulkProgress) => console.log(`${p.done}/${p.total} tasks, ${p.rows} rows`),
    })
    clearTimeout(deadline)
    for (const { taskId, error } of bulk.failures) console.log(`task ${taskId} failed: ${error.code}`)
    console.log(`${bulk.table.numRows} rows from the tasks that succeeded`)
  } catch (error) {
    if (error instanceof MonapiError && error.code === 'ABORTED') console.log('gave up after 60 s')
    else throw error
  } finally {
    await client.close()
    await emulator.stop()
  }
}

void main()
