// @ts-check
// `npm pack` gives a tarball that installs into an empty directory and works from there:
// CommonJS and ESM programs start the emulator from the installed package (not the repo), log
// in and fetch the agents, and TypeScript checks CommonJS and ESM consumers against the
// installed declarations (index.d.ts and index.d.mts).

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'

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
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'monapi-pack-')))
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
  const installed = join(app, 'node_modules', 'monapi', 'bindings-node')
  assert.ok(readdirSync(installed).some((f) => f.endsWith('.node')))

  const cjs = `
    const { Emulator, MonapiError } = require('monapi')
    ;(async () => {
      const emu = await Emulator.start()
      const client = emu.client()
      await client.login()
      const agents = await client.agents()
      console.log('agents', Object.keys(agents).length)
      console.log('resolved', require.resolve('monapi'))
      try { await client.serviceReport(999999) } catch (e) { console.log(e instanceof MonapiError, e.code) }
      await emu.stop()
    })()
  `
  const fromCjs = await runNode(['-e', cjs], { cwd: app })
  assert.equal(fromCjs.code, 0, fromCjs.stderr)
  assert.match(fromCjs.stdout, /^agents [1-9]\d*$/m)
  assert.match(fromCjs.stdout, /true API_ERROR/)
  const resolvedCjs = /^resolved (.*)$/m.exec(fromCjs.stdout)?.[1]
  assert.equal(resolvedCjs, join(installed, 'index.js'), 'require() uses the installed package')

  writeFileSync(
    join(app, 'main.mjs'),
    `import { Emulator } from 'monapi'
     const emu = await Emulator.start()
     const client = emu.client()
     await client.login()
     console.log('agents', Object.keys(await client.agents()).length)
     console.log('resolved', import.meta.resolve('monapi'))
     await emu.stop()
    `,
  )
  const fromEsm = await runNode(['main.mjs'], { cwd: app })
  assert.equal(fromEsm.code, 0, fromEsm.stderr)
  assert.match(fromEsm.stdout, /^agents [1-9]/m)
  const resolvedEsm = /^resolved (.*)$/m.exec(fromEsm.stdout)?.[1]
  assert.equal(resolvedEsm, pathToFileURL(join(installed, 'index.mjs')).href, 'import uses the installed package')

  writeFileSync(
    join(app, 'main.ts'),
    `import { Emulator, type Agents } from 'monapi'
     export async function agents(): Promise<Agents> {
       const emu = await Emulator.start()
       try { return await emu.client().agents() } finally { await emu.stop() }
     }
    `,
  )
  const tsc = await typecheck(app)
  assert.match(tsc, declaration(installed, 'index.d.ts'), 'the CommonJS consumer is checked against the installed index.d.ts')
  assert.doesNotMatch(tsc, /index\.d\.mts/)

  // An ESM TypeScript consumer ("type": "module"): resolved through the `import` condition, so
  // the installed index.d.mts is what tsc checks it against.
  const esm = join(app, 'esm')
  mkdirSync(esm)
  writeFileSync(join(esm, 'package.json'), JSON.stringify({ name: 'app-esm', version: '1.0.0', private: true, type: 'module' }))
  writeFileSync(
    join(esm, 'main.ts'),
    `import monapi, { Client, Emulator, MonapiError, PAGE_SIZE, type MonapiErrorCode, type SavedToken, type ServiceReport, type Token } from 'monapi'
     const emu = await Emulator.start() // top-level await: an ES module
     const token: Token = await emu.client().login()
     const saved: SavedToken = { access_token: token.access_token, expires_in: '3600', refresh_token: token.refresh_token }
     const client: Client = new monapi.Client({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret, token: saved })
     const report: ServiceReport = await client.serviceReport(10001)
     for (const [series, records] of Object.entries(report)) console.log(series, records.length, PAGE_SIZE)
     try { await client.serviceReport(999999) } catch (e) { if (e instanceof MonapiError) { const code: MonapiErrorCode = e.code; console.log(code) } }
     // @ts-expect-error: not an error code (the declarations are checked, not \`any\`)
     const wrong: MonapiErrorCode = 'NOT_A_CODE'
     // @ts-expect-error: timeoutMs is a number
     new Client({ timeoutMs: '100' })
     console.log(wrong)
     await emu.stop()
    `,
  )
  const tscEsm = await typecheck(esm)
  assert.match(tscEsm, declaration(installed, 'index.d.mts'), 'the ESM consumer is checked against the installed index.d.mts')
})

/**
 * Runs tsc (strict, nodenext) on `main.ts` in `cwd`; fails on an error, returns the files it read.
 *
 * @param {string} cwd
 */
async function typecheck(cwd) {
  const tsc = await runNode(
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--listFiles', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types'), 'main.ts'],
    { cwd },
  )
  assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr)
  // Nothing of the package may come from the repository: only from the installed copy.
  assert.ok(!tsc.stdout.includes(join(ROOT, 'bindings-node')), `tsc read the repository's declarations:\n${tsc.stdout}`)
  return tsc.stdout
}

/**
 * A line of `tsc --listFiles` naming `dir/name`.
 *
 * @param {string} dir
 * @param {string} name
 */
function declaration(dir, name) {
  return new RegExp(`^${join(dir, name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm')
}
