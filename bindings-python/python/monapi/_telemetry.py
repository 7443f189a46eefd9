"""OpenTelemetry spans and metrics for every call, when the host has OpenTelemetry set up.

The core records what each call did (its spans and measurements, as plain data, with their
times); this module replays them through the host's OpenTelemetry API on the caller's side:
the blocking client in the calling thread once the call has returned or raised (Ctrl-C
included), the asyncio client in the awaiting task (its cancellation included, once the
call's work has really stopped). No span is made on one of monapi's threads.

The native module asks :func:`_begin` at each call, on the caller's side, only when
``opentelemetry.trace`` or ``opentelemetry.metrics`` is in ``sys.modules`` (a dictionary
look-up): without OpenTelemetry imported, nothing here runs and nothing is recorded.
:func:`_begin` then says whether a real provider is set (not the API's default proxy or
no-op one): the spans go to the global ``TracerProvider`` (``get_tracer("monapi",
<version>)``) and the measurements to the global ``MeterProvider`` (``get_meter("monapi",
<version>)``), each only when one is set. The parent of a call's spans is the caller's
current span when the call was made (``opentelemetry.context.get_current()``, captured
then, and handed to every span explicitly), so that calls from many threads and asyncio
tasks at once each have their own.

This module never imports OpenTelemetry itself: it uses the modules the host imported, found
in ``sys.modules``, so that the package neither depends on OpenTelemetry nor needs it to be
type-checked. Not public API.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Sequence
from typing import Any, TypeAlias

from monapi._native import _METRICS, __version__

_Attributes: TypeAlias = dict[str, str | int]
# (id, parent id or None for the caller's span, name, whether it is a CLIENT span, start and
# end in nanoseconds since the epoch, attributes, the error code of a failed span or None);
# in the order the spans ended.
_SpanRecord: TypeAlias = tuple[int, int | None, str, bool, int, int, _Attributes, str | None]
# (the instrument's key in _native._METRICS, the value, attributes)
_MetricRecord: TypeAlias = tuple[str, float, _Attributes]

_NAME = "monapi"
# The API's providers that stand for none set: its defaults (proxies, until one is set) and
# its no-op ones. Matched by the exact class's name, which costs less than isinstance with
# the API's abstract classes and needs none of its private modules.
_UNSET = frozenset(
    {"ProxyTracerProvider", "NoOpTracerProvider", "_ProxyMeterProvider", "NoOpMeterProvider"}
)
_log = logging.getLogger("monapi")
_lock = threading.Lock()
# (provider, what was made from it): a provider is set once per process, so one of each.
_tracer_cache: tuple[object, Any] | None = None
_instruments_cache: tuple[object, dict[str, Any]] | None = None
_warned = False


def _begin() -> _Call | None:
    """The telemetry of a call being made now, or ``None`` when no provider is set (the call
    then records nothing). Called by the native module on the caller's side; never raises.
    """
    try:
        tracer = _tracer()
        instruments = _instruments()
        if tracer is None and instruments is None:
            return None
        context = sys.modules["opentelemetry.context"].get_current()
        return _Call(context, tracer, instruments)
    except Exception:  # a host's OpenTelemetry that fails must not fail the call
        _warn_once("OpenTelemetry could not be asked for a tracer or a meter")
        return None


def _tracer() -> Any | None:
    """The tracer of the global TracerProvider, or ``None`` when none is set."""
    global _tracer_cache
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    provider = trace.get_tracer_provider()
    if type(provider).__name__ in _UNSET:
        return None
    cached = _tracer_cache
    if cached is not None and cached[0] is provider:
        return cached[1]
    tracer = provider.get_tracer(_NAME, __version__)
    _tracer_cache = (provider, tracer)
    return tracer


def _instruments() -> dict[str, Any] | None:
    """The instruments of ``_native._METRICS`` made by the global MeterProvider's meter, or
    ``None`` when none is set."""
    global _instruments_cache
    metrics = sys.modules.get("opentelemetry.metrics")
    if metrics is None:
        return None
    provider = metrics.get_meter_provider()
    if type(provider).__name__ in _UNSET:
        return None
    cached = _instruments_cache
    if cached is not None and cached[0] is provider:
        return cached[1]
    with _lock:  # made once: a second instrument of the same name is a warning of the SDK
        cached = _instruments_cache
        if cached is not None and cached[0] is provider:
            return cached[1]
        meter = provider.get_meter(_NAME, __version__)
        duration = _METRICS["request_duration"]
        retries = _METRICS["retries"]
        instruments = {
            "request_duration": _histogram(meter, duration),
            "retries": meter.create_counter(
                retries["name"], unit=retries["unit"], description=retries["description"]
            ),
        }
        _instruments_cache = (provider, instruments)
        return instruments


def _histogram(meter: Any, declared: dict[str, Any]) -> Any:
    """The histogram ``declared``, with its buckets as the explicit bucket boundaries
    advisory where the installed API takes one (opentelemetry-api 1.23 and later)."""
    name, unit, description = declared["name"], declared["unit"], declared["description"]
    try:
        return meter.create_histogram(
            name,
            unit=unit,
            description=description,
            explicit_bucket_boundaries_advisory=list(declared["buckets"]),
        )
    except TypeError:
        return meter.create_histogram(name, unit=unit, description=description)


def _traceparent(context: Any) -> str | None:
    """The W3C ``traceparent`` of the current span of ``context``, when it has a valid one."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    span_context = trace.get_current_span(context).get_span_context()
    if not span_context.is_valid:
        return None
    flags = int(span_context.trace_flags)
    return f"00-{span_context.trace_id:032x}-{span_context.span_id:016x}-{flags:02x}"


def _warn_once(message: str) -> None:
    """Logs ``message`` at WARNING with the exception being handled, once per process."""
    global _warned
    if not _warned:
        _warned = True
        _log.warning("%s; monapi's calls go on without telemetry", message, exc_info=True)


class _Call:
    """The telemetry of one call: the caller's context when it was made, and where its spans
    and measurements go."""

    __slots__ = ("_context", "_instruments", "_tracer", "traceparent")

    def __init__(self, context: Any, tracer: Any | None, instruments: dict[str, Any] | None):
        self._context = context
        self._tracer = tracer
        self._instruments = instruments
        # Sent as the `traceparent` header by a client made with propagate_trace_context=True.
        self.traceparent = _traceparent(context)

    def replay(self, spans: Sequence[_SpanRecord], metrics: Sequence[_MetricRecord]) -> None:
        """Makes the call's recorded spans (with their own times) and measurements; never
        raises (a failure is logged once)."""
        try:
            if self._tracer is not None and spans:
                self._spans(self._tracer, spans)
            if self._instruments is not None:
                for key, value, attributes in metrics:
                    if key == "retries":
                        self._instruments[key].add(int(value), attributes)
                    else:
                        self._instruments[key].record(value, attributes)
        except Exception:
            _warn_once("the OpenTelemetry spans and metrics of a call could not be made")

    def _spans(self, tracer: Any, spans: Sequence[_SpanRecord]) -> None:
        """Starts the spans parents first (in the order they started), ends them in the order
        they ended."""
        trace = sys.modules["opentelemetry.trace"]
        made: dict[int, Any] = {}
        for span_id, parent, name, client, start, _end, attributes, error in sorted(spans):
            parent_span = None if parent is None else made.get(parent)
            context = (
                self._context
                if parent_span is None
                else trace.set_span_in_context(parent_span, self._context)
            )
            kind = trace.SpanKind.CLIENT if client else trace.SpanKind.INTERNAL
            span = tracer.start_span(
                name, context=context, kind=kind, attributes=attributes, start_time=start
            )
            if error is not None:
                span.set_status(trace.Status(trace.StatusCode.ERROR, error))
            made[span_id] = span
        for span_id, *_, end, _attributes, _error in spans:
            made[span_id].end(end_time=end)
