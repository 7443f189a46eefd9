// A company network: a private CA, no proxy, a connection cap. The sample of
// docs/guides/node.md ("Company networks"), tried against the emulator serving HTTPS with a
// CA of its own (made at start). Run by tests/node/samples.test.mjs; it needs no account.

import { Client, Emulator, MonapiError } from 'monapi'

const emulator = await Emulator.start({ tls: true })
const account = {
  clientId: emulator.clientId,
  clientSecret: emulator.clientSecret,
  username: emulator.username,
  password: emulator.password,
}

// --8<-- [start:client]
const client = new Client({
  baseUrl: emulator.baseUrl, // https://127.0.0.1:PORT
  ...account,
  caBundle: emulator.caPath, // a PEM file (or its text as a Buffer), trusted beside the system's store
  proxy: false, // no proxy, whatever HTTPS_PROXY says; or 'http://user:password@proxy.corp:3128'
  maxConnections: 16, // at most 16 calls in flight; the others wait for a connection
  maxResponseBytes: 256 * 1024 * 1024, // a larger answer is a DECODE error, read no further
})
const agents = await client.agents()
console.log(`${Object.keys(agents).length} agents over ${new URL(client.baseUrl).protocol}`)
// --8<-- [end:client]

// --8<-- [start:untrusted]
// Without the CA: the first call fails with a CONNECTION error that names the host, the
// cause and the option to use (not retried: the certificate would be refused again).
const stranger = new Client({ baseUrl: emulator.baseUrl, ...account })
try {
  await stranger.agents()
} catch (error) {
  if (!(error instanceof MonapiError) || error.code !== 'CONNECTION') throw error
  console.log(`${error.code}: ${error.message}`)
}
await stranger.close()
// --8<-- [end:untrusted]

await client.close()
await emulator.stop()
