"""The engine's traces between processes: a row a value, a query's rows read in one go.

A one-shot command is a session started from the store: it loads the traces the last run
left (the table ``traces``, ``store/traces.py``; each under the digest of its query's code),
verifies them against the inputs it sets now, and makes only what fails. A stored query's
value comes with its trace, decoded when first asked for. Traces and values are JSON, so a
planted store runs no code.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kbtool.engine.core import UNSET, Engine, Trace
from kbtool.engine.declare import Query
from kbtool.store.code import code_digest
from kbtool.store.db import Store
from kbtool.store.traces import Row


def code_of(query: Query[Any]) -> str:
    """The digest of the code a query's values depend on: for kbtool's own, its module's
    closure; for a query declared elsewhere (a project's, a test's), its module's file."""
    module = query.module
    if module == "kbtool" or module.startswith("kbtool."):
        return code_digest(module)
    path = getattr(sys.modules.get(module), "__file__", None)
    data = Path(path).read_bytes() if path else module.encode()
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def load(engine: Engine, store: Store, queries: Iterable[Query[Any]]) -> None:
    """Take the store's traces of ``queries`` the engine holds none of (a value held in
    memory wins: it was verified in this process)."""
    for query in queries:
        engine.know(query)
        if query.name in engine.traces:
            continue
        held = engine.traces.setdefault(query.name, {})
        for key, trace, value in store.traces_of(query.name, code_of(query)):
            try:
                digest, *flat = json.loads(trace)
                ids = tuple((str(flat[i]), str(flat[i + 1])) for i in range(0, len(flat), 3))
                digests = tuple(str(flat[i + 2]) for i in range(0, len(flat), 3))
            except (TypeError, ValueError, IndexError):  # damaged or foreign: made again
                continue
            held[key] = Trace(UNSET, value or None, str(digest), (ids, digests), 0)


def save(engine: Engine, store: Store) -> None:
    """Write the traces made since they were loaded or saved; delete those of keys gone."""
    if not engine.dirty and not engine.gone:
        return
    with store.transaction():
        for name, keys in engine.gone.items():
            store.delete_traces(name, keys)
        for name, keys in engine.dirty.items():
            query = engine.queries[name]
            held = engine.traces.get(name, {})
            rows = [_row(query, key, held[key]) for key in keys if key in held]
            store.put_traces(name, code_of(query), rows)
    if not store.write_failed:
        engine.dirty.clear()
        engine.gone.clear()


def _row(query: Query[Any], key: str, trace: Trace) -> Row:
    reads = zip(trace.read_ids, trace.read_digests, strict=True)
    flat = [part for (name, of), digest in reads for part in (name, of, digest)]
    text = json.dumps([trace.digest, *flat], ensure_ascii=False, separators=(",", ":"))
    value = b""
    if query.stored is not None:
        if trace.value is not UNSET:
            value = _json(query.stored.encode(trace.value))
        elif trace.encoded is not None:
            value = trace.encoded
    return key, text, value


def _json(value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), check_circular=False)
    return text.encode("utf-8", "surrogatepass")
