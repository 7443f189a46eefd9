"""The ``monapi`` command that ``pip install monapi`` puts on PATH (``[project.scripts]``).

It is the command of the crate ``monapi-cli``, linked into the native module: the same
subcommands, flags, exit codes and handling of signals as the binary of ``cargo install``.
"""

from __future__ import annotations

import sys

from monapi import _native


def main() -> None:
    """Runs ``monapi`` with this process's arguments and exits with its code."""
    sys.exit(_native._run_command(["monapi", *sys.argv[1:]]))
