"""Page results kept in the store (a ``result`` record per page), keyed by everything that
determines them.

The key hashes the page's path, each python cell's code, line and options, the limits the
page runs under, its network permission, the contents of its declared ``inputs``, and the
versions of Python and kbtool; never a modification time. A record whose key differs is
stale, and one that does not parse or validate (corrupt, foreign, older format) is a miss.

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
from kbtool.config import Config
from kbtool.execute.plan import PagePlan
from kbtool.execute.results import PageResult, from_dict, to_dict
from kbtool.model import Page
from kbtool.store.db import Store
from kbtool.store.records import RESULT

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
    return RESULT.key(hashlib.blake2b(text.encode(), digest_size=20).hexdigest())


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


def load(store: Store, path: str, key: str) -> PageResult | None:
    value = store.get(RESULT, path, key)
    if value is None:
        return None
    try:
        data = json.loads(value)
        if data["format"] != _FORMAT or data["path"] != path:
            return None
        result = from_dict(data["result"])
    except (ValueError, TypeError, KeyError, AttributeError):
        return None  # corrupt, or not ours: a miss, rebuilt by the next run
    if result.path != path or result.status != "passed":
        return None
    return replace(result, cached=True)


def save(store: Store, result: PageResult, key: str) -> None:
    """Store a passing result; failing to write the store is not an error."""
    if result.status != "passed":
        return
    data = {
        "format": _FORMAT,
        "path": result.path,
        "result": to_dict(replace(result, cached=False)),
    }
    with store.transaction():
        store.put(RESULT, [(result.path, key, json.dumps(data, ensure_ascii=False).encode())])
