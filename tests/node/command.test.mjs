// @ts-check
// `npx monapi` (bindings-node/bin/monapi.js) is the crate's command inside Node: its log lines,
// and its answers to SIGHUP (a refresh), SIGTERM and SIGINT (a graceful stop, exit code 0) are
// those of the binary, although Node installs handlers of its own for SIGINT and SIGTERM.
// pack.test.mjs runs it as installed from the tarballs.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'node:test'

import { ROOT, demoEnv, emulator } from './helpers.mjs'

const COMMAND = join(ROOT, 'bindings-node', 'bin', 'monapi.js')

/**
 * `monapi exporter` through Node on a free port, with a way to wait for a line of its stderr.
 *
 * @param {NodeJS.ProcessEnv} env
 */
function exporter(env) {
  const child = spawn(process.execPath, [COMMAND, 'exporter', '--listen', '127.0.0.1:0'], {
    env: { ...env, MONAPI_LOG: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  /** @type {Array<() => void>} */
  let waiting = []
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk) => {
    stderr += chunk
    for (const wake of waiting) wake()
  })
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  /** @param {string} text */
  async function line(text) {
    const deadline = Date.now() + 60_000
    while (!stderr.includes(text)) {
      assert.ok(Date.now() < deadline, `no line with ${text} in:\n${stderr}`)
      await new Promise((resolve) => {
        waiting.push(() => resolve(undefined))
        setTimeout(resolve, 1000)
      })
      waiting = []
    }
  }
  return { child, line, exited }
}

for (const stop of /** @type {const} */ (['SIGTERM', 'SIGINT'])) {
  test(`SIGHUP refreshes and ${stop} stops the exporter gracefully, as with the binary`, { timeout: 120_000 }, async (t) => {
    const emu = await emulator(t)
    const running = exporter(demoEnv(emu))
    t.after(() => running.child.kill('SIGKILL'))
    await running.line('refreshed: ')
    running.child.kill('SIGHUP')
    await running.line('SIGHUP: refreshing now')
    running.child.kill(stop)
    await running.line(`${stop}: shutting down`)
    assert.deepEqual(await running.exited, { code: 0, signal: null })
  })
}
