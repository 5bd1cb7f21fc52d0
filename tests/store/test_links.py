"""The store's link table: only a page's changed part is written, and its version changes
exactly when the table does, so what the graph rules found can be reused until then."""

from __future__ import annotations

from kbtool.checks import graph_rule_diagnostics
from kbtool.store.db import memory_store

A = ("wiki", (("wiki/b.md", "related"),), (("wiki/b.md", 3, 1, "b.md"),))
B = ("wiki", (("wiki/a.md", "link"),), ())


def _write(store, links) -> None:  # type: ignore[no-untyped-def]
    with store.transaction():
        store.set_links(links)


def test_the_version_changes_when_the_table_does_and_only_then() -> None:
    with memory_store() as store:
        _write(store, {"wiki/a.md": A, "wiki/b.md": B})
        first = store.links_version()
        assert first != ""
        _write(store, {"wiki/a.md": A})  # the same part again: nothing written
        assert store.links_version() == first
        moved = (A[0], A[1], (("wiki/b.md", 4, 1, "b.md"),))  # the entry on another line
        _write(store, {"wiki/a.md": moved})
        second = store.links_version()
        assert second != first
        with store.transaction():
            store.forget_pages(["wiki/b.md"])
        assert store.links_version() not in ("", first, second)


def test_the_graph_rules_see_the_table_as_written() -> None:
    with memory_store() as store:
        _write(store, {"wiki/a.md": A, "wiki/b.md": B})
        found = graph_rule_diagnostics(store, lambda code: True)
        assert [(d.code, d.path, d.line) for d in found] == [("KB302", "wiki/a.md", 3)]
        _write(store, {"wiki/b.md": ("wiki", (("wiki/a.md", "related"),), ())})
        assert graph_rule_diagnostics(store, lambda code: True) == []
