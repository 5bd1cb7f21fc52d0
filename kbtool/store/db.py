"""What kbtool remembers between runs: one SQLite file, ``.kbtool/store.sqlite``.

Every record has a *kind* (declared in :mod:`kbtool.store.records`), a *name* (mostly a page's
path), a *key* and a *value*. The key is made of everything that determined the value,
computed by the stage that asks; a record is valid while the key computed now equals the
stored one. That is the one rule for staleness: no modification times, no separate files.
(The meta table keeps kbtool's own code digests under a stamp of its files' stats, so that a
process need not read its own code to make them: see :mod:`kbtool.store.code`.)

Beside the records, ``deps`` says which pages' check results depend on which facts of other
pages (a path, a stem, a folder), so that an edit finds the pages to check again with one
indexed query instead of resolving every link of the wiki.

The file is opened in WAL mode, so ``kbtool serve`` and a ``kbtool check`` may use it at the
same time; every write is a transaction. Values are bytes whose decoding is the caller's: JSON,
or pickles restricted to the page model (:mod:`kbtool.store.codec`), so a planted store
runs no code. A file that is corrupt, not ours, or of another format is set aside (renamed) and
a new one started, with a one-line notice. Which kbtool wrote a record does not matter: its
key holds the digest of the code that made it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
import time
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path

from kbtool import __version__
from kbtool.cache_dir import make_cache_dir
from kbtool.store import code
from kbtool.store.known_keys import KnownKeys, new_token, sign, stamp
from kbtool.store.links import StoredGraph, chunks
from kbtool.store.records import PER_PAGE, RecordKind
from kbtool.store.traces import SCHEMA as TRACES_SCHEMA
from kbtool.store.traces import StoredTraces

FORMAT = 2
FILENAME = "store.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    kind TEXT NOT NULL, name TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (kind, name)
) WITHOUT ROWID;
-- The keys of a kind without its values (pages of 30 KB each): a run that asks which records
-- are valid reads this index, not every value's first page.
CREATE INDEX IF NOT EXISTS records_keys ON records (kind, name, key);
CREATE TABLE IF NOT EXISTS deps (
    fact TEXT NOT NULL, page TEXT NOT NULL, PRIMARY KEY (fact, page)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS deps_by_page ON deps (page);
CREATE TABLE IF NOT EXISTS graph_pages (path TEXT PRIMARY KEY, kind TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS graph_edges (
    src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (src, dst, kind)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS graph_edges_by_dst ON graph_edges (dst, kind);
CREATE TABLE IF NOT EXISTS pending (
    page TEXT NOT NULL, near TEXT NOT NULL, PRIMARY KEY (page, near)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS graph_related (
    src TEXT NOT NULL, n INTEGER NOT NULL, dst TEXT NOT NULL, line INTEGER NOT NULL,
    col INTEGER NOT NULL, raw TEXT NOT NULL, PRIMARY KEY (src, n)
) WITHOUT ROWID;
"""


class StoreUnusable(Exception):
    """The file is not a store this kbtool can trust."""


class Store(StoredGraph, StoredTraces):
    """Records by (kind, name). Use :func:`open_store`; close when done (or ``with``)."""

    def __init__(self, connection: sqlite3.Connection, path: Path | None) -> None:
        self._db = connection
        self.path = path
        #: a transaction of this connection was rolled back: what it wrote is not there
        self.write_failed = False
        self._known: KnownKeys | None = None  # kept between connections (see known_keys)
        self._token, self._writing, self._signed = new_token(), 0, True

    def keep_keys(self, known: KnownKeys) -> None:
        """Answer :meth:`keys` from ``known``, kept up to date, while this process is the
        last writer of records."""
        if self.path is not None:
            if stamp(self._db) != known.token:
                known.forget()
                # Stamped ours now, not at this process's first write: the keys read until
                # then stay known, unless another process writes after this and replaces it.
                with contextlib.suppress(sqlite3.Error), self._db:
                    sign(self._db, known.token, None)
            self._known, self._token = known, known.token

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            if self.path is not None:
                _keep_code_digests(self._db)
            self._db.close()

    # -- reading ---------------------------------------------------------------------------
    def get(self, kind: RecordKind, name: str, key: str) -> bytes | None:
        """The value of (kind, name) if it was stored under ``key``, else None."""
        row = self._db.execute(
            "SELECT value FROM records WHERE kind = ? AND name = ? AND key = ?",
            (kind.name, name, key),
        ).fetchone()
        return None if row is None else bytes(row[0])

    def all(self, kind: RecordKind) -> dict[str, tuple[str, bytes]]:
        """Every record of ``kind``: name -> (key, value)."""
        rows = self._db.execute("SELECT name, key, value FROM records WHERE kind = ?", (kind.name,))
        return {name: (key, bytes(value)) for name, key, value in rows}

    def nonempty(self, kind: RecordKind) -> dict[str, bytes]:
        """name -> value of the records of ``kind`` whose value is not empty."""
        rows = self._db.execute(
            "SELECT name, value FROM records WHERE kind = ? AND length(value) > 0", (kind.name,)
        )
        return {name: bytes(value) for name, value in rows}

    @property
    def known_keys(self) -> KnownKeys | None:
        """The keys kept between connections, while they are valid (see :meth:`keep_keys`)."""
        return self._known

    def keys(self, kind: RecordKind) -> dict[str, str]:
        """name -> key of every record of ``kind``, without reading the values."""
        known = self._known.kinds.get(kind.name) if self._known is not None else None
        if known is None:
            rows = self._db.execute("SELECT name, key FROM records WHERE kind = ?", (kind.name,))
            known = dict(rows.fetchall())
            if self._known is not None:
                self._known.kinds[kind.name] = known
        return dict(known)

    def keys_of(self, kind: RecordKind, names: Iterable[str]) -> dict[str, str]:
        """name -> key of the records of ``kind`` among ``names``, without reading values."""
        known = self._known.kinds.get(kind.name) if self._known is not None else None
        if known is not None:
            return {name: known[name] for name in names if name in known}
        found: dict[str, str] = {}
        for chunk, marks in chunks(names):
            rows = self._db.execute(
                f"SELECT name, key FROM records WHERE kind = ? AND name IN ({marks})",
                (kind.name, *chunk),
            )
            found.update(rows.fetchall())
        return found

    def some(self, kind: RecordKind, names: Iterable[str]) -> dict[str, tuple[str, bytes]]:
        """The records of ``kind`` among ``names`` (missing ones left out)."""
        found: dict[str, tuple[str, bytes]] = {}
        for chunk, marks in chunks(names):
            rows = self._db.execute(
                f"SELECT name, key, value FROM records WHERE kind = ? AND name IN ({marks})",
                (kind.name, *chunk),
            )
            found.update((name, (key, bytes(value))) for name, key, value in rows)
        return found

    def some_of(
        self, kind: RecordKind, names: Collection[str], among: int
    ) -> dict[str, tuple[str, bytes]]:
        """The records of ``kind`` among ``names``, of about ``among`` records there are: read
        by name when they are a quarter of those or fewer, else in one pass over the kind
        (which reads a record in about half the time); that may hold records of other names."""
        return self.some(kind, names) if len(names) * 4 <= among else self.all(kind)

    def dependents(self, facts: Iterable[str]) -> set[str]:
        """Pages whose stored check results depend on any of ``facts``."""
        pages: set[str] = set()
        for chunk, marks in chunks(facts):
            rows = self._db.execute(f"SELECT page FROM deps WHERE fact IN ({marks})", chunk)
            pages.update(page for (page,) in rows)
        return pages

    # -- writing ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Writes inside are all kept or all dropped. A store that cannot be written costs
        time, never the run: the error is swallowed."""
        self._writing += 1
        try:
            with self._db:
                yield
                if not self._signed:
                    sign(self._db, self._token, self._known)
                    self._signed = True
        except BaseException as error:
            if self._known is not None:  # what they say of this transaction's writes is wrong
                self._known.forget()
            if not isinstance(error, sqlite3.Error):
                raise
            self.write_failed = True
            _notice(f"could not update the cache ({error}); the next run recomputes")
        finally:
            self._writing -= 1

    def _written(self) -> KnownKeys | None:
        """The known keys to update with a write of records (a write outside a transaction
        makes them unreliable)."""
        self._signed = False
        if self._known is not None and not self._writing:
            self._known.forget()
            self._known = None
        return self._known

    def put(self, kind: RecordKind, rows: Iterable[tuple[str, str, bytes]]) -> None:
        """Store (name, key, value) rows of ``kind``, replacing what was there."""
        rows = list(rows)
        self._db.executemany(
            "INSERT OR REPLACE INTO records (kind, name, key, value) VALUES (?, ?, ?, ?)",
            ((kind.name, name, key, value) for name, key, value in rows),
        )
        if known := self._written():
            known.put(kind.name, ((name, key) for name, key, _ in rows))

    def delete(self, kind: RecordKind, names: Iterable[str]) -> None:
        names = list(names)
        self._db.executemany(
            "DELETE FROM records WHERE kind = ? AND name = ?", ((kind.name, n) for n in names)
        )
        if known := self._written():
            known.delete(kind.name, names)

    def clear(self, kind: RecordKind) -> None:
        self._db.execute("DELETE FROM records WHERE kind = ?", (kind.name,))
        if known := self._written():
            known.kinds[kind.name] = {}

    def forget_pages(self, paths: Iterable[str]) -> None:
        """Remove every record of every kind named by these pages, their facts' dependents
        and their part of the link graph (for pages that are gone)."""
        names = list(paths)
        for kind in PER_PAGE:
            self.delete(kind, names)
        self._db.executemany("DELETE FROM deps WHERE page = ?", ((p,) for p in names))
        self.remove_links(names)

    def set_deps(self, deps: dict[str, set[str]]) -> None:
        """Replace the facts each page's check results depend on: page -> fact names."""
        self._db.executemany("DELETE FROM deps WHERE page = ?", ((p,) for p in deps))
        self._db.executemany(
            "INSERT OR IGNORE INTO deps (fact, page) VALUES (?, ?)",
            ((fact, page) for page, facts in deps.items() for fact in facts),
        )


def _notice(message: str) -> None:
    print(f"kbtool: {message}", file=sys.stderr)


def _connect(path: Path | str) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=10.0, isolation_level=None, check_same_thread=False)
    db.isolation_level = "DEFERRED"  # `with db:` then commits or rolls back a transaction
    return db


def _check_and_prepare(db: sqlite3.Connection) -> None:
    """Raise StoreUnusable unless ``db`` is empty or a store of this format and version."""
    try:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        if tables and "meta" not in tables:
            raise StoreUnusable("not a kbtool store")
        if "meta" in tables:
            meta = dict(db.execute("SELECT name, value FROM meta").fetchall())
            if meta.get("format") != str(FORMAT):
                raise StoreUnusable(
                    f"written by kbtool {meta.get('kbtool', '?')} (format {meta.get('format')})"
                )
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        with db:
            db.executescript(_SCHEMA + TRACES_SCHEMA)
            db.executemany(
                "INSERT OR IGNORE INTO meta (name, value) VALUES (?, ?)",
                [("format", str(FORMAT)), ("kbtool", __version__)],
            )
    except sqlite3.DatabaseError as error:  # "file is not a database", a damaged page...
        raise StoreUnusable(str(error)) from None


def _recall_code_digests(db: sqlite3.Connection) -> None:
    """Give :mod:`kbtool.store.code` the digests kept under this package's files' stamp."""
    row = db.execute("SELECT value FROM meta WHERE name = 'code'").fetchone()
    stamp = code.files_stamp()
    if row is None or stamp is None:
        return
    with contextlib.suppress(ValueError, TypeError, KeyError, AttributeError):  # damaged: made
        kept = json.loads(row[0])
        if kept["stamp"] == stamp:
            code.recall({str(k): str(v) for k, v in kept["digests"].items()})


def _keep_code_digests(db: sqlite3.Connection) -> None:
    """Keep the digests this process knows, if it made any, under its files' stamp."""
    stamp, digests = code.files_stamp(), code.remembered()
    if stamp is None or not code.made_here():
        return
    value = json.dumps({"stamp": stamp, "digests": digests}, sort_keys=True)
    with db:
        db.execute("INSERT OR REPLACE INTO meta (name, value) VALUES ('code', ?)", (value,))
    code.recall(digests)  # kept: the next close has nothing to write


def idle_connection(cache_dir: Path) -> sqlite3.Connection | None:
    """A connection to the store under ``cache_dir`` that reads once and then stays idle, or
    None where there is no store to read. A session holds one for its life: the connection
    that closes last checkpoints the store's log and syncs the disk (12 ms after a save at
    7,000 pages, more on a busy disk), and with this one open a build's own connection is
    never the last; SQLite checkpoints as the log grows instead."""
    path = cache_dir / FILENAME
    if not path.is_file():
        return None
    try:
        db = _connect(path)
        db.execute("SELECT 1 FROM meta LIMIT 1").fetchall()  # what opens the log: no lock kept
    except sqlite3.Error:
        return None
    return db


def memory_store() -> Store:
    """A store that lives as long as the process: for a run that must not trust the file."""
    db = _connect(":memory:")
    _check_and_prepare(db)
    return Store(db, None)


def open_store(cache_dir: Path) -> Store:
    """The store under ``cache_dir``; a new one if the file is unusable (set aside first);
    an in-memory one if the folder cannot be written (nothing is remembered then)."""
    path = cache_dir / FILENAME
    try:
        make_cache_dir(cache_dir)
        db = _connect(path)
        try:
            _check_and_prepare(db)
        except StoreUnusable as why:
            db.close()
            aside = path.with_name(f"{FILENAME}.unusable-{int(time.time())}")
            os.replace(path, aside)
            for suffix in ("-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{path}{suffix}")
            _notice(f"cache {path.name} set aside as {aside.name} ({why}); starting afresh")
            db = _connect(path)
            _check_and_prepare(db)
        _recall_code_digests(db)
        return Store(db, path)
    except (OSError, sqlite3.Error, StoreUnusable):
        return memory_store()
