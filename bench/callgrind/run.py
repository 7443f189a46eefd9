"""The cost of telemetry in instructions, counted by valgrind's callgrind (`make callgrind-bench`).

Instructions do not depend on how busy or fast the machine is, so a small difference shows.
Each program (`core/examples/small_calls.rs`, `small_calls_traced.rs`, built in release) logs in
and makes N small calls (`agents`) against the emulator (`monapi serve`, a process of its own,
not counted); it runs under callgrind for N and for 2N calls, and the difference divided by N
is one call's instructions, start-up and log-in left out.

Measured:

- `before`: `small_calls` built at the commit before telemetry (a git worktree);
- `off`: the same program now (no recording, no `tracing` subscriber): the cost that every
  call pays whether or not anyone listens;
- `off, feature opentelemetry`: the same with the cargo feature `opentelemetry` and no meter
  provider set, as the Python and Node packages are built (the command they embed sends its
  metrics over OTLP): each attempt's duration goes to OpenTelemetry's no-op meter;
- `recording`: each call recorded as the Python and Node packages do (`Recording`), its
  records taken; replaying them in the host's OpenTelemetry is the binding's, not counted;
- `tracing`: `tracing-opentelemetry` and the SDK's in-memory exporter, as a Rust program would.

Each call has two spans (the operation and its HTTP attempt). `--record` writes the table into
bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
CARGO = os.environ.get("CARGO", "cargo")
SECTION = "## Telemetry's cost in instructions (callgrind)"


def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, check=True, text=True, **kwargs)  # type: ignore[call-overload, no-any-return]


def baseline_commit() -> str:
    """The commit before the one that added telemetry (HEAD, before it is committed)."""
    added = run(
        ["git", "log", "--diff-filter=A", "--format=%H", "--", "core/src/telemetry.rs"],
        cwd=ROOT,
        capture_output=True,
    ).stdout.split()
    return f"{added[-1]}^" if added else "HEAD"


def build(tree: pathlib.Path, examples: list[str], features: str = "") -> None:
    command = [CARGO, "build", "--release", "--quiet", "-p", "monapi", f"--features={features}"]
    for example in examples:
        command += ["--example", example]
    run(command, cwd=tree, env={**os.environ, "CARGO_TARGET_DIR": str(TARGET)})


def instructions(program: list[str], env: dict[str, str]) -> int:
    """The instructions callgrind counted for the whole run of `program`."""
    with tempfile.TemporaryDirectory() as scratch:
        done = run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/out", *program],
            env=env,
            capture_output=True,
        )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        sys.exit(f"no instruction count in callgrind's output:\n{done.stderr}")
    return int(found.group(1))


def per_call(program: list[str], calls: int, env: dict[str, str]) -> float:
    few = instructions([*program, str(calls)], env)
    many = instructions([*program, str(2 * calls)], env)
    return (many - few) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument(
        "--record", action="store_true", help="write the table into bench/RESULTS.md"
    )
    args = parser.parse_args()

    commit = baseline_commit()
    examples = TARGET / "release" / "examples"
    build(ROOT, ["small_calls"], "opentelemetry")
    shutil.copy(examples / "small_calls", TARGET / "small_calls.global")
    build(ROOT, ["small_calls", "small_calls_traced"])
    shutil.copy(examples / "small_calls", TARGET / "small_calls.now")
    with tempfile.TemporaryDirectory() as scratch:
        tree = pathlib.Path(scratch) / "before"
        run(["git", "worktree", "add", "--detach", "--quiet", str(tree), commit], cwd=ROOT)
        try:
            shutil.copy(ROOT / "core" / "examples" / "small_calls.rs", tree / "core" / "examples")
            build(tree, ["small_calls"])
        finally:
            run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT)
    shutil.copy(examples / "small_calls", TARGET / "small_calls.before")

    serve = subprocess.Popen(
        [str(TARGET / "debug" / "monapi"), "serve", "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert serve.stderr is not None
        line = serve.stderr.readline()
        # The rest of its log lines, read so that they never fill the pipe.
        threading.Thread(target=serve.stderr.read, daemon=True).start()
        found = re.search(r"listening on (http://\S+)", line)
        if found is None:
            sys.exit(f"the emulator did not start: {line!r}")
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("MONAPI_")},
            "MONAPI_BASE_URL": found.group(1),
            "MONAPI_CLIENT_ID": "demo_id",
            "MONAPI_CLIENT_SECRET": "demo_secret",
            "MONAPI_USERNAME": "test@example.com",
            "MONAPI_PASSWORD": "123456",
        }
        traced = str(examples / "small_calls_traced")
        rows = {
            "before": per_call([str(TARGET / "small_calls.before")], args.calls, env),
            "off": per_call([str(TARGET / "small_calls.now")], args.calls, env),
            "off, feature opentelemetry": per_call(
                [str(TARGET / "small_calls.global")], args.calls, env
            ),
            "recording": per_call([traced, "recording"], args.calls, env),
            "tracing": per_call([traced, "tracing"], args.calls, env),
        }
    finally:
        serve.terminate()
        serve.wait(30)

    before = rows["before"]
    lines = [
        f"Instructions per small call (`agents`), {args.calls} and {2 * args.calls} calls under",
        f"callgrind, against the commit before telemetry ({commit}); each call is two spans.",
        "",
        "| telemetry | instructions per call | against before | per span |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, count in rows.items():
        change = f"{(count - before) / before * 100:+.2f}%"
        span = f"{(count - rows['off']) / 2:,.0f}" if name in ("recording", "tracing") else ""
        lines.append(f"| {name} | {count:,.0f} | {change} | {span} |")
    table = "\n".join(lines)
    print(table)
    if args.record:
        results = ROOT / "bench" / "RESULTS.md"
        text = results.read_text(encoding="utf-8")
        section = f"{SECTION}\n\n{table}\n"
        if SECTION in text:
            start = text.index(SECTION)
            end = text.find("\n## ", start + len(SECTION))
            text = text[:start] + section + (text[end:] if end != -1 else "")
        else:
            text = text.rstrip("\n") + "\n\n" + section
        results.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
