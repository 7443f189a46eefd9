"""The documentation site as a reader's browser shows it: Debian's chromium (installed by the
Makefile), driven by playwright, loads every page of the site `make docs` builds, served over
HTTP on 127.0.0.1. Each page loads with no console error, no failed request and no request to
another host (the site works offline), and the site's search finds `service_report`."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import threading
import urllib.parse
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Browser, sync_playwright

import monapi
import monapi.testing

ROOT = pathlib.Path(__file__).resolve().parents[2]
SITE = ROOT / "target" / "docs"
RUSTDOC = SITE / "reference" / "rust" / "api"


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass  # the test reports what failed; a line per file would bury it


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The site `make docs` builds, served on a free port of 127.0.0.1. Built now, unless
    MONAPI_SITE_BUILT is set: make test sets it for its suites, its docs phase having just built
    the site (a second build would add half a minute to the Python suite)."""
    if not os.environ.get("MONAPI_SITE_BUILT"):
        subprocess.run(["make", "--no-print-directory", "docs"], cwd=ROOT, check=True, timeout=600)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(SITE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # Debian's chromium (make chromium); where the system has none that runs, playwright's own.
    chromium = shutil.which("chromium")
    if chromium and subprocess.run([chromium, "--version"], capture_output=True).returncode:
        chromium = None
    with sync_playwright() as playwright:
        # As root (CI containers), chromium runs only without its sandbox.
        args = ["--no-sandbox"] if os.geteuid() == 0 else []
        browser = playwright.chromium.launch(executable_path=chromium, args=args)
        yield browser
        browser.close()


class Watched:
    """A new page of `browser`, and its problems, each named after the page that had it."""

    def __init__(self, browser: Browser, site: str) -> None:
        self.page = browser.new_page()
        self.page.set_default_timeout(30_000)
        self.problems: list[str] = []
        self.at = "(no page yet)"
        host = urllib.parse.urlsplit(site).netloc
        page = self.page
        page.on("console", lambda m: self.note(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: self.note(f"a script error: {error}"))
        # A file the site lacks is a 404 answer; a request that could not be made at all is a
        # failed one, but for those cut off by leaving the page (the favicon, fetched late).
        page.on(
            "response",
            lambda response: (
                self.note(f"{response.status}: {response.url}") if response.status >= 400 else None
            ),
        )
        page.on(
            "requestfailed",
            lambda request: (
                None
                if request.failure == "net::ERR_ABORTED"
                else self.note(f"failed ({request.failure}): {request.url}")
            ),
        )
        page.on(
            "request",
            lambda request: (
                None
                if urllib.parse.urlsplit(request.url).netloc in (host, "")
                else self.note(f"a request to another host: {request.url}")
            ),
        )

    def note(self, problem: str) -> None:
        self.problems.append(f"{self.at}: {problem}")

    def open(self, url: str) -> None:
        self.at = url
        # Network idle: what the page loads after its load event (the search's worker) has
        # come before the next page is opened, which would cut it off.
        response = self.page.goto(url, wait_until="networkidle")
        assert response is not None and response.ok, url


def test_every_page_loads_with_no_error_and_nothing_from_elsewhere(
    site: str, browser: Browser
) -> None:
    # The site's own pages, and of the rustdoc copied in (scripts/mkdocs_rustdoc.py, thousands
    # of pages of one generator) the crates' front pages and the client's.
    pages = sorted(
        path.relative_to(SITE).as_posix()
        for path in SITE.rglob("*.html")
        if not path.is_relative_to(RUSTDOC)
    )
    assert len(pages) > 30, pages
    pages += [
        f"{RUSTDOC.relative_to(SITE).as_posix()}/{page}"
        for page in ("monapi/index.html", "monapi/struct.Client.html", "monapi_emulator/index.html")
    ]
    watched = Watched(browser, site)
    for name in pages:
        watched.open(f"{site}/{name}")
        assert watched.page.locator("h1").count() >= 1, f"{name} has no title"
    watched.page.close()
    assert not watched.problems, "\n".join(watched.problems)


def test_the_search_finds_service_report(site: str, browser: Browser) -> None:
    watched = Watched(browser, site)
    watched.open(f"{site}/index.html")
    page = watched.page
    page.locator("input.md-search__input").click()
    # The index loads in a worker; a query typed before it is ready is not run again.
    meta = page.locator(".md-search-result__meta")
    page.wait_for_function(
        "() => !document.querySelector('.md-search-result__meta').textContent"
        ".includes('Initializing')"
    )
    # Typed key by key, as a reader does: the search runs on the keys, not on a value set.
    page.locator("input.md-search__input").press_sequentially("service_report")
    meta.filter(has_text="matching").wait_for()
    results = page.locator(".md-search-result__item a")
    results.first.wait_for(state="visible")
    hrefs = [results.nth(i).get_attribute("href") or "" for i in range(results.count())]
    assert any("reference/" in href or "guides/" in href for href in hrefs), hrefs
    page.close()
    assert not watched.problems, "\n".join(watched.problems)


def public_members(cls: type) -> list[str]:
    return [name for name in vars(cls) if not name.startswith("_")]


def test_every_public_name_of_the_python_package_is_in_its_reference(site: str) -> None:
    page = (SITE / "reference" / "python.html").read_text(encoding="utf-8")
    # Shown where it is defined (monapi.errors.ApiError) or where it is exported.
    missing = [
        name
        for name in monapi.__all__
        if f'id="monapi.{name}"' not in page
        and f'id="{getattr(getattr(monapi, name), "__module__", "monapi")}.{name}"' not in page
    ]
    for cls in (monapi.Client, monapi.AsyncClient, monapi.Table, monapi.testing.Emulator):
        path = "monapi.testing" if cls is monapi.testing.Emulator else "monapi"
        missing += [
            f"{cls.__name__}.{name}"
            for name in public_members(cls)
            if f'id="{path}.{cls.__name__}.{name}"' not in page
        ]
    assert not missing, f"not in reference/python.html: {missing}"


def test_every_public_method_of_the_node_package_is_in_its_reference(site: str) -> None:
    listing = subprocess.run(
        [
            "node",
            "--input-type=module",
            "-e",
            "const m = await import('monapi'); const out = {};"
            " for (const c of ['Client', 'Table', 'Emulator', 'MonapiError'])"
            "   out[c] = Object.getOwnPropertyNames(m[c].prototype)"
            "     .filter((n) => !['constructor', 'name'].includes(n) && !n.startsWith('_'));"
            " console.log(JSON.stringify(out))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    missing = []
    for cls, names in json.loads(listing.stdout).items():
        page = (SITE / "reference" / "typescript" / "classes" / f"{cls}.html").read_text("utf-8")
        missing += [f"{cls}.{name}" for name in names if f'id="{name.lower()}"' not in page]
    assert not missing, f"not in the TypeScript reference: {missing}"
