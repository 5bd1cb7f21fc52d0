"""The stored records' keys, kept by a long-running process (``kbtool serve``) between its
connections to the store, so that a build after an edit does not read thousands of keys of
each kind again.

The keys are kept only while this process is the last one that wrote records. Every
connection that writes records stamps the store with its writer's token in the same
transaction; a connection holding known keys compares the stamp with its own token when it
opens the store and again inside each of its own write transactions, and forgets them all when
another process wrote since. Its own writes update them as they go; a transaction that is
rolled back, or a write outside a transaction, forgets them.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field


def new_token() -> str:
    return os.urandom(16).hex()  # as random as uuid4, without importing uuid (2 ms)


@dataclass
class KnownKeys:
    """kind name -> (record name -> key), for the kinds read in full so far."""

    token: str = field(default_factory=new_token)
    kinds: dict[str, dict[str, str]] = field(default_factory=dict)
    #: how many times they were forgotten: what was kept beside them holds while it is the same
    forgotten: int = 0

    def forget(self) -> None:
        self.kinds.clear()
        self.forgotten += 1

    def put(self, kind: str, rows: Iterable[tuple[str, str]]) -> None:
        known = self.kinds.get(kind)
        if known is not None:
            known.update(rows)

    def delete(self, kind: str, names: Iterable[str]) -> None:
        known = self.kinds.get(kind)
        if known is not None:
            for name in names:
                known.pop(name, None)


def stamp(db: sqlite3.Connection) -> str | None:
    """The token of the last writer of records."""
    row = db.execute("SELECT value FROM meta WHERE name = 'writer'").fetchone()
    return None if row is None else str(row[0])


def sign(db: sqlite3.Connection, token: str, known: KnownKeys | None) -> None:
    """Stamp the store with ``token``, inside the transaction that wrote records; forget
    ``known`` if another writer's stamp is there."""
    if known is not None and stamp(db) != token:
        known.forget()
    db.execute("INSERT OR REPLACE INTO meta (name, value) VALUES ('writer', ?)", (token,))
