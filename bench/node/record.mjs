// @ts-check
// Writes one section of bench/RESULTS.md (from its `## ` heading to the next), leaving the
// other sections as they are; a section not there yet goes at the end.

import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Replaces (or appends) the section whose first line is `heading`.
 *
 * @param {string} heading e.g. `## Node`
 * @param {string} section the whole section, heading included
 * @returns {string} the file written
 */
export function recordSection(heading, section) {
  const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'RESULTS.md')
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n\n'
  const escaped = heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const start = old.search(new RegExp(`^${escaped}$`, 'm'))
  let updated
  if (start < 0) {
    updated = `${old.trimEnd()}\n\n${section}`
  } else {
    const rest = old.slice(start + 1).search(/^## /m)
    const end = rest < 0 ? old.length : start + 1 + rest
    updated = `${old.slice(0, start)}${section}${rest < 0 ? '' : `\n${old.slice(end)}`}`
  }
  writeFileSync(file, updated.replace(/\n{3,}/g, '\n\n'))
  return file
}
