"""`monapi exporter --otlp-endpoint`: its traces and metrics, as an OpenTelemetry collector
receives them.

The collector is a small HTTP server on loopback that takes OTLP over HTTP (http/protobuf)
and decodes each request with OpenTelemetry's own protocol package (`opentelemetry-proto`).
The exporter refreshes once against the emulator and is stopped with SIGTERM, which sends
what its batch still holds.
"""

from __future__ import annotations

import http.server
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from monapi.testing import Emulator

from helpers import DEMO_PASSWORD, DEMO_PASSWORD_MD5, DEMO_SECRET, demo_env, leaks, monapi_binary


class Collector:
    """An OTLP/HTTP receiver on 127.0.0.1: the bodies it received, by path."""

    def __init__(self) -> None:
        self.received: dict[str, list[bytes]] = {}
        self.content_types: set[str] = set()
        received = self.received
        content_types = self.content_types

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                received.setdefault(self.path, []).append(body)
                content_types.add(self.headers.get("Content-Type", ""))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def spans(self) -> list[tuple[Any, dict[str, Any], dict[str, Any]]]:
        """Every span received, with its attributes and its resource's, as dicts."""
        spans: list[tuple[Any, dict[str, Any], dict[str, Any]]] = []
        for body in self.received.get("/v1/traces", []):
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            for resource_spans in request.resource_spans:
                resource = attributes(resource_spans.resource.attributes)
                for scope in resource_spans.scope_spans:
                    spans.extend(
                        (span, attributes(span.attributes), resource) for span in scope.spans
                    )
        return spans

    def histogram_count(self, name: str) -> int:
        """The largest count of the histogram `name` in any export (they are cumulative)."""
        best = 0
        for body in self.received.get("/v1/metrics", []):
            request = ExportMetricsServiceRequest()
            request.ParseFromString(body)
            for resource_metrics in request.resource_metrics:
                for scope in resource_metrics.scope_metrics:
                    for metric in scope.metrics:
                        if metric.name == name:
                            best = max(best, sum(p.count for p in metric.histogram.data_points))
        return best


def attributes(pairs: Any) -> dict[str, Any]:
    """OTLP key-values as a dict of their plain values."""
    values: dict[str, Any] = {}
    for pair in pairs:
        kind = pair.value.WhichOneof("value")
        values[pair.key] = getattr(pair.value, kind) if kind else None
    return values


@pytest.fixture
def collector() -> Iterator[Collector]:
    collector = Collector()
    yield collector
    collector.close()


def run_exporter(emulator: Emulator, collector: Collector) -> str:
    """Runs the exporter until its first refresh is logged, then stops it with SIGTERM; its
    stderr."""
    command = [
        monapi_binary(),
        "exporter",
        "--listen",
        "127.0.0.1:0",
        "--site",
        "20001,20002",
        "--service",
        "10001",
        "--otlp-endpoint",
        collector.url,
    ]
    env = {key: value for key, value in demo_env(emulator).items() if not key.startswith("OTEL_")}
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    lines: list[str] = []
    refreshed = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if "refreshed" in line:
                refreshed.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert refreshed.wait(60), "".join(lines)
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0, "".join(lines)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    reader.join(10)
    return "".join(lines)


def test_each_refresh_is_a_trace_with_a_span_per_task_and_attempt(
    emulator: Emulator, collector: Collector
) -> None:
    stderr = run_exporter(emulator, collector)
    assert collector.content_types == {"application/x-protobuf"}
    spans = collector.spans()
    by_name: dict[str, list[tuple[Any, dict[str, Any]]]] = {}
    for span, attrs, resource in spans:
        assert resource["service.name"] == "monapi-exporter"
        by_name.setdefault(span.name, []).append((span, attrs))
    (refresh, _), *_ = by_name["monapi exporter refresh"]
    assert refresh.parent_span_id == b""
    # The site tasks asked for, each a span under the refresh, with its attempts under it.
    sites = [(s, a) for s, a in by_name["monapi site_report"] if s.trace_id == refresh.trace_id]
    assert sorted({a["monapi.task_id"] for _, a in sites}) == [20001, 20002]
    for site, _ in sites:
        assert site.parent_span_id == refresh.span_id
        attempts = [s for s, _ in by_name["GET"] if s.parent_span_id == site.span_id]
        assert attempts, "each site report has its attempt"
    services = [
        a["monapi.task_id"]
        for s, a in by_name["monapi service_report"]
        if s.trace_id == refresh.trace_id
    ]
    assert services == [10001]
    gets = by_name["GET"]
    for _, attrs in gets:
        assert attrs["http.request.method"] == "GET"
        assert attrs["http.response.status_code"] == 200
        assert attrs["url.full"].startswith(emulator.base_url)
        assert attrs["url.full"].endswith("access_token=REDACTED")
    # The core's metrics, with the meter provider's last export at the stop.
    assert collector.histogram_count("http.client.request.duration") >= len(gets)
    token = emulator.counters()["token"]
    assert token >= 1
    everything = repr([(s.name, a) for s, a, _ in spans]) + stderr
    for secret in (DEMO_PASSWORD, DEMO_PASSWORD_MD5, DEMO_SECRET):
        assert not leaks(secret, everything)
    assert "access_token=" not in everything.replace("access_token=REDACTED", "")


def test_an_endpoint_that_is_no_url_is_a_usage_error(emulator: Emulator) -> None:
    started = time.monotonic()
    done = subprocess.run(
        [
            monapi_binary(),
            "exporter",
            "--listen",
            "127.0.0.1:0",
            "--otlp-endpoint",
            "collector:4318",
        ],
        env=demo_env(emulator),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "--otlp-endpoint" in done.stderr and "http or https URL" in done.stderr
    assert emulator.counters()["total"] == 0
    assert time.monotonic() - started < 60
