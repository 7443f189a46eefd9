// @ts-check
// monapi against `fetch` and `undici.request` on one network profile, each client with its
// usual compression, every table with a floor row.
//
// The profile is the emulator's link: `loopback` (as fast as the machine goes) or `wan`
// (50 Mbit/s shared by every connection, 40 ms round trip). The emulator gzips answers when
// asked, as the service's front end does. `fetch` asks for gzip and decompresses by default;
// `undici.request` asks for nothing unless told, so it is given the header and a gunzip
// stream, as a user would. The floor: the same gzipped bytes over one kept-alive socket with
// a prebuilt request, received and discarded.
//
// Workloads: the 30-day service report of an every-minute task and the 30-day site report as
// plain objects; the service report as a table (`column('value')`). Rounds rotate the order
// of the contenders; each figure is the best round.
//
//   node --expose-gc bench/node/network.mjs [--profile wan|loopback] [--quick]

import { once } from 'node:events'
import net from 'node:net'
import zlib from 'node:zlib'

import { Emulator } from 'monapi'
import { request } from 'undici'

import { day, timed } from './timing.mjs'

const argv = process.argv.slice(2)
const profile = argv.includes('--profile') ? argv[argv.indexOf('--profile') + 1] : 'wan'
if (profile !== 'wan' && profile !== 'loopback') throw new Error(`--profile wan|loopback, not ${profile}`)
const ROUNDS = argv.includes('--quick') ? 2 : 5

const emulator = await Emulator.start(profile === 'wan' ? { bandwidthMbps: 50, rttMs: 40 } : {})
const client = emulator.client()
const { access_token: accessToken } = await client.login()
const base = emulator.baseUrl

const [startDate, endDate] = [day(30), day(1)]
const tasks = []
for await (const task of client.iterServiceTasks()) tasks.push(task)
const everyMinute = tasks.find((task) => task.frequency === '1')?.task_id
if (everyMinute === undefined) throw new Error('the emulator has no every-minute task')

/** @param {string} path */
const url = (path) => `${base}${path}?start_date=${startDate}&end_date=${endDate}&access_token=${accessToken}`

/** The floor: one kept-alive socket, a prebuilt request asking for gzip, the body discarded. */
async function rawConnection() {
  const { hostname, port, host } = new URL(base)
  const socket = net.connect(Number(port), hostname)
  socket.setNoDelay(true)
  await once(socket, 'connect')
  /** @param {string} path @returns {Promise<number>} the gzipped body's length */
  return (path) =>
    new Promise((resolve, reject) => {
      let head = Buffer.alloc(0)
      let remaining = -1
      /** @param {Buffer} data */
      const onData = (data) => {
        if (remaining < 0) {
          head = Buffer.concat([head, data])
          const end = head.indexOf('\r\n\r\n')
          if (end < 0) return
          const length = /content-length: *(\d+)/i.exec(head.subarray(0, end).toString())
          if (!head.subarray(0, 12).toString().startsWith('HTTP/1.1 200') || !length) {
            return reject(new Error(head.subarray(0, end).toString()))
          }
          remaining = Number(length[1]) - (head.length - end - 4)
          head = Buffer.from(length[1])
        } else {
          remaining -= data.length
        }
        if (remaining <= 0) {
          socket.off('data', onData)
          resolve(Number(head.toString()))
        }
      }
      socket.on('data', onData)
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept-Encoding: gzip\r\n\r\n`)
    })
}
const raw = await rawConnection()

/** @param {string} u */
async function fetchText(u) {
  const response = await fetch(u)
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`)
  return response.text()
}

/** @param {string} u */
async function undiciText(u) {
  const { statusCode, headers, body } = await request(u, { headers: { 'accept-encoding': 'gzip' } })
  if (statusCode !== 200) throw new Error(`HTTP ${statusCode}`)
  const stream = headers['content-encoding'] === 'gzip' ? body.pipe(zlib.createGunzip()) : body
  const parts = []
  for await (const part of stream) parts.push(part)
  return Buffer.concat(parts).toString('utf8')
}

/**
 * Best milliseconds of each contender over ROUNDS rounds, in rotated order.
 *
 * @param {Record<string, () => Promise<unknown>>} contenders
 */
async function compare(contenders) {
  const names = Object.keys(contenders)
  for (const name of names) await contenders[name]() // warm up
  /** @type {Record<string, number>} */
  const best = Object.fromEntries(names.map((name) => [name, Infinity]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names.map((_, i) => names[(i + round) % names.length])) {
      best[name] = Math.min(best[name], await timed(contenders[name]))
    }
  }
  return best
}

/** @param {string} title @param {Record<string, number>} ms */
function report(title, ms) {
  const ours = Object.entries(ms).find(([name]) => name.startsWith('monapi'))?.[1] ?? NaN
  const floor = Object.entries(ms).find(([name]) => name.startsWith('floor'))?.[1] ?? NaN
  console.log(`\n${title}\n| contender | time | / monapi | / floor |\n|---|---:|---:|---:|`)
  for (const [name, t] of Object.entries(ms)) {
    console.log(`| ${name} | ${t.toFixed(0)} ms | ${(t / ours).toFixed(2)}x | ${(t / floor).toFixed(2)}x |`)
  }
}

console.log(`profile: ${profile}${profile === 'wan' ? ' (50 Mbit/s, 40 ms)' : ''}`)
const service = `/v2/service/report/${everyMinute}.json`
const site = '/v2/site/report/20001.json'
const range = { startDate, endDate }
/** @type {Record<string, [string, () => Promise<unknown>]>} */
const reports = {
  '30-day service report, every-minute task': [service, () => client.serviceReport(everyMinute, range)],
  '30-day site report': [site, () => client.siteReport(20001, range)],
}
for (const [title, [path, ours]] of Object.entries(reports)) {
  const expected = JSON.stringify(await ours())
  if (JSON.stringify(JSON.parse(await undiciText(url(path)))) !== expected) throw new Error('undici differs')
  if (JSON.stringify(JSON.parse(await fetchText(url(path)))) !== expected) throw new Error('fetch differs')
  const gzipped = await raw(url(path).slice(base.length))
  const ms = await compare({
    'monapi (objects)': ours,
    'fetch + JSON.parse': async () => JSON.parse(await fetchText(url(path))),
    'undici.request + gunzip + JSON.parse': async () => JSON.parse(await undiciText(url(path))),
    'floor: raw socket, gzip, discarded': () => raw(url(path).slice(base.length)),
  })
  report(`${title} (${(expected.length / 1e6).toFixed(1)} MB, ${(gzipped / 1e6).toFixed(2)} MB gzipped), as objects`, ms)
}

const rows = (await client.tables.serviceReport(everyMinute, range)).column('value').length
const ms = await compare({
  "monapi tables.serviceReport(...).column('value')": async () =>
    (await client.tables.serviceReport(everyMinute, range)).column('value'),
  'floor: raw socket, gzip, discarded': () => raw(url(service).slice(base.length)),
})
report(`30-day service report as a table (${rows} rows)`, ms)

client.close()
await emulator.stop()
process.exit(0)
