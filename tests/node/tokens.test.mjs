// @ts-check
// Tokens: the getter, resuming a saved token, refresh before expiry and after rejection,
// fallback to the password, one token request under heavy concurrency, onToken.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Client } from 'monapi'

import { emulator, eventually, rejects, runNode } from './helpers.mjs'

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

test('a token about to expire is refreshed before the call', async (t) => {
  const emu = await emulator(t, { tokenTtl: 1 })
  const client = emu.client()
  const first = await client.login()
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

test('refresh() rotates both tokens; the old refresh token is refused', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const first = await client.login()
  const second = await client.refresh()
  assert.notEqual(second.access_token, first.access_token)
  assert.notEqual(second.refresh_token, first.refresh_token)
  assert.deepEqual(client.token, second)
  const stale = new Client({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret, token: first })
  await rejects(stale.refresh(), 'AUTH_INVALID_GRANT')
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
  await client.close()
  assert.equal(seen.length, 3)
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
