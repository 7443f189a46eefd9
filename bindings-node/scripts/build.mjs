#!/usr/bin/env node
// Builds the native addon and the TypeScript layer with tsc (devDependencies; nothing is
// downloaded).
//
// Both builds, release (the package, the demo, the bench) and debug (`--debug`: the suites, make
// test), are cargo's own build of the crate for the host, in the target directory and with the
// features of every other build of the workspace (one feature set for every member: the
// workspace-hack crate): the debug one reuses what `cargo test` compiled, the release one what
// the command's release build compiled (`napi build` passes an explicit --target, a tree of its
// own, so make demo compiled the dependencies once more for it). The declarations come from the
// intermediate type definitions napi-derive writes, rendered by @napi-rs/cli's
// `generateTypeDef`, as `napi build` does. The release workflow builds each platform's addon
// with `napi build` itself.
//
// The addon and the declarations of its exports (native.d.ts, from the Rust source) go into a
// staging directory, $CARGO_TARGET_DIR/napi (default target-node/napi), with the loader
// (native.js), generated from package.json's napi.targets by platforms.mjs: napi's own loader
// would name packages for every platform napi-rs knows and under other names than ours. The
// addon is copied into bindings-node/ (the loader's local build, in a checkout); the generated
// files are not: the committed bindings-node/native.* are what the package ships, and
// tests/node/generated.test.mjs fails when they differ from what the current sources generate.
// `--accept` copies them over (then commit them).
//
//   node bindings-node/scripts/build.mjs [--debug] [--accept]
//
// Environment: CARGO (the cargo to run), CARGO_TARGET_DIR (default <repo>/target-node).

import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
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

for (const name of existsSync(outDir) ? readdirSync(outDir) : []) {
  if (name.endsWith('.node')) rmSync(join(outDir, name))
}

/** The host's target triple, as rustc reports it. */
function hostTriple() {
  const rustc = spawnSync(process.env.RUSTC || 'rustc', ['-vV'], { encoding: 'utf8' })
  const host = /^host: (\S+)$/m.exec(rustc.stdout ?? '')
  if (rustc.status !== 0 || !host) {
    console.error(`rustc -vV failed (exit ${rustc.status ?? rustc.signal}): ${rustc.stderr}`)
    process.exit(1)
  }
  return host[1]
}

/**
 * `cargo build` of the crate's library for the host with napi-derive's type definitions written
 * into `typeDefDir`; returns the path of the built cdylib. When `release`, the cdylib alone
 * (`cargo rustc --crate-type cdylib`, as maturin builds the wheel): with the rlib of Cargo.toml
 * beside it, every dependency's thin LTO would keep objects as well as bitcode, another build of
 * each than the command's release build. The type definitions are written only when the crate
 * compiles: when cargo finds it fresh but they are missing (the directory was cleaned), it is
 * built again, forced through the variable napi-build watches.
 */
function cargoHostBuild(typeDefDir, release) {
  const cargo = process.env.CARGO || 'cargo'
  const build = (extraEnv) => {
    const run = spawnSync(
      cargo,
      [
        ...(release ? ['rustc', '--release', '--crate-type', 'cdylib'] : ['build']),
        '--lib',
        '--message-format=json-render-diagnostics',
        '--manifest-path',
        join(crate, 'Cargo.toml'),
      ],
      {
        cwd: root,
        env: { ...process.env, CARGO_TARGET_DIR: targetDir, NAPI_TYPE_DEF_TMP_FOLDER: typeDefDir, ...extraEnv },
        stdio: ['ignore', 'pipe', 'inherit'],
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      },
    )
    if (run.status !== 0) {
      console.error(`cargo build failed (exit ${run.status ?? run.signal})`)
      process.exit(run.status || 1)
    }
    const artifacts = run.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((m) => m.reason === 'compiler-artifact' && m.target.name === 'monapi_node')
    const library = artifacts.flatMap((m) => m.filenames).find((f) => /\.(so|dylib|dll)$/.test(f))
    if (!library) {
      console.error('cargo build reported no cdylib of monapi-node')
      process.exit(1)
    }
    return library
  }
  const library = build({})
  if (existsSync(join(typeDefDir, 'monapi-node'))) return library
  return build({ NAPI_FORCE_BUILD_MONAPI_NODE: String(Date.now()) })
}

const typeDefDir = process.env.NAPI_TYPE_DEF_TMP_FOLDER || join(outDir, 'type-def')
mkdirSync(typeDefDir, { recursive: true })
const host = hostTriple()
const platforms = await readPlatforms()
const shipped = platforms.find((p) => p.triple === host)
if (!shipped) {
  console.error(`this machine (${host}) is not one of package.json's napi.targets`)
  process.exit(1)
}
const library = cargoHostBuild(typeDefDir, !args.has('--debug'))
const napi = require(require.resolve('@napi-rs/cli', { paths: [root] }))
const { dts } = await napi.generateTypeDef({ typeDefDir, cwd: root })
mkdirSync(outDir, { recursive: true })
writeFileSync(join(outDir, 'native.d.ts'), dts)
copyFileSync(library, join(outDir, shipped.addon))
writeFileSync(join(outDir, 'native.js'), loaderSource(platforms))

for (const name of readdirSync(crate)) {
  if (name.endsWith('.node') && name !== shipped.addon) rmSync(join(crate, name))
}
copyFileSync(library, join(crate, shipped.addon))

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
console.log(`built ${shipped.addon} and the TypeScript layer into bindings-node/ (${args.has('--debug') ? 'debug' : 'release'})`)
