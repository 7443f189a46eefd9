// @ts-check
// The default of `maxConnections`, measured: 1,000 concurrent report fetches (the workload of
// bench.mjs) with several connection caps, and how many connections each opened. The caps take
// turns in rotated rounds; each figure is the median of its rounds. The emulator is the built
// package's (its own thread, 127.0.0.1).
//
// --latency-ms delays every answer of the emulator, as a service across a network would.
//
//   node --expose-gc bench/node/connections.mjs [--rounds 9] [--caps 10,25,50,100,250,1000] [--latency-ms 0]

import { Emulator } from 'monapi'

const argv = process.argv.slice(2)
/** @param {string} name @param {string} fallback */
const option = (name, fallback) => {
  const at = argv.indexOf(name)
  return at >= 0 && argv[at + 1] ? argv[at + 1] : fallback
}
const ROUNDS = Number(option('--rounds', '9'))
const CAPS = option('--caps', '10,25,50,100,250,1000').split(',').map(Number)
const CONCURRENT = 1000
const LATENCY_MS = Number(option('--latency-ms', '0'))

const emulator = await Emulator.start()
const token = await emulator.client().login()
const tasks = []
for await (const task of emulator.client({ token }).iterServiceTasks()) tasks.push(task)
const ids = tasks.filter((task) => task.frequency === '30').map((task) => task.task_id)
const reportIds = Array.from({ length: CONCURRENT }, (_, i) => ids[i % ids.length])

const clients = new Map(CAPS.map((cap) => [cap, emulator.client({ token, maxConnections: cap })]))
/** @type {Map<number, number>} */
const opened = new Map(CAPS.map((cap) => [cap, 0]))
/** @type {Map<number, number[]>} */
const times = new Map(CAPS.map((cap) => [cap, []]))
const gc = /** @type {(() => void) | undefined} */ (globalThis.gc)

/** @param {number} cap */
async function batch(cap) {
  const client = /** @type {import('monapi').Client} */ (clients.get(cap))
  gc?.()
  const before = emulator.counters().connections
  const started = process.hrtime.bigint()
  const results = await Promise.all(reportIds.map((id) => client.serviceReport(id)))
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (results.length !== CONCURRENT) throw new Error('lost results')
  opened.set(cap, (opened.get(cap) ?? 0) + emulator.counters().connections - before)
  return ms
}

emulator.setLatency(LATENCY_MS)
for (const cap of CAPS) await batch(cap) // warm-up: connections, JIT, caches
for (let round = 0; round < ROUNDS; round++) {
  const order = [...CAPS.slice(round % CAPS.length), ...CAPS.slice(0, round % CAPS.length)]
  for (const cap of order) times.get(cap)?.push(await batch(cap))
}
await emulator.stop()

/** @param {number[]} values */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const medians = new Map(CAPS.map((cap) => [cap, median(times.get(cap) ?? [])]))
const fastest = Math.min(...medians.values())
console.log(`${CONCURRENT} concurrent report fetches, ${LATENCY_MS} ms latency, median of ${ROUNDS} rounds`)
console.log('| maxConnections | median batch | vs fastest | connections opened (all rounds) |')
console.log('|---:|---:|---:|---:|')
for (const cap of CAPS) {
  const ms = medians.get(cap) ?? 0
  console.log(`| ${cap} | ${ms.toFixed(1)} ms | ${(ms / fastest).toFixed(2)}x | ${opened.get(cap)} |`)
}
