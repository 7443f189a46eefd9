// Errors: the samples of docs/guides/node.md ("Errors"). Run by tests/node/samples.test.mjs
// against the emulator, the account in the MONAPI_* variables.

// --8<-- [start:codes]
import { Client, MonapiError } from 'monapi'

const client = new Client()

try {
  await client.serviceReport(999) // no such task
} catch (error) {
  if (!(error instanceof MonapiError)) throw error
  // API_ERROR: the service answered with an error; status and apiCode say which.
  console.log(`${error.code}: HTTP ${error.status}, the service's code ${error.apiCode}, at ${error.endpoint}`)
}

try {
  // Checked whole before anything is sent: every problem of every task is listed.
  await client.createServiceTasks([
    { task_name: 'web', task_type: 'nginx' },
    { task_name: 'db', task_type: 'mysql', ip: '10.0.0.7', port: 3306 },
  ])
} catch (error) {
  if (!(error instanceof MonapiError) || error.code !== 'INVALID_INPUT') throw error
  for (const { index, field, rule } of error.errors ?? []) console.log(`task ${index}: ${field} ${rule}`)
}
// --8<-- [end:codes]

// --8<-- [start:construct]
try {
  new Client({ timeoutMs: -1 }) // refused when the client is made, before any request
} catch (error) {
  if (!(error instanceof MonapiError)) throw error
  console.log(`${error.code} (${error.field}): ${error.message}`)
}
// --8<-- [end:construct]

await client.close()
