"""A whole check's diagnostics, remembered for the same wiki content, settings and day.

A repeat ``kbtool check`` with nothing changed then reads and hashes the files and nothing
more: no page is unpickled, no link resolved. The key covers every file's content digest,
the configuration, kbtool's version and source, and today's date (for `updated` in the
future). Links to files that are not pages (images, folders) depend on the disk, not on any
page: each such path is stored with the status it had and re-checked before the memo is used.
Stored as JSON, so a planted file can at worst be ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import astuple
from datetime import date
from pathlib import Path

from kbtool import __version__
from kbtool.cache import source_digest
from kbtool.config import Config
from kbtool.diagnostics import Diagnostic
from kbtool.wiki import Status, stat_target

_FILE = "check.json"


def memo_key(config: Config, content: str, today: date) -> str:
    code = source_digest("*.py", "parse/*.py", "checks/*.py")
    text = repr((__version__, code, config.fingerprint(), content, today.isoformat()))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def load_memo(config: Config, key: str) -> list[Diagnostic] | None:
    try:
        data = json.loads((config.cache_path / _FILE).read_text(encoding="utf-8"))
        if data["key"] != key:
            return None
        root = str(config.root)
        if any(stat_target(root, path) is not Status(s) for path, s in data["stats"].items()):
            return None
        return [Diagnostic(*row) for row in data["diagnostics"]]
    except (OSError, ValueError, KeyError, TypeError):  # absent, corrupt or foreign: recompute
        return None


def save_memo(
    config: Config, key: str, diagnostics: list[Diagnostic], stats: dict[str, Status]
) -> None:
    data = {
        "key": key,
        "stats": {path: status.value for path, status in stats.items()},
        "diagnostics": [astuple(d) for d in diagnostics],
    }
    try:
        config.cache_path.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=config.cache_path, prefix=".check.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False)
        os.replace(tmp, Path(config.cache_path) / _FILE)
    except OSError:
        pass  # A cache that cannot be written only costs time.
