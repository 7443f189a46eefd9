// @ts-check
// No secret (client secret, password, its MD5, access and refresh tokens, an SNMP pass
// phrase, a service task's password) in any error message, error inspection, or inspection of a client or emulator.

import assert from 'node:assert/strict'
import { Console } from 'node:console'
import { PassThrough } from 'node:stream'
import { test } from 'node:test'
import util from 'node:util'

import { Client, MonapiError } from 'monapi'

import { DEMO_SECRETS, PASSWORD_MD5, assertNoSecret, emulator, eventually, linuxTask, tokensFromEverySource } from './helpers.mjs'

/** Everything a user could print about a value. */
function printed(/** @type {unknown} */ value) {
  return [
    String(value),
    util.inspect(value),
    util.inspect(value, { showHidden: true, depth: Infinity, getters: true }),
    util.format('%o', value),
    JSON.stringify(value) ?? '',
    value instanceof Error ? `${value.message}\n${value.stack}` : '',
  ].join('\n')
}

test('no secret in errors or in the inspection of clients and emulators', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const token = await client.login()
  const secrets = [...DEMO_SECRETS, token.access_token, /** @type {string} */ (token.refresh_token), 's3cret-phrase', 'db-s3cret-pw', 'wrong-secret', 'wrong-password']
  /** @type {string[]} */
  const texts = [printed(client), printed(emu)]
  /** @param {Promise<unknown> | (() => unknown)} failing */
  const collect = async (failing) => {
    try {
      await (typeof failing === 'function' ? failing() : failing)
    } catch (error) {
      assert.ok(error instanceof MonapiError, String(error))
      texts.push(printed(error))
      return
    }
    assert.fail('expected a failure')
  }

  await collect(emu.client({ clientSecret: 'wrong-secret' }).login())
  await collect(emu.client({ password: 'wrong-password' }).login())
  await collect(client.serviceReport(424242))
  /** @type {import('monapi').ServerTaskInput} */
  const badTask = { ...linuxTask('x'), snmp_v: '1', snmp_user: 'u', snmp_pass: 's3cret-phrase', frequency: '0' }
  await collect(client.createServerTasks([badTask]))
  // A service task's password: refused by the core, then by the service.
  /** @type {import('monapi').ServiceTaskInput} */
  const database = { task_name: 'db', task_type: 'mysql', ip: '10.0.0.7', port: 3306, user: 'monitor', password: 'db-s3cret-pw' }
  await collect(client.createServiceTasks([{ ...database, port: 0 }]))
  await collect(client.createServiceTasks([{ ...database, use_agent: 1, plugin_task_uselist_id: '999999' }]))
  for (const fault of /** @type {const} */ (['malformedBody', 'truncatedBody', 'dropConnection', 'error500'])) {
    emu.setFaults({ next: [fault, fault, fault] }) // the call and its two retries
    await collect(client.agents())
  }
  emu.setFaults({})
  // Options rejected for their form must not echo the value either.
  await collect(() => emu.client({ passwordMd5: 'wrong-secret-not-hex' }))
  await collect(() => emu.client({ token: `{"access_token": "${token.access_token}"` }))
  await collect(() => emu.client({ clientSecret: /** @type {any} */ (['wrong-secret']) }))
  emu.setLatency(2000)
  await collect(emu.client({ timeoutMs: 200, maxRetries: 0, token }).agents())
  emu.setLatency(0)
  emu.expireTokens()
  emu.revokeRefreshTokens()
  const tokenOnly = new Client({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret, token })
  texts.push(printed(tokenOnly))
  await collect(tokenOnly.agents())
  texts.push(printed(tokenOnly), printed(client))

  assert.ok(texts.length >= 18)
  for (const text of texts) assertNoSecret(text, secrets)
})

test('a client built with a password MD5 or a saved token shows neither', async (t) => {
  const emu = await emulator(t)
  const token = await emu.client().login()
  const md5 = emu.client({ passwordMd5: PASSWORD_MD5.toUpperCase() })
  await md5.login()
  const resumed = emu.client({ token })
  const text = [printed(md5), printed(resumed), printed(md5.token === null)].join('\n')
  assertNoSecret(text, [PASSWORD_MD5, PASSWORD_MD5.toUpperCase(), token.access_token, /** @type {string} */ (token.refresh_token)])
  assert.match(util.inspect(md5), /baseUrl: 'http:\/\/127\.0\.0\.1:\d+'/)
  assert.match(util.inspect(md5), /token: '\[redacted, expires /)
})

/**
 * What `console.log` and `console.error` write for `value`. (Not `console.dir`: it bypasses
 * custom inspection by design, like `util.inspect(value, { customInspect: false })`.)
 */
function logged(/** @type {unknown} */ value) {
  const out = new PassThrough()
  let text = ''
  out.on('data', (chunk) => (text += chunk))
  const console = new Console({ stdout: out, stderr: out })
  console.log(value)
  console.log('%o %O %s', value, value, value)
  console.error({ nested: [value] })
  return text
}

test('tokens from login(), refresh(), client.token and onToken print only their type and expiry', async (t) => {
  const { emu, fromLogin, fromRefresh, fromGetter, seen } = await tokensFromEverySource(t)
  // A saved token without expires_at, resumed: the getter shows it without an expiry.
  const { expires_at: _, ...asSent } = fromRefresh
  const resumed = emu.client({ token: asSent }).token
  assert.ok(resumed)
  const sources = { login: fromLogin, refresh: fromRefresh, getter: fromGetter, onToken: seen[0], onTokenRefresh: seen[1], resumed }
  const secrets = [fromLogin.access_token, fromRefresh.access_token]
  for (const token of [fromLogin, fromRefresh]) secrets.push(/** @type {string} */ (token.refresh_token))

  await new Promise((r) => setTimeout(r, 50))
  for (const [source, token] of Object.entries(sources)) {
    // printed() holds JSON.stringify(token), which keeps this token's own secrets (to save it).
    const text = `${printed(token)}\n${logged(token)}`
    // The inspection is not the plain object's default one: it would hold the secrets.
    assert.ok(util.inspect(token, { customInspect: false }).includes(token.access_token), `${source}: a real token`)
    assertNoSecret(text, secrets.filter((secret) => !JSON.stringify(token).includes(secret)))
    const shown = util.inspect(token)
    assert.match(shown, /^Token \{/, source)
    assert.match(shown, /token_type: 'bearer'/, source)
    assert.match(shown, /expires_in: 3600/, source)
    assert.match(shown, /access_token: '\[redacted\]'/, source)
    assert.match(shown, /refresh_token: '\[redacted\]'/, source)
    const everyInspection = [
      shown,
      logged(token),
      util.format('%o', token),
      util.inspect(token, { showHidden: true, depth: Infinity, getters: true }),
      util.inspect([{ token }], { depth: Infinity }),
      String(token),
    ]
    for (const inspected of everyInspection) {
      assert.ok(!inspected.includes(token.access_token), `${source}: access token printed: ${inspected}`)
      assert.ok(!inspected.includes(/** @type {string} */ (token.refresh_token)), `${source}: refresh token printed`)
    }
    if (token.expires_at === null) {
      assert.equal(source, 'resumed')
      assert.match(shown, /expires_at: null/)
    } else {
      assert.match(shown, new RegExp(`expires_at: ${token.expires_at}\\b`), source)
      assert.ok(shown.includes(`expires: '${new Date(token.expires_at * 1000).toISOString()}'`), source)
    }
  }
})
