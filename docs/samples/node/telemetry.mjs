// Tracing: the sample of docs/guides/telemetry.md ("Node"). Run by tests/node/samples.test.mjs
// against the emulator, the account in the MONAPI_* variables.

// --8<-- [start:telemetry]
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { Client } from 'monapi'

// The program's OpenTelemetry, set up once at its start (the Node SDK or a vendor's distro does
// the same): a tracer provider, here keeping the spans in memory, and a context manager, so that
// the active span goes along `await`.
const exporter = new InMemorySpanExporter()
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())

const client = new Client()
await trace.getTracer('nightly').startActiveSpan('nightly job', async (job) => {
  await client.serviceReport(10001) // a span under 'nightly job', with its requests under it
  job.end()
})
await client.close()

// Each span under its parent, in the order they started.
const spans = exporter.getFinishedSpans()
const byStart = (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]
const show = (parentId, depth) => {
  for (const span of spans.filter((s) => s.parentSpanContext?.spanId === parentId).sort(byStart)) {
    console.log(`${'  '.repeat(depth)}${span.name}`)
    show(span.spanContext().spanId, depth + 1)
  }
}
show(undefined, 0)
// --8<-- [end:telemetry]
