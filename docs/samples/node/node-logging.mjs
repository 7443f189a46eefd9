// Logging: the sample of docs/guides/node.md ("Logging"). Run by tests/node/samples.test.mjs
// against the emulator, the account in the MONAPI_* variables.

// --8<-- [start:logger]
import { Client } from 'monapi'

// Any object with console's methods: console itself (the default), pino, winston... This one
// writes one JSON object a line, as pino does.
const line = (level) => (message) => console.log(JSON.stringify({ time: new Date().toISOString(), level, message }))
const logger = { error: line('error'), warn: line('warn'), info: line('info'), debug: line('debug') }

// 'debug': each request, retry and token renewal (never a secret). Default: MONAPI_LOG, else 'warn'.
const client = new Client({ logLevel: 'debug', logger })
await client.login()
await client.agents()
await client.close()
// --8<-- [end:logger]
