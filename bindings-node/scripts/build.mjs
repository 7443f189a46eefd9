#!/usr/bin/env node
// Builds the native addon with @napi-rs/cli and the TypeScript layer with tsc (devDependencies;
// nothing is downloaded).
//
// napi writes the addon and the declarations of its exports (native.d.ts, from the Rust source)
// into a staging directory, $CARGO_TARGET_DIR/napi (default target-node/napi); this script
// writes the loader (native.js) there too, generated from package.json's napi.targets by
// platforms.mjs: napi's own loader would name packages for every platform napi-rs knows and
// under other names than ours. The addon is copied into bindings-node/ (the loader's local
// build, in a checkout); the generated files are not: the committed bindings-node/native.* are
// what the package ships, and tests/node/generated.test.mjs fails when they differ from what
// the current sources generate. `--accept` copies them over (then commit them).
//
//   node bindings-node/scripts/build.mjs [--debug] [--accept]
//
// Environment: CARGO (the cargo to run), CARGO_TARGET_DIR (default <repo>/target-node).

import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { loaderSource, readPlatforms } from './platforms.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const crate = resolve(here, '..')
const root = resolve(crate, '..')
const args = new Set(process.argv.slice(2))
for (const arg of args) {
  if (!['--debug', '--accept'].includes(arg)) {
    console.error(`unknown argument ${arg}; usage: build.mjs [--debug] [--accept]`)
    process.exit(2)
  }
}

export const targetDir = resolve(root, process.env.CARGO_TARGET_DIR || 'target-node')
const outDir = join(targetDir, 'napi')
const GENERATED = ['native.js', 'native.d.ts']

const require = createRequire(import.meta.url)
const cliPackage = require.resolve('@napi-rs/cli/package.json', { paths: [root] })
const cli = join(dirname(cliPackage), JSON.parse(readFileSync(cliPackage, 'utf8')).bin.napi)

for (const name of existsSync(outDir) ? readdirSync(outDir) : []) {
  if (name.endsWith('.node')) rmSync(join(outDir, name))
}

const napiArgs = [
  cli,
  'build',
  '--platform',
  '--manifest-path',
  join(crate, 'Cargo.toml'),
  '--package-json-path',
  join(root, 'package.json'),
  '--target-dir',
  targetDir,
  '--output-dir',
  outDir,
  '--no-js',
  '--dts',
  'native.d.ts',
]
if (!args.has('--debug')) napiArgs.push('--release')

const run = spawnSync(process.execPath, napiArgs, { cwd: root, stdio: 'inherit' })
if (run.status !== 0) {
  console.error(`napi build failed (exit ${run.status ?? run.signal})`)
  process.exit(run.status || 1)
}

const addons = readdirSync(outDir).filter((name) => name.endsWith('.node'))
if (addons.length === 0) {
  console.error(`napi build wrote no .node file into ${outDir}`)
  process.exit(1)
}
writeFileSync(join(outDir, 'native.js'), loaderSource(await readPlatforms()))

for (const name of readdirSync(crate)) {
  if (name.endsWith('.node') && !addons.includes(name)) rmSync(join(crate, name))
}
for (const name of addons) copyFileSync(join(outDir, name), join(crate, name))

const drifted = GENERATED.filter((name) => {
  const committed = join(crate, name)
  return !existsSync(committed) || readFileSync(committed, 'utf8') !== readFileSync(join(outDir, name), 'utf8')
})
if (args.has('--accept')) {
  for (const name of GENERATED) copyFileSync(join(outDir, name), join(crate, name))
  if (drifted.length) console.log(`updated bindings-node/${drifted.join(', bindings-node/')}: commit them`)
} else if (drifted.length) {
  console.warn(
    `note: the generated ${drifted.join(', ')} differ from the committed bindings-node/ copies; ` +
      'review them and run `make node-dts` (or `npm run build -- --accept`) to update them',
  )
}
// The public layer: TypeScript compiled into bindings-node/index.js, index.d.ts and lib/.
const tsc = require.resolve('typescript/bin/tsc', { paths: [root] })
const compiled = spawnSync(process.execPath, [tsc, '-p', join(crate, 'tsconfig.json')], { cwd: root, stdio: 'inherit' })
if (compiled.status !== 0) {
  console.error(`tsc failed (exit ${compiled.status ?? compiled.signal})`)
  process.exit(compiled.status || 1)
}
console.log(`built ${addons.join(', ')} and the TypeScript layer into bindings-node/ (${args.has('--debug') ? 'debug' : 'release'})`)
