"""The record of the last published site: for each output its key, its files, the repository
files it copied (with their stat signature) and the diagnostics its rendering gave.

It lives in the cache folder, not in ``site/``, so nothing of the build's bookkeeping is
published. It is deleted before a swap and written after it, so a crash in between can only
cost a full rebuild, never a stale page taken for a fresh one.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kbtool.cache import write_atomic
from kbtool.diagnostics import Diagnostic

_FORMAT = 1


@dataclass(frozen=True)
class Record:
    key: str
    files: tuple[str, ...]
    #: repository file -> "size:mtime_ns" when it was copied
    copies: dict[str, str] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()


def stat_signature(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return "missing"
    return f"{st.st_size}:{st.st_mtime_ns}"


def _file(cache_dir: Path) -> Path:
    return cache_dir / "site-manifest.json"


def load_manifest(cache_dir: Path, site_dir: Path) -> dict[str, Record]:
    try:
        raw = json.loads(_file(cache_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if (
        not isinstance(raw, dict)
        or raw.get("format") != _FORMAT
        or raw.get("site") != str(site_dir)
    ):
        return {}
    try:
        return {
            name: Record(
                item["key"],
                tuple(item["files"]),
                dict(item.get("copies", {})),
                tuple(Diagnostic(**d) for d in item.get("diagnostics", ())),
            )
            for name, item in raw["outputs"].items()
        }
    except (KeyError, TypeError):
        return {}


def forget_manifest(cache_dir: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(_file(cache_dir))


def save_manifest(cache_dir: Path, site_dir: Path, records: dict[str, Record]) -> None:
    data: dict[str, Any] = {
        "format": _FORMAT,
        "site": str(site_dir),
        "outputs": {
            name: {
                "key": r.key,
                "files": list(r.files),
                "copies": r.copies,
                "diagnostics": [asdict(d) for d in r.diagnostics],
            }
            for name, r in sorted(records.items())
        },
    }
    cache_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(_file(cache_dir), json.dumps(data, ensure_ascii=False).encode("utf-8"))
