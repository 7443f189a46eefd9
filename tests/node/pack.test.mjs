// @ts-check
// The npm packages as users get them. Staged as the release workflow stages them
// (bindings-node/scripts/platforms.mjs stage), `npm pack` gives the main package `monapi`
// (JavaScript and types only, the platform packages as optionalDependencies) and, from
// npm/<platform>/ with the freshly built addon, this machine's platform package
// (`@monapi/linux-x64-gnu` here). Installed from the two tarballs into an empty
// directory, they work from there: CommonJS and ESM programs start the emulator from the
// installed packages (not the repository), log in and fetch the agents, and TypeScript checks
// CommonJS and ESM consumers against the installed declarations (index.d.ts and index.d.mts).
// Without its platform package, with one of another version, or on a platform monapi has no
// addon for, `require('monapi')` throws an error that says which and what to do.

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { pathToFileURL } from 'node:url'

import { stage } from '../../bindings-node/scripts/platforms.mjs'
import { Emulator } from 'monapi'

import { ROOT, runNode, runProgram } from './helpers.mjs'

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx'
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const LICENSES = ['LICENSE-MIT', 'LICENSE-APACHE']

/** @param {string[]} args @param {string} cwd */
function npm(args, cwd) {
  return execFileSync(NPM, [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    timeout: 120000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  })
}

/**
 * `npm pack` of the package in `dir` into `destination`: the tarball's path and its files.
 *
 * @param {string} dir
 * @param {string} destination
 */
function pack(dir, destination) {
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', destination], dir))
  const files = packed.files.map((/** @type {{ path: string }} */ f) => f.path).sort()
  return { tarball: join(destination, packed.filename), files }
}

/**
 * A directory with a package.json and the given tarballs installed (offline: the other
 * platforms' optional packages are left out, as npm leaves them out on this platform).
 *
 * @param {string} dir
 * @param {string[]} tarballs
 */
function app(dir, tarballs) {
  mkdirSync(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }))
  npm(['install', '--offline', ...tarballs], dir)
  return dir
}

/** @type {string} */
let work
/** The built addon in bindings-node/ names this machine's platform: monapi.<platform>.node. */
let platform = ''
let mainTarball = ''
let platformTarball = ''

before(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'monapi-pack-')))
  const addons = readdirSync(join(ROOT, 'bindings-node')).filter((f) => /^monapi\.[\w-]+\.node$/.test(f))
  assert.equal(addons.length, 1, `one built addon in bindings-node/ (run make node-build): ${addons.join(', ')}`)
  platform = addons[0].slice('monapi.'.length, -'.node'.length)

  // Staged as the release workflow stages them for publishing.
  const staged = join(work, 'staged')
  assert.deepEqual(await stage(staged, join(ROOT, 'bindings-node'), false), [platform])

  const main = pack(join(staged, 'monapi'), work)
  // The TypeScript layer as tsc compiled it: a module and its declarations each.
  const compiled = readdirSync(join(ROOT, 'bindings-node', 'lib')).map((name) => `bindings-node/lib/${name}`)
  assert.ok(compiled.includes('bindings-node/lib/client.js') && compiled.includes('bindings-node/lib/client.d.ts'))
  assert.ok(compiled.every((file) => file.endsWith('.js') || file.endsWith('.d.ts')), compiled.join(', '))
  assert.deepEqual(
    main.files,
    [
      ...LICENSES,
      'README.md',
      'bindings-node/bin/monapi.js',
      'bindings-node/index.d.mts',
      'bindings-node/index.d.ts',
      'bindings-node/index.js',
      'bindings-node/index.mjs',
      ...compiled,
      'bindings-node/native.d.ts',
      'bindings-node/native.js',
      'package.json',
    ].sort(),
    'the main package holds JavaScript and types only',
  )
  mainTarball = main.tarball

  const native = pack(join(staged, platform), work)
  assert.deepEqual(native.files, [...LICENSES, 'README.md', addons[0], 'package.json'].sort())
  platformTarball = native.tarball
})

after(() => rmSync(work, { recursive: true, force: true }))

test('the main and the platform tarballs install into an empty directory and work there', async () => {
  const dir = app(join(work, 'app'), [mainTarball, platformTarball])
  const installed = join(dir, 'node_modules', 'monapi', 'bindings-node')
  const addon = join(dir, 'node_modules', '@monapi', platform, `monapi.${platform}.node`)
  assert.ok(!readdirSync(installed).some((f) => f.endsWith('.node')), 'no addon in the main package')
  assert.ok(existsSync(addon), addon)
  // Every platform package is an optional dependency of the installed monapi, at its version.
  const platforms = readdirSync(join(ROOT, 'npm')).sort()
  const installedManifest = JSON.parse(readFileSync(join(dir, 'node_modules', 'monapi', 'package.json'), 'utf8'))
  assert.equal(installedManifest.version, PACKAGE.version)
  assert.deepEqual(installedManifest.optionalDependencies, Object.fromEntries(platforms.map((p) => [`@monapi/${p}`, PACKAGE.version])))
  assert.ok(platforms.includes(platform))

  const cjs = `
    const { Emulator, MonapiError } = require('monapi')
    ;(async () => {
      const emu = await Emulator.start()
      const client = emu.client()
      await client.login()
      const agents = await client.agents()
      console.log('agents', Object.keys(agents).length)
      console.log('resolved', require.resolve('monapi'))
      console.log('addon', Object.keys(require.cache).find((file) => file.endsWith('.node')))
      try { await client.serviceReport(999999) } catch (e) { console.log(e instanceof MonapiError, e.code) }
      await emu.stop()
    })()
  `
  const fromCjs = await runNode(['-e', cjs], { cwd: dir })
  assert.equal(fromCjs.code, 0, fromCjs.stderr)
  assert.match(fromCjs.stdout, /^agents [1-9]\d*$/m)
  assert.match(fromCjs.stdout, /true API_ERROR/)
  const resolvedCjs = /^resolved (.*)$/m.exec(fromCjs.stdout)?.[1]
  assert.equal(resolvedCjs, join(installed, 'index.js'), 'require() uses the installed package')
  assert.equal(/^addon (.*)$/m.exec(fromCjs.stdout)?.[1], addon, 'the addon comes from the platform package')

  writeFileSync(
    join(dir, 'main.mjs'),
    `import { Emulator } from 'monapi'
     const emu = await Emulator.start()
     const client = emu.client()
     await client.login()
     console.log('agents', Object.keys(await client.agents()).length)
     console.log('resolved', import.meta.resolve('monapi'))
     await emu.stop()
    `,
  )
  const fromEsm = await runNode(['main.mjs'], { cwd: dir })
  assert.equal(fromEsm.code, 0, fromEsm.stderr)
  assert.match(fromEsm.stdout, /^agents [1-9]/m)
  const resolvedEsm = /^resolved (.*)$/m.exec(fromEsm.stdout)?.[1]
  assert.equal(resolvedEsm, pathToFileURL(join(installed, 'index.mjs')).href, 'import uses the installed package')

  writeFileSync(
    join(dir, 'main.ts'),
    `import { Emulator, type Agents } from 'monapi'
     export async function agents(): Promise<Agents> {
       const emu = await Emulator.start()
       try { return await emu.client().agents() } finally { await emu.stop() }
     }
    `,
  )
  const tsc = await typecheck(dir)
  assert.match(tsc, declaration(installed, 'index.d.ts'), 'the CommonJS consumer is checked against the installed index.d.ts')
  assert.doesNotMatch(tsc, /index\.d\.mts/)

  // An ESM TypeScript consumer ("type": "module"): resolved through the `import` condition, so
  // the installed index.d.mts is what tsc checks it against.
  const esm = join(dir, 'esm')
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

  // On a platform without an addon (process.platform/arch overridden before the first require):
  // an error naming the platform and the supported ones, from CommonJS and from ESM alike.
  const supported = platforms
  for (const [override, shown] of [
    [`Object.defineProperty(process, 'platform', { value: 'sunos' })`, `sunos-${process.arch}`],
    [`Object.defineProperty(process, 'arch', { value: 'riscv64' })`, process.platform === 'linux' ? 'linux-riscv64-gnu' : `${process.platform}-riscv64`],
  ]) {
    for (const load of [`require('monapi')`, `import('monapi').then(() => console.log('loaded'), (e) => { throw e })`]) {
      const run = await runNode(['-e', `${override}; ${load}`], { cwd: dir })
      assert.notEqual(run.code, 0, run.stdout)
      assert.match(run.stderr, /code: 'ERR_MONAPI_UNSUPPORTED_PLATFORM'/)
      const message = /monapi has no native addon for this platform \(([^)]*)\); it supports (.*)$/m.exec(run.stderr)
      assert.ok(message, run.stderr)
      assert.equal(message[1], shown)
      assert.deepEqual(message[2].split(', ').sort(), [...supported].sort())
    }
  }
})

test('npx monapi is the command: its version, its help, a call with the password from a file', async (t) => {
  const dir = app(join(work, 'command'), [mainTarball, platformTarball])
  const emu = await Emulator.start()
  t.after(() => emu.stop())
  const secrets = join(work, 'secrets')
  mkdirSync(secrets)
  writeFileSync(join(secrets, 'password'), `${emu.password}\n`)
  const env = {
    ...process.env,
    MONAPI_BASE_URL: emu.baseUrl,
    MONAPI_CLIENT_ID: emu.clientId,
    MONAPI_CLIENT_SECRET: emu.clientSecret,
    MONAPI_USERNAME: emu.username,
    MONAPI_PASSWORD: '',
  }
  const npx = (/** @type {string[]} */ args) => runProgram(NPX, ['--offline', '--no-install', 'monapi', ...args], { cwd: dir, env })

  const version = await npx(['--version'])
  assert.equal(version.code, 0, version.stderr)
  assert.equal(version.stdout.trim(), `monapi ${PACKAGE.version}`)
  const help = await npx(['exporter', '--help'])
  assert.equal(help.code, 0, help.stderr)
  assert.match(help.stdout, /--web-config-file <PATH>\s+.*\n[^]*\[env: MONAPI_WEB_CONFIG_FILE=?\]/)

  const sites = await npx(['sites', '--password-file', join(secrets, 'password')])
  assert.equal(sites.code, 0, sites.stderr)
  assert.equal(JSON.parse(sites.stdout).length, 5)
  assert.equal(emu.counters().token, 1)
  // A usage error: exit code 2 and nothing sent, as from the crate's binary.
  const usage = await npx(['report', 'service', '10001', '--from', '2026-02-30'])
  assert.equal(usage.code, 2, usage.stderr)
  assert.match(usage.stderr, /`--from` must be a real date/)
  assert.equal(emu.counters().service_report, 0)
})

test('without its platform package, or with one of another version, monapi says what to install', async () => {
  const dir = app(join(work, 'no-addon'), [mainTarball])
  assert.ok(!existsSync(join(dir, 'node_modules', '@monapi')), 'only the main package is installed')
  const missing = await runNode(['-e', `require('monapi')`], { cwd: dir })
  assert.notEqual(missing.code, 0)
  assert.match(missing.stderr, /code: 'ERR_MONAPI_ADDON_MISSING'/)
  // The command says the same, in one line, and exits 1.
  const command = await runProgram(NPX, ['--offline', '--no-install', 'monapi', '--version'], { cwd: dir })
  assert.equal(command.code, 1, command.stdout)
  assert.match(command.stderr, new RegExp(`^monapi: error: monapi's native addon for ${platform} is the package @monapi/${platform}@`))
  assert.ok(
    missing.stderr.includes(`native addon for ${platform} is the package @monapi/${platform}@${PACKAGE.version}, which is not installed`),
    missing.stderr,
  )

  npm(['install', '--offline', platformTarball], dir)
  const manifest = join(dir, 'node_modules', '@monapi', platform, 'package.json')
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), version: '0.0.1-other' }))
  const other = await runNode(['-e', `require('monapi')`], { cwd: dir })
  assert.notEqual(other.code, 0)
  assert.match(other.stderr, /code: 'ERR_MONAPI_ADDON_VERSION'/)
  assert.ok(other.stderr.includes(`monapi ${PACKAGE.version} needs @monapi/${platform}@${PACKAGE.version}, but 0.0.1-other is installed`), other.stderr)
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
