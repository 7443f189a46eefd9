// Quickstart, typed: the same steps as quickstart.mjs, checked by `tsc --noEmit` (see
// tests/node/tsconfig.json) so that the published declarations stay usable from TypeScript.
// Run it with the emulator started from Node itself: every type below comes from 'monapi'.

import {
  Client,
  Emulator,
  MonapiError,
  type Agents,
  type Distribution,
  type MonapiErrorCode,
  type ServiceTask,
  type SiteReport,
  type Token,
} from 'monapi'

async function main(): Promise<void> {
  const emulator: Emulator = await Emulator.start({ tokenTtl: 3600, serviceTasks: 120 })
  let saved: Token | null = null
  const client: Client = emulator.client({ timeoutMs: 10_000, onToken: (token: Token) => void (saved = token) })
  try {
    const token: Token = await client.login()
    console.log(`logged in (${token.token_type}), expires at ${token.expires_at ?? 'unknown'}`)

    const tasks: ServiceTask[] = []
    for await (const task of client.iterServiceTasks()) tasks.push(task)
    const firstPage: ServiceTask[] = await client.serviceTasks({ page: 1 })
    console.log(`${tasks.length} tasks; page 1 has ${firstPage.length}`)

    const agents: Agents = await client.agents()
    for (const [id, agent] of Object.entries(agents)) {
      console.log(id, agent.name, agent.agentUrl.linux, agent.plugin.map((p) => p.plugin_task_uselist_id))
    }

    const report = await client.serviceReport(tasks[0].task_id, { startDate: '2026-11-01', endDate: new Date() })
    for (const [series, records] of Object.entries(report)) {
      const last = records[records.length - 1]
      console.log(series, records.length, last?.time ?? '-')
    }

    const site: SiteReport = await client.siteReport(20001, { monitor: 0 })
    const average = site['0']
    const faults = average.fault === null ? 0 : average.fault.count
    const times = Object.values(average.resptime).map((r) => Number(r.resptime_avg))
    console.log(average.name, faults, Math.max(...times))

    const dist: Distribution = await client.responseTimeDistribution(20001n)
    for (const bucket of Object.values(dist)) console.log(bucket.start, bucket.end, bucket.count, bucket.percent)

    const created = await client.createServerTasks([
      {
        server_name: 'web-01',
        private_ip: '192.168.1.10',
        server_ip: '203.0.113.10',
        server_systype: '0',
        frequency: 5,
        snmp_port: 161,
        snmp_v: '0',
        snmp_comm: 'public',
        use_agent: false,
        alert_setting: { scope: 3, alert: { email: ['101', 102] } },
        task_type: ['cpu', 'mem'],
      },
    ])
    console.log(created[0].task_id, emulator.serverTasks()[0].server_name, emulator.counters().create)

    emulator.setFaults({ next: ['error503'], retryAfterSecs: 0 })
    await client.agents() // retried: reads survive a 503
  } catch (error: unknown) {
    if (error instanceof MonapiError) {
      const code: MonapiErrorCode = error.code
      console.error(code, error.status, error.endpoint, error.failedIndex, error.message)
    } else {
      throw error
    }
  } finally {
    await client.close()
    await emulator.stop()
    console.log(`last token saved: ${saved !== null}`)
  }
}

void main()
