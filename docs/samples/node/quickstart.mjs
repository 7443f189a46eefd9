import { Client } from 'monapi'

const client = new Client() // the account from MONAPI_BASE_URL, MONAPI_CLIENT_ID, ...
for await (const task of client.iterServiceTasks()) console.log(task.task_id, task.task_name)

const report = await client.tables.serviceReport(10001, { startDate: '2026-11-01', endDate: '2026-11-07' })
console.log(report.numRows, 'rows:', report.toRows().slice(0, 2))
await client.close()
