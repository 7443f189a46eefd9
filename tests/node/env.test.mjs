// @ts-check
// Options fall back to the MONAPI_* environment variables; explicit options win; the
// quickstart runs from the environment alone.

import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

import { Client } from 'monapi'

import { ROOT, demoEnv, emulator, rejects, runNode, throws } from './helpers.mjs'

/**
 * Sets MONAPI_* variables for one test (the native client reads the real environment).
 *
 * @param {import('node:test').TestContext} t
 * @param {Record<string, string>} vars
 */
function withEnv(t, vars) {
  for (const [name, value] of Object.entries(vars)) process.env[name] = value
  t.after(() => {
    for (const name of Object.keys(vars)) delete process.env[name]
  })
}

test('new Client() takes everything from MONAPI_* variables', async (t) => {
  const emu = await emulator(t)
  withEnv(t, {
    MONAPI_BASE_URL: emu.baseUrl,
    MONAPI_CLIENT_ID: emu.clientId,
    MONAPI_CLIENT_SECRET: emu.clientSecret,
    MONAPI_USERNAME: emu.username,
    MONAPI_PASSWORD: emu.password,
  })
  const client = new Client()
  assert.equal(client.baseUrl, emu.baseUrl)
  assert.equal((await client.serviceTasks()).length, 50)
})

test('explicit options win over the environment', async (t) => {
  const emu = await emulator(t)
  withEnv(t, {
    MONAPI_BASE_URL: 'http://127.0.0.1:9',
    MONAPI_CLIENT_ID: emu.clientId,
    MONAPI_CLIENT_SECRET: 'wrong-secret',
    MONAPI_USERNAME: emu.username,
    MONAPI_PASSWORD: 'wrong-password',
  })
  const fromEnv = new Client({ baseUrl: emu.baseUrl })
  await rejects(fromEnv.login(), 'AUTH_INVALID_CLIENT')
  const explicit = new Client({ baseUrl: emu.baseUrl, clientSecret: emu.clientSecret, password: emu.password })
  await explicit.login()
  const md5 = new Client({ baseUrl: emu.baseUrl, clientSecret: emu.clientSecret, passwordMd5: 'e10adc3949ba59abbe56e057f20f883e' })
  await md5.login()
})

/**
 * A directory of the test's own with `files` in it, removed after the test.
 *
 * @param {import('node:test').TestContext} t
 * @param {Record<string, string>} files
 */
function secretsDir(t, files) {
  const dir = mkdtempSync(join(tmpdir(), 'monapi-secrets-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

test('secrets come from files: options, MONAPI_*_FILE and systemd credentials', async (t) => {
  const emu = await emulator(t)
  const dir = secretsDir(t, {
    password: `${emu.password}\n`,
    secret: `${emu.clientSecret}\n`,
    'monapi.password': `${emu.password}\n`,
    'monapi.client_secret': `${emu.clientSecret}\n`,
  })
  const account = { baseUrl: emu.baseUrl, clientId: emu.clientId, username: emu.username }
  const fromFiles = new Client({ ...account, passwordFile: join(dir, 'password'), clientSecretFile: join(dir, 'secret') })
  await fromFiles.login()

  withEnv(t, { MONAPI_PASSWORD_FILE: join(dir, 'password'), MONAPI_CLIENT_SECRET_FILE: join(dir, 'secret') })
  await new Client(account).login()
  delete process.env.MONAPI_PASSWORD_FILE
  delete process.env.MONAPI_CLIENT_SECRET_FILE

  withEnv(t, { CREDENTIALS_DIRECTORY: dir })
  await new Client(account).login()

  const both = throws(() => new Client({ ...account, password: 'x', passwordFile: join(dir, 'password') }), 'INVALID_INPUT')
  assert.equal(both.field, 'passwordFile')
  const missing = throws(() => new Client({ ...account, passwordFile: join(dir, 'nowhere') }), 'INVALID_INPUT')
  assert.equal(missing.field, 'passwordFile')
  assert.match(missing.message, /nowhere/)
})

test('every setting reads its variable, in the units of the command line', async (t) => {
  const emu = await emulator(t)
  withEnv(t, { ...demoEnv(emu), MONAPI_TIMEZONE: 'UTC', MONAPI_MAX_RESPONSE_BYTES: '4096' })
  const client = new Client()
  assert.equal(client.timezone, '+00:00')
  await client.login()
  const tooBig = await rejects(client.serviceReport(10001), 'DECODE')
  assert.match(tooBig.message, /maxResponseBytes/)
  withEnv(t, { MONAPI_TIMEOUT: 'soon' })
  const err = throws(() => new Client(), 'INVALID_INPUT')
  assert.equal(err.field, 'MONAPI_TIMEOUT')
  assert.match(err.message, /seconds/)
})

test('a missing value names the option and its variable', () => {
  const err = throws(() => new Client({ clientId: 'x', clientSecret: 'y', username: 'u', password: 'p' }), 'INVALID_INPUT')
  assert.equal(err.field, 'baseUrl')
  assert.match(err.message, /MONAPI_BASE_URL/)
  const noSecret = throws(() => new Client({ baseUrl: 'http://127.0.0.1:9', clientId: 'x' }), 'INVALID_INPUT')
  assert.equal(noSecret.field, 'clientSecret')
  assert.match(noSecret.message, /MONAPI_CLIENT_SECRET/)
  const noPassword = throws(() => new Client({ baseUrl: 'http://127.0.0.1:9', clientId: 'x', clientSecret: 'y', username: 'u' }), 'INVALID_INPUT')
  assert.equal(noPassword.field, 'password')
})

test('the quickstart runs from the environment alone and prints every summary', async (t) => {
  const emu = await emulator(t)
  const result = await runNode([join(ROOT, 'examples', 'quickstart.mjs')], {
    env: demoEnv(emu),
  })
  assert.equal(result.code, 0, result.stderr)
  for (const line of [/logged in/, /120 service tasks/, /\d+ agents with \d+ plugins/, /service report of task 10001/, /point 0 /, /ms: +\d+\.\d\d %/]) {
    assert.match(result.stdout, line)
  }
  const counters = emu.counters()
  assert.deepEqual(
    [counters.token, counters.service_tasks, counters.agents, counters.service_report, counters.site_report, counters.distribution],
    [1, 3, 1, 1, 1, 1],
  )
})

test('the quickstart fails cleanly (exit 1, a coded message) without a service', async () => {
  const env = { ...process.env, MONAPI_BASE_URL: 'http://127.0.0.1:9', MONAPI_CLIENT_ID: 'x', MONAPI_CLIENT_SECRET: 'y', MONAPI_USERNAME: 'u', MONAPI_PASSWORD: 'p' }
  const result = await runNode([join(ROOT, 'examples', 'quickstart.mjs')], { env })
  assert.equal(result.code, 1)
  assert.match(result.stderr, /monapi error CONNECTION/)
})
