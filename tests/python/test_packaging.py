"""The Python package as users install it, and one version for every package of the project.

- `pip install .` at the repository root builds the abi3 wheel, installs it, and it works.
- The wheel of `make python-dist` (target/dist/) is abi3 and manylinux2014 (auditwheel says so),
  and works once installed into a fresh venv.
- The sdist of `make python-dist` builds and installs in a fresh venv with nothing but Rust and
  pip (pip fetches the build backend named by pyproject.toml), and works.
- In both venvs, the `monapi` command pip put on PATH exports a report and syncs a store
  against the emulator, reading the password from a file.
- The crates, the wheel, the sdist and every npm package carry the one version of Cargo's
  `workspace.package`, and scripts/set-version.sh changes every copy of it.
"""

from __future__ import annotations

import email.parser
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from typing import Any

from monapi.testing import Emulator

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIST = ROOT / "target" / "dist"
PIP = ["-m", "pip", "--disable-pip-version-check"]

# Starts the emulator bundled in the installed package and lists its service tasks.
PROGRAM = (
    "import monapi\n"
    "from monapi.testing import Emulator\n"
    "print(monapi.__file__)\n"
    "with Emulator() as emulator:\n"
    "    print(len(emulator.client().service_tasks()))\n"
)


def crate_versions(root: pathlib.Path) -> dict[str, str]:
    """The version of each crate of the workspace at `root` (as Cargo.lock has them), but the
    workspace-hack's: it never ships, and its 0.1 names the registry's empty stub of that name,
    which a published crate depends on instead."""
    metadata = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps", "--locked"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    packages = json.loads(metadata.stdout)["packages"]
    return {str(p["name"]): str(p["version"]) for p in packages if p["name"] != "workspace-hack"}


def workspace_version() -> str:
    """The version of every crate of the workspace (they must agree): the project's version."""
    versions = crate_versions(ROOT)
    assert len(set(versions.values())) == 1, versions
    return versions["monapi"]


def built(pattern: str) -> pathlib.Path:
    """The one file of target/dist/ matching `pattern`."""
    found = sorted(DIST.glob(pattern))
    assert len(found) == 1, f"{found} in {DIST}: run `make python-dist`"
    return found[0]


def run_program(python: str | pathlib.Path, env: dict[str, str] | None = None) -> pathlib.Path:
    """Runs PROGRAM outside the repository; returns where `monapi` was imported from."""
    run = subprocess.run(
        [str(python), "-c", PROGRAM],
        env=env,
        cwd=pathlib.Path("/"),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    where, count = run.stdout.split()
    assert count == "50"
    return pathlib.Path(where).parent


def fresh_venv(path: pathlib.Path) -> pathlib.Path:
    """A new venv (with pip, nothing else) at `path`; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=300)
    return path / "bin" / "python"


def outside_our_venv() -> dict[str, str]:
    """This environment without .venv/ (maturin, zig, ...) on PATH: only what users have."""
    ours = str(pathlib.Path(sys.executable).parent)
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != ours)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = path
    # The pip build shares the cargo target directory of `make` (CARGO_TARGET_DIR) so that only
    # our own crates compile again; a user's build compiles everything, the same way.
    env.setdefault("CARGO_TARGET_DIR", str(ROOT / "target"))
    return env


def assert_typed_abi3_package(package: pathlib.Path) -> None:
    for name in ("__init__.py", "errors.py", "testing.py", "_native.pyi", "py.typed"):
        assert (package / name).is_file(), name
    assert [p.name for p in package.glob("_native*.so")] == ["_native.abi3.so"]


def assert_the_command_works(venv: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """The command pip put on the PATH of `venv`, as a user runs it: an export and a sync
    against the emulator, the password from a file (none in the environment or on the command
    line)."""
    monapi = venv / "bin" / "monapi"
    (tmp_path / "password").write_text("123456\n")
    with Emulator() as emulator:
        env = {
            **outside_our_venv(),
            "MONAPI_BASE_URL": emulator.base_url,
            "MONAPI_CLIENT_ID": "demo_id",
            "MONAPI_CLIENT_SECRET": "demo_secret",
            "MONAPI_USERNAME": "test@example.com",
            "MONAPI_PASSWORD_FILE": str(tmp_path / "password"),
        }
        env.pop("MONAPI_PASSWORD", None)
        days = ["--from", "2026-11-01", "--to", "2026-11-02"]
        for args in (
            [
                "export",
                "service-reports",
                "--task",
                "10001",
                *days,
                "--format",
                "parquet",
                "-o",
                "report.parquet",
            ],
            ["sync", "store", "--task", "10001", "--task", "20001", *days],
        ):
            done = subprocess.run(
                [monapi, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300
            )
            assert done.returncode == 0, (args, done.stderr)
        assert emulator.counters()["token"] == 2
    assert (tmp_path / "report.parquet").stat().st_size > 0
    stored = sorted(
        p.relative_to(tmp_path / "store").parts[0] for p in (tmp_path / "store").rglob("*.parquet")
    )
    assert set(stored) >= {"service_report", "site_availability"}, stored


def test_pip_install_at_the_root_installs_a_working_typed_abi3_package(
    tmp_path: pathlib.Path,
) -> None:
    site = tmp_path / "site"
    # The build backend is the maturin of this environment (no download): on PATH for pip.
    bin_dir = pathlib.Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.setdefault("CARGO_TARGET_DIR", str(ROOT / "target"))
    pip = [sys.executable, *PIP, "install", "--quiet"]
    subprocess.run(
        [*pip, "--no-deps", "--no-build-isolation", "--target", str(site), str(ROOT)],
        check=True,
        env=env,
        timeout=1200,
    )
    package = site / "monapi"
    assert_typed_abi3_package(package)
    (dist_info,) = site.glob("monapi-*.dist-info")
    assert "Tag: cp311-abi3-" in (dist_info / "WHEEL").read_text(encoding="utf-8")
    licenses = {p.name for p in dist_info.rglob("LICENSE-*")}
    assert licenses == {"LICENSE-MIT", "LICENSE-APACHE"}

    where = run_program(sys.executable, env={**os.environ, "PYTHONPATH": str(site)})
    assert where.is_relative_to(package)


def test_the_wheel_is_abi3_manylinux2014_and_works_in_a_fresh_venv(tmp_path: pathlib.Path) -> None:
    version = workspace_version()
    wheel = built("monapi-*.whl")
    assert wheel.name == (
        f"monapi-{version}-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
    )

    # auditwheel reads the symbols the extension needs from glibc: none newer than 2.17.
    show = subprocess.run(
        [pathlib.Path(sys.executable).parent / "auditwheel", "show", str(wheel)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    verdict = " ".join(show.stdout.split())
    assert 'is consistent with the following platform tag: "manylinux_2_17_x86_64"' in verdict, (
        show.stdout
    )

    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(f"monapi-{version}.dist-info/METADATA").decode()
    assert "monapi/_native.abi3.so" in names
    assert {"monapi/py.typed", "monapi/_native.pyi"} <= set(names)
    assert f"\nVersion: {version}\n" in metadata
    assert "\nRequires-Python: >=3.11\n" in metadata
    # OpenTelemetry is the host's, used when present (monapi/_telemetry.py): never required.
    # Only the headers count: the README, which is the long description, names it.
    requires = email.parser.HeaderParser().parsestr(metadata).get_all("Requires-Dist") or []
    assert not [line for line in requires if "opentelemetry" in line.lower()], requires

    python = fresh_venv(tmp_path / "venv")
    subprocess.run(
        [python, *PIP, "install", "--quiet", "--no-index", "--no-deps", str(wheel)],
        check=True,
        timeout=300,
    )
    where = run_program(python, env=outside_our_venv())
    assert where.is_relative_to(tmp_path / "venv")
    assert_typed_abi3_package(where)

    assert_the_command_works(tmp_path / "venv", tmp_path)


def test_the_sdist_builds_and_installs_in_a_fresh_venv_with_only_rust_and_pip(
    tmp_path: pathlib.Path,
) -> None:
    version = workspace_version()
    sdist = built("monapi-*.tar.gz")
    assert sdist.name == f"monapi-{version}.tar.gz"
    with tarfile.open(sdist) as archive:
        names = {name.removeprefix(f"monapi-{version}/") for name in archive.getnames()}
        pkg_info = archive.extractfile(f"monapi-{version}/PKG-INFO")
        assert pkg_info is not None
        assert f"\nVersion: {version}\n" in pkg_info.read().decode()
    # The workspace's path crates travel with it: the core, the emulator (monapi.testing) and
    # the command (the console script `monapi`).
    for required in (
        "pyproject.toml",
        "Cargo.toml",
        "Cargo.lock",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "core/Cargo.toml",
        "core/src/lib.rs",
        "emulator/Cargo.toml",
        "emulator/src/lib.rs",
        "cli/Cargo.toml",
        "cli/src/lib.rs",
        "bindings-python/Cargo.toml",
        "bindings-python/src/lib.rs",
        "bindings-python/python/monapi/__init__.py",
        "bindings-python/python/monapi/py.typed",
        "bindings-python/python/monapi/_native.pyi",
    ):
        assert required in names, required
    assert not any(name.startswith(("bindings-node/", "tests/")) for name in names)

    python = fresh_venv(tmp_path / "venv")
    # No cache: a wheel pip built from an earlier sdist must not stand in for this build.
    subprocess.run(
        [python, *PIP, "install", "--quiet", "--no-cache-dir", str(sdist)],
        env=outside_our_venv(),
        check=True,
        timeout=1500,
    )
    where = run_program(python, env=outside_our_venv())
    assert where.is_relative_to(tmp_path / "venv")
    assert_typed_abi3_package(where)

    assert_the_command_works(tmp_path / "venv", tmp_path)


def read_json(path: pathlib.Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    return data


def versions(root: pathlib.Path) -> dict[str, str]:
    """Every copy of the project's version in the checkout at `root`, by where it is."""
    found = {f"crate {name}": version for name, version in crate_versions(root).items()}
    # The path dependencies' versions, which cargo package writes into the published manifests.
    cargo = (root / "Cargo.toml").read_text(encoding="utf-8")
    for crate in ("monapi", "monapi-emulator"):
        match = re.search(rf'^{crate} = {{ path = "[^"]*", version = "([^"]*)" }}$', cargo, re.M)
        assert match, f"workspace.dependencies.{crate}"
        found[f"Cargo.toml workspace.dependencies.{crate}"] = match[1]
    package = read_json(root / "package.json")
    found["package.json"] = package["version"]
    lock = read_json(root / "package-lock.json")
    found["package-lock.json"] = lock["version"]
    found["package-lock.json packages['']"] = lock["packages"][""]["version"]
    # One npm/<platform>/ per napi target; the staged main package lists them all as
    # optionalDependencies at its own version (tests/node/pack.test.mjs checks that).
    platforms = sorted((root / "npm").glob("*/package.json"))
    assert len(platforms) == len(package["napi"]["targets"]) == 6, platforms
    for path in platforms:
        manifest = read_json(path)
        assert manifest["name"] == f"@monapi/{path.parent.name}"
        found[f"npm/{path.parent.name}/package.json"] = manifest["version"]
    return found


def test_one_version_for_the_crates_the_wheel_the_sdist_and_every_npm_package() -> None:
    version = workspace_version()
    found = versions(ROOT)
    assert found == dict.fromkeys(found, version)
    with zipfile.ZipFile(built("monapi-*.whl")) as archive:
        metadata = archive.read(f"monapi-{version}.dist-info/METADATA").decode()
    assert f"\nVersion: {version}\n" in metadata
    assert built("monapi-*.tar.gz").name == f"monapi-{version}.tar.gz"


def test_set_version_changes_every_copy_and_opens_the_changelog_section(
    tmp_path: pathlib.Path,
) -> None:
    # A copy of the checkout (tracked and new files, not the build outputs), with the installed
    # node_modules, where the script may write.
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    )
    copy = tmp_path / "checkout"
    for name in listed.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name, follow_symlinks=False)
    (copy / "node_modules").symlink_to(ROOT / "node_modules")

    run = subprocess.run(
        [copy / "scripts" / "set-version.sh", "9.8.7-rc.1"],
        env={**os.environ, "CARGO_NET_OFFLINE": "true"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    found = versions(copy)
    assert found == dict.fromkeys(found, "9.8.7-rc.1")
    changelog = (copy / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(
        r"^## \[Unreleased\]\n\n## \[9\.8\.7-rc\.1\] - \d{4}-\d\d-\d\d$", changelog, re.M
    )

    refused = subprocess.run(
        [copy / "scripts" / "set-version.sh", "next"], capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 2
    assert "usage: scripts/set-version.sh X.Y.Z" in refused.stderr
