#!/usr/bin/env python3
"""Writes the docstrings of monapi/_native.pyi from the compiled module, or checks them.

The Rust doc comments (``///``) of bindings-python/src are the one source of the native
items' docstrings: pyo3 makes each the ``__doc__`` of its class, method, function or
property. Editors and the reference (mkdocstrings) read the stub, not the compiled module, so
this script copies every ``__doc__`` into the stub; the stub's signatures and types stay
written by hand. A constructor carries no docstring of its own: its class's documents it.

    make python-test-build                               # the module, from the Rust sources
    .venv/bin/python scripts/gen-stub-docs.py            # writes the stub's docstrings
    .venv/bin/python scripts/gen-stub-docs.py --check    # fails, naming each one that differs

The Python suite runs the check (tests/python/stubcheck.py), so a doc comment changed without
the stub fails it. What is written is as ruff formats it.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import pathlib
import re
import sys
import types
from collections.abc import Iterator, Mapping

ROOT = pathlib.Path(__file__).resolve().parent.parent
STUB = ROOT / "bindings-python/python/monapi/_native.pyi"
CONSTRUCTORS = {"__init__", "__new__"}
# pyo3 starts the doc of a callable with its text signature, `name(args)` then a `--` line;
# CPython hides it from `__doc__` and reads it as `__text_signature__`. It is not prose, and
# the stub has the signature already.
TEXT_SIGNATURE = re.compile(r"\A\s*[\w.]*\(.*\)\n--\n\n?")

Definition = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


def prose(doc: object) -> str | None:
    """A ``__doc__`` as the stub carries it: no text signature, indentation cleaned."""
    if not isinstance(doc, str):
        return None
    text = inspect.cleandoc(TEXT_SIGNATURE.sub("", doc, count=1))
    return text or None


def definitions(tree: ast.Module) -> Iterator[tuple[list[str], Definition]]:
    """Every class and function of the stub, and every function of each class."""
    for node in tree.body:
        if isinstance(node, Definition):
            yield [node.name], node
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield [node.name, member.name], member


def expected(native: types.ModuleType, path: list[str]) -> tuple[bool, str | None]:
    """Whether the module has the item named by ``path`` (``["Client", "login"]``), and the
    docstring the stub should give it."""
    if path[-1] in CONSTRUCTORS:
        return True, None
    namespace: Mapping[str, object] = vars(native)
    obj: object = None
    for name in path:
        if name not in namespace:
            return False, None
        obj = namespace[name]
        namespace = vars(obj) if isinstance(obj, type) else {}
    return True, prose(getattr(obj, "__doc__", None))


def missing(path: list[str]) -> str:
    return f"{'.'.join(path)}: no __doc__ in the module (a /// doc comment is missing)"


def docstring_node(node: Definition) -> ast.Expr | None:
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


def start(statement: ast.stmt) -> tuple[int, int]:
    """Where a statement's text starts: at its first decorator's ``@``, if it has one."""
    decorators = getattr(statement, "decorator_list", [])
    if decorators:
        return decorators[0].lineno, decorators[0].col_offset - 1
    return statement.lineno, statement.col_offset


def end(statement: ast.stmt) -> tuple[int, int]:
    return statement.end_lineno or statement.lineno, statement.end_col_offset or 0


def literal(text: str, indent: str) -> str:
    """``text`` as a docstring at ``indent``, as ruff formats it."""
    if '"""' in text:
        raise ValueError(f'a docstring holds """: {text[:60]!r}')
    prefix = "r" if "\\" in text else ""
    lines = text.split("\n")
    if len(lines) == 1 and not text.endswith('"'):
        return f'{indent}{prefix}"""{text}"""'
    body = [f'{indent}{prefix}"""{lines[0]}']
    body += [f"{indent}{line}" if line else "" for line in lines[1:]]
    return "\n".join([*body, f'{indent}"""'])


class Stub:
    """The stub's text as UTF-8 bytes (ast's columns count bytes), and edits of it."""

    def __init__(self, source: str) -> None:
        self.data = source.encode("utf-8")
        self.starts = [0]
        for line in self.data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.edits: list[tuple[int, int, bytes]] = []

    def offset(self, position: tuple[int, int]) -> int:
        line, column = position
        return self.starts[line - 1] + column

    def set_docstring(self, path: list[str], node: Definition, doc: str | None) -> None:
        """Makes ``doc`` the docstring of ``node`` (``None``: none)."""
        first = node.body[0]
        # The body starts after the colon that ends the header (only blanks in between).
        header_end = self.offset(start(first))
        while self.data[header_end - 1 : header_end].isspace():
            header_end -= 1
        if self.data[header_end - 1 : header_end] != b":":
            raise ValueError(f"{'.'.join(path)}: no colon before the body")
        old = docstring_node(node)
        if isinstance(node, ast.ClassDef):
            # Only the docstring of a class is replaced, not its members.
            replaced_end = self.offset(end(old)) if old else header_end
            text = "" if doc is None else "\n" + literal(doc, " " * first.col_offset)
        else:
            replaced_end = self.offset(end(node.body[-1]))
            text = " ..." if doc is None else "\n" + literal(doc, " " * (node.col_offset + 4))
            # A top-level function with a body is set apart by a blank line (as ruff does).
            next_line = self.data[replaced_end + 1 : replaced_end + 2]
            if doc is not None and len(path) == 1 and next_line not in (b"", b"\n"):
                text += "\n"
        self.edits.append((header_end, replaced_end, text.encode("utf-8")))

    def text(self) -> str:
        data = self.data
        for begin, finish, replacement in sorted(self.edits, reverse=True):
            data = data[:begin] + replacement + data[finish:]
        return data.decode("utf-8")


def written(source: str, native: types.ModuleType) -> tuple[str, list[str]]:
    """The stub with every docstring as the module has it, and the problems: items the module
    gives no docstring to."""
    stub = Stub(source)
    problems = []
    for path, node in definitions(ast.parse(source)):
        present, doc = expected(native, path)
        if not present:
            continue  # stubcheck names what the stub has and the module lacks
        if doc is None and path[-1] not in CONSTRUCTORS:
            problems.append(missing(path))
        stub.set_docstring(path, node, doc)
    return stub.text(), problems


def check(stub: pathlib.Path, native: types.ModuleType) -> list[str]:
    """Every docstring of ``stub`` that is not the module's, as text (empty: they agree)."""
    problems = []
    for path, node in definitions(ast.parse(stub.read_text(encoding="utf-8"))):
        present, doc = expected(native, path)
        if not present:
            continue
        if doc is None and path[-1] not in CONSTRUCTORS:
            problems.append(missing(path))
            continue
        found = ast.get_docstring(node, clean=True)
        if found != doc:
            if doc is None:
                what = "has one (its class's docstring documents a constructor)"
            else:
                what = "has none" if found is None else "differs from the module's __doc__"
            problems.append(f"{'.'.join(path)}: the stub's docstring {what}")
    if problems:
        problems.append("write them with scripts/gen-stub-docs.py (after make python-test-build)")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when a docstring differs")
    parser.add_argument("--stub", type=pathlib.Path, default=STUB, help="the stub (%(default)s)")
    args = parser.parse_args()
    import monapi._native as native

    if args.check:
        problems = check(args.stub, native)
    else:
        text, problems = written(args.stub.read_text(encoding="utf-8"), native)
        args.stub.write_text(text, encoding="utf-8")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
