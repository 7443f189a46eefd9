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
 * The package's exports as its declarations (index.d.ts and the lib/*.d.ts it re-exports,
 * compiled from the TypeScript sources) declare them, read with the TypeScript compiler's
 * type checker: the exported values, the public members of each exported class (with the
 * declaration of each, for its JSDoc), and the union of error codes.
 */
function declared() {
  const ts = require('typescript')
  const entry = join(ROOT, 'bindings-node', 'index.d.ts')
  const program = ts.createProgram([entry], { strict: true, types: [] })
  const checker = program.getTypeChecker()
  const module = /** @type {import('typescript').Symbol} */ (checker.getSymbolAtLocation(/** @type {any} */ (program.getSourceFile(entry))))
  /** @type {Map<string, { static: Set<string>, instance: Set<string>, docs: Map<string, string> }>} */
  const classes = new Map()
  /** @type {Set<string>} */
  const values = new Set()
  /** @type {Set<string>} */
  const codes = new Set()
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
    const declaration = symbol.declarations?.[0]
    if (!declaration) continue
    const typeOnly = exported.declarations?.some((d) => ts.isTypeOnlyExportDeclaration(d)) ?? false
    if (ts.isClassDeclaration(declaration) && !typeOnly) {
      values.add(exported.name)
      const members = { static: new Set(), instance: new Set(), docs: new Map() }
      for (const member of declaration.members) {
        if (!member.name || ts.isConstructorDeclaration(member) || ts.isClassStaticBlockDeclaration(member)) continue
        if (ts.isPrivateIdentifier(member.name) || ts.isComputedPropertyName(member.name)) continue
        /** @type {readonly { kind: number }[]} */
        const modifiers = ts.getModifiers(/** @type {any} */ (member)) ?? []
        if (modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) continue
        const isStatic = modifiers.some((m) => m.kind === ts.SyntaxKind.StaticKeyword)
        const name = member.name.getText()
        ;(isStatic ? members.static : members.instance).add(name)
        const source = member.getSourceFile().getFullText()
        members.docs.set(name, source.slice(member.getFullStart(), member.getStart()))
      }
      classes.set(exported.name, members)
    } else if (ts.isVariableDeclaration(declaration) && !typeOnly) {
      values.add(exported.name)
    } else if (ts.isTypeAliasDeclaration(declaration) && exported.name === 'MonapiErrorCode' && ts.isUnionTypeNode(declaration.type)) {
      for (const member of declaration.type.types) codes.add(member.getText().replace(/'/g, ''))
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

test('ClientOptions declares exactly the settings the core declares, and the package\'s own options', () => {
  const ts = require('typescript')
  const entry = join(ROOT, 'bindings-node', 'index.d.ts')
  const program = ts.createProgram([entry], { strict: true, types: [] })
  const checker = program.getTypeChecker()
  const module = /** @type {import('typescript').Symbol} */ (checker.getSymbolAtLocation(/** @type {any} */ (program.getSourceFile(entry))))
  const exported = checker.getExportsOfModule(module).find((s) => s.name === 'ClientOptions')
  assert.ok(exported, 'ClientOptions is exported')
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
  const options = checker.getDeclaredTypeOfSymbol(symbol)
  const declaredNames = checker.getPropertiesOfType(options).map((p) => p.name).sort()
  const internal = /** @type {any} */ (esm.default)[Symbol.for('monapi.internal')]
  const settings = /** @type {string[]} */ (internal.native.settingNames())
  assert.ok(settings.includes('maxConnections') && settings.includes('timeoutMs'), settings.join(', '))
  assert.deepEqual(declaredNames, [...settings, 'token', 'onToken', 'logLevel', 'logger'].sort())
})

test('every public member of index.d.ts has JSDoc with an example', () => {
  const { classes } = declared()
  for (const [name, members] of classes) {
    if (name === 'MonapiError') continue // fields, documented one by one
    for (const member of [...members.static, ...members.instance]) {
      const doc = members.docs.get(member) ?? ''
      assert.ok(doc.trimEnd().endsWith('*/'), `${name}.${member} has JSDoc`)
      assert.match(doc.slice(doc.lastIndexOf('/**')), /@example/, `${name}.${member} has an example`)
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
