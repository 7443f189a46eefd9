"""The answers' shapes are declared once, in core/answers.toml: the TypedDicts of monapi.types
and the TypeScript types generated from it (`make answers`) cannot drift from it."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tomllib

import monapi.types

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_generated_files_are_what_the_declaration_gives() -> None:
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen-answers.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    # On failure its output is the diff and the command that mends it.
    assert check.returncode == 0, check.stderr


def test_monapi_types_exports_every_declared_shape() -> None:
    declared = tomllib.loads((ROOT / "core" / "answers.toml").read_text(encoding="utf-8"))
    names = {table.get("py", {}).get("name", key) for key, table in declared.items()}
    public = set(monapi.types.__all__)
    assert names <= public, names - public
    assert {"Progress", "Token", "TokenDict"} <= public
    for name in public:
        assert getattr(monapi.types, name) is not None, name
