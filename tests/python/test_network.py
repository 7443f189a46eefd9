"""Company networks: a private CA (the emulator over HTTPS), proxies and the connection cap.

Environment variables are set only in child processes, never in this one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pathlib
import pickle
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import monapi
from monapi.testing import Emulator

DEMO: dict[str, Any] = {
    "client_id": "demo_id",
    "client_secret": "demo_secret",
    "username": "test@example.com",
    "password": "123456",
}


class ForwardingProxy:
    """A small forwarding proxy on loopback: plain HTTP requests in absolute form are passed
    on to their server, ``CONNECT host:port`` opens a tunnel. It counts the connections it
    carried to a server and refuses (407) a client without the expected credentials."""

    def __init__(self, credentials: tuple[str, str] | None = None) -> None:
        import base64

        self.expected = (
            None
            if credentials is None
            else "Basic " + base64.b64encode(":".join(credentials).encode()).decode()
        )
        self.forwarded = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._carry, args=(client,), daemon=True).start()

    def _carry(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk or len(head) > 65536:
                    return
                head += chunk
            text = head.decode("latin-1")
            request_line, *headers = text.split("\r\n")
            method, target, _ = request_line.split(" ", 2)
            if self.expected is not None and not any(
                h.lower().startswith("proxy-authorization:")
                and h.split(":", 1)[1].strip() == self.expected
                for h in headers
            ):
                client.sendall(
                    b"HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n"
                )
                return
            if method == "CONNECT":
                host, port = target.rsplit(":", 1)
                rest = head.split(b"\r\n\r\n", 1)[1]
            else:
                authority, _, path = target.removeprefix("http://").partition("/")
                host, port = authority.rsplit(":", 1)
                rest = head.replace(target.encode(), b"/" + path.encode(), 1)
            server = socket.create_connection((host, int(port)))
            # Counted before the client can use the connection, so never after the call ends.
            with self._lock:
                self.forwarded += 1
            if method == "CONNECT":
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            with server:
                if rest:
                    server.sendall(rest)
                self._pipe(client, server)

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        def copy(src: socket.socket, dst: socket.socket) -> None:
            try:
                while data := src.recv(65536):
                    dst.sendall(data)
            except OSError:
                pass
            finally:
                with contextlib.suppress(OSError):
                    dst.shutdown(socket.SHUT_WR)

        other = threading.Thread(target=copy, args=(b, a), daemon=True)
        other.start()
        copy(a, b)
        other.join(timeout=30)


@pytest.fixture
def https() -> Iterator[Emulator]:
    with Emulator(tls=True) as emulator:
        yield emulator


@pytest.fixture
def proxy() -> Iterator[ForwardingProxy]:
    proxy = ForwardingProxy()
    yield proxy
    proxy.close()


def child(program: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Runs `program` in a child Python with these variables added to a clean proxy/CA
    environment."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.lower().endswith("_proxy")
        and "CA_BUNDLE" not in k
        and not k.startswith("SSL_CERT")
    }
    return subprocess.run(
        [sys.executable, "-c", program],
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def agents_in_child(
    base_url: str, env: dict[str, str], extra: str = ""
) -> subprocess.CompletedProcess[str]:
    program = (
        "import monapi\n"
        f"client = monapi.Client(base_url={base_url!r}, client_id='demo_id',"
        " client_secret='demo_secret', username='test@example.com', password='123456',"
        f" max_retries=0{extra})\n"
        "print(len(client.agents()))\n"
    )
    return child(program, env)


def test_an_untrusted_certificate_says_how_to_fix_it_and_is_not_retried(https: Emulator) -> None:
    client = monapi.Client(base_url=https.base_url, max_retries=3, **DEMO)
    with pytest.raises(monapi.ConnectionError) as caught:
        client.agents()
    message = str(caught.value)
    for words in (
        "127.0.0.1",
        "not trusted",
        "unknown issuer",
        "ca_bundle",
        "SSL_CERT_FILE",
        "REQUESTS_CA_BUNDLE",
    ):
        assert words in message, message
    counters = https.counters()
    assert counters["total"] == 0
    assert counters["connections"] == 1  # the refused handshake, not repeated


def test_a_private_ca_from_a_path_a_pathlike_or_bytes(https: Emulator) -> None:
    assert https.ca_path is not None and https.ca_pem is not None
    assert https.base_url.startswith("https://127.0.0.1:")
    assert pathlib.Path(https.ca_path).read_text() == https.ca_pem
    for bundle in (https.ca_path, pathlib.Path(https.ca_path), https.ca_pem.encode()):
        with monapi.Client(base_url=https.base_url, ca_bundle=bundle, **DEMO) as client:
            assert client.agents()
    with https.client() as client:  # the emulator's own helper trusts its CA
        assert client.service_tasks()
    assert https.counters()["token"] == 4


async def test_the_async_client_takes_the_ca_too(https: Emulator) -> None:
    async with monapi.AsyncClient(
        base_url=https.base_url, ca_bundle=https.ca_path, **DEMO
    ) as client:
        assert await client.agents()


def test_a_missing_or_empty_bundle_is_refused_at_construction(
    https: Emulator, tmp_path: pathlib.Path
) -> None:
    empty = tmp_path / "empty.pem"
    empty.write_text("not a certificate\n")
    for bundle, rule in (
        (str(tmp_path / "missing.pem"), "does not exist"),
        (str(empty), "no PEM certificate"),
        (b"", "no PEM certificate"),
    ):
        with pytest.raises(monapi.ValidationError) as caught:
            monapi.Client(base_url=https.base_url, ca_bundle=bundle, **DEMO)
        assert caught.value.field == "ca_bundle", caught.value
        assert rule in str(caught.value)
    with pytest.raises(TypeError):
        monapi.Client(base_url=https.base_url, ca_bundle=42, **DEMO)  # type: ignore[arg-type]
    assert https.counters()["connections"] == 0


@pytest.mark.parametrize("variable", ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "MONAPI_CA_BUNDLE"])
def test_the_ca_variables_in_a_child_process(https: Emulator, variable: str) -> None:
    assert https.ca_path is not None
    run = agents_in_child(https.base_url, {variable: https.ca_path})
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) > 0
    missing = agents_in_child(https.base_url, {variable: "/no/such/ca.pem"})
    assert missing.returncode != 0
    assert "ValidationError" in missing.stderr and variable in missing.stderr, missing.stderr


def test_the_proxy_option_carries_every_call(emulator: Emulator) -> None:
    proxy = ForwardingProxy(credentials=("me", "pr0xy-secret"))
    try:
        url = f"http://me:pr0xy-secret@127.0.0.1:{proxy.port}"
        with emulator.client(proxy=url) as client:
            client.agents()
            client.service_tasks()
            assert "pr0xy-secret" not in repr(client)
            restored = pickle.loads(pickle.dumps(client))
            restored.agents()
        counters = emulator.counters()
        assert counters["total"] == 4  # the login and three calls, one of them by the copy
        assert proxy.forwarded >= 1
        assert counters["connections"] == proxy.forwarded
    finally:
        proxy.close()


def test_https_through_the_proxy_uses_connect(https: Emulator, proxy: ForwardingProxy) -> None:
    with https.client(proxy=proxy.url) as client:
        client.agents()
    assert proxy.forwarded >= 1
    assert https.counters()["connections"] == proxy.forwarded


def test_the_proxy_password_never_shows_in_errors_or_debug_logs(
    emulator: Emulator, caplog: pytest.LogCaptureFixture
) -> None:
    proxy = ForwardingProxy(credentials=("me", "the-right-one"))
    try:
        with (
            caplog.at_level(logging.DEBUG, logger="monapi"),
            emulator.client(
                proxy=f"http://me:wr0ng-secret@127.0.0.1:{proxy.port}", max_retries=1
            ) as client,
        ):
            with pytest.raises(monapi.MonapiError) as caught:
                client.agents()
            assert "wr0ng-secret" not in repr(client)
        shown = f"{caught.value} {caught.value!r} {caplog.text}"
        assert "wr0ng-secret" not in shown
        assert caplog.records, "the DEBUG log was written"
        assert emulator.counters()["total"] == 0
    finally:
        proxy.close()


def test_proxies_from_the_environment_in_a_child_process(
    emulator: Emulator, proxy: ForwardingProxy
) -> None:
    for variable in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        before = proxy.forwarded
        run = agents_in_child(emulator.base_url, {variable: proxy.url})
        assert run.returncode == 0, run.stderr
        assert proxy.forwarded > before, variable
    through = proxy.forwarded
    for env in (
        {"HTTP_PROXY": proxy.url, "NO_PROXY": "127.0.0.1"},
        {"http_proxy": proxy.url, "no_proxy": "127.0.0.1"},
    ):
        run = agents_in_child(emulator.base_url, env)
        assert run.returncode == 0, run.stderr
    run = agents_in_child(emulator.base_url, {"HTTP_PROXY": proxy.url}, extra=", proxy=None")
    assert run.returncode == 0, run.stderr
    assert proxy.forwarded == through, "NO_PROXY and proxy=None bypass the proxy"


def test_bad_network_options_are_refused(emulator: Emulator) -> None:
    with pytest.raises(monapi.ValidationError) as caught:
        emulator.client(proxy="proxy.corp:3128")
    assert caught.value.field == "proxy"
    for bad in (0, 10_001, 2.5):
        with pytest.raises(monapi.ValidationError) as caught:
            emulator.client(max_connections=bad)
        assert caught.value.field == "max_connections"
    with pytest.raises(TypeError):
        emulator.client(proxy=3128)


async def test_max_connections_bounds_the_connections_in_use(emulator: Emulator) -> None:
    emulator.set_latency(0.005)
    async with emulator.async_client(max_connections=4, timeout=60.0) as client:
        await client.login()
        results = await asyncio.gather(*(client.agents() for _ in range(200)))
    assert len(results) == 200 and all(results)
    counters = emulator.counters()
    assert counters["agents"] == 200
    assert counters["peak_in_progress"] <= 4, counters  # never more in use at once
    assert counters["connections"] <= 20, counters  # reused (see ClientBuilder::max_connections)
