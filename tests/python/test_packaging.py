"""`pip install .` at the repository root builds the abi3 wheel, installs it, and it works."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_pip_install_at_the_root_installs_a_working_typed_abi3_package(
    tmp_path: pathlib.Path,
) -> None:
    site = tmp_path / "site"
    # The build backend is the maturin of this environment (no download): on PATH for pip.
    bin_dir = pathlib.Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    # The release build `make` made already sits there: pip's build reuses it (seconds).
    env.setdefault("CARGO_TARGET_DIR", str(ROOT / "target"))
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(
        [*pip, "--no-deps", "--no-build-isolation", "--target", str(site), str(ROOT)],
        check=True,
        env=env,
        timeout=900,
    )
    package = site / "monapi"
    for name in ("__init__.py", "errors.py", "testing.py", "_native.pyi", "py.typed"):
        assert (package / name).is_file(), name
    assert [p.name for p in package.glob("_native*.so")] == ["_native.abi3.so"]
    (dist_info,) = site.glob("monapi-*.dist-info")
    assert "Tag: cp310-abi3-" in (dist_info / "WHEEL").read_text(encoding="utf-8")
    licenses = {p.name for p in dist_info.rglob("LICENSE-*")}
    assert licenses == {"LICENSE-MIT", "LICENSE-APACHE"}

    program = (
        "import monapi\n"
        "from monapi.testing import Emulator\n"
        "print(monapi.__file__)\n"
        "with Emulator() as emulator:\n"
        "    print(len(emulator.client().service_tasks()))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", program],
        env={**os.environ, "PYTHONPATH": str(site)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    where, count = run.stdout.split()
    assert pathlib.Path(where).is_relative_to(package)
    assert count == "50"
