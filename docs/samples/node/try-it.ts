// Runs the service of service.ts against the bundled emulator, as the page
// docs/getting-started/node-service.md shows: `node dist/try-it.js` beside `dist/service.js`.
// tests/node/docs.test.mjs compiles and runs it too.

// --8<-- [start:try]
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { dirname, join } from 'node:path'

import { Emulator } from 'monapi'

async function main(): Promise<void> {
  // The emulator of the service, on 127.0.0.1 (a free port), with its demo account.
  const emulator = await Emulator.start()
  emulator.failSite(20001) // so that one site is down, with a fault going on
  const service = spawn(process.execPath, [join(dirname(process.argv[1]), 'service.js')], {
    stdio: 'inherit',
    env: {
      ...process.env,
      MONAPI_BASE_URL: emulator.baseUrl,
      MONAPI_CLIENT_ID: emulator.clientId,
      MONAPI_CLIENT_SECRET: emulator.clientSecret,
      MONAPI_USERNAME: emulator.username,
      MONAPI_PASSWORD: emulator.password,
    },
  })
  // Ctrl-C in a terminal reaches the service too; a SIGTERM sent here is passed on.
  process.on('SIGINT', () => {})
  process.on('SIGTERM', () => service.kill('SIGTERM'))
  const [code] = (await once(service, 'exit')) as [number | null]
  await emulator.stop()
  process.exitCode = code ?? 1
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
// --8<-- [end:try]
