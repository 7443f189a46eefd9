// @ts-check
// The service's documented payloads (tests/fixtures) against the emulator's live answers, as the
// Node package hands them over: the same keys and the same kinds of values.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { day, emulator, fixture } from './helpers.mjs'

/**
 * The shape of a JSON value: keys and value kinds; objects keyed by numbers (ids, times,
 * bucket bounds) collapse to one `<n>` entry, arrays to their first element.
 *
 * @param {unknown} value
 * @returns {unknown}
 */
function shape(value) {
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : []
  if (value === null || typeof value !== 'object') return value === null ? 'null' : typeof value
  /** @type {Record<string, unknown>} */
  const out = {}
  for (const [key, inner] of Object.entries(value)) {
    const name = /^\d+$/.test(key) ? '<n>' : key
    if (!(name in out) || out[name] === 'null') out[name] = shape(inner)
  }
  return out
}

test('token, service tasks, agents and create answers have the fixtures\' shapes', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const token = await client.login()
  const { expires_at, ...asSent } = token
  assert.equal(typeof expires_at, 'number', 'the SDK adds expires_at')
  assert.deepEqual(shape(asSent), shape(fixture('token.json')))
  assert.deepEqual(shape((await client.serviceTasks())[0]), shape(fixture('service_tasks.json')[0]))
  const agents = /** @type {Record<string, any>} */ (await client.agents())
  const withPlugins = Object.values(agents).find((agent) => agent.plugin.length > 0)
  const fixtureAgent = Object.values(fixture('agents.json')).find((agent) => agent.plugin.length > 0)
  assert.deepEqual(shape(withPlugins), shape(fixtureAgent))
  assert.deepEqual(shape(await client.createServerTasks(fixture('create_request.json'))), shape(fixture('create_response.json')))
})

test('service report, site report and distribution have the fixtures\' shapes', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const apache = (await client.serviceTasks()).find((task) => task.task_type === 'apache') ?? assert.fail('an apache task')
  const report = await client.serviceReport(apache.task_id, { startDate: day(1), endDate: day(1) })
  assert.deepEqual(shape(report), shape(fixture('service_report_apache.json')))

  const expected = /** @type {Record<string, any>} */ (shape(fixture('site_report.json')))
  let site = /** @type {Record<string, any>} */ ({})
  for (let task = 20001; task <= 20005; task++) {
    site = /** @type {Record<string, any>} */ (shape(await client.siteReport(task)))
    if (site['<n>'].fault !== 'null') break
  }
  assert.deepEqual(Object.keys(site['<n>']).sort(), Object.keys(expected['<n>']).sort())
  assert.deepEqual(site['<n>'].resptime, expected['<n>'].resptime)
  assert.deepEqual(site['<n>'].uprate, expected['<n>'].uprate)
  assert.deepEqual(site['<n>'].fault, expected['<n>'].fault, 'fault records and count')

  const dist = await client.responseTimeDistribution(20001, { startDate: day(1), endDate: day(1) })
  assert.deepEqual(shape(dist), shape(fixture('response_time_distribution.json')))
})
