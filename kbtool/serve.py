"""``kbtool serve``: build, serve ``site/`` on 127.0.0.1, rebuild on change, reload the page.

Every HTML page the server sends gets one small script. It asks ``/__kbtool/wait?v=<build>``
and reloads when the answer names a newer build (a long poll), and it asks
``/__kbtool/problems`` for the page's diagnostics, which it shows in a panel
(:mod:`kbtool.served_problems`). Nothing of this is written into ``site/``; the published
files never contain it.
"""

from __future__ import annotations

import contextlib
import os
import platform
import threading
from collections.abc import Callable, Iterator
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from kbtool.config import Config
from kbtool.served_problems import ServedProblems
from kbtool.stages.publish.staging import staging_prefix

CLIENT_PATH = "/__kbtool/client.js"
WAIT_PATH = "/__kbtool/wait"
PROBLEMS_PATH = "/__kbtool/problems"
_WAIT_SECONDS = 20.0

#: the script every served page gets: the reload, and the panel of the page's diagnostics
CLIENT_SCRIPT = (resources.files("kbtool") / "serve_client.js").read_bytes()
_INJECT = f'<script src="{CLIENT_PATH}"></script>'.encode()


class BuildVersion:
    """A counter that waiting browsers watch: bumped as each rebuild's site is swapped in, and
    after a rebuild that published nothing but changed what the pages show (why it stopped)."""

    def __init__(self) -> None:
        self.value = 1
        self._changed = threading.Condition()

    def bump(self) -> None:
        with self._changed:
            self.value += 1
            self._changed.notify_all()

    def wait_past(self, seen: int | None, timeout: float) -> int:
        with self._changed:
            if seen is not None:
                self._changed.wait_for(lambda: self.value != seen, timeout)
            return self.value


class _Handler(SimpleHTTPRequestHandler):
    version: BuildVersion
    problems: ServedProblems
    quiet = True

    def handle(self) -> None:
        # The browser left (a tab closed during the long poll): no one to answer.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            super().handle()

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        parts = urlsplit(self.path)
        if parts.path == CLIENT_PATH:
            return self._send(HTTPStatus.OK, CLIENT_SCRIPT, "text/javascript; charset=utf-8")
        if parts.path == PROBLEMS_PATH:
            page = parse_qs(parts.query).get("page", [""])[0]
            body = self.problems.for_url(page)
            return self._send(HTTPStatus.OK, body, "application/json; charset=utf-8")
        if parts.path == WAIT_PATH:
            raw = parse_qs(parts.query).get("v", [""])[0]
            seen = int(raw) if raw.isdigit() else None
            value = self.version.wait_past(seen, _WAIT_SECONDS)
            return self._send(HTTPStatus.OK, str(value).encode(), "text/plain; charset=utf-8")
        local = Path(self.translate_path(self.path))
        if local.is_dir():
            local = local / "index.html"
        if local.suffix == ".html" and local.is_file():
            return self._send_html(HTTPStatus.OK, local)
        if not local.exists():
            missing = Path(self.directory) / "404.html"
            if missing.is_file():
                return self._send_html(HTTPStatus.NOT_FOUND, missing)
        super().do_GET()

    def _send_html(self, status: HTTPStatus, path: Path) -> None:
        body = path.read_bytes()
        at = body.rfind(b"</body>")
        body = body[:at] + _INJECT + body[at:] if at >= 0 else body + _INJECT
        self._send(status, body, "text/html; charset=utf-8")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()  # which adds Cache-Control: no-store
        if self.command != "HEAD":
            self.wfile.write(body)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - base signature
        if not self.quiet:
            super().log_message(format, *args)


def make_server(
    site_dir: Path,
    port: int,
    version: BuildVersion,
    host: str = "127.0.0.1",
    problems: ServedProblems | None = None,
) -> ThreadingHTTPServer:
    """An HTTP server for ``site_dir`` (it need not exist yet) on ``host:port``, showing
    ``problems`` on its pages."""
    shown = ServedProblems() if problems is None else problems
    handler = type("Handler", (_Handler,), {"version": version, "problems": shown})
    server = ThreadingHTTPServer((host, port), partial(handler, directory=str(site_dir)))
    server.daemon_threads = True
    return server


def watched_paths(config: Config) -> list[Path]:
    paths = [
        *(config.root / folder for folder in config.wiki_folders),
        config.root / config.sources,
        config.root / "pyproject.toml",
        config.root / "kbtool.toml",
    ]
    return [p for p in paths if p.exists()]


def _relevant(config: Config) -> Callable[[Any, str], bool]:
    site_dir = config.root / config.site_dir
    folders = (str(config.cache_path), str(site_dir))
    # kbtool's own output: the cache, the site, and the staging folders beside the site (in
    # a vault's root, which is watched, each build would otherwise start another)
    own = (
        *(folder + os.sep for folder in folders),
        str(site_dir.parent / staging_prefix(site_dir)),
    )

    def keep(_change: Any, path: str) -> bool:
        # Any change in the watched folders: a page, an image, pyproject.toml, and a folder of
        # pages moved in or out (a name without an extension).
        return path not in folders and not path.startswith(own)

    return keep


#: A batch of changes ends once this long passes without a new one (the watcher looks that
#: often): an editor's save (a temporary file written and renamed) and a checkout's writes come
#: closer together. Every save waits for it, one to two times over, before its rebuild starts:
#: from a write to its rebuild, 16-20 ms here (at 20 ms, 25-42 ms).
_QUIET_MS = 10
#: ... or at the latest this long after its first change.
_LONGEST_BATCH_MS = 200


class Watcher:
    """The changes to the watched paths, collected from the moment it is made: a build that
    scans the files after that is told every change since its scan by the next batches, so
    that the first rebuild after ``serve`` starts need not scan everything again."""

    def __init__(self, config: Config, paths: list[Path] | None = None) -> None:
        from watchfiles._rust_notify import RustNotify  # watchfiles' documented backend

        self.paths = watched_paths(config) if paths is None else paths
        self._keep = _relevant(config)
        self._notify = RustNotify(
            [str(p) for p in self.paths],
            bool(os.getenv("WATCHFILES_DEBUG")),
            _force_polling(),
            300,
            True,
            bool(os.getenv("WATCHFILES_IGNORE_PERMISSION_DENIED")),
        )

    def batches(self, stop: threading.Event) -> Iterator[set[str]]:
        """Each batch of changed paths, until ``stop`` is set (Ctrl-C: KeyboardInterrupt)."""
        while True:
            raw = self._notify.watch(_LONGEST_BATCH_MS, _QUIET_MS, 500, stop)
            if raw == "signal":
                raise KeyboardInterrupt
            if raw == "stop":
                return
            if isinstance(raw, set):
                changed = {path for change, path in raw if self._keep(change, path)}
                if changed:
                    yield changed

    def close(self) -> None:
        self._notify.close()


def _force_polling() -> bool:
    """As watchfiles decides: polling if asked for, or under WSL (no notifications there)."""
    asked = os.getenv("WATCHFILES_FORCE_POLLING")
    if asked:
        return asked.lower() not in {"false", "disable", "disabled"}
    uname = platform.uname()
    return "microsoft-standard" in uname.release.lower() and uname.system.lower() == "linux"


def watch_and_rebuild(
    config: Config,
    rebuild: Callable[[set[str]], bool],
    version: BuildVersion,
    stop: threading.Event,
    watcher: Watcher | None = None,
) -> None:
    """Rebuild after each batch of file changes that ``watcher`` (else a new one) reports,
    told which paths changed; bump the version when the site changed."""
    watcher = Watcher(config) if watcher is None else watcher
    try:
        for changed in watcher.batches(stop):
            if rebuild(changed):
                version.bump()
    finally:
        watcher.close()
