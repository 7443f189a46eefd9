// Tokens saved and resumed: the samples of docs/guides/node.md ("Tokens"). Run by
// tests/node/samples.test.mjs in an empty folder, the account in the MONAPI_* variables.

// --8<-- [start:save]
import { existsSync, readFileSync, writeFileSync } from 'node:fs'

import { Client } from 'monapi'

// The token file holds secrets (the access and refresh tokens): readable by its owner only.
const TOKEN_FILE = 'token.json'
const save = (token) => writeFileSync(TOKEN_FILE, JSON.stringify(token), { mode: 0o600 })

const client = new Client({
  // A saved token, if there is one: no login until it expires, then a refresh.
  token: existsSync(TOKEN_FILE) ? readFileSync(TOKEN_FILE, 'utf8') : undefined,
  // Called with every new token (login, refresh, a new login), shortly after it arrives.
  onToken: save,
})
await client.agents() // logs in first, unless the saved token is still good
console.log(client.token) // Token { token_type, expires_in, expires_at, expires, access_token: '[redacted]', ... }
save(client.token) // now, as the process may end before onToken runs
await client.close()
// --8<-- [end:save]

// --8<-- [start:resume]
// Another process, later: the saved token is used as it is, and renewed when it expires.
const saved = JSON.parse(readFileSync(TOKEN_FILE, 'utf8'))
const resumed = new Client({ token: saved, onToken: save })
await resumed.agents()
const same = resumed.token?.expires_at === saved.expires_at
console.log(same ? 'resumed with the saved token: no new login' : 'a new token was needed')
console.log(`it expires at ${new Date(saved.expires_at * 1000).toISOString()}`)
await resumed.close()
// --8<-- [end:resume]
