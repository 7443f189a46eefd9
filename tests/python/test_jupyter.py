"""In a real Jupyter kernel (ipykernel), whose event loop is already running: cells await
AsyncClient calls at top level, gather them, iterate pages, and call the blocking Client."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

CELLS = [
    (
        "import asyncio\n"
        "from monapi.testing import Emulator\n"
        "emulator = Emulator()\n"
        "client = emulator.async_client()\n"
        "print(asyncio.get_running_loop().is_running())"
    ),
    (
        "agents = await client.agents()\n"
        "tasks = [task async for task in client.iter_service_tasks()]\n"
        "print(len(agents), len(tasks), tasks[-1]['task_id'])"
    ),
    (
        "pages = await asyncio.gather(*(client.service_tasks(p) for p in (1, 2, 3, 4)))\n"
        "print([len(page) for page in pages])"
    ),
    # The blocking client in a cell, while the kernel's loop runs.
    "print(len(emulator.client().service_tasks(3)))",
    # 3 pages for the iterator (the third is short), 4 gathered, 1 blocking.
    "print(emulator.counters()['service_tasks'])",
]

EXPECTED = ["True", "3 120 10120", "[50, 50, 20, 0]", "20", "8"]


def test_cells_of_a_running_kernel_await_the_async_client(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path))
    manager, kernel = start_new_kernel(kernel_name="python3", startup_timeout=120)
    try:
        printed: list[str] = []
        for cell in CELLS:
            out: list[str] = []

            def hook(message: dict[str, Any], out: list[str] = out) -> None:
                content = message["content"]
                if message["msg_type"] == "stream" and content["name"] == "stdout":
                    out.append(content["text"])
                elif message["msg_type"] == "error":
                    out.append("\n".join(content["traceback"]))

            reply = kernel.execute_interactive(cell, timeout=60, output_hook=hook)
            assert reply["content"]["status"] == "ok", "".join(out)
            printed.append("".join(out).strip())
        assert printed == EXPECTED
    finally:
        kernel.stop_channels()
        manager.shutdown_kernel(now=True)
