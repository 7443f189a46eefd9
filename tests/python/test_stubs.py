"""The typed stubs cannot drift from the native module; docs are on every public item."""

from __future__ import annotations

import ast
import inspect
import pydoc

import monapi
import monapi.testing

import stubcheck


def test_stub_matches_the_native_module() -> None:
    assert stubcheck.check() == []


def test_the_check_finds_a_difference() -> None:
    # The check must be able to fail: a stub with a changed default is caught.
    original = stubcheck.stub_path().read_text(encoding="utf-8")
    assert "def service_tasks(self, page: int = 1)" in original
    changed = original.replace(
        "def service_tasks(self, page: int = 1)", "def service_tasks(self, page: int = 2)"
    )
    tree = ast.parse(changed)
    client = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Client")
    fn = next(
        f for f in client.body if isinstance(f, ast.FunctionDef) and f.name == "service_tasks"
    )
    assert stubcheck._stub_params(fn) != stubcheck._runtime_params(monapi.Client.service_tasks)


def test_the_wheel_under_test_carries_no_benchmark_code() -> None:
    # The A/B of the asyncio bridge (cargo feature bench-bridge) is built only by the bench.
    assert not hasattr(monapi._native, "_bench_via_library")


def test_curated_public_api() -> None:
    assert sorted(monapi.__all__) == sorted(set(monapi.__all__))
    for name in monapi.__all__:
        assert hasattr(monapi, name), name
    assert monapi.Client.__module__ == "monapi"
    assert monapi.testing.Emulator.__module__ == "monapi.testing"


def test_every_public_method_has_a_numpy_docstring_with_an_example() -> None:
    classes = [
        monapi.Client,
        monapi.AsyncClient,
        monapi.Tables,
        monapi.AsyncTables,
        monapi.Table,
        monapi.SiteTables,
        monapi.testing.Emulator,
    ]
    for cls in classes:
        assert "Examples" in (cls.__doc__ or ""), cls
        for name, member in vars(cls).items():
            if name.startswith("_"):
                continue
            doc = inspect.getdoc(member) or ""
            assert "Examples\n--------" in doc, f"{cls.__name__}.{name}"
    for cls in [c for c in vars(monapi.errors).values() if isinstance(c, type)]:
        if issubclass(cls, monapi.MonapiError):
            assert "Examples" in (cls.__doc__ or ""), cls
    text = pydoc.plain(pydoc.render_doc(monapi.Client))
    flat = "".join(text.replace("|", " ").split())  # pydoc wraps long signatures on 3.13+
    assert "service_report(self,/,task_id,*,start_date=None,end_date=None)" in flat
    assert "Client(*,base_url=None,client_id=None" in flat
