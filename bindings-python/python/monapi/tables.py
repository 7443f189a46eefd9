"""The pure-Python side of ``client.tables``: :class:`SiteTables` and the tqdm progress bar
of the bulk calls. The tables themselves (:class:`monapi.Table`) come from the core."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from monapi._native import Table
    from monapi.errors import MonapiError
    from monapi.types import Progress

__all__ = ["SiteTables"]


@dataclass(frozen=True)
class SiteTables:
    """The three tables of a site report (``client.tables.site_report``), or of many
    (``client.tables.site_reports``).

    Unpacks as ``availability, response_time, faults = site``.

    Attributes
    ----------
    availability : Table
        One row per monitoring point and check: ``uprate`` (percent).
    response_time : Table
        One row per monitoring point and check: the seven response times (ms).
    faults : Table
        One row per fault: ``start_time``, ``end_time`` (null while ``ongoing``),
        ``duration_s``, ``cause``.
    failures : list of tuple of (int, MonapiError)
        For a bulk call with ``errors="collect"``: each task that failed, with its error.

    Examples
    --------
    >>> site = client.tables.site_report(20001, start_date="2026-11-01")
    >>> site.availability.to_pandas().groupby("monitor")["uprate"].mean()
    >>> availability, response_time, faults = site
    """

    availability: Table
    response_time: Table
    faults: Table
    failures: list[tuple[int, MonapiError]] = field(default_factory=list)

    def __iter__(self) -> Iterator[Table]:
        """The three tables in order: ``availability, response_time, faults = site``."""
        return iter((self.availability, self.response_time, self.faults))


class _ProgressBar:
    """``progress=True``: a ``tqdm.auto`` bar (a widget in Jupyter, text elsewhere), made
    when the call knows how many tasks it has and closed after the last."""

    def __init__(self, tqdm: Any) -> None:
        self._tqdm = tqdm
        self._bar: Any = None

    def __call__(self, progress: Progress) -> None:
        """Moves the bar to ``progress``, made at the first call and closed after the last
        task."""
        if self._bar is None:
            self._bar = self._tqdm(total=progress["total"], unit="task", desc="monapi")
        self._bar.update(progress["done"] - self._bar.n)
        self._bar.set_postfix(failed=progress["failed"], rows=progress["rows"], refresh=False)
        if progress["done"] >= progress["total"]:
            self._bar.close()


def _progress_bar() -> _ProgressBar:
    """The bar of ``progress=True``, or an ``ImportError`` naming the extra to install."""
    try:
        from tqdm.auto import tqdm
    except ImportError as error:
        raise ImportError(
            "progress=True needs the optional package tqdm: pip install 'monapi[progress]'"
        ) from error
    return _ProgressBar(tqdm)
