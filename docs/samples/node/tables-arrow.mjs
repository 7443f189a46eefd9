// A table handed to apache-arrow, nodejs-polars and DuckDB as Arrow IPC bytes: the samples
// of docs/guides/tables.md ("Node"). Needs those packages installed beside monapi. Run by
// tests/node/samples.test.mjs against the emulator, the account in the MONAPI_* variables.

// --8<-- [start:arrow]
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

import { tableFromIPC } from 'apache-arrow'
import { Client } from 'monapi'
import pl from 'nodejs-polars'

const client = new Client()
const yesterday = new Date(Date.now() - 86_400_000)
const report = await client.tables.serviceReport(10001, { startDate: yesterday, endDate: yesterday })
const bytes = report.toArrowIPC() // the Arrow IPC stream format, in a Uint8Array

// apache-arrow: the same schema (the time zone, the dictionaries) and rows.
const arrow = tableFromIPC(bytes)
console.log(`apache-arrow: ${arrow.numRows} rows, time is ${arrow.schema.fields[2].type}`)
// --8<-- [end:arrow]

// --8<-- [start:polars]
// nodejs-polars reads a Buffer: this one shares the bytes' memory.
const frame = pl.readIPCStream(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
const means = frame.groupBy('metric').agg(pl.col('value').mean().alias('mean')).sort('metric')
console.log(`nodejs-polars: ${frame.height} rows\n${means.head(3)}`)
// --8<-- [end:polars]

// --8<-- [start:duckdb]
// DuckDB's WebAssembly build (@duckdb/duckdb-wasm) takes the stream as a table.
const require = createRequire(import.meta.url)
const entry = require.resolve('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs')
const { createDuckDB, NODE_RUNTIME, VoidLogger } = require(entry)
const bundle = (kind) => ({
  mainModule: join(dirname(entry), `duckdb-${kind}.wasm`),
  mainWorker: join(dirname(entry), `duckdb-node-${kind}.worker.cjs`),
})
const db = await createDuckDB({ mvp: bundle('mvp'), eh: bundle('eh') }, new VoidLogger(), NODE_RUNTIME)
await db.instantiate(() => {})
const sql = db.connect()
sql.insertArrowFromIPCStream(bytes, { name: 'report' })
const busiest = sql.query('SELECT metric, max(value) AS peak FROM report GROUP BY metric ORDER BY peak DESC LIMIT 3')
for (const row of busiest.toArray()) console.log(`duckdb: ${row.metric} peaked at ${row.peak}`)
sql.close()
// --8<-- [end:duckdb]

await client.close()
