// @ts-check
// Tokens: the getter, resuming a saved token, refresh before expiry and after rejection,
// fallback to the password, one token request under heavy concurrency, onToken, and token
// objects that stay plain data (JSON, spreading, deep equality) while not printing secrets.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import util from 'node:util'

import { Client } from 'monapi'

import { emulator, eventually, rejects, runNode, tokensFromEverySource } from './helpers.mjs'

test('a saved token (as JSON) is resumed without logging in again', async (t) => {
  const emu = await emulator(t)
  const first = emu.client()
  const saved = JSON.stringify(await first.login())
  const resumed = emu.client({ token: JSON.parse(saved) })
  assert.deepEqual(resumed.token, JSON.parse(saved), 'the getter shows the saved token before any call')
  await resumed.agents()
  assert.equal(emu.counters().token, 1, 'only the first client logged in')
  // The JSON text itself is accepted too, and a token alone (no password) is enough.
  const tokenOnly = new Client({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret, token: saved })
  assert.equal((await tokenOnly.serviceTasks()).length, 50)
  assert.equal(emu.counters().token, 1)
})

test('a token saved straight from the service (no expires_at, expires_in a string) resumes', async (t) => {
  const emu = await emulator(t)
  const issued = await emu.client().login()
  /** @type {import('monapi').SavedToken} */
  const asSent = {
    access_token: issued.access_token,
    expires_in: String(issued.expires_in),
    token_type: 'bearer',
    scope: null,
    refresh_token: issued.refresh_token,
  }
  const client = new Client({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret, token: asSent })
  assert.equal(client.token?.expires_at, null, 'no expiry known')
  assert.equal(client.token?.access_token, issued.access_token)
  assert.ok(Object.keys(await client.agents()).length > 0)
  assert.equal(emu.counters().token, 1, 'used as it is, no new token')
})

test('token objects from every source are plain data: JSON, spreading, deepEqual, the token option', async (t) => {
  const { emu, fromLogin, fromRefresh, fromGetter, seen } = await tokensFromEverySource(t)
  const sources = { login: fromLogin, refresh: fromRefresh, getter: fromGetter, onToken: seen[1] }
  const keys = ['access_token', 'expires_at', 'expires_in', 'refresh_token', 'scope', 'token_type']
  for (const [source, token] of Object.entries(sources)) {
    assert.equal(Object.getPrototypeOf(token), Object.prototype, source)
    assert.deepEqual(Object.keys(token).sort(), keys, source)
    assert.equal(Object.getOwnPropertyDescriptor(token, util.inspect.custom)?.enumerable, false, source)
    const json = JSON.parse(JSON.stringify(token))
    assert.deepEqual(Object.keys(json).sort(), keys, source)
    assert.equal(json.access_token, token.access_token, `${source}: JSON keeps the secrets, to save them`)
    assert.equal(json.refresh_token, token.refresh_token, source)
    assert.deepEqual(token, json, `${source}: deep-equal to its JSON round trip`)
    assert.deepEqual({ ...token }, json, `${source}: spreading copies the fields and nothing else`)
    assert.deepEqual(structuredClone(token), json, source)
  }
  assert.deepEqual(fromRefresh, fromGetter)
  assert.deepEqual(seen[1], fromGetter)
  assert.deepEqual(seen[0], fromLogin)
  assert.notDeepEqual(fromLogin, fromRefresh)

  // Each one goes back in as the `token` option (object, spread copy, JSON text).
  const before = emu.counters().token
  for (const token of [fromGetter, { ...seen[1] }, JSON.stringify(fromRefresh)]) {
    const resumed = new Client({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret, token })
    assert.deepEqual(resumed.token, fromGetter)
    assert.equal((await resumed.serviceTasks()).length, 50)
  }
  assert.equal(emu.counters().token, before, 'resumed without a token request')
})

test('a token about to expire is refreshed before the call', async (t) => {
  const emu = await emulator(t, { tokenTtl: 1 })
  const client = emu.client()
  const first = await client.login()
  // Renewed tokens live an hour: expires_at is stamped in whole seconds, so a renewed
  // one-second token could look stale again within milliseconds.
  emu.setTokenTtl(3600)
  await new Promise((r) => setTimeout(r, 1100))
  await client.agents()
  const counters = emu.counters()
  assert.deepEqual([counters.token_password, counters.token_refresh, counters.agents], [1, 1, 1])
  assert.notEqual(client.token?.access_token, first.access_token)
})

test('a token the service rejects is refreshed once and the call repeated once', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  await client.login()
  emu.expireTokens()
  assert.ok(Object.keys(await client.agents()).length > 0)
  const counters = emu.counters()
  assert.deepEqual([counters.token_refresh, counters.agents], [1, 2])
})

test('a refused refresh token falls back to the password, once', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  await client.login()
  emu.expireTokens()
  emu.revokeRefreshTokens()
  await client.serviceTasks()
  const counters = emu.counters()
  assert.deepEqual([counters.token_password, counters.token_refresh], [2, 1])
})

test('refresh() keeps the refresh token the service did not replace', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const first = await client.login()
  const second = await client.refresh()
  assert.notEqual(second.access_token, first.access_token)
  assert.equal(second.refresh_token, first.refresh_token)
  assert.deepEqual(client.token, second)
  await client.refresh() // the same refresh token, still valid
  assert.deepEqual([emu.counters().token_password, emu.counters().token_refresh], [1, 2])
})

test('with a rotating service, refresh() gets a new refresh token and the old one is refused', async (t) => {
  const emu = await emulator(t, { quirks: { rotatingRefreshTokens: true } })
  const client = emu.client()
  const first = await client.login()
  const second = await client.refresh()
  assert.notEqual(second.refresh_token, first.refresh_token)
  const stale = new Client({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret, token: first })
  await rejects(stale.refresh(), 'AUTH_INVALID_GRANT')
})

/** A client resumed from a saved token, without a username or password. */
function resumed(/** @type {import('monapi').Emulator} */ emu, /** @type {import('monapi').Token} */ token) {
  return new Client({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret, token: JSON.parse(JSON.stringify(token)) })
}

test('a resumed client without a password outlives every expiry', async (t) => {
  const emu = await emulator(t)
  const client = resumed(emu, await emu.client().login())
  for (let expiry = 0; expiry < 3; expiry++) {
    emu.expireTokens()
    await client.agents()
  }
  assert.deepEqual([emu.counters().token_password, emu.counters().token_refresh], [1, 3])
})

test('what onToken receives keeps the refresh token, and resumes', async (t) => {
  const emu = await emulator(t)
  /** @type {import('monapi').Token[]} */
  const seen = []
  const client = emu.client({ onToken: (token) => void seen.push(token) })
  const first = await client.login()
  emu.expireTokens()
  await client.agents()
  await client.refresh()
  await eventually(() => seen.length === 3)
  assert.ok(first.refresh_token)
  for (const token of seen) assert.equal(token.refresh_token, first.refresh_token)
  assert.equal(client.token?.refresh_token, first.refresh_token)
  const again = resumed(emu, seen[2])
  emu.expireTokens()
  await again.agents()
})

test('an expired refresh token: one password login, or AUTH_INVALID_GRANT saying what to do', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const saved = await client.login()
  emu.expireTokens()
  emu.expireRefreshTokens()
  await client.agents()
  assert.deepEqual([emu.counters().token_password, emu.counters().token_refresh], [2, 1])
  emu.expireTokens()
  emu.expireRefreshTokens()
  const error = await rejects(resumed(emu, saved).agents(), 'AUTH_INVALID_GRANT')
  assert.match(error.message, /expired or was refused/)
  assert.match(error.message, /Refresh token has expired/)
  assert.match(error.message, /username and password/)
})

test('refresh tokens live as long as the emulator says', async (t) => {
  const emu = await emulator(t, { refreshTokenTtl: 1 })
  const client = resumed(emu, await emu.client().login())
  await new Promise((r) => setTimeout(r, 1100))
  await rejects(client.refresh(), 'AUTH_INVALID_GRANT')
})

test('1,000 concurrent calls after a server-side expiry share one token request', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  await client.login()
  emu.expireTokens()
  const before = emu.counters()
  const results = await Promise.all(Array.from({ length: 1000 }, () => client.serviceTasks()))
  assert.equal(results.length, 1000)
  for (const tasks of results) assert.equal(tasks.length, 50)
  const after = emu.counters()
  assert.equal(after.token - before.token, 1, 'exactly one token request')
  assert.equal(after.token_refresh - before.token_refresh, 1)
  assert.ok(after.service_tasks - before.service_tasks >= 1000)
})

test('1,000 concurrent calls when the client sees its token expired share one token request', async (t) => {
  const emu = await emulator(t)
  const issued = await emu.client().login()
  // The service still takes this access token; only the client knows it has expired.
  const expired = { ...issued, expires_at: Math.floor(Date.now() / 1000) - 60 }
  const client = emu.client({ token: expired })
  const before = emu.counters()
  const results = await Promise.all(Array.from({ length: 1000 }, () => client.serviceTasks()))
  for (const tasks of results) assert.equal(tasks.length, 50)
  const after = emu.counters()
  assert.equal(after.token - before.token, 1, 'exactly one token request')
  assert.equal(after.token_refresh - before.token_refresh, 1, 'a refresh')
  assert.equal(after.service_tasks - before.service_tasks, 1000, 'no call was sent with the stale token and repeated')
  assert.notEqual(client.token?.access_token, issued.access_token)
  assert.ok(/** @type {number} */ (client.token?.expires_at) > Date.now() / 1000)

  // The same with a lifetime that runs out while the client waits (tokenTtl: 1). The renewed
  // token lives an hour, so that however slow the 1,000 calls are, one renewal is right.
  const short = await emulator(t, { tokenTtl: 1 })
  const waiting = short.client()
  await waiting.login()
  short.setTokenTtl(3600)
  await new Promise((r) => setTimeout(r, 1100))
  const shortBefore = short.counters()
  await Promise.all(Array.from({ length: 1000 }, () => waiting.serviceTasks()))
  const shortAfter = short.counters()
  assert.equal(shortAfter.token - shortBefore.token, 1, 'exactly one token request')
  assert.equal(shortAfter.service_tasks - shortBefore.service_tasks, 1000)
  assert.equal(waiting.token?.expires_in, 3600)
})

test('1,000 concurrent first calls log in once', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => client.siteReport(20001 + (i % 5), { monitor: 0 })))
  for (const report of results) assert.deepEqual(Object.keys(report), ['0'])
  const counters = emu.counters()
  assert.deepEqual([counters.token, counters.site_report], [1, 1000])
})

test('onToken is called with every new token: login, renewal, refresh', async (t) => {
  const emu = await emulator(t)
  /** @type {import('monapi').Token[]} */
  const seen = []
  const client = emu.client({ onToken: (token) => void seen.push(token) })
  await client.agents()
  await eventually(() => seen.length === 1)
  emu.expireTokens()
  await client.agents()
  await client.refresh()
  await eventually(() => seen.length === 3)
  assert.deepEqual(seen[2], client.token)
  assert.equal(new Set(seen.map((token) => token.access_token)).size, 3)
  assert.equal(seen[0].token_type, 'bearer')
})

test('onToken is not called after close(), even for a login that was in flight', async (t) => {
  // The answer takes a second: close() comes long before the token arrives.
  const emu = await emulator(t, { latencyMs: 1000 })
  /** @param {boolean} close */
  const loginWhileClosing = async (close) => {
    /** @type {import('monapi').Token[]} */
    const seen = []
    const client = emu.client({ onToken: (token) => void seen.push(token) })
    const login = client.login()
    await new Promise((r) => setTimeout(r, 100)) // the request is at the (slow) service now
    if (close) await client.close()
    const token = await login // calls in flight finish
    assert.equal(token.token_type, 'bearer')
    await new Promise((r) => setTimeout(r, 300)) // time for a queued callback to run
    return seen.length
  }
  assert.equal(await loginWhileClosing(false), 1, 'control: without close() the callback runs')
  assert.equal(await loginWhileClosing(true), 0, 'after close() it does not')
  assert.equal(emu.counters().token_password, 2, 'both logins reached the service')
})

test('a script that logs in and ends at once still gets its onToken callback', async () => {
  const script = `
    const { Emulator } = require('monapi')
    ;(async () => {
      const emu = await Emulator.start()
      const client = emu.client({
        onToken: (token) => console.log('onToken', token.token_type, token.expires_in, typeof token.access_token),
      })
      await client.login()
      console.log('logged in')
      // nothing else: no close(), no stop(), no timer; the script ends here
    })()
  `
  // Several runs at once: the callback must not depend on luck in the exit race.
  const runs = await Promise.all(Array.from({ length: 4 }, () => runNode(['-e', script], { timeoutMs: 15000 })))
  for (const result of runs) {
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.signal, null)
    assert.match(result.stdout, /^onToken bearer 3600 string$/m, result.stdout)
    assert.match(result.stdout, /^logged in$/m)
  }
})

test('an onToken callback that throws becomes a warning, not a crash', async (t) => {
  const emu = await emulator(t)
  /** @type {Error[]} */
  const warnings = []
  /** @param {Error} warning */
  const onWarning = (warning) => void warnings.push(warning)
  process.on('warning', onWarning)
  t.after(() => void process.off('warning', onWarning))
  const client = emu.client({
    onToken: () => {
      throw new Error('disk full')
    },
  })
  await client.login()
  await eventually(() => warnings.some((w) => /onToken callback failed: disk full/.test(w.message)))
  assert.equal(Object.keys(await client.agents()).length > 0, true)
})

test('neither onToken nor a forgotten emulator keeps the process alive', async () => {
  const script = `
    const { Emulator } = require('monapi')
    ;(async () => {
      const emu = await Emulator.start()
      const client = emu.client({ onToken: () => {} })
      await client.login()
      await client.agents()
      console.log('done')
      // neither client.close() nor emu.stop(): the process must still end by itself
    })()
  `
  const result = await runNode(['-e', script], { timeoutMs: 15000 })
  assert.equal(result.signal, null, 'the child was not killed by the timeout')
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stdout, /done/)
  assert.ok(result.ms < 10000, `exited after ${result.ms} ms`)
})
