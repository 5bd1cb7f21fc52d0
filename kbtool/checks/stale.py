"""KB304-KB305: a wiki page older than a source it cites, and source dates that are not dates.

Off unless ``source-date`` says where a source page gives the date it was ingested. A page
whose ``updated`` is before that date was last edited before the source arrived, so it may
not say what the source says yet.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from kbtool.checks.base import diagnostic
from kbtool.diagnostics import Diagnostic
from kbtool.model import Page, Span
from kbtool.source_dates import SourceDate, parse_date, read_source_date
from kbtool.wiki import Status, Wiki


def source_dates(wiki: Wiki) -> dict[str, SourceDate]:
    """Every source page's date as written, by path (pages that give none are left out)."""
    how = wiki.config.source_date
    if how is None:
        return {}
    dates = {}
    for page in wiki.pages.values():
        if page.kind != "source":
            continue
        text = _read(wiki, page) if how[0] == "label" else None
        found = read_source_date(page, text, how)
        if found is not None:
            dates[page.path] = found
    return dates


def _read(wiki: Wiki, page: Page) -> str | None:
    # The page model keeps no body text; the field is read from the file (sources only).
    try:
        return (wiki.config.root / page.path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _describe(wiki: Wiki) -> str:
    kind, name = wiki.config.source_date or ("", "")
    return f"frontmatter key '{name}'" if kind == "key" else f"field '{name}'"


def check_source_dates(wiki: Wiki) -> Iterator[Diagnostic]:
    """KB304 for each cited source newer than the citing page; KB305 for unreadable dates."""
    dates = source_dates(wiki)
    if not dates:
        return
    what = _describe(wiki)
    name = (wiki.config.source_date or ("", ""))[1]
    for path, found in dates.items():
        if found.when is None:
            message = f"source date in {what} is {found.raw!r}, not a date like 2026-08-19"
            yield diagnostic("KB305", Span(path, found.line, found.col), message)
    for item in wiki.links:
        page, target = item.page, item.target
        if page.kind != "wiki" or item.link.kind != "source" or target.status is not Status.OK:
            continue
        cited = dates.get(target.path or "")
        updated = _updated(page)
        if cited is None or cited.when is None or updated is None or updated >= cited.when:
            continue
        message = (
            f"page updated {updated.isoformat()} is older than its source "
            f"'{item.link.target}' ({name}: {cited.when.isoformat()}): review the page "
            "against the source, then change `updated`"
        )
        yield diagnostic("KB304", item.link.span, message)


def _updated(page: Page) -> date | None:
    value = page.meta.get("updated")
    return parse_date(value) if isinstance(value, str | date) else None
