// @ts-check
// Shared set-up of the node:test suite: emulators on 127.0.0.1 (port 0), the demo account's
// secrets, and small bounded helpers. Only loopback addresses are ever contacted.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { Emulator, MonapiError } from 'monapi'

// Hermetic: the suite never picks up a MONAPI_* variable from the caller's environment (the
// client falls back to them by design); tests that need them set them themselves.
for (const name of Object.keys(process.env)) {
  if (name.startsWith('MONAPI_')) delete process.env[name]
}

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const PASSWORD_MD5 = 'e10adc3949ba59abbe56e057f20f883e'

/** The demo account's secrets: none may appear in any message or inspect output. */
export const DEMO_SECRETS = ['demo_secret', '123456', PASSWORD_MD5]

/**
 * Starts an emulator for one test and stops it when the test ends.
 *
 * @param {import('node:test').TestContext} t
 * @param {import('monapi').EmulatorOptions} [options]
 */
export async function emulator(t, options) {
  const emu = await Emulator.start(options)
  t.after(() => emu.stop())
  return emu
}

/**
 * A client of a fresh emulator and a token from each source: `login()`, `refresh()`, the
 * `client.token` getter, and the two `onToken` calls (login, refresh).
 *
 * @param {import('node:test').TestContext} t
 */
export async function tokensFromEverySource(t) {
  const emu = await emulator(t)
  /** @type {import('monapi').Token[]} */
  const seen = []
  const client = emu.client({ onToken: (token) => void seen.push(token) })
  const fromLogin = await client.login()
  const fromRefresh = await client.refresh()
  const fromGetter = client.token
  assert.ok(fromGetter)
  await eventually(() => seen.length === 2)
  return { emu, client, fromLogin, fromRefresh, fromGetter, seen }
}

/**
 * Today, a number of days ago, as `YYYY-MM-DD` (local calendar day).
 *
 * @param {number} daysAgo
 */
export function day(daysAgo = 0) {
  const d = new Date()
  d.setDate(d.getDate() - daysAgo)
  const pad = (/** @type {number} */ n) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
}

/**
 * The day `n` days before today in the emulator's time zone, `YYYY-MM-DD` (the client's time
 * zone is the same, the default `+08:00`).
 *
 * @param {import('monapi').Emulator} emu
 * @param {number} n
 */
export function daysAgo(emu, n) {
  const zone = /^([+-])(\d\d):(\d\d)$/.exec(emu.timezone)
  assert.ok(zone, emu.timezone)
  const offsetMs = (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3])) * 60_000
  return new Date(Date.now() + offsetMs - n * 86_400_000).toISOString().slice(0, 10)
}

/**
 * Awaits `promise`, which must reject with a MonapiError, and returns the error.
 *
 * @param {Promise<unknown>} promise
 * @param {string} code the expected code
 * @returns {Promise<MonapiError>}
 */
export async function rejects(promise, code) {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof MonapiError, `expected a MonapiError, got ${String(error)}`)
    assert.equal(error.code, code, error.message)
    return error
  }
  assert.fail(`expected a rejection with ${code}`)
}

/**
 * Calls `fn`, which must throw a MonapiError, and returns the error.
 *
 * @param {() => unknown} fn
 * @param {string} code
 * @returns {MonapiError}
 */
export function throws(fn, code) {
  try {
    fn()
  } catch (error) {
    assert.ok(error instanceof MonapiError, `expected a MonapiError, got ${String(error)}`)
    assert.equal(error.code, code, error.message)
    return error
  }
  assert.fail(`expected a MonapiError with ${code}`)
}

/**
 * Fails if any of `secrets` appears in `text`.
 *
 * @param {string} text
 * @param {string[]} secrets
 */
export function assertNoSecret(text, secrets) {
  for (const secret of secrets) {
    assert.ok(secret.length >= 4, 'a secret to look for')
    // As a value of its own, not inside a longer number or word: the demo password 123456 is
    // a run of digits that a figure such as 0.9984567901234568 holds by chance.
    const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    const alone = new RegExp(`(?<![0-9A-Za-z.])${escaped}(?![0-9A-Za-z])`)
    assert.ok(!alone.test(text), `a secret leaked into: ${text}`)
  }
}

/**
 * Waits (bounded) until `predicate()` holds, letting callbacks queued from native threads run.
 *
 * @param {() => boolean} predicate
 * @param {number} [timeoutMs]
 */
export async function eventually(predicate, timeoutMs = 2000) {
  const deadline = Date.now() + timeoutMs
  while (!predicate()) {
    if (Date.now() > deadline) assert.fail(`condition not met within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

/**
 * Reads a fixture of the service's documented payloads (tests/fixtures).
 *
 * @param {string} name
 * @returns {any}
 */
export function fixture(name) {
  return JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', name), 'utf8'))
}

/**
 * This process's environment with the demo account of `emu` in the MONAPI_* variables: what a
 * program started against the emulator reads.
 *
 * @param {import('monapi').Emulator} emu
 * @returns {NodeJS.ProcessEnv}
 */
export function demoEnv(emu) {
  return {
    ...process.env,
    MONAPI_BASE_URL: emu.baseUrl,
    MONAPI_CLIENT_ID: emu.clientId,
    MONAPI_CLIENT_SECRET: emu.clientSecret,
    MONAPI_USERNAME: emu.username,
    MONAPI_PASSWORD: emu.password,
  }
}

/**
 * Runs `node` with `args` (bounded in time) and resolves with its exit code, output and
 * duration.
 *
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number }} [options]
 * @returns {Promise<{ code: number | null, signal: string | null, stdout: string, stderr: string, ms: number }>}
 */
export function runNode(args, options = {}) {
  return runProgram(process.execPath, args, options)
}

/**
 * Runs `program` with `args` (bounded in time) and resolves with its exit code, output and
 * duration.
 *
 * @param {string} program
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number }} [options]
 * @returns {Promise<{ code: number | null, signal: string | null, stdout: string, stderr: string, ms: number }>}
 */
export function runProgram(program, args, options = {}) {
  const started = Date.now()
  return new Promise((resolvePromise, reject) => {
    const child = spawn(program, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 30000,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr, ms: Date.now() - started }))
  })
}

/**
 * A valid server task (the first documented example, renamed).
 *
 * @param {string} name
 * @returns {import('monapi').ServerTaskInput}
 */
export function linuxTask(name) {
  return {
    server_name: name,
    private_ip: '192.168.1.10',
    server_ip: '203.0.113.10',
    server_systype: '0',
    frequency: '5',
    snmp_port: '161',
    snmp_v: '0',
    snmp_comm: 'public',
    use_agent: '0',
    alert_setting: { scope: '3' },
    task_type: ['cpu', 'mem'],
  }
}
