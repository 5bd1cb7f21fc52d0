"""The engine's traces between processes: one record a query, read in one go.

A one-shot command is a session started from the store: it loads the traces the last run
left (each query's in one ``traces`` record, named by the query, keyed by its code's digest),
verifies them against the inputs it sets now, and makes only what fails. A trace is its key,
its value's digest and its reads; a stored query's value comes with it, decoded when first
asked for. The record is JSON, so a planted store runs no code.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kbtool.engine.core import _UNSET, Engine, Trace
from kbtool.engine.declare import Query
from kbtool.store.code import code_digest
from kbtool.store.db import Store
from kbtool.store.records import TRACES


def _record_key(query: Query[Any]) -> str:
    return TRACES.key(_code(query.module))


def _code(module: str) -> str:
    """The digest of the code a query's values depend on: for kbtool's own, its module's
    closure; for a query declared elsewhere (a project's, a test's), its module's file."""
    if module == "kbtool" or module.startswith("kbtool."):
        return code_digest(module)
    path = getattr(sys.modules.get(module), "__file__", None)
    data = Path(path).read_bytes() if path else module.encode()
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def load(engine: Engine, store: Store, queries: Iterable[Query[Any]]) -> None:
    """Take the store's traces of ``queries`` the engine does not hold (a value held in
    memory wins: it was verified in this process)."""
    for query in queries:
        engine.know(query)
        if query.name in engine.traces:
            continue
        data = store.get(TRACES, query.name, _record_key(query))
        held = engine.traces.setdefault(query.name, {})
        if data is None:
            continue
        try:
            rows = json.loads(data)
            for key, digest, flat, encoded in rows:
                reads = tuple(((flat[i], flat[i + 1]), flat[i + 2]) for i in range(0, len(flat), 3))
                held[str(key)] = Trace(_UNSET, encoded, str(digest), reads, 0)
        except (TypeError, ValueError, IndexError):  # damaged or foreign: made again
            held.clear()


def save(engine: Engine, store: Store) -> None:
    """Write the traces of the queries whose traces changed since they were loaded or saved."""
    rows = []
    for name in sorted(engine.dirty):
        query = engine.queries[name]
        traces = engine.traces.get(name, {})
        rows.append((name, _record_key(query), _encode(query, traces)))
    if rows:
        with store.transaction():
            store.put(TRACES, rows)
        if not store.write_failed:
            engine.dirty.clear()


def _encode(query: Query[Any], traces: dict[str, Trace]) -> bytes:
    rows = []
    for key, trace in traces.items():
        flat = [part for (name, of), digest in trace.reads for part in (name, of, digest)]
        encoded = trace.encoded
        if query.stored is not None and trace.value is not _UNSET:
            encoded = query.stored.encode(trace.value)
        rows.append([key, trace.digest, flat, encoded if query.stored is not None else None])
    text = json.dumps(rows, ensure_ascii=False, separators=(",", ":"), check_circular=False)
    return text.encode("utf-8", "surrogatepass")
