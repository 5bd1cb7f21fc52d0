"""Whole results remembered for the same wiki content, settings and day, as store records.

A repeat ``kbtool build`` with nothing changed then reads and hashes the files and nothing
more: no page is loaded, no link resolved, no site planned. The key covers every file's
content digest, the configuration, kbtool's version and source, and today's date (for
`updated` in the future). Links to files that are not pages (images, folders) depend on the
disk, not on any page: each such path is stored with the status it had and re-checked before
a memo is used. Stored as JSON, so a planted record can at worst be ignored.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import astuple
from datetime import date
from typing import Any

from kbtool import __version__
from kbtool.cache import source_digest
from kbtool.config import Config
from kbtool.diagnostics import Diagnostic
from kbtool.store import Store
from kbtool.wiki import Status, stat_target

MEMO = "memo"


def memo_key(config: Config, content: str, today: date, *extra: str) -> str:
    code = source_digest("*.py", "*/*.py", "render/templates/*", "render/assets/*")
    text = repr((__version__, code, config.fingerprint(), content, today.isoformat(), extra))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def load_memo(store: Store, config: Config, name: str, key: str) -> dict[str, Any] | None:
    """The payload stored under ``key``, if the disk still says what it said then."""
    value = store.get(MEMO, name, key)
    if value is None:
        return None
    try:
        data = json.loads(value)
        root = str(config.root)
        if any(stat_target(root, path) is not Status(s) for path, s in data["stats"].items()):
            return None
        payload = data["payload"]
        return payload if isinstance(payload, dict) else None
    except (ValueError, KeyError, TypeError, AttributeError):  # corrupt or foreign: recompute
        return None


def save_memo(
    store: Store, name: str, key: str, stats: dict[str, Status], payload: dict[str, Any]
) -> None:
    data = {"stats": {path: status.value for path, status in stats.items()}, "payload": payload}
    with store.transaction():
        store.put(MEMO, [(name, key, json.dumps(data, ensure_ascii=False).encode("utf-8"))])


def forget_memo(store: Store, name: str) -> None:
    with store.transaction():
        store.delete(MEMO, [name])


def diagnostics_to_json(diagnostics: list[Diagnostic]) -> list[list[Any]]:
    return [list(astuple(d)) for d in diagnostics]


def diagnostics_from_json(rows: Any) -> list[Diagnostic] | None:
    """The diagnostics stored by :func:`diagnostics_to_json`; None for anything else."""
    try:
        return [Diagnostic(*row) for row in rows]
    except TypeError:
        return None
