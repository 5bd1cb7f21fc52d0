"""Checks that read other pages, as rows: a function and its codes, run by the engine.

A check of this kind is given a :class:`WikiView`, the only way it reaches the wiki: every
page's path, kind, title and aliases, a page's text, the settings it depends on, and other
queries. Each of those is a read the engine records, so a check's answer is made again
exactly when something it read changed, in a session, in a one-shot command that starts from
the store's traces, and in a check of a wiki held in memory alike. To add one: write the
function, add a row to ``WIKI_CHECKS`` (``checks/upkeep.py``) and its code to ``codes.py``.

A **page check** (``page_check``) answers for one page and is asked for every page; a
**wiki check** (``wiki_check``) answers once for the whole wiki.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from kbtool.diagnostics import Diagnostic
from kbtool.engine import ABSENT, WHOLE, Engine, Input, Query, Reads, Stored

T = TypeVar("T")

#: every page's path, sorted (the same pages in another order are the same wiki)
PAGES: Input[tuple[str, ...]] = Input("pages")
#: a page's kind, title and aliases: what other pages are known by
Card = tuple[str, str, tuple[str, ...]]
CARD: Input[Card] = Input("card")
#: a page's file as the parser reads it (no BOM, ``\n`` line breaks)
TEXT: Input[str | None] = Input("text")
#: a setting a check depends on, by name (``duplicate-threshold``)
SETTING: Input[Any] = Input("setting")


class WikiView:
    """The wiki as a check of many pages reads it: each answer a recorded read."""

    def __init__(self, reads: Reads) -> None:
        self._reads = reads

    def paths(self) -> tuple[str, ...]:
        return self._reads.input(PAGES, WHOLE) or ()

    def _card(self, path: str) -> Card:
        return self._reads.input(CARD, path) or ("", "", ())

    def kind(self, path: str) -> str:
        return self._card(path)[0]

    def title(self, path: str) -> str:
        return self._card(path)[1]

    def aliases(self, path: str) -> tuple[str, ...]:
        return self._card(path)[2]

    def text(self, path: str) -> str | None:
        return self._reads.input(TEXT, path)

    def setting(self, name: str) -> Any:
        return self._reads.input(SETTING, name)

    def get(self, query: Query[T], key: str = WHOLE) -> T:
        """Another query's value: a value several checks share (every page's names)."""
        return self._reads.get(query, key)


DIAGNOSTIC_ROWS: Stored[list[Diagnostic]] = Stored(
    lambda found: [d.row() for d in found],
    lambda rows: [Diagnostic.from_row(row) for row in rows],
)


@dataclass(frozen=True)
class CheckRow:
    """One check of many pages: its codes and the query that answers it (per page or not)."""

    codes: tuple[str, ...]
    query: Query[list[Diagnostic]]
    per_page: bool


def page_check(
    check: Callable[[WikiView, str], Iterable[Diagnostic]], codes: tuple[str, ...]
) -> CheckRow:
    """A row for a check asked of each page, reading others through its view."""

    def compute(reads: Reads, path: str) -> list[Diagnostic]:
        return list(check(WikiView(reads), path))

    return CheckRow(codes, _query(check, compute), per_page=True)


def wiki_check(
    check: Callable[[WikiView], Iterable[Diagnostic]], codes: tuple[str, ...]
) -> CheckRow:
    """A row for a check asked once of the whole wiki."""

    def compute(reads: Reads, _: str) -> list[Diagnostic]:
        return list(check(WikiView(reads)))

    return CheckRow(codes, _query(check, compute), per_page=False)


def _query(
    check: Callable[..., Any], compute: Callable[[Reads, str], list[Diagnostic]]
) -> Query[list[Diagnostic]]:
    """The check's query, named after it; its values depend on the check's module."""
    name = f"{check.__module__}.{check.__qualname__}"
    return Query(name, compute, DIAGNOSTIC_ROWS, code=check.__module__)


def card_digest(card: Card) -> str:
    return "\x1f".join((card[0], card[1], *card[2]))


def set_pages(engine: Engine, paths: Iterable[str], settings: Mapping[str, Any]) -> None:
    """Set the inputs of the checks of many pages but the cards and texts (the caller sets
    those): every page's path and the settings. A page gone since the engine's last run
    reads as absent."""
    digest, held = engine.input_entry(PAGES, WHOLE)
    before: tuple[str, ...] = held or ()
    given = set(paths)
    if digest != ABSENT and len(given) == len(before) and given.issuperset(before):
        now = before  # a save: the same pages, not sorted again
    else:
        now = tuple(sorted(given))
        engine.set(PAGES, WHOLE, now, "\n".join(now))
    gone = [] if now == before else sorted(set(before) - given)
    engine.unset(CARD, gone)
    engine.unset(TEXT, gone)
    for name, value in settings.items():
        engine.set(SETTING, name, value, repr(value))


def run_rows(
    engine: Engine, rows: Iterable[CheckRow], enabled: Callable[[str], bool]
) -> list[Diagnostic]:
    """The diagnostics of the rows with an enabled code, at their default severities; each
    page check asked of every page; the values of pages gone forgotten."""
    paths = engine.input_entry(PAGES, WHOLE)[1] or ()
    found: list[Diagnostic] = []
    for row in rows:
        if not any(enabled(code) for code in row.codes):
            continue
        query: Query[list[Diagnostic]] = row.query
        for key in paths if row.per_page else (WHOLE,):
            made: list[Diagnostic] = engine.get(query, key)
            found += made
        if row.per_page:
            engine.retain(query, paths)
    return found
