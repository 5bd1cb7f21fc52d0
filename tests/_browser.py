"""Headless Chromium for the browser tests: Debian's ``chromium`` driven by Playwright.

Playwright's own browser download is never used: ``executable_path`` points at the system
binary. Where it is absent the tests skip with the reason, except in CI (``CI=true``), where
``.ci/run`` installs it and its absence is a failure.

Its fixtures (``browser``, ``base``, ``visit``) reach every test module through
``pytest_plugins`` in ``conftest.py``; ``base`` and ``visit`` serve the requesting module's
``site`` fixture (the folder it built). Helpers are imported: ``from tests._browser import ...``.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("KBTOOL_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPO = Path(__file__).resolve().parent.parent
#: Screenshots and other artefacts of the browser tests (git-ignored).
ARTIFACTS = REPO / "test-artifacts"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI must provide it (.ci/run installs Debian's chromium)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module."""
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright for Python is not installed (pip install playwright)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def static_server(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 at a free port; yield its base URL (ending in /)."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Watched:
    """What a page did: console errors, uncaught exceptions, dialogs, requests that left."""

    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)


def open_page(browser: Any, base: str) -> tuple[Any, Any, Watched]:
    """A fresh context and page that records console errors and dialogs and aborts (and
    records) every request that is not for the local server."""
    context = browser.new_context()
    watched = Watched()

    def route(route: Any) -> None:
        if route.request.url.startswith(base):
            route.continue_()
        else:
            watched.outside.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()

    def console(message: Any) -> None:
        if message.type == "error":
            watched.errors.append(message.text)

    page.on("console", console)
    page.on("pageerror", lambda error: watched.errors.append(str(error)))

    def dialog(d: Any) -> None:
        watched.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dialog)
    return context, page, watched


def bundled_wiki(root: Path, pages: dict[str, str] | None = None) -> Path:
    """A copy of the repository's own wiki (its pages, sources and settings) in ``root``,
    with ``pages`` (repository path -> text) added; ``root``."""
    for name in ("wiki", "sources"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    for path, text in (pages or {}).items():
        (root / path).write_text(text, encoding="utf-8")
    return root


def screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def base(site: Path) -> Iterator[str]:
    """The URL of the module's ``site``, served on 127.0.0.1."""
    with static_server(site) as url:
        yield url


class Visit:
    """``page, watched = visit("index.html", width=390)``: a fresh context at that size that
    keeps to the site; every request it makes, and every one that fails, is recorded."""

    def __init__(self, browser: Any, base: str) -> None:
        self.browser, self.base, self.contexts = browser, base, list[Any]()
        self.requests: list[str] = []
        self.failed: list[str] = []

    def __call__(
        self, path: str, width: int = 1280, height: int = 900, dark: bool = False
    ) -> tuple[Any, Watched]:
        context, page, watched = open_page(self.browser, self.base)
        self.contexts.append(context)
        page.set_viewport_size({"width": width, "height": height})
        if dark:
            page.emulate_media(color_scheme="dark")
        page.on("request", lambda request: self.requests.append(request.url))
        page.on(
            "response",
            lambda r: self.failed.append(f"{r.status} {r.url}") if r.status >= 400 else None,
        )
        page.on("requestfailed", lambda r: self.failed.append(f"failed {r.url}"))
        page.goto(self.base + path)
        page.wait_for_load_state("networkidle")
        return page, watched


@pytest.fixture
def visit(browser: Any, base: str) -> Iterator[Visit]:
    visitor = Visit(browser, base)
    yield visitor
    for context in visitor.contexts:
        context.close()
