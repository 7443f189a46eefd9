// An Azure Blob server on loopback for the store's tests: Azurite (npm, a dev dependency), in
// memory, on a free port, without its telemetry (it would call out of the machine).
//
// node tests/support/azurite_server.mjs CONTAINER... starts it, creates the containers (signed
// with the emulator's well-known account key, as any Azure client signs), prints the port on a
// line of its own, and serves until its standard input closes (the test that started it
// ended, or died).

import { spawn } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { fileURLToPath } from 'node:url'

// Azurite's account and key: public constants of the emulator, not secrets.
const ACCOUNT = 'devstoreaccount1'
const KEY =
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
const VERSION = '2021-08-06'

const root = fileURLToPath(new URL('../..', import.meta.url))
const azurite = spawn(
  `${root}node_modules/.bin/azurite-blob`,
  [
    '--blobHost', '127.0.0.1',
    '--blobPort', '0',
    '--inMemoryPersistence',
    '--extentMemoryLimit', '256',
    '--disableTelemetry',
    '--skipApiVersionCheck',
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
)

/** The port Azurite says it listens on. */
const port = await new Promise((resolve, reject) => {
  let said = ''
  azurite.stdout.on('data', (chunk) => {
    said += chunk
    const listening = /listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(said)
    if (listening) resolve(Number(listening[1]))
  })
  azurite.on('exit', (code) => reject(new Error(`azurite-blob exited (${code}): ${said}`)))
})

/** Creates a container: a PUT signed with the account's key (Shared Key, path-style URL). */
async function createContainer(name) {
  const date = new Date().toUTCString()
  const toSign = [
    'PUT', '', '', '', '', '', '', '', '', '', '', '',
    `x-ms-date:${date}\nx-ms-version:${VERSION}`,
    `/${ACCOUNT}/${ACCOUNT}/${name}\nrestype:container`,
  ].join('\n')
  const signature = createHmac('sha256', Buffer.from(KEY, 'base64')).update(toSign).digest('base64')
  const answer = await fetch(`http://127.0.0.1:${port}/${ACCOUNT}/${name}?restype=container`, {
    method: 'PUT',
    headers: {
      'x-ms-date': date,
      'x-ms-version': VERSION,
      authorization: `SharedKey ${ACCOUNT}:${signature}`,
    },
  })
  if (answer.status !== 201) throw new Error(`creating ${name}: ${answer.status} ${await answer.text()}`)
}

for (const name of process.argv.slice(2)) await createContainer(name)
console.log(port)
process.stdin.resume()
process.stdin.on('end', () => {
  azurite.kill()
  process.exit(0)
})
