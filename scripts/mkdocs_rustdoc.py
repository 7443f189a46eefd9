"""mkdocs hook: the Rust crates' rustdoc (cargo doc's target/doc/) becomes part of the site,
under reference/rust/api/, so that the Rust reference is the crates' own documentation and
the site's pages can link into it with links that --strict checks.

`make docs` runs `cargo doc` first; a site built without it fails here, naming the command.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = pathlib.Path(__file__).resolve().parent.parent
RUSTDOC = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target") / "doc"
PREFIX = "reference/rust/api"
# The crates whose API the Rust reference page links to. The whole of target/doc is copied
# (cargo doc documents every crate of the workspace, and rustdoc's shared files list them all).
CRATES = ("monapi", "monapi_emulator")


def on_files(files: Files, config: Any, **kwargs: Any) -> Files:
    missing = [crate for crate in CRATES if not (RUSTDOC / crate / "index.html").is_file()]
    if missing:
        raise PluginError(
            f"no rustdoc of {', '.join(missing)} in {RUSTDOC}: run `make docs`, which runs "
            "cargo doc before mkdocs"
        )
    for path in sorted(RUSTDOC.rglob("*")):
        if path.is_file():
            relative = path.relative_to(RUSTDOC).as_posix()
            files.append(File.generated(config, f"{PREFIX}/{relative}", abs_src_path=str(path)))
    return files
