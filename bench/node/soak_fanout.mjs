// @ts-check
// The Node client's part of the soak (bench/soak): rounds of N concurrent calls of `Client`
// (every kind of read, mixed) with `Promise.allSettled`, for the warm-up, then for the measured
// seconds.
//
// The soak starts this script in a process of its own and samples its memory from outside.
// It prints `start` when the warm-up is over, then, after each measured round, a line of JSON
// `{"memory": {rss, heapTotal, heapUsed}}` (bytes, just after a full collection), and at the end
// one line of JSON: calls, errors, rounds, seconds, the first errors. Run with --expose-gc (the
// soak does), it asks V8 for a full collection after each round. What a leak would show is what
// survives a collection: V8's heap in use, and everything outside V8's heap (the addon, its
// runtime, buffers); the soak judges the Node phase on that, the RSS less the free space V8
// keeps in its heap. That free space is V8's sizing of its heap (it grows and shrinks it by tens
// of megabytes as it sees fit), not memory the client holds.
//
//   node --expose-gc bench/node/soak_fanout.mjs --base-url URL --warmup W --seconds S --fanout N --service-tasks ID,...

import { parseArgs } from 'node:util'

import { Client } from 'monapi'

const SITE_TASKS = [20001, 20002, 20003, 20004]
const FANOUT_SITE_TASK = 20004 // the one whose report of every point is fetched (65 KiB a day)
const ERRORS_SHOWN = 5
// Present only under --expose-gc.
const gc = /** @type {(() => void) | undefined} */ (globalThis.gc)

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    warmup: { type: 'string' },
    seconds: { type: 'string' },
    fanout: { type: 'string' },
    'service-tasks': { type: 'string' },
  },
})
const baseUrl = values['base-url']
const warmup = Number(values.warmup)
const seconds = Number(values.seconds)
const fanout = Number(values.fanout)
const serviceTasks = (values['service-tasks'] ?? '').split(',').map(Number)
if (!baseUrl || !(warmup >= 0) || !(seconds > 0) || !(fanout > 0) || serviceTasks.some((id) => !(id > 0))) {
  throw new Error('usage: soak_fanout.mjs --base-url URL --warmup W --seconds S --fanout N --service-tasks ID,...')
}

const client = new Client({
  baseUrl,
  clientId: 'demo_id',
  clientSecret: 'demo_secret',
  username: 'test@example.com',
  password: '123456',
})

/**
 * Call `i` of a round: the same mix as the Rust and Python fan-outs.
 *
 * @param {number} i
 * @returns {Promise<unknown>}
 */
function call(i) {
  const k = Math.floor(i / 6)
  const site = SITE_TASKS[k % SITE_TASKS.length]
  switch (i % 6) {
    case 0: return client.siteReport(site, { monitor: 0 })
    case 1: return client.siteReport(FANOUT_SITE_TASK)
    case 2: return client.responseTimeDistribution(site)
    case 3: return client.serviceReport(serviceTasks[k % serviceTasks.length])
    case 4: return client.agents()
    default: return client.serviceTasks({ page: 1 + (k % 3) })
  }
}

await client.login()
let calls = 0
let errors = 0
let rounds = 0
/** @type {string[]} */
const shown = []
const started = performance.now()
const warm = started + warmup * 1000
const deadline = warm + seconds * 1000
let measuring = false
while (performance.now() < deadline) {
  if (!measuring && performance.now() >= warm) {
    console.log('start')
    measuring = true
  }
  const results = await Promise.allSettled(Array.from({ length: fanout }, (_, i) => call(i)))
  calls += results.length
  for (const result of results) {
    if (result.status === 'rejected') {
      errors += 1
      if (shown.length < ERRORS_SHOWN) shown.push(String(result.reason))
    }
  }
  if (gc) {
    gc()
    if (measuring) {
      const { rss, heapTotal, heapUsed } = process.memoryUsage()
      console.log(JSON.stringify({ memory: { rss, heapTotal, heapUsed } }))
    }
  }
  rounds += 1
}
await client.close()
console.log(JSON.stringify({ calls, errors, rounds, seconds: (performance.now() - started) / 1000, error_samples: shown }))
