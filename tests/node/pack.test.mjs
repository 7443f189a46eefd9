// @ts-check
// `npm pack` gives a tarball that installs into an empty directory and works from there:
// CommonJS and ESM programs start the emulator from the installed package, log in and fetch
// the agents, and TypeScript finds the declarations.

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

import { ROOT, runNode } from './helpers.mjs'

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/** @param {string[]} args @param {string} cwd */
function npm(args, cwd) {
  return execFileSync(NPM, [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    timeout: 120000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  })
}

test('npm pack installs into an empty directory and works there', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'monapi-pack-'))
  t.after(() => rmSync(work, { recursive: true, force: true }))

  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], ROOT))
  const files = packed.files.map((/** @type {{ path: string }} */ f) => f.path).sort()
  for (const required of [
    'package.json',
    'bindings-node/index.js',
    'bindings-node/index.mjs',
    'bindings-node/index.d.ts',
    'bindings-node/index.d.mts',
    'bindings-node/native.js',
    'bindings-node/native.d.ts',
  ]) {
    assert.ok(files.includes(required), `${required} in the tarball: ${files.join(', ')}`)
  }
  assert.ok(files.some((/** @type {string} */ f) => /^bindings-node\/monapi\.[\w-]+\.node$/.test(f)), 'the native addon in the tarball')
  assert.ok(!files.some((/** @type {string} */ f) => f.startsWith('bindings-node/src/') || f.startsWith('tests/')), 'no sources or tests')

  const app = join(work, 'app')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }))
  npm(['install', '--offline', join(work, packed.filename)], app)
  assert.ok(readdirSync(join(app, 'node_modules', 'monapi', 'bindings-node')).some((f) => f.endsWith('.node')))

  const cjs = `
    const { Emulator, MonapiError } = require('monapi')
    ;(async () => {
      const emu = await Emulator.start()
      const client = emu.client()
      await client.login()
      const agents = await client.agents()
      console.log('agents', Object.keys(agents).length, require.resolve('monapi'))
      try { await client.serviceReport(999999) } catch (e) { console.log(e instanceof MonapiError, e.code) }
      await emu.stop()
    })()
  `
  const fromCjs = await runNode(['-e', cjs], { cwd: app })
  assert.equal(fromCjs.code, 0, fromCjs.stderr)
  assert.match(fromCjs.stdout, /agents [1-9]\d* .*node_modules\/monapi\/bindings-node\/index\.js/)
  assert.match(fromCjs.stdout, /true API_ERROR/)

  writeFileSync(
    join(app, 'main.mjs'),
    `import { Emulator } from 'monapi'
     const emu = await Emulator.start()
     const client = emu.client()
     await client.login()
     console.log('agents', Object.keys(await client.agents()).length)
     await emu.stop()
    `,
  )
  const fromEsm = await runNode(['main.mjs'], { cwd: app })
  assert.equal(fromEsm.code, 0, fromEsm.stderr)
  assert.match(fromEsm.stdout, /agents [1-9]/)

  writeFileSync(
    join(app, 'main.ts'),
    `import { Emulator, type Agents } from 'monapi'
     export async function agents(): Promise<Agents> {
       const emu = await Emulator.start()
       try { return await emu.client().agents() } finally { await emu.stop() }
     }
    `,
  )
  const tsc = await runNode(
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types'), 'main.ts'],
    { cwd: app },
  )
  assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr)
})
