"""The engine's part of :class:`~kbtool.store.db.Store`: one row a value, in the table
``traces``: its trace (a JSON list: the value's digest, then each read's query or input, key
and digest) and, for a stored query, the value (JSON, decoded when first asked for). A
query's rows are read in one go; a run writes only the rows of the values it made, so a save
after a one-page edit writes a few rows, not every page's."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

SCHEMA = """
CREATE TABLE IF NOT EXISTS traces (
    query TEXT NOT NULL, key TEXT NOT NULL, code TEXT NOT NULL, trace TEXT NOT NULL,
    value BLOB NOT NULL, PRIMARY KEY (query, key)
) WITHOUT ROWID;
"""

#: (key, trace, value; empty where the query's values are not stored)
Row = tuple[str, str, bytes]


class StoredTraces:
    """Rows by (query, key), each under the digest of the code that made it."""

    _db: sqlite3.Connection

    def traces_of(self, query: str, code: str) -> list[Row]:
        """Every row of ``query`` made by the code of digest ``code``."""
        rows = self._db.execute(
            "SELECT key, trace, value FROM traces WHERE query = ? AND code = ?", (query, code)
        )
        return [(key, trace, bytes(value)) for key, trace, value in rows]

    def put_traces(self, query: str, code: str, rows: Iterable[Row]) -> None:
        """Store rows of ``query``, replacing what was there."""
        self._db.executemany(
            "INSERT OR REPLACE INTO traces (query, key, code, trace, value) VALUES (?, ?, ?, ?, ?)",
            ((query, key, code, trace, value) for key, trace, value in rows),
        )

    def delete_traces(self, query: str, keys: Iterable[str]) -> None:
        self._db.executemany(
            "DELETE FROM traces WHERE query = ? AND key = ?", ((query, key) for key in keys)
        )
