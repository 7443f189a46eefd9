// Deadlines and cancellation: the samples of docs/guides/node.md ("Aborting a call, and its
// timeout"). Run by tests/node/samples.test.mjs against the emulator, the account in the
// MONAPI_* variables.

import { Client, MonapiError } from 'monapi'

const client = new Client()

// --8<-- [start:signal]
// A deadline for the whole call, retries and token renewal included, as fetch takes it.
const agents = await client.agents({ signal: AbortSignal.timeout(5000) })
console.log(`${Object.keys(agents).length} agents`)

// A large report (a week of a task checked every minute): this call's timeout of each HTTP
// exchange, instead of the client's.
const weekAgo = new Date(Date.now() - 7 * 86_400_000)
const report = await client.tables.serviceReport(10001, { startDate: weekAgo, timeoutMs: 60_000 })
console.log(`${report.numRows} rows`)
// --8<-- [end:signal]

// --8<-- [start:abort]
// Stop a bulk call at its first failure (or at Ctrl-C) rather than fetch the rest.
const controller = new AbortController()
process.once('SIGINT', () => controller.abort())
const taskIds = [999, ...Array.from({ length: 19 }, (_, i) => 10001 + i)] // 999: no such task
try {
  await client.tables.serviceReports({
    taskIds,
    concurrency: 1,
    signal: controller.signal,
    onProgress: ({ done, failed }) => {
      if (failed > 0) controller.abort()
      else console.log(`${done}/${taskIds.length}`)
    },
  })
} catch (error) {
  // ABORTED at once; the request in flight is dropped, and no other is started.
  if (!(error instanceof MonapiError) || error.code !== 'ABORTED') throw error
  console.log(`${error.code}: ${error.message}`)
}
// --8<-- [end:abort]

await client.close()
