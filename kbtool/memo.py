"""Whole results remembered for the same wiki content, settings and day.

A repeat ``kbtool check`` or ``kbtool build`` with nothing changed then reads and hashes the
files and nothing more: no page is unpickled, no link resolved, no site planned. The key
covers every file's content digest, the configuration, kbtool's version and source, and
today's date (for `updated` in the future). Links to files that are not pages (images,
folders) depend on the disk, not on any page: each such path is stored with the status it had
and re-checked before a memo is used. Stored as JSON, so a planted file can at worst be ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import astuple
from datetime import date
from typing import Any

from kbtool import __version__
from kbtool.cache import source_digest, write_atomic
from kbtool.config import Config
from kbtool.diagnostics import Diagnostic
from kbtool.wiki import Status, stat_target


def memo_key(config: Config, content: str, today: date, *extra: str) -> str:
    code = source_digest("*.py", "*/*.py", "render/templates/*", "render/assets/*")
    text = repr((__version__, code, config.fingerprint(), content, today.isoformat(), extra))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def load_memo(config: Config, name: str, key: str) -> dict[str, Any] | None:
    """The payload stored under ``key``, if the disk still says what it said then."""
    try:
        data = json.loads((config.cache_path / f"{name}.json").read_text(encoding="utf-8"))
        if data["key"] != key:
            return None
        root = str(config.root)
        if any(stat_target(root, path) is not Status(s) for path, s in data["stats"].items()):
            return None
        payload = data["payload"]
        return payload if isinstance(payload, dict) else None
    except (OSError, ValueError, KeyError, TypeError):  # absent, corrupt or foreign: recompute
        return None


def save_memo(
    config: Config, name: str, key: str, stats: dict[str, Status], payload: dict[str, Any]
) -> None:
    data = {
        "key": key,
        "stats": {path: status.value for path, status in stats.items()},
        "payload": payload,
    }
    try:
        config.cache_path.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, ensure_ascii=False)
        write_atomic(config.cache_path / f"{name}.json", text.encode("utf-8"))
    except OSError:
        pass  # A cache that cannot be written only costs time.


def forget_memo(config: Config, name: str) -> None:
    with contextlib.suppress(OSError):
        (config.cache_path / f"{name}.json").unlink()


def diagnostics_to_json(diagnostics: list[Diagnostic]) -> list[list[Any]]:
    return [list(astuple(d)) for d in diagnostics]


def diagnostics_from_json(rows: Any) -> list[Diagnostic] | None:
    """The diagnostics stored by :func:`diagnostics_to_json`; None for anything else."""
    try:
        return [Diagnostic(*row) for row in rows]
    except TypeError:
        return None
