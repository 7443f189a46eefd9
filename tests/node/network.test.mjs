// @ts-check
// Company networks: a private CA (the emulator over HTTPS), proxies and the connection cap.
// Environment variables are set only in child processes, never in this one.

import assert from 'node:assert/strict'
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

import { Client } from 'monapi'

import { emulator, rejects, runNode, throws } from './helpers.mjs'

const DEMO = { clientId: 'demo_id', clientSecret: 'demo_secret', username: 'test@example.com', password: '123456' }

/**
 * A small forwarding proxy on loopback: plain HTTP requests in absolute form are passed on to
 * their server, `CONNECT host:port` opens a tunnel. It counts the connections it carried to a
 * server and refuses (407) a client without the expected credentials.
 *
 * @param {import('node:test').TestContext} t
 * @param {[string, string]} [credentials]
 */
async function forwardingProxy(t, credentials) {
  const expected = credentials ? `Basic ${Buffer.from(credentials.join(':')).toString('base64')}` : null
  const state = { forwarded: 0, url: '', port: 0 }
  /** @type {Set<net.Socket>} */
  const sockets = new Set()
  const server = net.createServer((client) => {
    sockets.add(client)
    client.on('close', () => sockets.delete(client))
    client.on('error', () => {})
    let head = Buffer.alloc(0)
    const onData = (/** @type {Buffer} */ chunk) => {
      head = Buffer.concat([head, chunk])
      const end = head.indexOf('\r\n\r\n')
      if (end < 0) return
      client.off('data', onData)
      const text = head.subarray(0, end).toString('latin1')
      const [requestLine, ...headers] = text.split('\r\n')
      const [method, target] = requestLine.split(' ')
      const authorized =
        expected === null ||
        headers.some((h) => h.toLowerCase().startsWith('proxy-authorization:') && h.slice(20).trim() === expected)
      if (!authorized) {
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n')
        return
      }
      let authority = target
      let first = head.subarray(end + 4)
      if (method !== 'CONNECT') {
        const rest = target.replace(/^http:\/\//, '')
        const slash = rest.indexOf('/')
        authority = slash < 0 ? rest : rest.slice(0, slash)
        const path = slash < 0 ? '/' : rest.slice(slash)
        first = Buffer.from(head.toString('latin1').replace(target, path), 'latin1')
      }
      const colon = authority.lastIndexOf(':')
      const upstream = net.connect(Number(authority.slice(colon + 1)), authority.slice(0, colon), () => {
        state.forwarded += 1
        if (method === 'CONNECT') client.write('HTTP/1.1 200 Connection established\r\n\r\n')
        if (first.length > 0) upstream.write(first)
        client.pipe(upstream)
        upstream.pipe(client)
      })
      sockets.add(upstream)
      upstream.on('close', () => sockets.delete(upstream))
      upstream.on('error', () => client.destroy())
    }
    client.on('data', onData)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const address = server.address()
  assert.ok(address && typeof address === 'object')
  state.port = address.port
  state.url = `http://127.0.0.1:${address.port}`
  t.after(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  return state
}

/**
 * A child `node` that calls `agents()` with these variables added to an environment without
 * proxy or CA variables; resolves with its result.
 *
 * @param {string} baseUrl
 * @param {Record<string, string>} vars
 * @param {string} [extra] more client options, as JavaScript source
 */
function agentsInChild(baseUrl, vars, extra = '') {
  /** @type {NodeJS.ProcessEnv} */
  const env = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.toLowerCase().endsWith('_proxy') && !name.includes('CA_') && !name.startsWith('SSL_CERT')) {
      env[name] = value
    }
  }
  const program =
    `import { Client } from 'monapi'\n` +
    `const client = new Client({ baseUrl: ${JSON.stringify(baseUrl)}, clientId: 'demo_id', clientSecret: 'demo_secret',` +
    ` username: 'test@example.com', password: '123456', maxRetries: 0${extra} })\n` +
    `try { console.log(Object.keys(await client.agents()).length) } catch (e) { console.error(e.code, e.message); process.exit(1) }\n`
  return runNode(['--input-type=module', '-e', program], { env: { ...env, ...vars }, timeoutMs: 60000 })
}

test('an untrusted certificate says how to fix it and is not retried', async (t) => {
  const emu = await emulator(t, { tls: true })
  assert.ok(emu.baseUrl.startsWith('https://127.0.0.1:'))
  const client = new Client({ baseUrl: emu.baseUrl, ...DEMO, maxRetries: 3 })
  const error = await rejects(client.agents(), 'CONNECTION')
  for (const words of ['127.0.0.1', 'not trusted', 'unknown issuer', 'caBundle', 'NODE_EXTRA_CA_CERTS']) {
    assert.ok(error.message.includes(words), `${words} missing from ${error.message}`)
  }
  assert.equal(emu.counters().total, 0)
  assert.equal(emu.counters().connections, 1)
})

test('a private CA from a path or PEM bytes', async (t) => {
  const emu = await emulator(t, { tls: true })
  assert.ok(emu.caPath && emu.caPem)
  assert.equal(readFileSync(emu.caPath, 'utf8'), emu.caPem)
  for (const caBundle of [emu.caPath, Buffer.from(emu.caPem), new TextEncoder().encode(emu.caPem)]) {
    const client = new Client({ baseUrl: emu.baseUrl, ...DEMO, caBundle })
    assert.ok(Object.keys(await client.agents()).length > 0)
  }
  assert.ok((await emu.client().serviceTasks()).length > 0) // the helper trusts the CA already
  assert.equal(emu.counters().token, 4)
})

test('a missing or empty bundle is refused at construction', async (t) => {
  const emu = await emulator(t, { tls: true })
  const dir = mkdtempSync(join(tmpdir(), 'monapi-ca-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const empty = join(dir, 'empty.pem')
  writeFileSync(empty, 'not a certificate\n')
  /** @type {[string | Uint8Array, string][]} */
  const bad = [
    [join(dir, 'missing.pem'), 'does not exist'],
    [empty, 'no PEM certificate'],
    [Buffer.alloc(0), 'no PEM certificate'],
  ]
  for (const [caBundle, rule] of bad) {
    const error = throws(() => new Client({ baseUrl: emu.baseUrl, ...DEMO, caBundle }), 'INVALID_INPUT')
    assert.equal(error.field, 'caBundle', error.message)
    assert.ok(error.message.includes(rule), error.message)
  }
  // @ts-expect-error: a number is not a bundle
  throws(() => new Client({ baseUrl: emu.baseUrl, ...DEMO, caBundle: 42 }), 'INVALID_INPUT')
  assert.equal(emu.counters().connections, 0)
})

for (const variable of ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'MONAPI_CA_BUNDLE']) {
  test(`${variable} in a child process`, async (t) => {
    const emu = await emulator(t, { tls: true })
    assert.ok(emu.caPath)
    const run = await agentsInChild(emu.baseUrl, { [variable]: emu.caPath })
    assert.equal(run.code, 0, run.stderr)
    assert.ok(Number(run.stdout) > 0)
    const missing = await agentsInChild(emu.baseUrl, { [variable]: '/no/such/ca.pem' })
    assert.notEqual(missing.code, 0)
    assert.ok(missing.stderr.includes('INVALID_INPUT') && missing.stderr.includes(variable), missing.stderr)
  })
}

test('the proxy option carries every call, with its credentials', async (t) => {
  const emu = await emulator(t)
  const proxy = await forwardingProxy(t, ['me', 'pr0xy-secret'])
  const client = emu.client({ proxy: `http://me:pr0xy-secret@127.0.0.1:${proxy.port}` })
  await client.agents()
  await client.serviceTasks()
  assert.equal(emu.counters().total, 3)
  assert.ok(proxy.forwarded >= 1)
  assert.equal(emu.counters().connections, proxy.forwarded)
})

test('HTTPS goes through the proxy with CONNECT', async (t) => {
  const emu = await emulator(t, { tls: true })
  const proxy = await forwardingProxy(t)
  await emu.client({ proxy: proxy.url }).agents()
  assert.ok(proxy.forwarded >= 1)
  assert.equal(emu.counters().connections, proxy.forwarded)
})

test("the proxy's password never shows in an error", async (t) => {
  const emu = await emulator(t)
  const proxy = await forwardingProxy(t, ['me', 'the-right-one'])
  const client = emu.client({ proxy: `http://me:wr0ng-secret@127.0.0.1:${proxy.port}`, maxRetries: 1 })
  try {
    await client.agents()
    assert.fail('the proxy refuses these credentials')
  } catch (error) {
    const shown = `${String(error)} ${JSON.stringify(error)} ${/** @type {Error} */ (error).stack}`
    assert.ok(!shown.includes('wr0ng-secret'), shown)
  }
  assert.equal(emu.counters().total, 0)
})

test('proxies from the environment, NO_PROXY and proxy: false, in child processes', async (t) => {
  const emu = await emulator(t)
  const proxy = await forwardingProxy(t)
  for (const variable of ['HTTP_PROXY', 'http_proxy', 'ALL_PROXY']) {
    const before = proxy.forwarded
    const run = await agentsInChild(emu.baseUrl, { [variable]: proxy.url })
    assert.equal(run.code, 0, run.stderr)
    assert.ok(proxy.forwarded > before, variable)
  }
  const through = proxy.forwarded
  /** @type {Record<string, string>[]} */
  const bypassing = [
    { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
    { http_proxy: proxy.url, no_proxy: '127.0.0.1' },
  ]
  for (const vars of bypassing) {
    const run = await agentsInChild(emu.baseUrl, vars)
    assert.equal(run.code, 0, run.stderr)
  }
  const off = await agentsInChild(emu.baseUrl, { HTTP_PROXY: proxy.url }, ', proxy: false')
  assert.equal(off.code, 0, off.stderr)
  assert.equal(proxy.forwarded, through, 'NO_PROXY and proxy: false bypass the proxy')
})

test('bad network options are refused, naming the option', async (t) => {
  const emu = await emulator(t)
  assert.equal(throws(() => emu.client({ proxy: 'proxy.corp:3128' }), 'INVALID_INPUT').field, 'proxy')
  // @ts-expect-error: true is not a proxy
  assert.equal(throws(() => emu.client({ proxy: true }), 'INVALID_INPUT').field, 'proxy')
  for (const maxConnections of [0, 10001, 2.5]) {
    assert.equal(throws(() => emu.client({ maxConnections }), 'INVALID_INPUT').field, 'maxConnections')
  }
})

test('maxConnections bounds the connections one client uses', async (t) => {
  const emu = await emulator(t)
  emu.setLatency(5)
  const client = emu.client({ maxConnections: 4, timeoutMs: 60000 })
  await client.login()
  const results = await Promise.all(Array.from({ length: 200 }, () => client.agents()))
  assert.equal(results.length, 200)
  const counters = emu.counters()
  assert.equal(counters.agents, 200)
  assert.ok(counters.peak_in_progress <= 4, JSON.stringify(counters)) // never more in use at once
  assert.ok(counters.connections <= 20, JSON.stringify(counters)) // reused (see ClientBuilder::max_connections)
})
