"""The Python sample of docs/guides/telemetry.md: run whole, in one interpreter, by
tests/python/test_docs.py against the emulator (MONAPI_* set). What lies outside the region
checks what the sample gave."""

# --8<-- [start:telemetry]
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import monapi

# Your program's OpenTelemetry, set up once (or by opentelemetry-instrument, or a vendor's
# distro). The spans stay in memory here; a real program exports them (BatchSpanProcessor
# with OTLPSpanExporter, or ConsoleSpanExporter to see them on the terminal).
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
tracer = trace.get_tracer("nightly-job")

client = monapi.Client()  # the account from MONAPI_BASE_URL, MONAPI_CLIENT_ID, ...
with tracer.start_as_current_span("nightly job"):
    report = client.service_report(10001)  # a span under "nightly job", a child per attempt
    tables = client.tables.service_reports([10001, 10002])  # one span, a child per task

# Each span under its parent (a parent starts before its children).
depth: dict[int | None, int] = {None: -1}
for span in sorted(exporter.get_finished_spans(), key=lambda span: span.start_time or 0):
    parent = span.parent.span_id if span.parent else None
    depth[span.context.span_id] = depth.get(parent, -1) + 1
    print("    " * depth[span.context.span_id] + f"{span.name} ({span.kind.name})")
# nightly job (INTERNAL)
#     monapi service_report (INTERNAL)
#         monapi token (INTERNAL)
#             POST (CLIENT)
#         GET (CLIENT)
#     monapi service_reports (INTERNAL)
#         monapi service_report (INTERNAL)
#             GET (CLIENT)
#         ...
# --8<-- [end:telemetry]

names = [span.name for span in exporter.get_finished_spans()]
assert report and tables.num_rows > 0
assert names[-1] == "nightly job"
assert names.count("monapi service_reports") == 1 and names.count("monapi service_report") == 3
assert names.count("monapi token") == 1
