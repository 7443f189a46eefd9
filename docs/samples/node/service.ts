// A small HTTP service over monapi: GET /sites lists the account's sites with their status
// now. The sample of docs/getting-started/node-service.md, shown there region by region;
// tests/node/docs.test.mjs compiles it with tsc (strict) and runs it against the emulator.
// Copy it whole into a project that has `monapi` and `fastify` installed.

// --8<-- [start:imports]
import type { AddressInfo } from 'node:net'

import { fastify, type FastifyReply } from 'fastify'
import { Client, MonapiError, type SiteAvailabilityRow, type SiteResponseTimeRow, type Table } from 'monapi'
// --8<-- [end:imports]

// --8<-- [start:answer]
/** One site as GET /sites answers it. */
export interface SiteStatus {
  taskId: number
  name: string | null
  /** What the site task checks (its address). */
  address: string | null
  /**
   * `up`: a monitoring point reached the site at its last check today; `down`: none did;
   * `unknown`: no check today yet, or its report could not be read (see `error`).
   */
  status: 'up' | 'down' | 'unknown'
  /** The time of that check (ISO 8601). */
  lastCheck: string | null
  /** The share of the monitoring points that reached the site then, in percent. */
  uprate: number | null
  /** Its response time then, in milliseconds: the mean over the points that reached it. */
  responseTimeMs: number | null
  /** Whether a fault at any monitoring point has no end yet. */
  faultOngoing: boolean
  /** The error code, when the site's report could not be read. */
  error?: string
}
// --8<-- [end:answer]

// --8<-- [start:fetch]
/** Every site of the account with its status now: one request per 50 sites, then one per site. */
export async function siteStatuses(client: Client, signal: AbortSignal): Promise<SiteStatus[]> {
  const sites = (await client.tables.siteTasks({ signal })).toRows()
  if (sites.length === 0) return []
  // Today's report of every site (8 at a time), all monitoring points, as three tables. With
  // errors: 'collect', a site whose report fails is listed in `failures`; the others stay.
  const { availability, responseTime, faults, failures } = await client.tables.siteReports({
    taskIds: sites.map((site) => site.task_id),
    errors: 'collect',
    signal,
  })
  const checks = lastChecks(availability, responseTime)
  const ongoing = new Set(faults.toRows().filter((fault) => fault.ongoing).map((fault) => fault.task_id))
  const failed = new Map(failures.map((failure) => [failure.taskId, failure.error.code]))
  return sites.map((site) => {
    const check = checks.get(site.task_id)
    const uprate = check?.uprate ?? null
    const status = uprate === null ? 'unknown' : uprate > 0 ? 'up' : 'down'
    const error = failed.get(site.task_id)
    return {
      taskId: site.task_id,
      name: site.task_name,
      address: site.task_summary,
      status,
      lastCheck: check === undefined ? null : new Date(check.at).toISOString(),
      uprate,
      responseTimeMs: status === 'up' ? (check?.responseTimeMs ?? null) : null,
      faultOngoing: ongoing.has(site.task_id),
      ...(error === undefined ? {} : { error }),
    }
  })
}
// --8<-- [end:fetch]

// --8<-- [start:columns]
interface Check {
  /** The time of the check, milliseconds since the epoch. */
  at: number
  uprate: number | null
  responseTimeMs: number | null
}

/**
 * Each site's last check, from the rows of monitoring point 0 (the average of the site's
 * points). Read as typed columns, not as row objects: a one-minute site has 1,440 checks a
 * day at each of its points.
 */
function lastChecks(
  availability: Table<SiteAvailabilityRow>,
  responseTime: Table<SiteResponseTimeRow>,
): Map<number, Check> {
  const checks = new Map<number, Check>()
  const ids = availability.column('task_id') // BigInt64Array
  const [points, times, uprates] = [
    availability.column('monitor_id'),
    availability.column('time'),
    availability.column('uprate'), // NaN where the service sent none
  ]
  for (let row = 0; row < ids.length; row++) {
    const seen = checks.get(Number(ids[row]))
    if (points[row] === 0 && (seen === undefined || times[row] > seen.at)) {
      const uprate = Number.isNaN(uprates[row]) ? null : uprates[row]
      checks.set(Number(ids[row]), { at: times[row], uprate, responseTimeMs: null })
    }
  }
  const rtIds = responseTime.column('task_id')
  const [rtPoints, rtTimes, averages] = [
    responseTime.column('monitor_id'),
    responseTime.column('time'),
    responseTime.column('resptime_avg'),
  ]
  for (let row = 0; row < rtIds.length; row++) {
    const check = checks.get(Number(rtIds[row]))
    if (check !== undefined && rtPoints[row] === 0 && rtTimes[row] === check.at && !Number.isNaN(averages[row])) {
      check.responseTimeMs = averages[row]
    }
  }
  return checks
}
// --8<-- [end:columns]

// --8<-- [start:signal]
/** A signal that aborts when the HTTP client goes away before its answer is sent. */
function abortedWhenGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  // 'close' comes at the end of every response; before it finished, the client went away.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the HTTP client went away'))
  })
  return controller.signal
}
// --8<-- [end:signal]

async function main(): Promise<void> {
  // --8<-- [start:client]
  // One client for the whole process: its connections and its token serve every request.
  // Its settings come from MONAPI_BASE_URL, MONAPI_CLIENT_ID, MONAPI_CLIENT_SECRET,
  // MONAPI_USERNAME and MONAPI_PASSWORD; never log them, they hold secrets.
  const client = new Client()
  // --8<-- [end:client]

  // --8<-- [start:route]
  const app = fastify()
  app.get('/sites', async (_request, reply) => {
    const signal = abortedWhenGone(reply)
    try {
      return { sites: await siteStatuses(client, signal) }
    } catch (error) {
      if (signal.aborted) {
        // Nobody is left to answer; the calls to the service were dropped with the request.
        console.warn('GET /sites: the client went away, its calls to the service were aborted')
        return reply
      }
      if (!(error instanceof MonapiError)) throw error
      // The message is the core's, redacted of secrets; the HTTP client gets its code only.
      console.error(`GET /sites: ${error.code}: ${error.message}`)
      return reply.code(502).send({ error: error.code })
    }
  })
  // --8<-- [end:route]

  // --8<-- [start:shutdown]
  let closing = false
  // app.close() waits for every connection to end: while it does, each answer closes its
  // connection instead of keeping it open for a next request.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close')
  })
  async function shutdown(signal: NodeJS.Signals): Promise<void> {
    console.log(`${signal}: shutting down`)
    closing = true
    await app.close() // no new connections; the requests in flight are answered first
    await client.close()
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    // once: a second Ctrl-C ends the process at once, as Node does by default.
    process.once(signal, () => {
      shutdown(signal).catch((error: unknown) => {
        console.error(error)
        process.exitCode = 1
      })
    })
  }
  // --8<-- [end:shutdown]

  // --8<-- [start:listen]
  const port = Number(process.env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be 0 to 65535, got ${process.env.PORT}`)
  // HOST=0.0.0.0 in a container; loopback by default.
  await app.listen({ port, host: process.env.HOST ?? '127.0.0.1' })
  const { address, port: bound } = app.server.address() as AddressInfo
  console.log(`listening on http://${address}:${bound}`)
  // --8<-- [end:listen]
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
})
