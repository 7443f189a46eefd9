// Quickstart: log in, list tasks and agents, fetch each kind of report.
//
// Reads the service and the account from MONAPI_BASE_URL, MONAPI_CLIENT_ID,
// MONAPI_CLIENT_SECRET, MONAPI_USERNAME and MONAPI_PASSWORD. Against the bundled emulator:
//
//   scripts/with-emulator.sh node examples/quickstart.mjs
//
// or, without the CLI, start one from Node: `const emu = await Emulator.start()` and pass
// `emu.client()`'s options (see README).

import { Client, MonapiError } from 'monapi'

const client = new Client() // every option from the MONAPI_* environment variables

try {
  const token = await client.login()
  console.log(`logged in; the token expires in ${token.expires_in} s`)

  const tasks = []
  for await (const task of client.iterServiceTasks()) tasks.push(task)
  const [first] = tasks
  console.log(`${tasks.length} service tasks, e.g. ${first.task_name} (${first.task_type}, every ${first.frequency} min)`)

  const agents = await client.agents()
  const plugins = Object.values(agents).reduce((n, agent) => n + agent.plugin.length, 0)
  console.log(`${Object.keys(agents).length} agents with ${plugins} plugins`)

  // A day left out is today in the service's time zone, for all three reports. (`new Date()`
  // names today where this runs, which for some hours of each day is another day there.)
  const report = await client.serviceReport(first.task_id)
  console.log(`service report of task ${first.task_id} today:`)
  for (const [series, records] of Object.entries(report)) {
    console.log(`  ${series}: ${records.length} records, last ${JSON.stringify(records.at(-1))}`)
  }

  const siteId = 20001
  const site = await client.siteReport(siteId) // every monitoring point and the average ("0")
  console.log(`site report of task ${siteId} today:`)
  for (const [id, point] of Object.entries(site)) {
    const checks = Object.keys(point.uprate).length
    const faults = point.fault === null ? 0 : point.fault.count
    console.log(`  point ${id} ${point.name}: ${checks} checks, ${faults} faults`)
  }

  const distribution = await client.responseTimeDistribution(siteId)
  console.log(`response-time distribution of task ${siteId} today:`)
  for (const bucket of Object.values(distribution)) {
    console.log(`  ${String(bucket.start).padStart(5)}-${String(bucket.end).padEnd(5)} ms: ${bucket.percent.padStart(6)} %`)
  }
} catch (error) {
  if (error instanceof MonapiError) {
    console.error(`monapi error ${error.code}: ${error.message}`)
    process.exitCode = 1
  } else {
    throw error
  }
} finally {
  await client.close()
}
