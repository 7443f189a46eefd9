// A client and the operations: the samples of docs/guides/node.md ("A client", "The
// operations"), shown there region by region. tests/node/samples.test.mjs runs it against
// the emulator, the account in the MONAPI_* variables.

// --8<-- [start:connect]
import { Client } from 'monapi'

// Every option left out falls back to its variable: MONAPI_BASE_URL, MONAPI_CLIENT_ID,
// MONAPI_CLIENT_SECRET, MONAPI_USERNAME, MONAPI_PASSWORD. `new Client()` reads them all.
const client = new Client({ timeoutMs: 10_000, maxRetries: 3 })
// --8<-- [end:connect]

// --8<-- [start:operations]
// Every page of the service task list, fetched as the loop goes.
let services = 0
for await (const task of client.iterServiceTasks()) {
  if (services++ === 0) console.log('first service task:', task.task_id, task.task_name, task.task_type)
}
console.log(`${services} service tasks`)

const yesterday = new Date()
yesterday.setDate(yesterday.getDate() - 1) // a Date stands for its local calendar day

const report = await client.serviceReport(10001, { startDate: yesterday, endDate: yesterday })
for (const [series, records] of Object.entries(report)) {
  console.log(`${series}: ${records.length} records, the first ${JSON.stringify(records[0])}`)
  break
}

const site = await client.siteReport(20001, { startDate: '2026-11-01' }) // unset monitor: every point
console.log(`site 20001 on 2026-11-01: ${Object.keys(site).length} points, the average is "${site['0'].name}"`)

const buckets = await client.responseTimeDistribution(20001) // today
console.log(`response times of site 20001 today: ${Object.keys(buckets).length} buckets`)

const agents = await client.agents()
console.log(`${Object.keys(agents).length} agents`)

for await (const s of client.iterSiteTasks()) console.log('site task', s.task_id, s.task_name)
const settings = await client.siteTask(20001)
console.log('site 20001 is checked from', (settings.monitors ?? []).map((m) => m.monitor_name).join(', '))

const [points, users, groups] = await Promise.all([client.monitors(), client.users(), client.userGroups()])
console.log(
  `${Object.keys(points).length} monitoring points, ${Object.keys(users).length} users, ` +
    `${Object.keys(groups).length} user groups`,
)
// --8<-- [end:operations]

// --8<-- [start:create]
// Only four fields are required of a server task; the others take the core's defaults.
const servers = await client.createServerTasks([
  { server_name: 'web-01', private_ip: '192.168.1.10', server_ip: '203.0.113.10', server_systype: 0 },
])
const created = await client.createServiceTasks([
  { task_name: 'cache', task_type: 'redis', status_url: 'http://10.0.0.5:6379' },
])
console.log('created server task', servers[0].task_id, 'and service task', created[0].task_id)
// --8<-- [end:create]

// --8<-- [start:request]
// Any other operation, with the same token, retries and errors.
const page = await client.request({ method: 'GET', path: '/v2/site/lists.json', query: { page: 1 } })
console.log('GET /v2/site/lists.json answered', Array.isArray(page) ? `a list of ${page.length}` : typeof page)
// --8<-- [end:request]

// --8<-- [start:close]
await client.close() // later calls reject with INVALID_INPUT; calls in flight finish
// --8<-- [end:close]
