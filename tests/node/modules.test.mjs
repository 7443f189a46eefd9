// @ts-check
// ESM and CommonJS entry points, and index.d.ts against what index.js really exports.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { test } from 'node:test'

import * as esm from 'monapi'
import esmDefault from 'monapi'

import { ROOT, runNode } from './helpers.mjs'

const require = createRequire(import.meta.url)
const EXPORTS = ['Client', 'Emulator', 'ERROR_CODES', 'MonapiError', 'PAGE_SIZE', 'Table', 'VERSION'].sort()

test('ESM and CommonJS give the very same classes', () => {
  const cjs = require('monapi')
  assert.deepEqual(Object.keys(cjs).sort(), EXPORTS)
  assert.deepEqual(Object.keys(esm).filter((k) => k !== 'default').sort(), EXPORTS)
  /** @type {Record<string, unknown>} */
  const esmByName = { ...esm }
  /** @type {Record<string, unknown>} */
  const cjsByName = { ...cjs }
  for (const name of EXPORTS) {
    assert.equal(esmByName[name], cjsByName[name], name)
  }
  assert.equal(esmDefault, cjs)
  assert.ok(new cjs.MonapiError('x') instanceof esm.MonapiError)
})

test('package.json: exports, version = Cargo workspace version, engines', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const cargo = readFileSync(join(ROOT, 'Cargo.toml'), 'utf8')
  const workspace = /\[workspace\.package\][^[]*?\nversion\s*=\s*"([^"]+)"/.exec(cargo)
  assert.ok(workspace, 'workspace version in Cargo.toml')
  assert.equal(pkg.name, 'monapi')
  assert.equal(pkg.version, workspace[1])
  assert.equal(esm.VERSION, pkg.version)
  assert.equal(pkg.engines.node, '>= 18')
  assert.equal(require.resolve('monapi'), join(ROOT, 'bindings-node', 'index.js'))
  assert.equal(import.meta.resolve('monapi'), new URL('bindings-node/index.mjs', `file://${ROOT}/`).href)
})

test('plain CommonJS and ESM programs can use the package', async () => {
  const cjs = await runNode(['-e', "const m = require('monapi'); console.log(typeof m.Client, m.PAGE_SIZE)"])
  assert.equal(cjs.code, 0, cjs.stderr)
  assert.equal(cjs.stdout.trim(), 'function 50')
  const mjs = await runNode(['--input-type=module', '-e', "import { Client, PAGE_SIZE } from 'monapi'; console.log(typeof Client, PAGE_SIZE)"])
  assert.equal(mjs.code, 0, mjs.stderr)
  assert.equal(mjs.stdout.trim(), 'function 50')
})

/**
 * Public members of the exported classes as index.d.ts declares them, read with the
 * TypeScript compiler API.
 */
function declared() {
  const ts = require('typescript')
  const file = join(ROOT, 'bindings-node', 'index.d.ts')
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  /** @type {Map<string, { static: Set<string>, instance: Set<string> }>} */
  const classes = new Map()
  /** @type {Set<string>} */
  const values = new Set()
  /** @type {Set<string>} */
  const codes = new Set()
  for (const node of source.statements) {
    if (ts.isClassDeclaration(node) && node.name) {
      values.add(node.name.text)
      const members = { static: new Set(), instance: new Set() }
      for (const member of node.members) {
        if (!member.name || ts.isConstructorDeclaration(member)) continue
        /** @type {readonly { kind: number }[]} */
        const modifiers = ts.getModifiers(/** @type {any} */ (member)) ?? []
        if (modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) continue
        const isStatic = modifiers.some((m) => m.kind === ts.SyntaxKind.StaticKeyword)
        ;(isStatic ? members.static : members.instance).add(member.name.getText(source))
      }
      classes.set(node.name.text, members)
    } else if (ts.isVariableStatement(node)) {
      for (const d of node.declarationList.declarations) values.add(d.name.getText(source))
    } else if (ts.isTypeAliasDeclaration(node) && node.name.text === 'MonapiErrorCode' && ts.isUnionTypeNode(node.type)) {
      for (const member of node.type.types) codes.add(member.getText(source).replace(/'/g, ''))
    }
  }
  return { classes, values, codes }
}

test('index.d.ts declares exactly what index.js exports, member by member', () => {
  const { classes, values, codes } = declared()
  assert.deepEqual([...values].sort(), EXPORTS)
  assert.deepEqual([...codes].sort(), [...esm.ERROR_CODES].sort())
  for (const [name, members] of classes) {
    const cls = /** @type {any} */ (esm)[name]
    const publicNames = (/** @type {object} */ target) =>
      Object.getOwnPropertyNames(target).filter((k) => !['constructor', 'length', 'name', 'prototype'].includes(k))
    const runtimeStatic = publicNames(cls).sort()
    const runtimeInstance = publicNames(cls.prototype).sort()
    if (name === 'MonapiError') {
      // Its fields are own properties of each instance.
      const instance = new cls('x')
      runtimeInstance.push(...Object.keys(instance))
      runtimeInstance.sort()
    }
    assert.deepEqual(runtimeStatic, [...members.static].sort(), `${name}: static members`)
    assert.deepEqual(runtimeInstance, [...members.instance].sort(), `${name}: instance members`)
  }
  assert.deepEqual([...classes.keys()].sort(), ['Client', 'Emulator', 'MonapiError', 'Table'])
})

test('every public member of index.d.ts has JSDoc with an example', () => {
  const text = readFileSync(join(ROOT, 'bindings-node', 'index.d.ts'), 'utf8')
  const { classes } = declared()
  for (const [name, members] of classes) {
    if (name === 'MonapiError') continue // fields, documented one by one
    for (const member of [...members.static, ...members.instance]) {
      const at = new RegExp(`\\n  (?:static |get )?${member}[(<]`).exec(text)
      assert.ok(at, `${name}.${member} declared`)
      const before = text.slice(0, at.index)
      const doc = before.slice(before.lastIndexOf('/**'))
      assert.ok(doc.trimEnd().endsWith('*/'), `${name}.${member} has JSDoc`)
      assert.match(doc, /@example/, `${name}.${member} has an example`)
    }
  }
})

test('MONAPI_NODE_THREADS sizes the runtime that runs the HTTP calls (Linux: counts threads in /proc)', async () => {
  const script = `
    const { readdirSync, readFileSync } = require('node:fs')
    const { Emulator } = require('monapi')
    ;(async () => {
      const emu = await Emulator.start()
      await emu.client().agents()
      const names = readdirSync('/proc/self/task').map((t) => readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim())
      console.log(names.filter((n) => n === 'monapi-node').length)
      await emu.stop()
    })()
  `
  for (const threads of ['1', '3']) {
    const result = await runNode(['-e', script], { env: { ...process.env, MONAPI_NODE_THREADS: threads } })
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stdout.trim(), threads)
  }
})
