"""OpenTelemetry: every call of the package as spans of the host's tracer and measurements of
its meter, against the emulator, with the real SDK (in-memory exporter and reader).

OpenTelemetry's global providers are set once per process: this module sets them for its
own tests and puts the API's globals back as it found them when it ends (as OpenTelemetry's
own test utilities do), so that the rest of the suite runs without a provider. The
behaviour without a provider, or without OpenTelemetry at all, is tested in subprocesses.
"""

from __future__ import annotations

import _thread
import asyncio
import datetime
import pathlib
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry import metrics, trace
from opentelemetry.metrics import _internal as metrics_internal
from opentelemetry.sdk.metrics import Counter, Histogram, MeterProvider
from opentelemetry.sdk.metrics.export import (
    AggregationTemporality,
    HistogramDataPoint,
    InMemoryMetricReader,
    NumberDataPoint,
)
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from opentelemetry.util._once import Once

import monapi
from monapi.testing import Emulator

from helpers import DAY, DEMO_PASSWORD, DEMO_PASSWORD_MD5, DEMO_SECRET, leaks, zone

# How long a test waits at most for the emulator to have received a request.
ARRIVES_WITHIN = 10.0
# The latency of a request a test cancels: far longer than the test takes to cancel it.
IN_FLIGHT = 5.0


@dataclass
class Telemetry:
    """The providers this module sets, and what they collected."""

    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader
    tracer: trace.Tracer

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def monapi_spans(self) -> list[ReadableSpan]:
        return [
            s
            for s in self.spans()
            if s.instrumentation_scope is not None and s.instrumentation_scope.name == "monapi"
        ]

    def measured(self) -> dict[str, list[Any]]:
        """The data points of monapi's instruments since the last call (delta temporality)."""
        points: dict[str, list[Any]] = {}
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data is not None else []:
            for scope in resource.scope_metrics:
                if scope.scope.name != "monapi":
                    continue
                for metric in scope.metrics:
                    points.setdefault(metric.name, []).extend(metric.data.data_points)
        return points


def reset_globals() -> None:
    """The API's globals as before any provider was set (what opentelemetry-test-utils does)."""
    trace._TRACER_PROVIDER_SET_ONCE = Once()
    trace._TRACER_PROVIDER = None
    trace._PROXY_TRACER_PROVIDER = trace.ProxyTracerProvider()
    metrics_internal._METER_PROVIDER_SET_ONCE = Once()
    metrics_internal._METER_PROVIDER = None
    metrics_internal._PROXY_METER_PROVIDER = metrics_internal._ProxyMeterProvider()


@pytest.fixture(scope="module")
def providers() -> Iterator[Telemetry]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    delta = AggregationTemporality.DELTA
    reader = InMemoryMetricReader(preferred_temporality={Counter: delta, Histogram: delta})
    meter_provider = MeterProvider(metric_readers=[reader])
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(meter_provider)
    try:
        yield Telemetry(exporter, reader, tracer_provider.get_tracer("test_telemetry"))
    finally:
        tracer_provider.shutdown()
        meter_provider.shutdown()
        reset_globals()


@pytest.fixture
def otel(providers: Telemetry) -> Telemetry:
    """The providers, with nothing collected yet."""
    providers.exporter.clear()
    providers.measured()
    return providers


def named(spans: Sequence[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name]


def one(spans: Sequence[ReadableSpan], name: str) -> ReadableSpan:
    found = named(spans, name)
    assert len(found) == 1, [s.name for s in spans]
    return found[0]


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def parent_id(span: ReadableSpan) -> int | None:
    return None if span.parent is None else span.parent.span_id


def span_id(span: ReadableSpan | trace.Span) -> int:
    context = span.get_span_context() if isinstance(span, trace.Span) else span.context
    assert context is not None
    return context.span_id


def children(spans: Sequence[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    return [s for s in spans if parent_id(s) == span_id(parent)]


def assert_within(child: ReadableSpan, parent: ReadableSpan) -> None:
    assert parent.start_time is not None and parent.end_time is not None
    assert child.start_time is not None and child.end_time is not None
    assert parent.start_time <= child.start_time <= child.end_time <= parent.end_time


def assert_attempt(span: ReadableSpan, emulator: Emulator, method: str, status: int) -> None:
    assert span.kind is SpanKind.CLIENT and span.name == method
    values = attributes(span)
    assert values["http.request.method"] == method
    assert values["server.address"] == "127.0.0.1"
    assert values["server.port"] == int(emulator.base_url.rsplit(":", 1)[1])
    assert str(values["url.full"]).startswith(emulator.base_url + "/v2/")
    assert values["http.response.status_code"] == status


def wait_for_request(emulator: Emulator, counter: str, count: int = 1) -> None:
    """Waits (bounded) until the emulator has received `count` requests of `counter`."""
    deadline = time.monotonic() + ARRIVES_WITHIN
    while emulator.counters()[counter] < count:
        assert time.monotonic() < deadline, f"no {counter} request arrived"
        time.sleep(0.01)


def test_a_call_is_a_span_under_the_caller_s_with_its_token_request_and_attempts(
    otel: Telemetry, emulator: Emulator, client: monapi.Client
) -> None:
    with otel.tracer.start_as_current_span("caller") as caller:
        client.agents()
    spans = otel.monapi_spans()
    assert [s.name for s in spans] == ["POST", "monapi token", "GET", "monapi agents"]
    post, token, get, agents = spans
    assert parent_id(agents) == span_id(caller)
    assert agents.kind is SpanKind.INTERNAL and token.kind is SpanKind.INTERNAL
    assert attributes(agents) == {"monapi.operation": "agents"}
    assert parent_id(token) == span_id(agents) and parent_id(get) == span_id(agents)
    assert parent_id(post) == span_id(token)
    assert_attempt(get, emulator, "GET", 200)
    assert_attempt(post, emulator, "POST", 200)
    assert "access_token=REDACTED" in str(attributes(get)["url.full"])
    for child, parent in [(post, token), (token, agents), (get, agents)]:
        assert_within(child, parent)
    for span in spans:
        assert span.status.status_code is StatusCode.UNSET
        assert span.context is not None
        assert span.context.trace_id == caller.get_span_context().trace_id
        assert span.instrumentation_scope is not None
        assert span.instrumentation_scope.version == monapi.__version__
    # The caller's span ended after the call: the call's were made before, in the call.
    assert otel.spans()[-1].name == "caller"


def test_a_report_built_as_it_arrives_and_a_table_are_one_span_each(
    otel: Telemetry, client: monapi.Client
) -> None:
    client.login()
    otel.exporter.clear()
    client.service_report(10001, start_date=DAY, end_date=DAY)
    table = client.tables.service_report(10002, start_date=DAY, end_date=DAY)
    spans = otel.monapi_spans()
    assert [s.name for s in spans] == ["GET", "monapi service_report"] * 2
    for (attempt, operation), task in zip([spans[:2], spans[2:]], [10001, 10002], strict=True):
        assert parent_id(operation) is None and parent_id(attempt) == span_id(operation)
        assert attributes(operation)["monapi.task_id"] == task
        assert f"/v2/service/report/{task}.json" in str(attributes(attempt)["url.full"])
    assert attributes(spans[3])["monapi.rows"] == table.num_rows


def test_a_bulk_call_is_one_span_with_a_child_per_task(
    otel: Telemetry, client: monapi.Client
) -> None:
    client.login()
    otel.exporter.clear()
    tasks = [10001, 10002, 10003]
    with otel.tracer.start_as_current_span("caller") as caller:
        bulk = client.tables.service_reports(tasks, start_date=DAY, end_date=DAY, concurrency=2)
    spans = otel.monapi_spans()
    top = one(spans, "monapi service_reports")
    assert parent_id(top) == span_id(caller)
    assert attributes(top)["monapi.rows"] == bulk.num_rows
    per_task = children(spans, top)
    assert sorted(attributes(s)["monapi.task_id"] for s in per_task) == tasks
    for task in per_task:
        assert task.name == "monapi service_report"
        assert_within(task, top)
        [attempt] = children(spans, task)
        assert attempt.name == "GET" and attempt.kind is SpanKind.CLIENT
    assert len(spans) == 1 + 2 * len(tasks)


def test_a_sync_is_one_span_with_a_child_per_task(
    otel: Telemetry, emulator: Emulator, tmp_path: pathlib.Path
) -> None:
    day = datetime.datetime.now(zone(emulator)).date() - datetime.timedelta(days=2)
    client = emulator.client(store=tmp_path, settle=1, timeout=10.0)
    client.login()
    otel.exporter.clear()
    with otel.tracer.start_as_current_span("caller") as caller:
        report = client.sync(day, day, tasks=[10011, 10014, 20001])
    spans = otel.monapi_spans()
    sync = one(spans, "monapi sync")
    assert parent_id(sync) == span_id(caller)
    assert attributes(sync)["monapi.rows"] == report["rows"]
    # Its own requests (the task lists, to know each task's kind) are attempts of its own.
    per_task = [s for s in children(spans, sync) if s.kind is SpanKind.INTERNAL]
    assert sorted((s.name, attributes(s)["monapi.task_id"]) for s in per_task) == [
        ("monapi service_report", 10011),
        ("monapi service_report", 10014),
        ("monapi site_report", 20001),
    ]
    for task in per_task:
        assert_within(task, sync)
        [attempt] = children(spans, task)
        assert attempt.name == "GET" and attempt.kind is SpanKind.CLIENT


def test_blocking_calls_from_many_threads_each_go_under_their_thread_s_span(
    otel: Telemetry, client: monapi.Client
) -> None:
    client.login()
    otel.exporter.clear()
    threads = 6
    ready = threading.Barrier(threads, timeout=30)
    parents: dict[int, int] = {}
    failures: list[BaseException] = []

    def work(n: int) -> None:
        try:
            with otel.tracer.start_as_current_span(f"thread {n}") as parent:
                parents[10001 + n] = span_id(parent)
                ready.wait()
                client.service_report(10001 + n, start_date=DAY, end_date=DAY)
                client.tables.service_report(10001 + n, start_date=DAY, end_date=DAY)
        except BaseException as error:  # reported by the test's thread
            failures.append(error)

    running = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join(60)
    assert not failures and not any(t.is_alive() for t in running)
    assert_each_call_under_its_parent(otel.monapi_spans(), parents, calls_each=2)


async def test_asyncio_tasks_each_go_under_their_task_s_span(
    otel: Telemetry, aclient: monapi.AsyncClient
) -> None:
    await aclient.login()
    otel.exporter.clear()
    parents: dict[int, int] = {}

    async def work(n: int) -> None:
        with otel.tracer.start_as_current_span(f"task {n}") as parent:
            parents[10001 + n] = span_id(parent)
            await asyncio.sleep(0)  # every task in its span before any call
            await aclient.service_report(10001 + n, start_date=DAY, end_date=DAY)
            await aclient.tables.service_report(10001 + n, start_date=DAY, end_date=DAY)

    await asyncio.gather(*(work(n) for n in range(6)))
    assert_each_call_under_its_parent(otel.monapi_spans(), parents, calls_each=2)


def assert_each_call_under_its_parent(
    spans: list[ReadableSpan], parents: dict[int, int], calls_each: int
) -> None:
    operations = [s for s in spans if s.name == "monapi service_report"]
    assert len(operations) == calls_each * len(parents)
    for operation in operations:
        assert parent_id(operation) == parents[attributes(operation)["monapi.task_id"]]
        [attempt] = children(spans, operation)
        assert attempt.kind is SpanKind.CLIENT
    assert len(spans) == 2 * len(operations)


def test_retries_are_attempts_with_their_resend_count_and_are_counted(
    otel: Telemetry, emulator: Emulator, client: monapi.Client
) -> None:
    client.login()
    otel.exporter.clear()
    otel.measured()
    emulator.set_faults(next=["error_503", "drop_connection"])
    client.agents()
    spans = otel.monapi_spans()
    assert [s.name for s in spans] == ["GET", "GET", "GET", "monapi agents"]
    first, second, third, agents = spans
    assert all(parent_id(s) == span_id(agents) for s in (first, second, third))
    assert attributes(first)["error.type"] == "503"
    assert attributes(first)["http.response.status_code"] == 503
    assert "http.request.resend_count" not in attributes(first)
    assert attributes(second)["http.request.resend_count"] == 1
    assert "error.type" in attributes(second) and "http.response.status_code" not in attributes(
        second
    )
    assert attributes(third)["http.request.resend_count"] == 2
    assert_attempt(third, emulator, "GET", 200)
    assert "error.type" not in attributes(third)
    assert agents.status.status_code is StatusCode.UNSET
    measured = otel.measured()
    durations: list[HistogramDataPoint] = measured["http.client.request.duration"]
    assert sum(p.count for p in durations) == 3  # one per attempt
    buckets = list(monapi._native._METRICS["request_duration"]["buckets"])
    assert buckets[0] == 0.005 and buckets[-1] == 10.0  # the semantic conventions' advice
    for point in durations:
        assert list(point.explicit_bounds) == buckets
        assert dict(point.attributes or {})["http.request.method"] == "GET"
    by_status = {
        dict(p.attributes or {}).get("http.response.status_code"): p.count for p in durations
    }
    assert by_status == {503: 1, None: 1, 200: 1}
    retries: list[NumberDataPoint] = measured["monapi.client.retries"]
    assert sum(p.value for p in retries) == 2
    assert {dict(p.attributes or {})["monapi.operation"] for p in retries} == {"agents"}
    assert "503" in {dict(p.attributes or {})["error.type"] for p in retries}


def test_a_failed_call_has_status_error_with_its_code(otel: Telemetry, emulator: Emulator) -> None:
    client = emulator.client(password="not the password")
    with pytest.raises(monapi.InvalidGrantError):
        client.agents()
    spans = otel.monapi_spans()
    agents, token = one(spans, "monapi agents"), one(spans, "monapi token")
    for span in (agents, token):
        assert span.status.status_code is StatusCode.ERROR
        assert span.status.description == "AUTH_INVALID_GRANT"
        assert attributes(span)["error.type"] == "AUTH_INVALID_GRANT"
    [post] = children(spans, token)
    assert attributes(post)["http.response.status_code"] >= 400


async def test_a_cancelled_asyncio_call_ends_its_spans_at_the_cancellation(
    otel: Telemetry, emulator: Emulator, aclient: monapi.AsyncClient
) -> None:
    await aclient.login()
    otel.exporter.clear()
    emulator.set_latency(IN_FLIGHT)
    with otel.tracer.start_as_current_span("caller") as caller:
        task = asyncio.create_task(aclient.agents())
        await asyncio.to_thread(wait_for_request, emulator, "agents")
        cancelled_at = time.time_ns()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        raised_at = time.time_ns()
        # Replayed in the awaiting task, before the cancellation reached the caller.
        spans = otel.monapi_spans()
    emulator.set_latency(0.0)
    assert [s.name for s in spans] == ["GET", "monapi agents"]
    attempt, agents = spans
    assert parent_id(agents) == span_id(caller) and parent_id(attempt) == span_id(agents)
    for span in spans:
        assert span.status.status_code is StatusCode.ERROR
        assert span.status.description == "ABORTED"
        assert span.end_time is not None and cancelled_at <= span.end_time <= raised_at
    assert attributes(attempt)["error.type"] == "cancelled"
    assert attributes(agents)["error.type"] == "ABORTED"


def test_ctrl_c_ends_a_blocking_call_s_spans_before_the_interrupt_is_raised(
    otel: Telemetry, emulator: Emulator, client: monapi.Client
) -> None:
    client.login()
    otel.exporter.clear()
    emulator.set_latency(IN_FLIGHT)

    def interrupt() -> None:
        wait_for_request(emulator, "service_report")
        _thread.interrupt_main()

    interrupter = threading.Thread(target=interrupt)
    interrupter.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            # A report: built while it arrives, on a task of the runtime.
            client.service_report(10001, start_date=DAY, end_date=DAY)
    finally:
        interrupter.join(ARRIVES_WITHIN + 5)
        emulator.set_latency(0.0)
    spans = otel.monapi_spans()
    assert [s.name for s in spans] == ["GET", "monapi service_report"]
    attempt, report = spans
    assert parent_id(attempt) == span_id(report)
    assert (report.status.status_code, report.status.description) == (StatusCode.ERROR, "ABORTED")
    assert attributes(attempt)["error.type"] == "cancelled"


@pytest.mark.parametrize("propagate", [True, False])
def test_the_trace_context_reaches_the_service_only_when_asked(
    otel: Telemetry, emulator: Emulator, propagate: bool
) -> None:
    client = emulator.client(propagate_trace_context=propagate)
    with otel.tracer.start_as_current_span("caller") as caller:
        client.agents()
    counters = emulator.counters()
    if not propagate:
        assert (counters["traced"], counters["traceparent"]) == (0, None)
        return
    context = caller.get_span_context()
    expected = f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags):02x}"
    assert (counters["traced"], counters["traceparent"]) == (2, expected)  # token and agents
    # Outside any span there is no context to send.
    client.users()
    assert emulator.counters()["traced"] == 2


def test_no_span_attribute_holds_a_secret(otel: Telemetry, emulator: Emulator) -> None:
    tokens: list[monapi.Token] = []
    client = emulator.client(on_token=tokens.append, propagate_trace_context=True)
    client.agents()
    client.service_report(10001, start_date=DAY, end_date=DAY)
    emulator.expire_tokens()
    client.users()  # a rejected token, renewed
    client.refresh()
    current = client.token
    assert current is not None and tokens
    secrets = [DEMO_PASSWORD, DEMO_PASSWORD_MD5, DEMO_SECRET]
    for token in [*tokens, current]:
        secrets += [str(token["access_token"]), str(token.get("refresh_token") or "")]
    spans = otel.monapi_spans()
    assert len(spans) > 8
    text = "\n".join(f"{s.name} {attributes(s)} {s.status.description}" for s in spans)
    for secret in filter(None, secrets):
        assert not leaks(secret, text), secret


def run_python(program: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_without_a_provider_calls_record_nothing_until_one_is_set() -> None:
    program = """
import asyncio, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from monapi.testing import Emulator
from monapi import _telemetry

with Emulator() as emulator:
    client = emulator.client()
    assert client.agents() and _telemetry._begin() is None
    async def main():
        async with emulator.async_client() as aclient:
            return await aclient.agents()
    assert asyncio.run(main())
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    client.users()
    print([span.name for span in exporter.get_finished_spans()])
"""
    assert run_python(program).strip() == "['GET', 'monapi users']"


def test_without_opentelemetry_calls_work_and_the_telemetry_module_is_never_imported() -> None:
    program = """
import asyncio, sys
sys.modules["opentelemetry"] = None  # not importable
from monapi.testing import Emulator

with Emulator() as emulator:
    client = emulator.client()
    assert client.agents() and client.tables.service_tasks().num_rows
    async def main():
        async with emulator.async_client() as aclient:
            return await aclient.agents()
    assert asyncio.run(main())
print("monapi._telemetry" in sys.modules)
"""
    assert run_python(program).strip() == "False"
