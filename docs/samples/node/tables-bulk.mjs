// Tables of many tasks at once in Node: the samples of docs/guides/tables.md ("Bulk calls").
// Run by tests/node/samples.test.mjs against the emulator, the account in the MONAPI_*
// variables.

import { Client, MonapiError } from 'monapi'

const client = new Client()
const yesterday = new Date(Date.now() - 86_400_000)

// --8<-- [start:collect]
// The reports of these tasks, 4 at a time, as one table; a task that fails is listed with
// its error beside the rows of the others (errors: 'collect').
const { table, failures } = await client.tables.serviceReports({
  taskIds: [10001, 10002, 10003, 999], // 999: no such task
  startDate: yesterday,
  endDate: yesterday,
  concurrency: 4,
  errors: 'collect',
  onProgress: ({ done, total, failed, rows, bytes }) =>
    console.log(`${done}/${total} tasks, ${failed} failed, ${rows} rows, ${bytes} bytes`),
})
console.log(`${table.numRows} rows`)
for (const { taskId, error } of failures) console.log(`task ${taskId}: ${error.code} ${error.message}`)
// --8<-- [end:collect]

// --8<-- [start:raise]
// errors: 'raise' (the default): the call rejects with PARTIAL_RESULT, which carries what the
// call would have resolved with (`result`) and the failures. Nothing is lost either way.
try {
  await client.tables.serviceReports({ taskIds: [10001, 999], startDate: yesterday, endDate: yesterday })
} catch (error) {
  if (!(error instanceof MonapiError) || error.code !== 'PARTIAL_RESULT') throw error
  const { table: rows } = error.result
  console.log(`${error.code}: ${rows.numRows} rows of the others; failed: ${error.failures.map((f) => f.taskId)}`)
}
// --8<-- [end:raise]

// --8<-- [start:sites]
// Every site task (taskIds left out: the site task list is read first), three tables.
const sites = await client.tables.siteReports({ startDate: yesterday, endDate: yesterday, monitor: 0 })
console.log(`${sites.availability.numRows} checks, ${sites.faults.numRows} faults, ${sites.failures.length} failed`)
// --8<-- [end:sites]

await client.close()
