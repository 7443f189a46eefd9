// @ts-check
// Property tests (fast-check) through the Node package: inputs we did not think of.
//
// - Differential validation: for generated server tasks, the core (through createServerTasks)
//   accepts exactly what the emulator accepts, and a refusal names the same field.
// - Ids, pages and dates of every JavaScript kind either work (the call is sent and answered)
//   or are refused as INVALID_INPUT naming the parameter, with nothing sent; never a crash.
//
// The decoders of the answers are the core's (its Rust properties, core/tests/it/properties.rs);
// this package hands on the body the core normalised, which JSON.parse reads.
//
// Runs are reproducible: every property starts from the seed SEED and tries a bounded number of
// runs (RUNS, 600 for the differential validation). A failure prints the seed, the smallest
// failing input and its path, and the command that runs the same cases again; FAST_CHECK_SEED
// and FAST_CHECK_RUNS set others (not MONAPI_*: the suite clears those).

import assert from 'node:assert/strict'
import test from 'node:test'

import fc from 'fast-check'
import { MonapiError } from 'monapi'

import { emulator } from './helpers.mjs'

const SEED = Number(process.env.FAST_CHECK_SEED ?? 14)
const RUNS = 200

/**
 * Runs `property` with the suite's seed, `runs` times (unless FAST_CHECK_RUNS says otherwise);
 * a failure names the seed and how to rerun.
 *
 * @param {string} name
 * @param {fc.IAsyncProperty<any>} property
 * @param {number} [runs]
 */
async function check(name, property, runs = RUNS) {
  const numRuns = Number(process.env.FAST_CHECK_RUNS ?? runs)
  const details = await fc.check(property, { seed: SEED, numRuns })
  if (details.failed) {
    assert.fail(
      `${name}: ${fc.defaultReportMessage(details)}\n` +
        `run it again with: FAST_CHECK_SEED=${SEED} FAST_CHECK_RUNS=${numRuns} node --test --test-name-pattern="${name}" tests/node/properties.test.mjs`,
    )
  }
}

/**
 * A field's value: one of `valid` most of the time (so that a good share of the tasks is valid
 * as a whole), else one of `broken`.
 *
 * @param {unknown[]} valid
 * @param {unknown[]} broken
 */
function field(valid, broken) {
  return fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: fc.constantFrom(...broken) })
}

/**
 * A server task with every field of a server task and no other, as the Rust property generates
 * it (core/tests/it/properties.rs says what is left out and why: unknown fields, control
 * characters, the names linux/windows, an alert_setting without scope, unknown plugin ids).
 *
 * @param {string[]} plugins the account's plugin_task_uselist_id values
 */
function serverTask(plugins) {
  const ip = () => field(['10.0.0.1', '::1', '2001:db8::1'], ['', '  ', '10.0.0.256', 'host.example', 7, null])
  const flag = () => field([0, 1, '0', '1'], [2, 'x', '', null])
  const text = () => field(['public', '名字', 42], ['', '  ', null])
  return fc.record({
    server_name: field(['web-01', '名字 1', 17], ['', '   ', null, []]),
    private_ip: ip(),
    server_ip: ip(),
    server_systype: flag(),
    frequency: field([1, 5, 1440, '30'], [0, 1441, -5, 2.5, '5.0', 'x', '', null]),
    snmp_port: field([161, 1, 65535, '161'], [0, 65536, 'x', null]),
    snmp_v: flag(),
    snmp_comm: text(),
    snmp_user: text(),
    snmp_pass: field(['secret', 42], ['', null]),
    snmp_authtype: flag(),
    use_agent: flag(),
    plugin_task_uselist_id: field([plugins[0], plugins.join(','), plugins, ''], [[], {}, [[]], null]),
    alert_setting: field(
      [
        { scope: 1 },
        { scope: '3' },
        { scope: 2, organization: 'ops' },
        { scope: 4, user_ids: '1,2' },
        { scope: 4, user_ids: ['7'] },
        { scope: 1, alert: { email: '1,2', sms: ['3'] } },
      ],
      [
        { scope: 2 },
        { scope: 2, organization: '' },
        { scope: 4, user_ids: [] },
        { scope: 5 },
        { scope: 'x' },
        { scope: 1, alert: { email: {} } },
        { scope: 1, alert: [] },
        '1',
        null,
      ],
    ),
    task_type: field([['cpu', 'mem'], ['cpu_windows', 'netio'], ['netio']], [[], ['bogus'], 'cpu', [1], null]),
  })
}

/** Whether the core's `field` is the emulator's, or a part of it (`task_type[0]` of `task_type`). */
function sameField(/** @type {string} */ core, /** @type {string} */ emulator) {
  return core === emulator || core.startsWith(`${emulator}[`) || core.startsWith(`${emulator}.`)
}

test('differential validation: the core accepts exactly what the emulator accepts', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const agents = await client.agents()
  const plugins = [...new Set(Object.values(agents).flatMap((agent) => agent.plugin.map((p) => p.plugin_task_uselist_id)))]
  assert.ok(plugins.length > 0)
  let accepted = 0
  let refused = 0
  await check(
    'differential validation',
    fc.asyncProperty(serverTask(plugins), async (task) => {
      const before = emu.counters().create
      try {
        // What the core accepts, it sends in its own form: the emulator stores it.
        const created = await client.createServerTasks([/** @type {any} */ (task)])
        assert.equal(created.length, 1)
        accepted += 1
        return
      } catch (error) {
        assert.ok(error instanceof MonapiError && error.code === 'INVALID_INPUT', String(error))
        assert.equal(emu.counters().create, before, 'refused, yet sent')
        refused += 1
        // What the core refuses, the emulator refuses too when it gets it as written, and
        // names the same field first.
        const core = /** @type {string} */ (error.errors?.[0].field)
        const answer = await client
          .request({ method: 'POST', path: '/v2/server/create.json', form: { data: JSON.stringify([task]) } })
          .then(
            (body) => ({ body }),
            (/** @type {unknown} */ err) => ({ err }),
          )
        assert.ok('err' in answer && answer.err instanceof MonapiError, `the core refused (${error.message}), the emulator answered ${JSON.stringify(answer)}`)
        assert.equal(answer.err.code, 'PARTIAL_CREATE', String(answer.err))
        const named = (answer.err.errContent ?? '').split(' ')[0]
        assert.ok(sameField(core, named), `the core names ${core} (${error.message}), the emulator ${answer.err.errContent}`)
      }
    }),
    600,
  )
  t.diagnostic(`differential validation: ${accepted} accepted by both, ${refused} refused by both`)
  assert.ok(accepted >= 30 && refused >= 30, `both kinds generated: ${accepted} accepted, ${refused} refused`)
})

// Every kind of JavaScript value a caller may pass as an id, a page or a date.
const anyValue = fc.oneof(
  fc.integer({ min: -5, max: 30_000 }),
  fc.constantFrom(20001, 0, -1, 2 ** 53, 2 ** 53 - 1, 2 ** 64, Number.NaN, Infinity, -0),
  fc.double(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.stringMatching(/^[ +-]?[0-9]{0,22}[ .]?[0-9]?$/),
  fc.string(),
  fc.constantFrom(null, undefined, true, {}, [], [1]),
)

const dateText = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.integer({ min: 2025, max: 2027 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`) },
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null, 20260101, new Date(Number.NaN), new Date(Date.UTC(2026, 0, 2))) },
)

/**
 * Calls `call`; a refusal must be INVALID_INPUT naming one of `fields` with nothing sent, an
 * acceptance must have been sent (and may be answered with the service's own error).
 *
 * @param {import('monapi').Emulator} emu
 * @param {string[]} fields
 * @param {() => Promise<unknown>} call
 */
async function refusedUnsentOrSent(emu, fields, call) {
  const before = emu.counters().total
  try {
    await call()
  } catch (error) {
    assert.ok(error instanceof MonapiError, `not a MonapiError: ${error}`)
    if (error.code === 'INVALID_INPUT') {
      assert.ok(fields.includes(/** @type {string} */ (error.field)), `refused naming ${error.field}, not one of ${fields}`)
      assert.equal(emu.counters().total, before, 'refused, yet sent')
      return
    }
  }
  assert.ok(emu.counters().total > before, 'accepted, yet nothing was sent')
}

test('ids and pages of every kind work or are refused unsent', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  await client.login()
  await check(
    'ids and pages',
    fc.asyncProperty(anyValue, anyValue, anyValue, async (taskId, monitor, page) => {
      const id = /** @type {any} */ (taskId)
      await refusedUnsentOrSent(emu, ['taskId'], () => client.responseTimeDistribution(id))
      await refusedUnsentOrSent(emu, ['taskId', 'monitor'], () => client.siteReport(20001, { monitor: /** @type {any} */ (monitor) }))
      await refusedUnsentOrSent(emu, ['page'], () => client.serviceTasks({ page: /** @type {any} */ (page) }))
    }),
  )
})

test('date ranges of every kind work or are refused unsent', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  await client.login()
  await check(
    'date ranges',
    fc.asyncProperty(dateText, dateText, async (startDate, endDate) => {
      const range = /** @type {any} */ ({ startDate, endDate })
      await refusedUnsentOrSent(emu, ['startDate', 'endDate'], () => client.responseTimeDistribution(20001, range))
    }),
  )
})
