"""Page results cached under ``.kbtool/results/``, keyed by everything that determines them.

The key hashes the page's path, each python cell's code, line and options, the limits the
page runs under, its network permission, the contents of its declared ``inputs``, and the
versions of Python and kbtool; never a modification time. One JSON file per page (named by a
hash of its path) holds the key and the result; a file whose key differs is stale, and a
file that does not parse or validate (corrupt, foreign, older format) is simply a miss.

Only passing pages are stored. A failure is run again next time, so that a fix made outside
the page (installing a missing package, freeing memory) is seen without ``--no-cache``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from kbtool import __version__
from kbtool.cache import write_atomic
from kbtool.config import Config
from kbtool.execute.plan import PagePlan
from kbtool.execute.results import PageResult, from_dict, to_dict
from kbtool.model import Page

_FORMAT = "kbtool-results/1"


class InputProblem(Exception):
    """A declared input that cannot be hashed: missing, or outside the repository."""


def page_key(config: Config, page: Page, plan: PagePlan) -> str:
    """The hash of what determines ``page``'s result. Raises InputProblem for a bad input."""
    parts: dict[str, Any] = {
        "format": _FORMAT,
        "kbtool": __version__,
        "python": [sys.implementation.name, sys.version],
        "path": page.path,
        "cells": [[c.index, c.line, c.source, c.options] for c in page.python_cells],
        "limits": [config.cell_timeout, config.memory_limit_mb, config.output_limit_kb],
        "network": plan.network,
        "containment": [config.sandbox, sorted(config.cell_env)],
        "inputs": {path: _digest(config.root, path) for path in plan.inputs},
    }
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.blake2b(text.encode(), digest_size=20).hexdigest()


def _digest(root: Path, name: str) -> str:
    """Contents hash of an input file, or of every file under an input folder."""
    path = root / name
    real, top = path.resolve(), root.resolve()
    if real != top and top not in real.parents:
        raise InputProblem(f"declared input '{name}' leads outside the repository (not read)")
    if path.is_file():
        return hashlib.blake2b(path.read_bytes(), digest_size=20).hexdigest()
    if path.is_dir():
        digest = hashlib.blake2b(digest_size=20)
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            digest.update(file.relative_to(path).as_posix().encode() + b"\0")
            digest.update(hashlib.blake2b(file.read_bytes(), digest_size=20).digest())
        return digest.hexdigest()
    raise InputProblem(f"declared input '{name}' does not exist")


def _file(config: Config, path: str) -> Path:
    name = hashlib.blake2b(path.encode(), digest_size=16).hexdigest()
    return config.cache_path / "results" / f"{name}.json"


def load(config: Config, path: str, key: str) -> PageResult | None:
    try:
        data = json.loads(_file(config, path).read_text(encoding="utf-8"))
        if data["format"] != _FORMAT or data["key"] != key or data["path"] != path:
            return None
        result = from_dict(data["result"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None  # absent, corrupt, or not ours: a miss, rebuilt by the next run
    if result.path != path or result.status != "passed":
        return None
    return replace(result, cached=True)


def save(config: Config, result: PageResult, key: str) -> None:
    """Store a passing result atomically; failing to write the cache is not an error."""
    if result.status != "passed":
        return
    target = _file(config, result.path)
    data = {
        "format": _FORMAT,
        "key": key,
        "path": result.path,
        "result": to_dict(replace(result, cached=False)),
    }
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, json.dumps(data, ensure_ascii=False).encode())  # one write
    except OSError:
        pass
