"""The documentation's samples run (docs/samples/, included into the pages of docs/): each page's
Python samples whole, in one interpreter, in the page's order, as a reader pastes them into a
notebook; its shell samples in bash with the `monapi` command of this checkout. Both against the
emulator's demo account in the MONAPI_* variables. And no page holds a sample of its own text:
a fenced block of code is included from a sample file, or marked as one that cannot run here."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import textwrap

import pytest

from monapi.testing import Emulator

from helpers import demo_env, monapi_binary

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SAMPLES = DOCS / "samples"


def world() -> Emulator:
    """A world a little larger than the default: the plots and rankings have something to rank."""
    return Emulator(site_tasks=6)


def run_sample(command: list[str], tmp_path: pathlib.Path, env: dict[str, str]) -> None:
    result = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"


@pytest.mark.parametrize(
    "sample", sorted((SAMPLES / "python").glob("*.py")), ids=lambda path: path.stem
)
def test_a_page_s_python_samples_run_in_order(sample: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # A sample that is a reader's test module runs as their suite would run it.
    command = (
        ["-m", "pytest", "-q", "-p", "no:cacheprovider"] if sample.name.startswith("test_") else []
    )
    with world() as emulator:
        env = {**demo_env(emulator), "MPLBACKEND": "Agg"}
        run_sample([sys.executable, *command, str(sample)], tmp_path, env)


@pytest.mark.parametrize(
    "sample", sorted((SAMPLES / "sh").glob("*.sh")), ids=lambda path: path.stem
)
def test_a_page_s_shell_samples_run_in_order(sample: pathlib.Path, tmp_path: pathlib.Path) -> None:
    binary = pathlib.Path(monapi_binary())
    # As in the repository's folder: the samples name files of examples/.
    shutil.copytree(
        ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("output")
    )
    with world() as emulator:
        env = {
            **demo_env(emulator),
            "PATH": f"{binary.parent}{os.pathsep}{os.environ['PATH']}",
            "PORT": str(free_port()),
        }
        run_sample(["bash", "-euo", "pipefail", str(sample)], tmp_path, env)


def free_port() -> int:
    """A port free on 127.0.0.1 now (for a sample that takes a port rather than binding 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# A fenced block, and the line before it.
FENCE = re.compile(
    r"(?P<before>[^\n]*)\n\n?(?P<indent>[ \t]*)(?P<mark>```|~~~)(?P<info>[^\n]*)\n"
    r"(?P<body>.*?)\n(?P=indent)(?P=mark)[ \t]*$",
    re.M | re.S,
)
CODE = {"python", "py", "pycon", "js", "javascript", "ts", "typescript", "rust", "rs", "sh", "bash",
        "shell", "console", "sql"}  # fmt: skip
NOT_RUN = re.compile(r"<!-- not run: (?P<reason>[^>]+) -->")


def code_blocks(pages: list[pathlib.Path]) -> list[tuple[str, str, str, str]]:
    """(page, language, body, the line before) of every fenced block of code of `pages`."""
    blocks = []
    for page in pages:
        if "reference/typescript" in page.as_posix():
            continue  # TypeDoc's output, generated at each build
        for fence in FENCE.finditer(page.read_text(encoding="utf-8")):
            language = (fence["info"].strip().split() or [""])[0].lstrip(".").lower()
            if language in CODE:
                name = str(page.relative_to(ROOT))
                blocks.append((name, language, fence["body"], fence["before"]))
    return blocks


def test_every_sample_on_a_page_is_included_from_a_file_a_suite_runs() -> None:
    own_text, not_run = [], []
    for page, language, body, before in code_blocks(sorted(DOCS.rglob("*.md"))):
        lines = [line.strip() for line in body.splitlines() if line.strip()]
        if lines and all(line.startswith("--8<--") for line in lines):
            continue
        marked = NOT_RUN.search(before)
        if marked:
            not_run.append(f"{page}: {marked['reason']}")
        else:
            own_text.append(f"{page} ({language}): {lines[:1]}")
    assert not own_text, (
        "samples written into a page rather than included from docs/samples/ "
        "(or marked <!-- not run: why --> on the line before):\n" + "\n".join(own_text)
    )
    print(f"{len(not_run)} samples marked as not run here:", *not_run, sep="\n  ")


# A named region of a sample file: its lines, whatever the comment that marks it.
REGION = re.compile(
    r"^[^\n]*--8<-- \[start:(?P<name>[\w-]+)\][^\n]*\n(?P<body>.*?)^[^\n]*--8<-- \[end:(?P=name)\]",
    re.S | re.M,
)


def sample_texts() -> set[str]:
    """Every sample a page can include: each region of a sample file, dedented, and each
    sample file whole."""
    texts = set()
    for path in [*SAMPLES.rglob("*.*"), *(ROOT / "core" / "tests").rglob("*.rs")]:
        text = path.read_text(encoding="utf-8")
        texts.add(text.strip())
        for region in REGION.finditer(text):
            texts.add(textwrap.dedent(region["body"]).strip())
    return texts


def test_the_readme_samples_are_the_sites_samples() -> None:
    # GitHub shows README.md without including anything: its samples are copies, checked here
    # to be the same text as a sample the suite runs.
    samples = sample_texts()
    copies = [
        f"{language}: {body.strip().splitlines()[:1]}"
        for _, language, body, before in code_blocks([ROOT / "README.md"])
        if not NOT_RUN.search(before)
        and (not body.strip() or textwrap.dedent(body).strip() not in samples)
    ]
    assert not copies, "README samples that are no sample the suite runs:\n" + "\n".join(copies)
