// @ts-check
// The docs' reference of the error codes (docs/reference/errors.md, generated from the core's
// declaration, `monapi::ERRORS`, and kept current by the Rust suite) lists exactly the codes of
// ERROR_CODES, the package's own INTERNAL included, and a MonapiError keeps each of them.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { ERROR_CODES, MonapiError } from 'monapi'

import { ROOT } from './helpers.mjs'

const page = readFileSync(join(ROOT, 'docs', 'reference', 'errors.md'), 'utf8')

// A row of the page's summary: | [`CODE`](#code) | Rust | Python | `MonapiError`, `code` `'CODE'` |
const rows = [...page.matchAll(/^\| \[`([A-Z_]+)`\]\(#([a-z_]+)\) \| [^|]+ \| [^|]+ \| `MonapiError`, `code` `'([A-Z_]+)'` \|$/gm)]
const documented = rows.map((row) => row[1])

test('the reference lists every code of ERROR_CODES once, and no other', () => {
  assert.equal(new Set(documented).size, documented.length, `a code listed twice: ${documented}`)
  assert.deepEqual([...documented].sort(), [...ERROR_CODES].sort())
  assert.ok(documented.includes('INTERNAL'), "the package's own code for a bug")
})

test("each code's row names it as the MonapiError's code, and links to its section", () => {
  assert.ok(rows.length > 0, 'the summary table is on the page')
  for (const [, code, anchor, nodeCode] of rows) {
    assert.equal(nodeCode, code)
    assert.equal(anchor, code.toLowerCase())
    assert.ok(page.includes(`{#${anchor}}`), `no section for ${code}`)
  }
})

test('a MonapiError keeps each documented code (an unknown one becomes INTERNAL)', () => {
  for (const code of documented) {
    const err = new MonapiError('x', { code: /** @type {import('monapi').MonapiErrorCode} */ (code) })
    assert.equal(err.code, code)
  }
  assert.equal(new MonapiError('x', { code: /** @type {any} */ ('NOT_DOCUMENTED') }).code, 'INTERNAL')
})
