"""The examples of the tables run as users run them: the notebook in a real kernel (its plots
drawn and saved), the Dask example across two worker processes against `monapi serve`."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import nbformat
import pandas as pd
import pytest
from nbclient import NotebookClient

from helpers import monapi_binary

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def test_the_notebook_draws_its_plots(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("MONAPI_PLOTS", str(tmp_path / "plots"))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    notebook = nbformat.read(EXAMPLES / "analysis.ipynb", as_version=4)  # type: ignore[no-untyped-call]
    NotebookClient(
        notebook, kernel_name="python3", timeout=300, resources={"metadata": {"path": tmp_path}}
    ).execute()
    images = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.get("output_type") == "display_data" and "image/png" in output.get("data", {})
    ]
    assert len(images) == 3
    plots = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert plots == ["availability.png", "distribution.png", "service_metric.png"]
    for name in plots:
        assert (tmp_path / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_dask_example_matches_one_process(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "reports"
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "dask_reports.py"),
            "--monapi",
            monapi_binary(),
            "--workers",
            "2",
            "--out",
            str(out),
            "--verify",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "verified: the same" in done.stdout
    written = pd.read_parquet(out)
    assert written["task_id"].nunique() == 120
    assert str(written.dtypes["value"]) == "float64"
