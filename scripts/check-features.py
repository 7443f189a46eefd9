#!/usr/bin/env python3
"""Fails when building one member alone would compile a dependency with other features than
`cargo test --workspace` does, naming each: the workspace-hack crate (workspace-hack/) is stale.

The suites reuse the test build's compiled dependencies (the wheel and the addon built for the
host, `monapi` and the soak built alone): that holds only while each dependency has one
feature set whichever members a build takes. `cargo tree` resolves the features of a build
without compiling it (with the dev edges as a test build has them), so this runs in seconds;
cargo-hakari, which regenerates the crate (`make workspace-hack`), need not be installed.

    scripts/check-features.py
"""

from __future__ import annotations

import json
import subprocess
import sys


def cargo(*args: str) -> str:
    return subprocess.run(["cargo", *args], check=True, capture_output=True, text=True).stdout


def built(*selection: str) -> set[str]:
    """Each package of a build with its features, as `name vX.Y.Z feature,feature`."""
    out = cargo("tree", "--locked", *selection, "--prefix", "none", "-f", "{p} {f}")
    return {line.removesuffix(" (*)").strip() for line in out.splitlines() if line.strip()}


def main() -> int:
    metadata = json.loads(cargo("metadata", "--locked", "--no-deps", "--format-version", "1"))
    members = sorted(p["name"] for p in metadata["packages"])
    everything = built("--workspace", "-e", "normal,build,dev")
    stale = {}
    for member in members:
        alone = built("-p", member, "-e", "normal,build")
        differ = sorted(line for line in alone - everything if not line.startswith(tuple(members)))
        if differ:
            stale[member] = differ
    for member, lines in stale.items():
        print(f"cargo build -p {member} differs from the test build in:", file=sys.stderr)
        for line in lines:
            print(f"  {line}", file=sys.stderr)
    if stale:
        print("run `make workspace-hack` and commit workspace-hack/", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
