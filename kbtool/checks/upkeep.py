"""The upkeep checks (KB306–KB308), each written once as a row of ``WIKI_CHECKS``: unlinked
mentions of other pages' names, pages of the same title, pages of nearly the same body.

They read the whole wiki through a :class:`~kbtool.checks.wiki_view.WikiView`, so the engine
makes again only what an edit touched: a page's mentions read its own text and every page's
names (one query, made again only when a title or an alias changed); a page's sketch reads its
text alone; the same titles and the near-duplicate pairs read every page's title, or sketch.
The check stage runs them on the run's engine; :func:`check_upkeep` on a wiki held in memory
(``kbtool fix``, ``kbtool init``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from kbtool.checks.base import diagnostic
from kbtool.checks.duplicates import (
    near_duplicate_diagnostics,
    near_duplicates,
    same_titles,
    sketch,
    unpack,
)
from kbtool.checks.mentions import Named, Names, mention_message, names_of
from kbtool.checks.wiki_view import (
    CARD,
    TEXT,
    CheckRow,
    WikiView,
    card_digest,
    page_check,
    run_rows,
    set_pages,
    wiki_check,
)
from kbtool.diagnostics import Diagnostic
from kbtool.engine import Engine, Query, Reads, Stored
from kbtool.model import Page, Span
from kbtool.parse import fields
from kbtool.parse.frontmatter import split_frontmatter
from kbtool.wiki import Wiki

CODES = ("KB306", "KB307", "KB308")


def aliases_of(page: Page) -> tuple[str, ...]:
    """The page's `aliases`, the strings of them, or the one string (a wrong type is
    KB107's)."""
    return fields.aliases_of(page)


def body_of(text: str) -> str:
    """The text after the frontmatter."""
    _, body_start, _ = split_frontmatter(text)
    return text.split("\n", body_start)[-1] if body_start else text


# --- the values the checks share -------------------------------------------------------------


def _names(reads: Reads, _: str) -> Names:
    wiki = WikiView(reads)
    return Names(
        Named(p, wiki.kind(p), names_of(wiki.title(p), wiki.aliases(p))) for p in wiki.paths()
    )


#: every page's names, searched at once
NAMES: Query[Names] = Query("names", _names, digest=lambda names: names.digest)


def _sketch(reads: Reads, path: str) -> tuple[int, ...]:
    text = WikiView(reads).text(path)
    return () if text is None else unpack(sketch(body_of(text)))


#: a page's body as a bottom-k MinHash sketch
SKETCH: Query[tuple[int, ...]] = Query("sketch", _sketch, Stored(list, tuple))


# --- the checks --------------------------------------------------------------------------------


def unlinked_mentions(wiki: WikiView, path: str) -> Iterator[Diagnostic]:
    """KB306: the first unlinked mention of each other page's name in a wiki page's text."""
    text = wiki.text(path) if wiki.kind(path) == "wiki" else None
    if text is None:
        return
    for mention in wiki.get(NAMES).find(path, text):
        yield diagnostic("KB306", Span(path, mention.line, mention.col), mention_message(mention))


def pages_of_the_same_title(wiki: WikiView) -> Iterator[Diagnostic]:
    """KB307 on each page whose normalised title another page has. A page titled by its file
    name alone (as a vault's notes are) is left out: two files of one name in two folders are
    told apart by their folders, and KB211 reports a link that cannot tell them apart."""
    titles = {path: (wiki.kind(path), wiki.title(path)) for path in wiki.paths()}
    yield from same_titles({p: kt for p, kt in titles.items() if kt[1] != _file_name(p)})


def _file_name(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")


def nearly_the_same_bodies(wiki: WikiView) -> Iterator[Diagnostic]:
    """KB308 on both pages of each pair of one kind alike past ``duplicate-threshold``."""
    sketches = {path: (wiki.kind(path), wiki.get(SKETCH, path)) for path in wiki.paths()}
    yield from near_duplicate_diagnostics(
        near_duplicates(sketches, float(wiki.setting("duplicate-threshold")))
    )


WIKI_CHECKS: tuple[CheckRow, ...] = (
    page_check(unlinked_mentions, ("KB306",)),
    wiki_check(pages_of_the_same_title, ("KB307",)),
    wiki_check(nearly_the_same_bodies, ("KB308",)),
)


# --- a wiki held in memory -------------------------------------------------------------------


def page_text(wiki: Wiki, path: str) -> str | None:
    """The text of a page's file, as the parser reads it (no BOM, ``\\n`` line breaks)."""
    try:
        data = (wiki.config.root / path).read_bytes()
    except OSError:
        return None
    return data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n")


def wiki_names(wiki: Wiki) -> Names:
    return Names(
        Named(path, page.kind, names_of(page.title, aliases_of(page)))
        for path, page in wiki.pages.items()
    )


def check_upkeep(wiki: Wiki, enabled: Callable[[str], bool]) -> list[Diagnostic]:
    """The diagnostics of ``WIKI_CHECKS`` on the wiki's checked pages, on an engine of its
    own."""
    engine = Engine()
    for path, p in wiki.pages.items():
        card = (p.kind, p.title, aliases_of(p))
        engine.set(CARD, path, card, card_digest(card))
    # An engine made once: any digest serves; the text is read only by the checks that ask.
    for path in wiki.pages:
        engine.set_lazy(TEXT, path, "", partial(page_text, wiki, path))
    set_pages(engine, wiki.pages, settings_of(wiki.config.duplicate_threshold))
    checked = {page.path for page in wiki.checked_pages}
    return [d for d in run_rows(engine, WIKI_CHECKS, enabled) if d.path in checked]


def settings_of(duplicate_threshold: float) -> dict[str, object]:
    """The settings the rows read."""
    return {"duplicate-threshold": duplicate_threshold}
