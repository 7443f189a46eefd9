// @ts-check
// Every error code and its fields; panics become rejected Promises; no bare native error.

import assert from 'node:assert/strict'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { test } from 'node:test'
import util from 'node:util'

import monapi, { Client, ERROR_CODES, MonapiError } from 'monapi'

import { assertNoSecret, emulator, linuxTask, rejects, throws } from './helpers.mjs'

/** @type {{ native: Record<string, () => unknown>, fromNative: (e: unknown) => MonapiError }} */
const internal = /** @type {any} */ (monapi)[Symbol.for('monapi.internal')]

test('MonapiError is an Error subclass with a stable code and null fields by default', () => {
  const err = new MonapiError('x', { code: 'TIMEOUT', endpoint: 'GET /v2/agent/lists.json' })
  assert.ok(err instanceof Error)
  assert.equal(err.name, 'MonapiError')
  assert.equal(err.code, 'TIMEOUT')
  assert.equal(err.endpoint, 'GET /v2/agent/lists.json')
  assert.equal(err.status, null)
  assert.equal(err.failedIndices, null)
  assert.equal(new MonapiError('y', /** @type {any} */ ({ code: 'NOT_A_CODE' })).code, 'INTERNAL')
  assert.deepEqual(
    [...ERROR_CODES].sort(),
    [
      'ABORTED',
      'API_ERROR',
      'AUTH_ERROR',
      'AUTH_INVALID_CLIENT',
      'AUTH_INVALID_GRANT',
      'CONNECTION',
      'DECODE',
      'INTERNAL',
      'INVALID_INPUT',
      'PARTIAL_CREATE',
      'PARTIAL_RESULT',
      'STORE',
      'TIMEOUT',
    ],
  )
  assert.ok(Object.isFrozen(ERROR_CODES))
})

test('AUTH_INVALID_CLIENT: wrong client secret; login failures are not retried', async (t) => {
  const emu = await emulator(t)
  const err = await rejects(emu.client({ clientSecret: 'wrong-secret' }).login(), 'AUTH_INVALID_CLIENT')
  assert.equal(err.apiCode, 'invalid_client')
  assert.equal(err.endpoint, 'POST /v2/oauth/token.json')
  assert.equal(typeof err.status, 'number')
  assert.ok(/** @type {number} */ (err.status) >= 400)
  assert.match(err.message, /invalid_client/)
  assert.equal(emu.counters().token, 1)
})

test('AUTH_INVALID_GRANT: wrong password, and a refused refresh token without a password', async (t) => {
  const emu = await emulator(t)
  const err = await rejects(emu.client({ password: 'wrong-password' }).agents(), 'AUTH_INVALID_GRANT')
  assert.equal(err.apiCode, 'invalid_grant')
  assert.equal(err.status, 400, 'the status the token endpoint answered with')
  assert.equal(err.endpoint, 'POST /v2/oauth/token.json')
  assert.equal(emu.counters().agents, 0)

  const saved = await emu.client().login()
  emu.expireTokens()
  emu.revokeRefreshTokens()
  const tokenOnly = new Client({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret, token: saved })
  const refused = await rejects(tokenOnly.agents(), 'AUTH_INVALID_GRANT')
  assert.equal(refused.apiCode, 'invalid_grant')
  assert.equal(refused.status, 400)
  assert.equal(refused.endpoint, 'POST /v2/oauth/token.json')
})

test('AUTH_ERROR: another OAuth code (a freshly issued token is rejected: invalid_token)', async (t) => {
  const emu = await emulator(t, { tokenTtl: 0 })
  const err = await rejects(emu.client().agents(), 'AUTH_ERROR')
  assert.equal(err.apiCode, 'invalid_token')
  assert.equal(err.status, 401)
  assert.equal(err.endpoint, 'GET /v2/agent/lists.json') // the call, not the token endpoint
  // Logged in, was refused, renewed once, was refused again: no endless loop.
  assert.equal(emu.counters().agents, 2)
})

test('API_ERROR: unknown task (404 with the service code), 500 not retried, 503 retried then reported', async (t) => {
  const emu = await emulator(t)
  const client = emu.client({ maxRetries: 1 })
  const notFound = await rejects(client.serviceReport(999999), 'API_ERROR')
  assert.equal(notFound.status, 404)
  assert.equal(notFound.apiCode, 404)
  assert.equal(notFound.endpoint, 'GET /v2/service/report/{task_id}.json')
  assert.match(notFound.message, /999999/)
  assert.equal(notFound.retryAfterMs, null)

  emu.setFaults({ next: ['error500', 'error500'] })
  const internalError = await rejects(client.agents(), 'API_ERROR')
  assert.equal(internalError.status, 500)
  assert.equal(internalError.endpoint, 'GET /v2/agent/lists.json')
  const agentsBefore = emu.counters().agents
  assert.equal(agentsBefore, 2, 'a 500 is retried (maxRetries: 1), then reported')

  emu.setFaults({ next: ['error503', 'error503', 'error503'], retryAfterSecs: 0 })
  const unavailable = await rejects(client.agents(), 'API_ERROR')
  assert.equal(unavailable.status, 503)
  assert.equal(unavailable.apiCode, 503)
  assert.equal(unavailable.retryAfterMs, 0)
  assert.equal(emu.counters().agents - agentsBefore, 2, 'one retry, as configured')
})

test('PARTIAL_CREATE: the failed line is named, every other line was created', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const unknownPlugin = { ...linuxTask('uses-a-missing-plugin'), use_agent: '1', plugin_task_uselist_id: ['999999'] }
  /** @type {import('monapi').ServerTaskInput} */
  const bad = /** @type {any} */ (unknownPlugin)
  const err = await rejects(client.createServerTasks([linuxTask('a'), bad, linuxTask('c')]), 'PARTIAL_CREATE')
  assert.equal(err.status, 400)
  assert.equal(err.errKey, '1')
  assert.equal(err.failedIndex, 1)
  assert.deepEqual(err.failedIndices, [1])
  assert.equal(err.submitted, 3)
  assert.equal(err.created, 2)
  assert.match(/** @type {string} */ (err.errContent), /999999/)
  assert.equal(err.endpoint, 'POST /v2/server/create.json')
  assert.match(err.message, /task 1 failed/)
  assert.deepEqual(
    emu.serverTasks().map((task) => task.server_name),
    ['a', 'c'],
  )
  assert.equal(emu.counters().create, 1, 'a create is never repeated')
})

test('INVALID_INPUT for a task: index, field and rule; nothing is sent', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  /** @type {Array<[object, string, RegExp]>} */
  const cases = [
    [{ ...linuxTask('b'), frequency: 0 }, 'frequency', /1 to 1440/],
    [{ ...linuxTask('b'), snmp_port: '70000' }, 'snmp_port', /1 to 65535/],
    [{ ...linuxTask('b'), private_ip: '10.0.0' }, 'private_ip', /IPv4 or IPv6/],
    [{ ...linuxTask('b'), task_type: ['cpu_windows'] }, 'task_type', /not allowed for linux/],
    [{ ...linuxTask('b'), server_systype: '7' }, 'server_systype', /0 \(linux\) or 1 \(windows\)/],
    [{ ...linuxTask('b'), alert_setting: { scope: '2' } }, 'alert_setting.organization', /required/],
    [{ server_name: 'b' }, 'private_ip', /required/],
  ]
  for (const [task, field, rule] of cases) {
    const err = await rejects(client.createServerTasks([linuxTask('a'), /** @type {any} */ (task)]), 'INVALID_INPUT')
    assert.equal(err.index, 1, `${field}: ${err.message}`)
    assert.equal(err.failedIndex, 1)
    assert.equal(err.field, field)
    assert.match(err.message, rule)
    assert.match(err.message, /task 1/)
  }
  const empty = await rejects(client.createServerTasks([]), 'INVALID_INPUT')
  assert.equal(empty.field, 'tasks')
  await rejects(client.createServerTasks(/** @type {any} */ ({ not: 'an array' })), 'INVALID_INPUT')
  // A bigint is a number: sent as its digits, checked by the core like any other value.
  const big = await rejects(
    client.createServerTasks([/** @type {any} */ ({ ...linuxTask('x'), frequency: 5000n, snmp_port: 0n })]),
    'INVALID_INPUT',
  )
  assert.deepEqual(
    big.errors?.map((p) => [p.index, p.field]),
    [
      [0, 'frequency'],
      [0, 'snmp_port'],
    ],
  )
  assert.match(big.message, /^invalid input: task 0: `frequency` must be a whole number of minutes from 1 to 1440, not 5000; 1 more problem: task 0: `snmp_port`/)
  const whole = await rejects(client.createServerTasks([linuxTask('a'), /** @type {any} */ (1n)]), 'INVALID_INPUT')
  assert.deepEqual([whole.index, whole.field], [1, ''])
  assert.match(whole.message, /task 1: must be an object with the fields of a server task/)
  assert.equal(emu.counters().total, 0, 'nothing may be sent')
})

test('INVALID_INPUT for parameters and options names the JavaScript name', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const field = async (/** @type {Promise<unknown>} */ p) => (await rejects(p, 'INVALID_INPUT')).field
  assert.equal(await field(client.serviceReport(10001, { startDate: '2026-02-30' })), 'startDate')
  assert.equal(await field(client.serviceReport(10001, { endDate: '2026/02/01' })), 'endDate')
  assert.equal(await field(client.serviceReport(10001, { startDate: '2026-02-03', endDate: '2026-02-01' })), 'startDate')
  assert.equal(await field(client.serviceReport(10001, { startDate: new Date(Number.NaN) })), 'startDate')
  assert.equal(await field(client.serviceReport(10001, { startDate: /** @type {any} */ (20260101) })), 'startDate')
  assert.equal(await field(client.serviceReport(-1)), 'taskId')
  assert.equal(await field(client.serviceReport('10001; DROP')), 'taskId')
  assert.equal(await field(client.siteReport(20001, { monitor: 1.5 })), 'monitor')
  assert.equal(await field(client.serviceTasks({ page: 0 })), 'page')
  assert.equal(await field(client.serviceTasks(/** @type {any} */ ({ pgae: 2 }))), 'options.pgae')
  const noToken = await rejects(emu.client().refresh(), 'INVALID_INPUT')
  assert.equal(noToken.field, 'token', 'the option that supplies a refresh token')
  assert.match(noToken.message, /`token` there is no token to refresh yet/)
  assert.doesNotMatch(noToken.message, /refresh_token/)
  assert.equal(emu.counters().total, 0)
  const agent = throws(() => emu.client({ userAgent: 'bad\nagent' }), 'INVALID_INPUT')
  assert.equal(agent.field, 'userAgent')
  assert.match(agent.message, /`userAgent` must be printable ASCII/)

  assert.equal(throws(() => emu.client({ passwordMd5: 'not-hex' }), 'INVALID_INPUT').field, 'passwordMd5')
  assert.equal(throws(() => emu.client({ timeoutMs: -5 }), 'INVALID_INPUT').field, 'timeoutMs')
  assert.equal(throws(() => emu.client({ maxRetries: 1.5 }), 'INVALID_INPUT').field, 'maxRetries')
  const misspelt = throws(() => emu.client(/** @type {any} */ ({ timeout: 5 })), 'INVALID_INPUT')
  assert.equal(misspelt.field, 'overrides.timeout')
  assert.match(misspelt.message, /`overrides.timeout` is not a known option; did you mean timeoutMs\? \(known: baseUrl, /)
  const pythonic = throws(() => emu.client(/** @type {any} */ ({ max_retries: 5 })), 'INVALID_INPUT')
  assert.match(pythonic.message, /is not a known option; did you mean maxRetries\? /)
  const far = await rejects(client.serviceTasks(/** @type {any} */ ({ colour: 2 })), 'INVALID_INPUT')
  assert.match(far.message, /`options.colour` is not a known option \(known: page, /)
  assert.equal(throws(() => emu.client({ baseUrl: 'ftp://x' }), 'INVALID_INPUT').field, 'baseUrl')
  assert.equal(throws(() => emu.client({ token: 'not json' }), 'INVALID_INPUT').field, 'token')
  assert.equal(throws(() => emu.client({ password: 'a', passwordMd5: '0'.repeat(32) }), 'INVALID_INPUT').field, 'passwordMd5')
  assert.equal(throws(() => emu.client(/** @type {any} */ ({ onToken: 'no' })), 'INVALID_INPUT').field, 'onToken')
  assert.equal(throws(() => emu.client(/** @type {any} */ ({ clientSecret: 42 })), 'INVALID_INPUT').field, 'clientSecret')
})

test('INVALID_INPUT for durations out of range (never a panic): the option and the rule', async (t) => {
  const emu = await emulator(t)
  const timeoutRule = /must be a positive number of milliseconds, at most 2147483647/
  for (const option of /** @type {const} */ (['timeoutMs', 'connectTimeoutMs'])) {
    for (const value of [1e23, 1e300, Number.MAX_VALUE, Infinity, 2 ** 31, 0, -1, Number.NaN]) {
      const err = throws(() => emu.client({ [option]: value }), 'INVALID_INPUT')
      assert.equal(err.field, option, `${option}: ${value}`)
      assert.match(err.message, timeoutRule)
      assert.ok(err.message.includes(`\`${option}\``))
    }
    const typed = throws(() => emu.client({ [option]: /** @type {any} */ ('100') }), 'INVALID_INPUT')
    assert.equal(typed.field, option)
    // The bounds themselves are accepted.
    emu.client({ [option]: 2 ** 31 - 1 })
    emu.client({ [option]: 0.5 })
  }
  const longest = emu.client({ timeoutMs: 2 ** 31 - 1, connectTimeoutMs: 2 ** 31 - 1 })
  assert.ok(Object.keys(await longest.agents()).length > 0, 'the longest timeouts work')
})

test('TIMEOUT: no complete answer in time', async (t) => {
  const emu = await emulator(t)
  const client = emu.client({ timeoutMs: 300, maxRetries: 0 })
  await client.login()
  emu.setLatency(2000)
  const started = Date.now()
  const err = await rejects(client.agents(), 'TIMEOUT')
  assert.ok(Date.now() - started < 1900, 'gave up at the timeout')
  assert.equal(err.endpoint, 'GET /v2/agent/lists.json')
  assert.equal(err.timeoutMs, 300)
  emu.setLatency(0)
})

test('CONNECTION: nothing listening, a dropped connection, a truncated body', async (t) => {
  const port = await new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
  const nobody = new Client({
    baseUrl: `http://127.0.0.1:${port}`,
    clientId: 'demo_id',
    clientSecret: 'demo_secret',
    username: 'test@example.com',
    password: '123456',
    maxRetries: 0,
  })
  const refused = await rejects(nobody.agents(), 'CONNECTION')
  assert.equal(refused.endpoint, 'POST /v2/oauth/token.json')

  const emu = await emulator(t)
  const client = emu.client({ maxRetries: 0 })
  await client.login()
  emu.setFaults({ next: ['dropConnection'] })
  assert.equal((await rejects(client.agents(), 'CONNECTION')).endpoint, 'GET /v2/agent/lists.json')
  emu.setFaults({ next: ['truncatedBody'] })
  assert.match((await rejects(client.agents(), 'CONNECTION')).message, /closed before the whole answer/)
})

test('DECODE: an HTML error page instead of JSON, retried, then reported', async (t) => {
  const emu = await emulator(t)
  const client = emu.client({ maxRetries: 1 })
  await client.login()
  emu.setFaults({ next: ['malformedBody'] })
  assert.ok(Object.keys(await client.agents()).length > 0)
  assert.equal(emu.counters().agents, 2, 'one error page, then the answer')
  emu.setFaults({ next: ['malformedBody', 'malformedBody'] })
  const err = await rejects(client.agents(), 'DECODE')
  assert.equal(err.endpoint, 'GET /v2/agent/lists.json')
  assert.match(err.message, /not JSON/)
  assert.equal(emu.counters().agents, 4)
})

test('INTERNAL: a Rust panic rejects the Promise (or throws), the process lives on', async () => {
  const { native, fromNative } = internal
  const sync = throws(() => {
    try {
      native.__panicSync()
    } catch (error) {
      throw fromNative(error)
    }
  }, 'INTERNAL')
  assert.match(sync.message, /deliberate panic \(sync\)/)
  for (const hook of ['__panicAsync', '__panicUnguarded']) {
    const promise = /** @type {Promise<unknown>} */ (native[hook]())
    const err = await rejects(promise.catch((error) => Promise.reject(fromNative(error))), 'INTERNAL')
    assert.match(err.message, /deliberate/)
  }
  // Still alive and working after three panics.
  assert.equal(typeof (await internal.native.demoAccount()), 'object')
})

test('no bare native error: every failure of every entry point is a MonapiError', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const failures = [
    () => client.serviceReport(/** @type {any} */ ({})),
    () => client.siteReport(20001, /** @type {any} */ ('today')),
    () => client.serviceTasks({ page: /** @type {any} */ ('2') }),
    () => client.createServerTasks([/** @type {any} */ (null)]),
    () => client.responseTimeDistribution(20001, { startDate: '2026-13-01' }),
    () => Promise.resolve().then(() => emu.setFaults(/** @type {any} */ ({ next: ['meteor'] }))),
    () => Promise.resolve().then(() => emu.setFaults(/** @type {any} */ ({ error500: 2 }))),
    () => Promise.resolve().then(() => emu.setTokenTtl(-1)),
    () => Promise.resolve().then(() => emu.setLatency(Number.NaN)),
    () => Promise.resolve().then(() => new (/** @type {any} */ (emu.constructor))()),
  ]
  for (const failure of failures) {
    await rejects(failure(), 'INVALID_INPUT')
  }
})

/**
 * A tiny service on 127.0.0.1 (port 0) for answers the emulator cannot give: the token
 * endpoint answers with a valid token, the service task list with `listBody`.
 *
 * @param {import('node:test').TestContext} t
 * @param {string} listBody
 */
async function oddService(t, listBody) {
  const token = { access_token: 'odd-access-token-3b9f2c', expires_in: 3600, token_type: 'bearer', scope: null, refresh_token: 'odd-refresh-token-8e1d7a' }
  const server = createHttpServer((request, response) => {
    request.resume()
    request.on('end', () => {
      const path = (request.url ?? '').split('?')[0]
      // The service is PHP: JSON under text/html.
      const headers = { 'content-type': 'text/html; charset=utf-8' }
      if (request.method === 'POST' && path === '/v2/oauth/token.json') {
        response.writeHead(200, headers).end(JSON.stringify(token))
      } else if (request.method === 'GET' && path === '/v2/service/lists.json') {
        response.writeHead(200, headers).end(listBody)
      } else {
        response.writeHead(404, headers).end('{"code":404,"msg":"not here"}')
      }
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(() => resolve(undefined)))
  })
  const address = server.address()
  assert.ok(address && typeof address === 'object')
  const client = new Client({
    baseUrl: `http://127.0.0.1:${address.port}`,
    clientId: 'odd_id',
    clientSecret: 'odd-client-secret',
    username: 'odd@example.com',
    password: 'odd-password',
    maxRetries: 0,
    timeoutMs: 5000,
  })
  return { client, secrets: [token.access_token, token.refresh_token, 'odd-client-secret', 'odd-password'] }
}

/** @param {MonapiError} err */
function shown(err) {
  return [err.message, String(err.stack), util.inspect(err, { showHidden: true, depth: Infinity }), JSON.stringify(err)].join('\n')
}

test('DECODE: a page of the task list that is neither a list nor empty, from the page and the iterator alike', async (t) => {
  // Valid JSON, but an object; it even holds the access token, which must not be echoed.
  const body = '{"total":"1","list":[{"task_id":"10001"}],"echo":"odd-access-token-3b9f2c"}'
  const { client, secrets } = await oddService(t, body)
  const iterate = async () => {
    for await (const _ of client.iterServiceTasks()) assert.fail('no task can come out of a page that is not an array')
  }
  for (const err of [await rejects(client.serviceTasks(), 'DECODE'), await rejects(iterate(), 'DECODE')]) {
    assert.equal(err.endpoint, 'GET /v2/service/lists.json')
    assert.match(err.message, /^GET \/v2\/service\/lists\.json: could not decode the answer: expected a list of tasks, got an object that is not empty /)
    assertNoSecret(shown(err), secrets)
  }
})

test('DECODE: a body that starts like JSON but is not JSON names neither the body nor a token', async (t) => {
  const bodies = [
    '[{"task_id":"10001","note":"odd-access-token-3b9f2c"},,]',
    '{"list": [odd-access-token-3b9f2c]}',
    '[{"task_id":"10001","task_name":"odd-refresh-token-8e1d7a"',
  ]
  for (const body of bodies) {
    const { client, secrets } = await oddService(t, body)
    const direct = await rejects(client.serviceTasks(), 'DECODE')
    const iterate = async () => {
      for await (const _ of client.iterServiceTasks()) assert.fail('nothing decodes')
    }
    const viaIterator = await rejects(iterate(), 'DECODE')
    for (const err of [direct, viaIterator]) {
      assert.equal(err.endpoint, 'GET /v2/service/lists.json')
      // A list that does not parse is JSON.parse's to refuse (which never quotes the body); an
      // object that is not empty is the core's, with the start of the body, secrets removed.
      if (body.startsWith('[')) {
        assert.match(err.message, /^GET \/v2\/service\/lists\.json: could not decode the answer: invalid JSON( at position \d+)?$/)
        assertNoSecret(shown(err), [...secrets, 'task_id', '10001'])
      } else {
        assert.match(err.message, /could not decode the answer: expected a list of tasks, got an object that is not empty/)
        assertNoSecret(shown(err), secrets)
      }
    }
  }
})
