"""The diagnostics ``kbtool serve`` shows in the browser: each served page asks for its own,
and for what stops the site from being published, which then covers the stale page.

Only the server answers this; nothing of it is written into ``site/``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote

from kbtool.diagnostics import Diagnostic
from kbtool.render.urls import page_output

#: blocking errors sent to the browser at most (the terminal and `kbtool check` have all)
SHOWN = 50
#: how long a page's request waits for the diagnostics of a build still ending
_WAIT_SECONDS = 10.0


def _entry(d: Diagnostic) -> dict[str, Any]:
    return {
        "path": d.path,
        "line": d.line,
        "col": d.col,
        "code": d.code,
        "severity": d.severity,
        "message": d.message,
    }


class ServedProblems:
    """The newest build's diagnostics by output file, and why it was not published; read by
    the server's threads while a rebuild replaces them."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._by_output: dict[str, list[dict[str, Any]]] = {}
        self._blocked: dict[str, Any] | None = None
        #: a new site is served and its build's diagnostics are on their way
        self._pending = False

    def pend(self) -> None:
        """A new site is swapped in before its build has ended: a page asking for its
        diagnostics meanwhile waits for that build's (see :meth:`update`)."""
        with self._lock:
            self._pending = True

    def update(
        self, diagnostics: Sequence[Diagnostic], stopped: str | None, errors: Sequence[Diagnostic]
    ) -> bool:
        """Hold a build's ``diagnostics``; ``stopped`` says why it was not published (with
        the ``errors`` that stopped it), None when it was. Whether anything shown changed."""
        by_output: dict[str, list[dict[str, Any]]] = {}
        for d in sorted(diagnostics):
            by_output.setdefault(page_output(d.path), []).append(_entry(d))
        blocked = None
        if stopped is not None:
            shown = [_entry(d) for d in sorted(errors)[:SHOWN]]
            blocked = {"summary": stopped, "errors": shown, "more": max(0, len(errors) - SHOWN)}
        with self._lock:
            changed = (by_output, blocked) != (self._by_output, self._blocked)
            self._by_output, self._blocked = by_output, blocked
            self._pending = False
            self._lock.notify_all()
        return changed

    def for_url(self, url_path: str, wait: float = _WAIT_SECONDS) -> bytes:
        """The JSON a page served at ``url_path`` shows: its diagnostics and the block (those
        of the build whose site is served, waited for up to ``wait`` seconds)."""
        output = unquote(url_path).lstrip("/")
        if not output or output.endswith("/"):
            output += "index.html"
        with self._lock:
            self._lock.wait_for(lambda: not self._pending, wait)
            mine, blocked = self._by_output.get(output, []), self._blocked
        return json.dumps({"diagnostics": mine, "blocked": blocked}, ensure_ascii=False).encode()
