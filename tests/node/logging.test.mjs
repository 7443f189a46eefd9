// @ts-check
// logLevel and logger: the core's events (requests, retries, token renewals) reach the
// client's logger at its level, never with a secret; 'off' and the default 'warn' see none of
// the debug events; MONAPI_LOG sets the default.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Client } from 'monapi'

import { DEMO_SECRETS, assertNoSecret, emulator, eventually, runNode, throws } from './helpers.mjs'

/** A logger that keeps every line with its level. */
function capture() {
  /** @type {Array<[string, string]>} */
  const lines = []
  /** @param {string} level */
  const method = (level) => (/** @type {string} */ message) => void lines.push([level, message])
  return {
    lines,
    logger: { error: method('error'), warn: method('warn'), info: method('info'), debug: method('debug') },
  }
}

test("logLevel 'debug' sees the requests, a retry and a token renewal, and no secret", async (t) => {
  const emu = await emulator(t)
  const { lines, logger } = capture()
  const client = emu.client({ logLevel: 'debug', logger })
  t.after(() => client.close())
  const first = await client.login()
  emu.setFaults({ next: ['error503'] })
  await client.agents()
  emu.expireTokens()
  await client.agents()
  const fresh = client.token
  assert.ok(fresh)
  const text = () => lines.map(([, message]) => message).join('\n')
  await eventually(() => text().includes('refresh grant'))
  assert.ok(lines.every(([level, message]) => level === 'debug' && message.startsWith('monapi: ')))
  assert.match(text(), /password grant/)
  assert.match(text(), /GET \/v2\/agent\/lists\.json/)
  assert.match(text(), /retrying/)
  const tokens = [first.access_token, String(first.refresh_token), fresh.access_token, String(fresh.refresh_token)]
  assertNoSecret(text(), [...tokens, ...DEMO_SECRETS])
  assert.doesNotMatch(text(), /access_token=/)
})

test("'off', and the default 'warn', see none of the debug events", async (t) => {
  const emu = await emulator(t)
  for (const logLevel of ['off', undefined]) {
    const { lines, logger } = capture()
    const client = emu.client({ logLevel: /** @type {any} */ (logLevel), logger })
    await client.login()
    await client.tables.serviceTasks()
    await client.close()
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(lines, [], `logLevel ${logLevel}`)
  }
})

test('each client logs to its own logger', async (t) => {
  const emu = await emulator(t)
  const loud = capture()
  const quiet = capture()
  const a = emu.client({ logLevel: 'debug', logger: loud.logger })
  const b = emu.client({ logLevel: 'error', logger: quiet.logger })
  t.after(() => Promise.all([a.close(), b.close()]))
  await Promise.all([a.agents(), b.agents(), b.agents()])
  await eventually(() => loud.lines.length > 0)
  await new Promise((resolve) => setTimeout(resolve, 50))
  assert.deepEqual(quiet.lines, [])
})

test('MONAPI_LOG sets the default level; bad levels and loggers are INVALID_INPUT naming them', async (t) => {
  const emu = await emulator(t)
  const { lines, logger } = capture()
  process.env.MONAPI_LOG = 'debug'
  try {
    const client = emu.client({ logger })
    await client.agents()
    await client.close()
    await eventually(() => lines.length > 0)
    process.env.MONAPI_LOG = 'loud'
    const env = throws(() => emu.client(), 'INVALID_INPUT')
    assert.equal(env.field, 'MONAPI_LOG')
    assert.match(env.message, /must be one of off, error, warn, info, debug/)
  } finally {
    delete process.env.MONAPI_LOG
  }
  const level = throws(() => emu.client({ logLevel: /** @type {any} */ ('trace') }), 'INVALID_INPUT')
  assert.equal(level.field, 'logLevel')
  const bad = throws(() => new Client({ baseUrl: emu.baseUrl, logger: /** @type {any} */ ({ log() {} }) }), 'INVALID_INPUT')
  assert.equal(bad.field, 'logger')
})

test('a logging client never keeps the process alive, and a throwing logger breaks nothing', async (t) => {
  const script = `
    const { Emulator } = require('monapi')
    ;(async () => {
      const emu = await Emulator.start()
      const logger = { error() {}, warn() {}, info() {}, debug() { throw new Error('logger down') } }
      const client = emu.client({ logLevel: 'debug', logger })
      await client.agents()
      console.log('done')
      await emu.stop()
    })()
  `
  const result = await runNode(['-e', script], { timeoutMs: 20000 })
  assert.equal(result.signal, null, result.stderr)
  assert.equal(result.code, 0, result.stderr)
  assert.equal(result.stdout.trim(), 'done')
  t.diagnostic(`exited after ${result.ms} ms`)
})
