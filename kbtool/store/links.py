"""The link table: what each page contributes to the graph, kept in the store for the
incremental stages (the site facts' pending marks, the edges touching a page) and asked by the
graph rules as a :class:`~kbtool.checks.graph.Graph`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping

from kbtool.store.known_keys import new_token

#: Above this many pages written at once, their old part of the graph is not compared first.
_COMPARED_LINKS = 256


class StoredGraph:
    """The link table's part of :class:`~kbtool.store.db.Store` (its connection: ``_db``)."""

    _db: sqlite3.Connection

    # -- the link table: what each page contributes to the graph ------------------------
    def set_links(
        self,
        links: Mapping[
            str, tuple[str, Iterable[tuple[str, str]], Iterable[tuple[str, int, int, str]]]
        ],
    ) -> None:
        """Replace each page's part of the graph: page -> (its kind, the (target, link kind)
        pairs it reaches, its `related` entries naming another page: target, line, col, as
        written). Only the parts that differ are written (an edit seldom changes its page's
        links); when any does, the table's version changes (:meth:`links_version`)."""
        if len(links) <= _COMPARED_LINKS:
            stored = self._stored_links(links)
            links = {page: part for page, part in links.items() if _part(part) != stored[page]}
        if not links:
            return
        self.remove_links(links)
        self._db.executemany(
            "INSERT INTO graph_pages (path, kind) VALUES (?, ?)",
            ((page, kind) for page, (kind, _, _) in links.items()),
        )
        self._db.executemany(
            "INSERT OR IGNORE INTO graph_edges (src, dst, kind) VALUES (?, ?, ?)",
            ((page, dst, how) for page, (_, edges, _) in links.items() for dst, how in edges),
        )
        self._db.executemany(
            "INSERT INTO graph_related (src, n, dst, line, col, raw) VALUES (?, ?, ?, ?, ?, ?)",
            (
                (page, n, *entry)
                for page, (_, _, related) in links.items()
                for n, entry in enumerate(related)
            ),
        )

    def links_changed(
        self,
        links: Mapping[
            str, tuple[str, Iterable[tuple[str, str]], Iterable[tuple[str, int, int, str]]]
        ],
    ) -> set[str]:
        """The pages whose part of the graph (as :meth:`set_links` takes it) is not the
        stored one."""
        stored = self._stored_links(links)
        return {page for page, part in links.items() if _part(part) != stored[page]}

    def _stored_links(
        self, pages: Iterable[str]
    ) -> dict[str, tuple[str, frozenset[tuple[str, str]], tuple[tuple[str, int, int, str], ...]]]:
        """Each page's stored part of the graph, in the shape :func:`_part` gives (a page
        with none: ``("", {}, ())``)."""
        pages = list(pages)
        kinds: dict[str, str] = {}
        edges: dict[str, set[tuple[str, str]]] = {}
        related: dict[str, list[tuple[str, int, int, str]]] = {}
        for chunk, marks in chunks(pages):
            query = f"SELECT path, kind FROM graph_pages WHERE path IN ({marks})"
            kinds.update(self._db.execute(query, chunk))
            query = f"SELECT src, dst, kind FROM graph_edges WHERE src IN ({marks})"
            for src, dst, how in self._db.execute(query, chunk):
                edges.setdefault(src, set()).add((dst, how))
            query = (
                f"SELECT src, dst, line, col, raw FROM graph_related WHERE src IN ({marks})"
                " ORDER BY src, n"
            )
            for src, *entry in self._db.execute(query, chunk):
                related.setdefault(src, []).append(tuple(entry))
        return {
            page: (
                kinds.get(page, ""),
                frozenset(edges.get(page, ())),
                tuple(related.get(page, ())),
            )
            for page in pages
        }

    def links_version(self) -> str:
        """A token that changes whenever the link table does (by any process)."""
        row = self._db.execute("SELECT value FROM meta WHERE name = 'links'").fetchone()
        return "" if row is None else str(row[0])

    def remove_links(self, pages: Iterable[str]) -> None:
        rows = [(p,) for p in pages]
        if rows:
            self._db.execute(
                "INSERT OR REPLACE INTO meta (name, value) VALUES ('links', ?)", (new_token(),)
            )
        for table, column in (("graph_pages", "path"), ("graph_edges", "src")):
            self._db.executemany(f"DELETE FROM {table} WHERE {column} = ?", rows)
        self._db.executemany("DELETE FROM graph_related WHERE src = ?", rows)

    def mark_pending(self, pages: Iterable[str], alone: Iterable[str] = ()) -> None:
        """Note ``pages`` (checked again, or gone) and every page a stored link joins them to,
        before the link table changes: what the site shows of them is to be made again. And
        ``alone``: pages checked again that other pages show as before (the same title, type
        and links), of which only what the site shows of the page itself is made again."""
        names = set(pages)
        rows = [(p, p) for p in names]
        for frm, to, _ in self.edges_touching(names):
            rows += [(frm, to)] if frm in names else []
            rows += [(to, frm)] if to in names else []
        rows += [(p, "") for p in set(alone) - names]
        self._db.executemany("INSERT OR IGNORE INTO pending (page, near) VALUES (?, ?)", rows)

    def pending(self) -> tuple[set[str], set[str], set[str]]:
        """The pages marked by :meth:`mark_pending` since :meth:`clear_pending`, the pages
        their links joined them to then, and the marked pages that were only ever marked
        ``alone``."""
        rows = self._db.execute("SELECT page, near FROM pending").fetchall()
        marked = {page for page, _ in rows}
        joined = {page for page, near in rows if near}
        return marked, {near for _, near in rows if near}, marked - joined

    def clear_pending(self, pages: Iterable[str]) -> None:
        self._db.executemany("DELETE FROM pending WHERE page = ?", ((p,) for p in pages))

    def edges_touching(self, pages: Iterable[str]) -> list[tuple[str, str, str]]:
        """(from, to, link kind) of every stored link that starts or ends at one of ``pages``."""
        found: set[tuple[str, str, str]] = set()
        for chunk, marks in chunks(pages):
            for column in ("src", "dst"):
                query = f"SELECT src, dst, kind FROM graph_edges WHERE {column} IN ({marks})"
                found.update(self._db.execute(query, chunk))
        return sorted(found)

    # -- the link table, as the graph rules ask of it (see checks/graph.py) -----------------
    def graph_pages(self, kind: str) -> list[str]:
        query = "SELECT path FROM graph_pages WHERE kind = ? ORDER BY path"
        return [path for (path,) in self._db.execute(query, (kind,))]

    def reached(self, from_kind: str | None = None) -> set[str]:
        """Every page a stored link reaches (from a page of ``from_kind``, else any)."""
        if from_kind is None:
            return {dst for (dst,) in self._db.execute("SELECT DISTINCT dst FROM graph_edges")}
        query = (
            "SELECT DISTINCT e.dst FROM graph_edges e JOIN graph_pages p ON p.path = e.src"
            " WHERE p.kind = ?"
        )
        return {dst for (dst,) in self._db.execute(query, (from_kind,))}

    def backlinks(self) -> dict[str, list[str]]:
        """Each page a stored link reaches -> the pages whose links reach it."""
        found: dict[str, list[str]] = {}
        for src, dst in self._db.execute("SELECT DISTINCT src, dst FROM graph_edges"):
            found.setdefault(dst, []).append(src)
        return found

    def related_edges(self) -> set[tuple[str, str]]:
        query = "SELECT src, dst FROM graph_edges WHERE kind = 'related'"
        return set(self._db.execute(query))

    def related_entries(self) -> list[tuple[str, str, int, int, str]]:
        """(page, target, line, col, as written) of every stored `related` entry naming
        another page, in page order."""
        query = "SELECT src, dst, line, col, raw FROM graph_related ORDER BY src, n"
        return list(self._db.execute(query))


def _part(
    part: tuple[str, Iterable[tuple[str, str]], Iterable[tuple[str, int, int, str]]],
) -> tuple[str, frozenset[tuple[str, str]], tuple[tuple[str, int, int, str], ...]]:
    """A page's part of the graph as it compares with the stored one (edges are a set)."""
    kind, edges, related = part
    return kind, frozenset(edges), tuple(related)


def chunks(values: Iterable[str], size: int = 500) -> Iterator[tuple[list[str], str]]:
    """``values`` in lists small enough for one query (SQLite limits bound parameters), each
    with its ``?,?,...`` placeholders."""
    items = list(values)
    for start in range(0, len(items), size):
        chunk = items[start : start + size]
        yield chunk, ",".join("?" * len(chunk))
