// @ts-check
// OpenTelemetry: with the real SDKs registered (once for this process, at the top), every call
// of a Client and its tables is spans of the tracer `monapi` under the span active when it was
// made, with the recorded times, kinds, attributes and statuses, and the attempts' durations
// and retries are metrics; `propagateTraceContext` sends the caller's span to the emulator.
// Child processes check a program without a registered provider, and one where
// `@opentelemetry/api` cannot be resolved at all: calls work, nothing is recorded.

import assert from 'node:assert/strict'
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { pathToFileURL } from 'node:url'

import { context, metrics, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { VERSION } from 'monapi'

import { DEMO_SECRETS, ROOT, assertNoSecret, day, emulator, rejects, runNode } from './helpers.mjs'

/** Each collection gives what was measured since the last one. */
class Reader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.DELTA })
  }
  async onForceFlush() {}
  async onShutdown() {}
}

const exporter = new InMemorySpanExporter()
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const reader = new Reader()
const meterProvider = new MeterProvider({ readers: [reader] })
assert.ok(trace.setGlobalTracerProvider(tracerProvider))
assert.ok(metrics.setGlobalMeterProvider(meterProvider))
assert.ok(context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()))
after(async () => {
  await tracerProvider.shutdown()
  await meterProvider.shutdown()
})

const tracer = trace.getTracer('telemetry.test')
const DAY = day(1)
/** The semantic conventions' buckets of `http.client.request.duration`, in seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

/** @typedef {import('@opentelemetry/sdk-trace-base').ReadableSpan} ReadableSpan */

/**
 * Runs `fn` inside a span of its own (the parent), and returns it with the spans of its trace
 * (itself left out) and what `fn` resolved or rejected with.
 *
 * @template T
 * @param {() => Promise<T>} fn
 */
async function traced(fn) {
  /** @type {import('@opentelemetry/api').Span | undefined} */
  let parent
  /** @type {{ value?: T, error?: unknown }} */
  const outcome = {}
  await tracer.startActiveSpan('parent', async (span) => {
    parent = span
    try {
      outcome.value = await fn()
    } catch (error) {
      outcome.error = error
    } finally {
      span.end()
    }
  })
  assert.ok(parent)
  const { traceId, spanId } = parent.spanContext()
  const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId && s.spanContext().spanId !== spanId)
  return { parent: parent.spanContext(), spans, ...outcome }
}

/**
 * The children of span `id` among `spans`, in the order they started.
 *
 * @param {ReadableSpan[]} spans
 * @param {string} id
 */
function children(spans, id) {
  return spans
    .filter((s) => s.parentSpanContext?.spanId === id)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
}

/** @param {[number, number]} time */
const nanos = (time) => BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])

/**
 * Checks what every span of monapi has: the tracer `monapi` and the package's version, an end
 * not before its start, and a child within its parent's times.
 *
 * @param {ReadableSpan[]} spans
 */
function wellFormed(spans) {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]))
  for (const span of spans) {
    assert.deepEqual([span.instrumentationScope.name, span.instrumentationScope.version], ['monapi', VERSION])
    assert.ok(nanos(span.startTime) <= nanos(span.endTime), span.name)
    const parent = byId.get(span.parentSpanContext?.spanId ?? '')
    if (parent) {
      assert.ok(nanos(parent.startTime) <= nanos(span.startTime), `${span.name} starts within ${parent.name}`)
      assert.ok(nanos(span.endTime) <= nanos(parent.endTime), `${span.name} ends within ${parent.name}`)
    }
  }
}

/**
 * Checks an HTTP attempt's span: CLIENT, its method and the emulator's address, the access
 * token redacted in `url.full`.
 *
 * @param {ReadableSpan} span
 * @param {import('monapi').Emulator} emu
 * @param {string} method
 * @param {string} path
 * @param {number} status
 */
function attempt(span, emu, method, path, status) {
  const { port } = new URL(emu.baseUrl)
  assert.equal(span.name, method)
  assert.equal(span.kind, SpanKind.CLIENT)
  assert.equal(span.attributes['http.request.method'], method)
  assert.equal(span.attributes['server.address'], '127.0.0.1')
  assert.equal(span.attributes['server.port'], Number(port))
  assert.equal(span.attributes['http.response.status_code'], status)
  const url = String(span.attributes['url.full'])
  assert.ok(url.startsWith(`${emu.baseUrl}${path}`), url)
  if (path !== '/v2/oauth/token.json') assert.match(url, /[?&]access_token=REDACTED(&|$)/)
}

/**
 * Checks an operation's span: INTERNAL, its name and `monapi.operation`, unset status.
 *
 * @param {ReadableSpan | undefined} span
 * @param {string} operation
 */
function operation(span, operation) {
  assert.ok(span, `a span of ${operation}`)
  assert.equal(span.name, `monapi ${operation}`)
  assert.equal(span.kind, SpanKind.INTERNAL)
  assert.equal(span.attributes['monapi.operation'], operation)
  assert.equal(span.status.code, SpanStatusCode.UNSET)
  return span
}

/** What was measured by monapi since the last collection, by instrument name. */
async function measured() {
  const { resourceMetrics, errors } = await reader.collect()
  assert.deepEqual(errors, [])
  const found = resourceMetrics.scopeMetrics.filter((s) => s.scope.name === 'monapi').flatMap((s) => s.metrics)
  return new Map(found.map((m) => [m.descriptor.name, m]))
}

/** @param {import('node:test').TestContext} t @param {import('monapi').ClientOptions} [options] */
async function setup(t, options) {
  const emu = await emulator(t, { faults: { retryAfterSecs: 0 } })
  const client = emu.client(options)
  t.after(() => client.close())
  return { emu, client }
}

test('a call is a span under the caller\'s, with its token request and its attempts', async (t) => {
  const { emu, client } = await setup(t)
  const { parent, spans } = await traced(() => client.agents())
  wellFormed(spans)
  const [call, ...others] = children(spans, parent.spanId)
  assert.deepEqual(others, [], 'one span under the caller\'s')
  operation(call, 'agents')
  const [token, get] = children(spans, call.spanContext().spanId)
  operation(token, 'token')
  attempt(get, emu, 'GET', '/v2/agent/lists.json', 200)
  const [post] = children(spans, token.spanContext().spanId)
  attempt(post, emu, 'POST', '/v2/oauth/token.json', 200)
  assert.equal(spans.length, 4)
  assert.equal(get.attributes['http.request.resend_count'], undefined, 'the first attempt is no resend')
})

test('a table call, a bulk call (a span per task) and the pages of an iteration', async (t) => {
  const { emu, client } = await setup(t)
  await client.login()
  const single = await traced(() => client.tables.serviceReport(10001, { startDate: DAY, endDate: DAY }))
  wellFormed(single.spans)
  const [report] = children(single.spans, single.parent.spanId)
  operation(report, 'service_report')
  assert.equal(report.attributes['monapi.task_id'], 10001)
  assert.equal(report.attributes['monapi.rows'], single.value?.numRows)
  const [get] = children(single.spans, report.spanContext().spanId)
  attempt(get, emu, 'GET', '/v2/service/report/10001.json', 200)

  const ids = [10001, 10002, 10003]
  const bulk = await traced(() => client.tables.serviceReports({ taskIds: ids, startDate: DAY, endDate: DAY, concurrency: 2 }))
  wellFormed(bulk.spans)
  const [call, ...others] = children(bulk.spans, bulk.parent.spanId)
  assert.deepEqual(others, [])
  operation(call, 'service_reports')
  assert.equal(call.attributes['monapi.rows'], bulk.value?.table.numRows)
  const tasks = children(bulk.spans, call.spanContext().spanId)
  assert.deepEqual(tasks.map((s) => s.attributes['monapi.task_id']).sort(), ids)
  for (const task of tasks) {
    operation(task, 'service_report')
    const [only, ...more] = children(bulk.spans, task.spanContext().spanId)
    assert.deepEqual(more, [])
    attempt(only, emu, 'GET', `/v2/service/report/${task.attributes['monapi.task_id']}.json`, 200)
  }
  assert.equal(bulk.spans.length, 1 + 2 * ids.length)

  const pages = await traced(async () => {
    for await (const _task of client.iterServiceTasks()) void _task
  })
  const calls = children(pages.spans, pages.parent.spanId)
  assert.equal(calls.length, 3, 'a span per page (120 tasks)')
  for (const [i, page] of calls.entries()) {
    operation(page, 'service_tasks')
    attempt(children(pages.spans, page.spanContext().spanId)[0], emu, 'GET', `/v2/service/lists.json?page=${i + 1}`, 200)
  }
})

test('sync is one span with a child per task; login and refresh are token spans', async (t) => {
  const store = mkdtempSync(join(tmpdir(), 'monapi-telemetry-'))
  t.after(() => rmSync(store, { recursive: true, force: true }))
  const { emu, client } = await setup(t, { store })
  const login = await traced(() => client.login())
  const [token] = children(login.spans, login.parent.spanId)
  operation(token, 'token')
  attempt(children(login.spans, token.spanContext().spanId)[0], emu, 'POST', '/v2/oauth/token.json', 200)
  const refresh = await traced(() => client.refresh())
  operation(children(refresh.spans, refresh.parent.spanId)[0], 'token')

  const { parent, spans, value } = await traced(() => client.sync({ tasks: [10001, 20001], startDate: day(3), endDate: day(2) }))
  wellFormed(spans)
  const [sync, ...others] = children(spans, parent.spanId)
  assert.deepEqual(others, [])
  operation(sync, 'sync')
  assert.equal(sync.attributes['monapi.rows'], value?.rows)
  const inside = children(spans, sync.spanContext().spanId)
  const tasks = inside.filter((s) => s.kind === SpanKind.INTERNAL)
  assert.deepEqual(tasks.map((s) => [s.name, s.attributes['monapi.task_id']]).sort(), [
    ['monapi service_report', 10001],
    ['monapi site_report', 20001],
  ])
  // The task lists, read first, are attempts of the sync itself.
  assert.ok(inside.filter((s) => s.kind === SpanKind.CLIENT).every((s) => /\/v2\/(service|site)\/lists\.json/.test(String(s.attributes['url.full']))))
  for (const task of tasks) assert.equal(children(spans, task.spanContext().spanId)[0].name, 'GET')
})

test('Promises in flight together: each call under the span active where it was made', async (t) => {
  const { client } = await setup(t)
  await client.login()
  const ids = [10001, 10002, 10003, 10004]
  const { spans } = await traced(() =>
    Promise.all(
      ids.map((id) =>
        tracer.startActiveSpan(`caller ${id}`, (span) => {
          // All started before any settles: every call is in flight with the others.
          const call = client.serviceReport(id, { startDate: DAY, endDate: DAY })
          return call.finally(() => span.end()).then(() => span.spanContext().spanId)
        }),
      ),
    ),
  )
  const callers = spans.filter((s) => s.name.startsWith('caller '))
  assert.equal(callers.length, ids.length)
  for (const caller of callers) {
    const [call, ...others] = children(spans, caller.spanContext().spanId)
    assert.deepEqual(others, [])
    operation(call, 'service_report')
    assert.equal(`caller ${call.attributes['monapi.task_id']}`, caller.name)
  }
})

test('retries: resend_count, the retries counter, and a duration measured per attempt', async (t) => {
  const { emu, client } = await setup(t)
  await client.login()
  await measured() // what came before
  emu.setFaults({ next: ['error503', 'error500'], retryAfterSecs: 0 })
  const { parent, spans } = await traced(() => client.agents())
  const [call] = children(spans, parent.spanId)
  operation(call, 'agents')
  const attempts = children(spans, call.spanContext().spanId)
  assert.deepEqual(
    attempts.map((s) => [s.attributes['http.response.status_code'], s.attributes['error.type'], s.attributes['http.request.resend_count'], s.status]),
    [
      [503, '503', undefined, { code: SpanStatusCode.ERROR, message: 'API_ERROR' }],
      [500, '500', 1, { code: SpanStatusCode.ERROR, message: 'API_ERROR' }],
      [200, undefined, 2, { code: SpanStatusCode.UNSET }],
    ],
  )
  const found = await measured()
  const duration = found.get('http.client.request.duration')
  assert.ok(duration)
  assert.deepEqual([duration.descriptor.unit, duration.descriptor.description], ['s', 'Duration of HTTP client requests.'])
  const points = /** @type {any[]} */ (duration.dataPoints)
  assert.equal(points.reduce((sum, p) => sum + p.value.count, 0), attempts.length, 'one measurement per attempt')
  for (const point of points) assert.deepEqual(point.value.buckets.boundaries, BUCKETS)
  assert.deepEqual(points.map((p) => p.attributes['http.response.status_code']).sort(), [200, 500, 503])
  const { port } = new URL(emu.baseUrl)
  assert.ok(points.every((p) => p.attributes['server.port'] === Number(port) && p.attributes['http.request.method'] === 'GET'))
  const retries = found.get('monapi.client.retries')
  assert.ok(retries)
  assert.deepEqual(
    retries.dataPoints.map((p) => [p.attributes['monapi.operation'], p.attributes['error.type'], p.value]).sort(),
    [
      ['agents', '500', 1],
      ['agents', '503', 1],
    ],
  )
})

test('a call aborted with its signal ends as ABORTED, its attempt as cancelled', async (t) => {
  const { emu, client } = await setup(t)
  await client.login()
  emu.setLatency(5000)
  const controller = new AbortController()
  const { parent, spans, error } = await traced(async () => {
    const call = client.agents({ signal: controller.signal })
    const deadline = Date.now() + 10000
    while (emu.counters().agents < 1) {
      assert.ok(Date.now() < deadline, 'the request never arrived')
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    controller.abort()
    return call
  })
  assert.equal(/** @type {any} */ (error)?.code, 'ABORTED')
  wellFormed(spans)
  const [call] = children(spans, parent.spanId)
  assert.equal(call.name, 'monapi agents')
  assert.deepEqual(call.status, { code: SpanStatusCode.ERROR, message: 'ABORTED' })
  assert.equal(call.attributes['error.type'], 'ABORTED')
  const [get, ...more] = children(spans, call.spanContext().spanId)
  assert.deepEqual(more, [])
  assert.equal(get.kind, SpanKind.CLIENT)
  assert.equal(get.attributes['error.type'], 'cancelled')
  assert.deepEqual(get.status, { code: SpanStatusCode.ERROR, message: 'ABORTED' })
})

test('a failed call ends with status ERROR and its code, down to the attempt', async (t) => {
  const { emu } = await setup(t)
  const client = emu.client({ password: 'wrong password' })
  t.after(() => client.close())
  const { parent, spans, error } = await traced(() => client.agents())
  assert.equal(/** @type {any} */ (error)?.code, 'AUTH_INVALID_GRANT')
  const [call] = children(spans, parent.spanId)
  const [token] = children(spans, call.spanContext().spanId)
  const [post] = children(spans, token.spanContext().spanId)
  for (const span of [call, token]) {
    assert.deepEqual(span.status, { code: SpanStatusCode.ERROR, message: 'AUTH_INVALID_GRANT' })
    assert.equal(span.attributes['error.type'], 'AUTH_INVALID_GRANT')
  }
  assert.equal(post.attributes['error.type'], String(post.attributes['http.response.status_code']))
  assert.deepEqual(post.status, { code: SpanStatusCode.ERROR, message: 'AUTH_INVALID_GRANT' })
  assert.equal(spans.length, 3, 'no request after the refusal')
})

test('propagateTraceContext: the caller\'s span reaches the service only when it is on', async (t) => {
  const { emu, client } = await setup(t)
  const on = emu.client({ propagateTraceContext: true })
  t.after(() => on.close())
  await client.agents()
  await on.agents() // outside any span: nothing to send
  assert.deepEqual([emu.counters().traced, emu.counters().traceparent], [0, null])
  await traced(() => client.agents())
  assert.equal(emu.counters().traced, 0, 'off by default')
  const { parent } = await traced(() => on.agents())
  assert.equal(emu.counters().traced, 1)
  assert.equal(emu.counters().traceparent, `00-${parent.traceId}-${parent.spanId}-01`)

  process.env.MONAPI_PROPAGATE_TRACE_CONTEXT = 'true'
  const fromEnv = (() => {
    try {
      return emu.client()
    } finally {
      delete process.env.MONAPI_PROPAGATE_TRACE_CONTEXT
    }
  })()
  t.after(() => fromEnv.close())
  await fromEnv.login()
  const second = await traced(() => fromEnv.agents())
  assert.equal(emu.counters().traced, 2)
  assert.equal(emu.counters().traceparent, `00-${second.parent.traceId}-${second.parent.spanId}-01`)
  const wrong = await rejects(Promise.resolve().then(() => emu.client({ propagateTraceContext: /** @type {any} */ ('yes') })), 'INVALID_INPUT')
  assert.equal(wrong.field, 'propagateTraceContext')
  assert.match(wrong.message, /must be true or false/)
})

test('no span holds the password, its MD5, the client secret, a token or a task\'s password', async (t) => {
  const { emu } = await setup(t)
  /** @type {import('monapi').Token[]} */
  const tokens = []
  const client = emu.client()
  t.after(() => client.close())
  const password = 'S3cret-db-pass'
  /** @type {import('monapi').ServiceTaskInput} */
  const task = { task_name: 'db', task_type: 'mysql', ip: '10.0.0.7', port: 3306, user: 'monitor', password }
  const { spans } = await traced(async () => {
    tokens.push(await client.login())
    tokens.push(await client.refresh())
    await client.agents()
    await client.request({ method: 'GET', path: '/v2/agent/lists.json' })
    await client.createServiceTasks([task])
    await client.tables.siteReport(20001, { startDate: DAY, endDate: DAY })
    await emu.client({ password: 'wrong password' }).agents().catch(() => undefined)
  })
  const values = tokens.flatMap((token) => [token.access_token, String(token.refresh_token)])
  assert.ok(spans.length >= 12, `${spans.length} spans`)
  const text = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.status, s.events]))
  assertNoSecret(text, [...DEMO_SECRETS, ...values, password, 'wrong password'])
})

test('a call made deep in the stack under the context manager (AsyncLocalStorage) settles as it should', async (t) => {
  // The native side takes little of the JavaScript thread's stack to start a call: Promise
  // hooks (on under AsyncLocalStorage) run JavaScript there, which V8 bounds.
  const { client } = await setup(t)
  await client.login()
  let limit = 0
  const probe = () => {
    limit += 1
    probe()
  }
  assert.throws(probe, RangeError)
  /** @type {(depth: number) => Promise<import('monapi').Agents>} */
  const deep = (depth) => (depth > 0 ? deep(depth - 1) : client.agents())
  const { parent, spans, value, error } = await traced(() => deep(Math.floor(limit * 0.4)))
  assert.equal(error, undefined)
  assert.ok(value && Object.keys(value).length > 0)
  operation(children(spans, parent.spanId)[0], 'agents')
})

test('a program without a registered provider: calls work, nothing recorded; one registered later sees the next call', async () => {
  const script = `
    const assert = require('node:assert/strict')
    const monapi = require('monapi')
    const { native } = monapi[Symbol.for('monapi.internal')]
    assert.ok(!Object.keys(require.cache).some((f) => f.includes('@opentelemetry')), 'not loaded with the package')
    let made = 0
    const NativeCall = native.NativeCall
    native.NativeCall = class extends NativeCall { constructor(...args) { super(...args); made += 1 } }
    ;(async () => {
      const emu = await monapi.Emulator.start()
      const client = emu.client()
      await client.agents()
      await client.tables.serviceReport(10001)
      assert.ok(Object.keys(require.cache).some((f) => f.includes('@opentelemetry/api')), 'loaded at the first call')
      assert.equal(made, 0, 'no NativeCall: nothing recorded, nothing extra handed over')
      const api = require('@opentelemetry/api')
      const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base')
      const exporter = new InMemorySpanExporter()
      api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
      await client.agents()
      assert.equal(made, 1)
      console.log(JSON.stringify(exporter.getFinishedSpans().map((s) => s.name)))
      await emu.stop()
    })().catch((error) => { console.error(error); process.exitCode = 1 })
  `
  const result = await runNode(['-e', script], { cwd: ROOT })
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(JSON.parse(result.stdout), ['GET', 'monapi agents'])
})

test('a meter provider alone: the metrics', async () => {
  const script = `
    const api = require('@opentelemetry/api')
    const { MeterProvider, MetricReader } = require('@opentelemetry/sdk-metrics')
    class Reader extends MetricReader { async onForceFlush() {} async onShutdown() {} }
    const reader = new Reader()
    api.metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
    const { Emulator } = require('monapi')
    ;(async () => {
      const emu = await Emulator.start()
      await emu.client().agents()
      const { resourceMetrics } = await reader.collect()
      const found = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics.map((m) => [s.scope.name, m.descriptor.name, m.dataPoints.reduce((n, p) => n + p.value.count, 0)]))
      console.log(JSON.stringify(found))
      await emu.stop()
    })().catch((error) => { console.error(error); process.exitCode = 1 })
  `
  const result = await runNode(['-e', script], { cwd: ROOT })
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(JSON.parse(result.stdout), [['monapi', 'http.client.request.duration', 2]])
})

test('@opentelemetry/api out of reach: calls work (CommonJS and ESM); found from the program when the package cannot', async (t) => {
  // The package's JavaScript where no node_modules is above it, and the addon it loads.
  const dir = mkdtempSync(join(tmpdir(), 'monapi-no-otel-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const pkg = join(dir, 'monapi')
  cpSync(join(ROOT, 'bindings-node', 'lib'), join(pkg, 'lib'), { recursive: true })
  for (const file of ['index.js', 'index.mjs', 'native.js']) copyFileSync(join(ROOT, 'bindings-node', file), join(pkg, file))
  const [addon] = readdirSync(join(ROOT, 'bindings-node')).filter((f) => /^monapi\.[\w-]+\.node$/.test(f))
  symlinkSync(join(ROOT, 'bindings-node', addon), join(pkg, addon))
  const calls = `
      const emu = await Emulator.start()
      const client = emu.client()
      const agents = await client.agents()
      await client.agents({ signal: new AbortController().signal, timeoutMs: 10000 })
      const table = await client.tables.serviceReport(10001)
      await emu.stop()
  `
  mkdirSync(join(dir, 'app'))
  writeFileSync(
    join(dir, 'app', 'cjs.cjs'),
    `const assert = require('node:assert/strict')
    assert.throws(() => require.resolve('@opentelemetry/api'), { code: 'MODULE_NOT_FOUND' })
    const { Emulator } = require(${JSON.stringify(join(pkg, 'index.js'))})
    ;(async () => {${calls}
      assert.ok(!Object.keys(require.cache).some((f) => f.includes('opentelemetry')))
      console.log('cjs', Object.keys(agents).length > 0, table.numRows > 0)
    })().catch((error) => { console.error(error); process.exitCode = 1 })`,
  )
  writeFileSync(
    join(dir, 'app', 'esm.mjs'),
    `import { Emulator } from ${JSON.stringify(pathToFileURL(join(pkg, 'index.mjs')).href)}
    ${calls}
    console.log('esm', Object.keys(agents).length > 0, table.numRows > 0)`,
  )
  for (const [file, shown] of [['cjs.cjs', 'cjs true true'], ['esm.mjs', 'esm true true']]) {
    const result = await runNode([join(dir, 'app', file)], { cwd: join(dir, 'app') })
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stdout.trim(), shown)
  }

  // The program (here `node -e` in the repository) has the API the package cannot reach.
  const fromProgram = `
    const api = require('@opentelemetry/api')
    const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base')
    const exporter = new InMemorySpanExporter()
    api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
    const { Emulator } = require(process.env.PACKAGE)
    ;(async () => {
      const emu = await Emulator.start()
      await emu.client().agents()
      console.log(JSON.stringify(exporter.getFinishedSpans().map((s) => s.name)))
      await emu.stop()
    })().catch((error) => { console.error(error); process.exitCode = 1 })
  `
  const result = await runNode(['-e', fromProgram], { cwd: ROOT, env: { ...process.env, PACKAGE: join(pkg, 'index.js') } })
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(JSON.parse(result.stdout), ['POST', 'monapi token', 'GET', 'monapi agents'])
})
