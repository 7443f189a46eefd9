#!/usr/bin/env python3
"""Fails when a source file of a binding is longer than 600 lines, naming each.

A binding converts and calls (ARCHITECTURE.md): a longer file mixes concerns, and is split
by concern (the emulator's knobs, clock and state; a client's lists and reports), not by
line count. Generated files (bindings-node/native.*, the compiled lib/) are not sources, and
nor are the docstrings of the Python stub (`_native.pyi`), which scripts/gen-stub-docs.py
writes from the Rust sources: its own lines are its signatures.

    scripts/check-lengths.py
"""

from __future__ import annotations

import ast
import pathlib
import sys

LIMIT = 600
ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = {
    "bindings-python/src": ("*.rs",),
    "bindings-python/python": ("*.py", "*.pyi"),
    "bindings-node/src": ("*.rs",),
    "bindings-node/ts": ("*.ts", "*.mts"),
    "bindings-node/scripts": ("*.mjs",),
}


def source_lines(path: pathlib.Path) -> int:
    """The lines of `path` written by hand: a stub's docstrings are generated."""
    text = path.read_text(encoding="utf-8")
    lines = len(text.splitlines())
    if path.suffix == ".pyi":
        for node in ast.walk(ast.parse(text)):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
                value = body[0].value
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    lines -= (body[0].end_lineno or body[0].lineno) - body[0].lineno + 1
    return lines


def main() -> int:
    long = []
    for folder, patterns in SOURCES.items():
        for pattern in patterns:
            for path in sorted((ROOT / folder).rglob(pattern)):
                lines = source_lines(path)
                if lines > LIMIT:
                    long.append(f"{path.relative_to(ROOT)}: {lines} lines")
    for line in long:
        print(f"{line} (at most {LIMIT}: split it by concern)", file=sys.stderr)
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
