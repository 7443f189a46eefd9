// @ts-check
// The shared case table (tests/fixtures/cases.json), run whole against the emulator: each case
// is accepted, or refused with every problem named and nothing sent. The Rust and Python suites
// run the same table.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'

import { Client, Emulator, MonapiError } from 'monapi'

import { ROOT } from './helpers.mjs'

/** @type {Array<{ name: string, call: string, args: Record<string, any>, expect: any }>} */
const CASES = JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', 'cases.json'), 'utf8')).cases

/**
 * The JavaScript names of the core's option and parameter names, as the expected fields of the
 * table are written (task fields keep the service's names).
 */
const JS_NAMES = /** @type {Record<string, string>} */ ({
  base_url: 'baseUrl',
  client_id: 'clientId',
  client_secret: 'clientSecret',
  password_md5: 'passwordMd5',
  user_agent: 'userAgent',
  timeout: 'timeoutMs',
  connect_timeout: 'connectTimeoutMs',
  max_retries: 'maxRetries',
  service_tasks: 'serviceTasks',
  task_id: 'taskId',
  start_date: 'startDate',
  end_date: 'endDate',
})

/** `error_500` as `error500`, `drop_connection` as `dropConnection`. */
function camel(/** @type {string} */ name) {
  return name.replace(/_(.)/g, (_, c) => c.toUpperCase())
}

/**
 * The field an expected problem names in JavaScript: options and parameters by their JavaScript
 * names, fault shares under `faults.`, a task's fields as the service names them.
 *
 * @param {string} call
 * @param {{ index: number | null, field: string }} problem
 */
function jsField(call, problem) {
  if (problem.index !== null) return problem.field
  if (call === 'set_faults') return `faults.${camel(problem.field)}`
  // setLatency takes milliseconds, and names its argument so.
  if (call === 'set_latency') return 'ms'
  return JS_NAMES[problem.field] ?? problem.field
}

/** Client options of the demo account with the case's values on top, in JavaScript's names and units. */
function clientOptions(/** @type {Emulator} */ emu, /** @type {Record<string, any>} */ args) {
  /** @type {Record<string, any>} */
  const options = {
    baseUrl: emu.baseUrl,
    clientId: emu.clientId,
    clientSecret: emu.clientSecret,
    username: emu.username,
    password: emu.password,
  }
  for (const [key, value] of Object.entries(args)) {
    const name = JS_NAMES[key] ?? key
    const seconds = key === 'timeout' || key === 'connect_timeout'
    options[name] = value === null ? undefined : seconds ? value * 1000 : value
  }
  return options
}

/** The calls that build or set something and send no request. */
const SETTINGS = ['client', 'set_faults', 'set_latency', 'set_token_ttl', 'emulator']

/** @type {Emulator} */
let emu
/** @type {Client} */
let client

before(async () => {
  emu = await Emulator.start()
  client = emu.client({ timeoutMs: 10_000 })
})

after(async () => {
  await client.close()
  await emu.stop()
})

/**
 * @param {string} call
 * @param {Record<string, any>} args
 */
async function run(call, args) {
  const dates = { startDate: args.start_date, endDate: args.end_date }
  switch (call) {
    case 'client':
      return new Client(clientOptions(emu, args))
    case 'set_faults':
      emu.setFaults(Object.fromEntries(Object.entries(args).map(([key, value]) => [camel(key), value])))
      return emu.setFaults({})
    case 'set_latency':
      emu.setLatency(args.seconds * 1000)
      return emu.setLatency(0)
    case 'set_token_ttl':
      emu.setTokenTtl(args.seconds)
      return emu.setTokenTtl(3600)
    case 'emulator':
      return (await Emulator.start({ serviceTasks: args.service_tasks })).stop()
    case 'service_tasks':
      return client.serviceTasks({ page: args.page })
    case 'service_report':
      return client.serviceReport(args.task_id, dates)
    case 'site_report':
      return client.siteReport(args.task_id, { ...dates, monitor: args.monitor })
    case 'response_time_distribution':
      return client.responseTimeDistribution(args.task_id, dates)
    case 'create_server_tasks':
      return client.createServerTasks(args.tasks)
    case 'create_service_tasks':
      return client.createServiceTasks(args.tasks)
    case 'site_tasks':
      return client.siteTasks({ page: args.page })
    case 'site_task':
      return client.siteTask(args.task_id)
    case 'request':
      return client.request({ method: args.method, path: args.path, query: args.query, form: args.form })
    default:
      throw new Error(`unknown call ${call} in the case table`)
  }
}

test('the table is large enough and its names are unique', () => {
  assert.ok(CASES.length >= 60)
  assert.equal(new Set(CASES.map((c) => c.name)).size, CASES.length)
})

for (const { name, call, args, expect } of CASES) {
  test(`case: ${name}`, async () => {
    for (const variable of Object.keys(process.env)) {
      assert.ok(!variable.startsWith('MONAPI_'), 'helpers.mjs clears the MONAPI_* variables')
    }
    const sentBefore = emu.counters().total
    if (expect === 'accepted') {
      await run(call, args)
      if (!SETTINGS.includes(call)) assert.ok(emu.counters().total > sentBefore, 'accepted, so it was sent')
      return
    }
    /** @type {unknown} */
    let caught
    try {
      await run(call, args)
    } catch (error) {
      caught = error
    }
    assert.ok(caught instanceof MonapiError, `expected a MonapiError, got ${String(caught)}`)
    assert.equal(caught.code, 'INVALID_INPUT', caught.message)
    const found = (caught.errors ?? []).map((p) => [p.index, p.field, p.rule])
    /** @type {Array<{ index: number | null, field: string, rule: string }>} */
    const expected = expect.refused
    assert.equal(found.length, expected.length, JSON.stringify(found))
    expected.forEach((want, i) => {
      assert.deepEqual(found[i].slice(0, 2), [want.index, jsField(call, want)], JSON.stringify(found))
      assert.ok(String(found[i][2]).startsWith(want.rule), `${found[i][2]} starts with ${want.rule}`)
    })
    assert.equal(caught.field, jsField(call, expected[0]))
    assert.equal(emu.counters().total, sentBefore, 'refused, so nothing was sent')
  })
}
