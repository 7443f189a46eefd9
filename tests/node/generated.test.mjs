// @ts-check
// The generated loader and declarations cannot drift: `make node-build` writes them into
// $CARGO_TARGET_DIR/napi (the declarations from the current Rust source, as napi build writes them, the
// loader from package.json's napi.targets), and they must equal the committed
// bindings-node/native.js and native.d.ts (`make node-dts` updates those). The addon in
// bindings-node/ must be the one that build produced.

import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { test } from 'node:test'

import { ROOT } from './helpers.mjs'

const generated = join(resolve(ROOT, process.env.CARGO_TARGET_DIR || 'target-node'), 'napi')
const crate = join(ROOT, 'bindings-node')

test('the build output exists (run `make node-build` first)', () => {
  assert.ok(existsSync(join(generated, 'native.d.ts')), `no ${generated}/native.d.ts: run make node-build`)
})

for (const name of ['native.d.ts', 'native.js']) {
  test(`committed bindings-node/${name} equals the one generated from the current sources`, () => {
    const fresh = readFileSync(join(generated, name), 'utf8')
    const committed = readFileSync(join(crate, name), 'utf8')
    assert.ok(fresh.length > 100, 'a real generated file')
    assert.equal(committed, fresh, `bindings-node/${name} is stale: run \`make node-dts\` and commit it`)
  })
}

test('the generated declarations cover every native export the JS layer uses', () => {
  const dts = readFileSync(join(crate, 'native.d.ts'), 'utf8')
  for (const name of ['class NativeClient', 'class NativeEmulator', 'function demoAccount', 'const PAGE_SIZE', 'function version']) {
    assert.ok(dts.includes(`export declare ${name}`), name)
  }
  // The TypeScript layer, compiled: index.js and lib/*.js.
  const layer = ['index.js', ...readdirSync(join(crate, 'lib')).filter((name) => name.endsWith('.js')).map((name) => join('lib', name))]
  const sources = layer.map((file) => readFileSync(join(crate, file), 'utf8')).join('\n')
  const used = new Set([...sources.matchAll(/(?<![#\w.])native\.(?!js\b)([A-Za-z_]\w*)/g)].map((m) => m[1]))
  assert.ok(used.has('NativeClient') && used.has('invalidInput'), [...used].join(', '))
  for (const name of used) assert.match(dts, new RegExp(`export declare (class|function|const) ${name}\\b`), name)
})

test('the addon in bindings-node/ is the freshly built one', () => {
  const addons = readdirSync(generated).filter((name) => name.endsWith('.node'))
  assert.equal(addons.length, 1, addons.join(', '))
  const digest = (/** @type {string} */ file) => createHash('sha256').update(readFileSync(file)).digest('hex')
  assert.equal(digest(join(crate, addons[0])), digest(join(generated, addons[0])))
})
