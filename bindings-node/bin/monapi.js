#!/usr/bin/env node
// @ts-check
'use strict'
// `npx monapi` (the package's `bin`): the command of the crate monapi-cli, linked into this
// package's native addon, so that it is the crate's command: the same subcommands, flags, exit
// codes and handling of signals. Where the platform has no addon, the loader's error says
// which package is missing and what to do, and the command exits 1.

/** @type {{ runCommand(args: string[]): number }} */
let native
try {
  native = require('../native.js')
} catch (error) {
  process.stderr.write(`monapi: error: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
}
process.exit(native.runCommand(['monapi', ...process.argv.slice(2)]))
