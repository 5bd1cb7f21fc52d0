"""The upkeep checks (KB306–KB308) over a wiki held in memory, its pages' text read from
their files: what ``kbtool fix`` and ``kbtool init`` ask. The check stage runs the same
rules page by page, each page's part reused while what it depends on is the same
(``stages/upkeep.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from kbtool.checks.base import diagnostic
from kbtool.checks.duplicates import (
    near_duplicate_diagnostics,
    near_duplicates,
    same_titles,
    sketch,
    unpack,
)
from kbtool.checks.mentions import Named, Names, mention_message, names_of
from kbtool.diagnostics import Diagnostic
from kbtool.model import Page, Span
from kbtool.parse.frontmatter import split_frontmatter
from kbtool.wiki import Wiki

CODES = ("KB306", "KB307", "KB308")


def aliases_of(page: Page) -> tuple[str, ...]:
    """The page's `aliases`, the strings of them (a wrong type is KB107's)."""
    value = page.meta.get("aliases")
    if not isinstance(value, list):
        return ()
    return tuple(a.strip() for a in value if isinstance(a, str) and a.strip())


def page_text(wiki: Wiki, path: str) -> str | None:
    """The text of a page's file, as the parser reads it (no BOM, ``\\n`` line breaks)."""
    try:
        data = (wiki.config.root / path).read_bytes()
    except OSError:
        return None
    return data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n")


def body_of(text: str) -> str:
    """The text after the frontmatter."""
    _, body_start, _ = split_frontmatter(text)
    return text.split("\n", body_start)[-1] if body_start else text


def wiki_names(wiki: Wiki) -> Names:
    return Names(
        Named(path, page.kind, names_of(page.title, aliases_of(page)))
        for path, page in wiki.pages.items()
    )


def check_upkeep(wiki: Wiki, enabled: Callable[[str], bool]) -> list[Diagnostic]:
    """KB306–KB308 of the wiki's checked pages (pairs: where either page is checked)."""
    found: list[Diagnostic] = []
    checked = {page.path for page in wiki.checked_pages}
    if enabled("KB307"):
        titles = {path: (page.kind, page.title) for path, page in wiki.pages.items()}
        found += [d for d in same_titles(titles) if d.path in checked]
    texts = {}
    if enabled("KB306") or enabled("KB308"):
        texts = {path: text for path in wiki.pages if (text := page_text(wiki, path)) is not None}
    if enabled("KB306"):
        names = wiki_names(wiki)
        for path in sorted(checked):
            if wiki.pages[path].kind == "wiki" and path in texts:
                for m in names.find(path, texts[path]):
                    found.append(diagnostic("KB306", Span(path, m.line, m.col), mention_message(m)))
    if enabled("KB308"):
        sketches = {
            path: (wiki.pages[path].kind, unpack(sketch(body_of(text))))
            for path, text in texts.items()
        }
        pairs = near_duplicates(sketches, wiki.config.duplicate_threshold)
        found += [d for d in near_duplicate_diagnostics(pairs) if d.path in checked]
    return found
