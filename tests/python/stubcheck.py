"""Checks monapi/_native.pyi against the loaded monapi._native, in both directions: every
name, every class member, every signature (parameter names, kinds and defaults), and every
docstring (the module's ``__doc__``, which scripts/gen-stub-docs.py writes into the stub); and
that every class and function of the package's Python modules has a docstring.

Run by the test suite (test_stubs.py) and on its own: `python tests/python/stubcheck.py`.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import pathlib
import sys
import types
from collections.abc import Iterator
from typing import Any

import monapi._native as native

# Protocol methods the native classes define (pyo3 adds other dunders of its own).
PROTOCOL = {
    "__enter__",
    "__exit__",
    "__aenter__",
    "__aexit__",
    "__iter__",
    "__next__",
    "__aiter__",
    "__anext__",
    "__await__",
    "__reduce__",
    "__len__",
    "__arrow_c_stream__",
    "__arrow_c_schema__",
}

_KINDS = inspect.Parameter
# The writer of the stub's docstrings, whose check this one runs (a script, not a package).
_GEN_STUB_DOCS = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "gen-stub-docs.py"
# The package's modules written in Python (the generated _answers.py documents itself).
_PYTHON_MODULES = (
    "__init__.py",
    "_telemetry.py",
    "_token.py",
    "errors.py",
    "tables.py",
    "testing.py",
    "types.py",
)


def stub_path() -> pathlib.Path:
    spec = importlib.util.find_spec("monapi")
    assert spec is not None and spec.origin is not None
    return pathlib.Path(spec.origin).parent / "_native.pyi"


def _stub_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, Any, object]]:
    a = fn.args
    out: list[tuple[str, Any, object]] = []
    positional = a.posonlyargs + a.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(
        a.defaults
    )
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = _KINDS.POSITIONAL_ONLY if i < len(a.posonlyargs) else _KINDS.POSITIONAL_OR_KEYWORD
        out.append((arg.arg, kind, _literal(default)))
    if a.vararg:
        out.append((a.vararg.arg, _KINDS.VAR_POSITIONAL, _KINDS.empty))
    for arg, kw_default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append((arg.arg, _KINDS.KEYWORD_ONLY, _literal(kw_default)))
    if a.kwarg:
        out.append((a.kwarg.arg, _KINDS.VAR_KEYWORD, _KINDS.empty))
    return out[1:] if out and out[0][0] in ("self", "cls") else out


def _literal(node: ast.expr | None) -> object:
    return _KINDS.empty if node is None else ast.literal_eval(node)


def _runtime_params(obj: Any) -> list[tuple[str, Any, object]]:
    params = list(inspect.signature(obj).parameters.values())
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    return [(p.name, p.kind, p.default) for p in params]


def _docstring_problems(stub: pathlib.Path) -> list[str]:
    spec = importlib.util.spec_from_file_location("gen_stub_docs", _GEN_STUB_DOCS)
    assert spec is not None and spec.loader is not None
    gen_stub_docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_stub_docs)
    problems: list[str] = gen_stub_docs.check(stub, native)
    return problems


def _undocumented_python(package: pathlib.Path) -> list[str]:
    """Classes and functions of the Python modules without a docstring (a class's docstring
    documents its constructor)."""
    problems = []
    for module in _PYTHON_MODULES:
        tree = ast.parse((package / module).read_text(encoding="utf-8"))
        for name, node in _definitions(tree.body):
            if ast.get_docstring(node) is None and node.name not in ("__init__", "__new__"):
                problems.append(f"{module}: {name} has no docstring")
    return problems


def _definitions(
    body: list[ast.stmt], prefix: str = ""
) -> Iterator[tuple[str, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef]]:
    for node in body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            yield prefix + node.name, node
            if isinstance(node, ast.ClassDef):
                yield from _definitions(node.body, f"{prefix}{node.name}.")


def _is_property(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list)


def _runtime_members(cls: type) -> dict[str, Any]:
    members = {}
    for name, value in vars(cls).items():
        if name.startswith("__") and name not in PROTOCOL:
            continue
        members[name] = value
    return members


def check() -> list[str]:
    """Every difference between the stub and the module, as text (empty: they agree)."""
    problems: list[str] = []
    tree = ast.parse(stub_path().read_text(encoding="utf-8"))
    stub_names: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if ast.unparse(node.annotation).endswith("TypeAlias"):
                assert node.target.id.startswith("_"), node.target.id  # stub-only alias
                continue
            stub_names[node.target.id] = node
        elif isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            stub_names[node.name] = node
        # plain assignments starting with "_" are stub-only type aliases
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                assert isinstance(target, ast.Name) and target.id.startswith("_"), ast.dump(target)
    runtime_names = {n for n in dir(native) if not n.startswith("__") or n == "__version__"}
    for name in sorted(set(stub_names) - runtime_names):
        problems.append(f"{name}: in the stub, not in the module")
    for name in sorted(runtime_names - set(stub_names)):
        problems.append(f"{name}: in the module, not in the stub")
    for name, node in stub_names.items():
        if name not in runtime_names:
            continue
        value = getattr(native, name)
        if isinstance(node, ast.ClassDef):
            problems += _check_class(name, node, value)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if not callable(value):
                problems.append(
                    f"{name}: a function in the stub, {type(value).__name__} at runtime"
                )
            elif _stub_params(node) != _runtime_params(value):
                problems.append(
                    f"{name}: stub {_stub_params(node)} != runtime {_runtime_params(value)}"
                )
        elif isinstance(node, ast.AnnAssign):
            # `tuple[str, ...]` is a tuple at runtime.
            annotation = ast.unparse(node.annotation).split("[")[0]
            if type(value).__name__ != annotation:
                problems.append(f"{name}: annotated {annotation}, is {type(value).__name__}")
    problems += _docstring_problems(stub_path())
    problems += _undocumented_python(stub_path().parent)
    return problems


def _check_class(name: str, node: ast.ClassDef, cls: Any) -> list[str]:
    problems: list[str] = []
    if not isinstance(cls, type):
        return [f"{name}: a class in the stub, {type(cls).__name__} at runtime"]
    stub_members = {
        f.name: f for f in node.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    constructor = stub_members.pop("__new__", None) or stub_members.pop("__init__", None)
    runtime = _runtime_members(cls)
    for member in sorted(set(stub_members) - set(runtime)):
        problems.append(f"{name}.{member}: in the stub, not at runtime")
    for member in sorted(set(runtime) - set(stub_members)):
        problems.append(f"{name}.{member}: at runtime, not in the stub")
    for member, fn in stub_members.items():
        if member not in runtime:
            continue
        value = runtime[member]
        is_getset = isinstance(value, types.GetSetDescriptorType)
        if _is_property(fn) != is_getset:
            problems.append(f"{name}.{member}: property in one, method in the other")
        elif not is_getset and _stub_params(fn) != _runtime_params(value):
            problems.append(
                f"{name}.{member}: stub {_stub_params(fn)} != runtime {_runtime_params(value)}"
            )
        documented = getattr(value, "__doc__", None) not in (None, "")
        if not is_getset and not member.startswith("__") and not documented:
            problems.append(f"{name}.{member}: no docstring at runtime")
    if constructor is None:
        try:
            cls()
        except TypeError:
            pass
        else:
            problems.append(f"{name}: constructible at runtime, no __new__ in the stub")
    elif _stub_params(constructor) != _runtime_params(cls):
        problems.append(
            f"{name}(): stub {_stub_params(constructor)} != runtime {_runtime_params(cls)}"
        )
    return problems


if __name__ == "__main__":
    found = check()
    for problem in found:
        print(problem)
    print(f"stub check: {len(found)} problem(s) in {stub_path()}")
    sys.exit(1 if found else 0)
