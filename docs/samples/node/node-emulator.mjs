// Tests against the bundled emulator: the samples of docs/guides/node.md ("The emulator in
// tests"). A node:test file as it stands: `node --test` (or `node node-emulator.mjs`) runs it.
// tests/node/samples.test.mjs runs it too; it needs no account.

// --8<-- [start:start]
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { Emulator, MonapiError } from 'monapi'

let emulator
before(async () => {
  // In this process, on 127.0.0.1 and a free port: the demo account and made-up tasks
  // (service tasks from 10001, site tasks from 20001), the same for the same seed.
  emulator = await Emulator.start({ seed: 42, tokenTtl: 60, serviceTasks: 10, siteTasks: 3 })
})
after(() => emulator.stop())
// --8<-- [end:start]

// --8<-- [start:tokens]
test('an expired token is refreshed, and the call repeated', async () => {
  const client = emulator.client() // a Client of the demo account; options given override
  await client.login()
  emulator.expireTokens()
  await client.agents()
  assert.equal(emulator.counters().token_refresh, 1)
  await client.close()
})
// --8<-- [end:tokens]

// --8<-- [start:faults]
test('a 503 is an API_ERROR once retries are spent', async () => {
  const client = emulator.client({ maxRetries: 0 })
  emulator.setFaults({ next: ['error503'] }) // the next request only; shares: { error503: 0.2 }
  await assert.rejects(client.agents(), (error) => error instanceof MonapiError && error.status === 503)
  assert.ok(await client.agents()) // the one after it is answered
  await client.close()
})
// --8<-- [end:faults]

// --8<-- [start:quirks]
test('an account without agents, written as PHP writes it', async () => {
  emulator.setQuirks({ noAgents: true }) // the agent list is [] rather than {}
  const client = emulator.client()
  assert.deepEqual(await client.agents(), {})
  emulator.setQuirks({})
  await client.close()
})
// --8<-- [end:quirks]

// --8<-- [start:world]
test('a site that goes down has an ongoing fault at each point', async () => {
  const client = emulator.client()
  emulator.failSite(20001) // every check fails from now on, until recoverSite(20001) or reset()
  const { faults } = await client.tables.siteReport(20001)
  assert.ok(faults.numRows > 0)
  assert.ok(faults.toRows().every((fault) => fault.ongoing && fault.end_time === null))
  emulator.reset() // counters, knobs, failing sites and tokens as at start
  await client.close()
})
// --8<-- [end:world]
