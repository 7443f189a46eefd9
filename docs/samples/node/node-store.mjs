// A local store, and client.sync: the sample of docs/guides/node.md ("A local store"). Run
// by tests/node/samples.test.mjs in an empty folder, the account in the MONAPI_* variables.

// --8<-- [start:store]
import { Client } from 'monapi'

const daysAgo = (n) => new Date(Date.now() - n * 86_400_000)

// Or MONAPI_STORE=data/monapi. Settled days are kept there as Parquet, and read from there.
const client = new Client({ store: 'data/monapi' })
const range = { startDate: daysAgo(7), endDate: daysAgo(3) }
const fetched = await client.tables.serviceReport(10001, range) // fetched, and kept
const read = await client.tables.serviceReport(10001, range) // read from the store: no request
console.log(`${fetched.numRows} rows fetched, the same ${read.numRows} read back`)

// What a daily job runs: every settled day from startDate not held yet, of these tasks.
const report = await client.sync({ startDate: daysAgo(5), tasks: [10001, 20001] })
console.log(report.summary) // task-days fetched, reused, rows, bytes, failed
await client.close()
// --8<-- [end:store]
