#!/usr/bin/env python3
"""Fails when the file-level `use` graph of a crate has a circle, naming the files of each.

A file of `src/` is a module (`client.rs` is `client`, `table/mod.rs` is `table`); it uses
another when its code (comments left out) names `crate::other`, `use crate::{other, ...}`,
`super::other`, or a name the crate root re-exports from `other` (`crate::Request` is
`request`). Test modules (`#[cfg(test)] mod tests`) do not count.

    scripts/check-imports.py core emulator cli bindings-python bindings-node
"""

from __future__ import annotations

import pathlib
import re
import sys

TESTS = re.compile(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", re.S)
COMMENT = re.compile(r"//[^\n]*")
REEXPORT_GROUP = re.compile(r"pub use (\w+)::\{([^}]*)\}", re.S)
REEXPORT_ONE = re.compile(r"pub use (\w+)::(\w+);")
PATH = re.compile(r"crate::((?:\w+::)*\w+)")
GROUP = re.compile(r"use crate::\{([^}]*)\}", re.S)
SUPER = re.compile(r"super::(\w+)")


def modules(src: pathlib.Path) -> dict[str, pathlib.Path]:
    """Each module of the crate by its path (`table::client`); the root is `""`."""
    found = {}
    for file in sorted(src.rglob("*.rs")):
        parts = list(file.relative_to(src).with_suffix("").parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        found["::".join(parts)] = file
    return found


def code(file: pathlib.Path) -> str:
    return COMMENT.sub("", TESTS.sub("", file.read_text(encoding="utf-8")))


def graph(src: pathlib.Path) -> dict[str, set[str]]:
    """The modules each module uses."""
    mods = modules(src)
    reexported: dict[str, str] = {}
    if "" in mods:
        root = code(mods[""])
        for module, names in REEXPORT_GROUP.findall(root):
            for name in names.split(","):
                if name.strip():
                    reexported[name.strip().split(" as ")[-1].strip()] = module
        for module, name in REEXPORT_ONE.findall(root):
            reexported[name] = module
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for module, file in mods.items():
        if module != "":
            edges[module] = {
                t for t in targets(code(file), module, mods, reexported) if t not in ("", module)
            }
    return edges


def targets(
    text: str, module: str, mods: dict[str, pathlib.Path], reexported: dict[str, str]
) -> set[str]:
    """The modules the code `text` of `module` names."""
    found: set[str] = set()
    for path in PATH.findall(text):
        segments = path.split("::")
        for end in range(len(segments), 0, -1):
            if "::".join(segments[:end]) in mods:
                found.add("::".join(segments[:end]))
                break
        else:
            found.add(reexported.get(segments[0], ""))
    for group in GROUP.findall(text):
        for item in group.split(","):
            head = item.strip().split("::")[0].strip()
            found.add(head if head in mods else reexported.get(head, ""))
    parent = "::".join(module.split("::")[:-1])
    for name in SUPER.findall(text):
        found.add(f"{parent}::{name}" if parent else name)
    return {t for t in found if t in mods}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main(crates: list[str]) -> int:
    failed = False
    for crate in crates:
        for circle in circles(graph(pathlib.Path(crate) / "src")):
            failed = True
            print(f"{crate}: the files of {', '.join(circle)} use one another in a circle")
    if not failed:
        print(f"no import circle in {', '.join(crates)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
