"""KB304-KB305: a wiki page older than a source it cites, and source dates that are not dates.

Off unless ``source-date`` says where a source page gives the date it was ingested. A page
whose ``updated`` is before that date was last edited before the source arrived, so it may
not say what the source says yet.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date

from kbtool.checks.base import diagnostic
from kbtool.config import Config
from kbtool.diagnostics import Diagnostic
from kbtool.model import Page, Span
from kbtool.parse.source_dates import SourceDate, parse_date, read_source_date
from kbtool.wiki import Status, Wiki


def source_date_of(
    config: Config, page: Page, read: Callable[[], bytes | None]
) -> SourceDate | None:
    """The date a source page gives where ``source-date`` says (None for a wiki page).
    ``read()`` gives the file's bytes; it is called only for a labelled field in the body."""
    how = config.source_date
    if how is None or page.kind != "source":
        return None
    data = read() if how[0] == "label" else None
    text = data.decode("utf-8", errors="replace") if data is not None else None
    return read_source_date(page, text, how)


def _reader(wiki: Wiki, page: Page) -> Callable[[], bytes | None]:
    # The page model keeps no body text: a labelled field is read from the file.
    def read() -> bytes | None:
        try:
            return (wiki.config.root / page.path).read_bytes()
        except OSError:
            return None

    return read


def _checked_source_dates(wiki: Wiki) -> dict[str, SourceDate]:
    """The dates the checked source pages give, as written, by path."""
    dates = {}
    for page in wiki.checked_pages:
        found = source_date_of(wiki.config, page, _reader(wiki, page))
        if found is not None:
            dates[page.path] = found
    return dates


def _describe(wiki: Wiki) -> str:
    kind, name = wiki.config.source_date or ("", "")
    return f"frontmatter key '{name}'" if kind == "key" else f"field '{name}'"


def check_source_dates(wiki: Wiki) -> Iterator[Diagnostic]:
    """KB304 for each cited source newer than the citing page; KB305 for unreadable dates.

    The dates of sources that are not being checked come from ``wiki.ingested`` (an
    incremental check keeps them with each page's facts)."""
    if wiki.config.source_date is None:
        return
    dates = _checked_source_dates(wiki)
    what = _describe(wiki)
    name = wiki.config.source_date[1]
    for path, found in dates.items():
        if found.when is None:
            message = f"source date in {what} is {found.raw!r}, not a date like 2026-08-19"
            yield diagnostic("KB305", Span(path, found.line, found.col), message)
    # The checked sources' own dates, else the stored ones (asked for the few cited).
    own = {path: found.when for path, found in dates.items() if found.when}
    stored = wiki.ingested or {}
    for item in wiki.links:
        page, target = item.page, item.target
        if page.kind != "wiki" or item.link.kind != "source" or target.status is not Status.OK:
            continue
        cited = own.get(target.path or "") or stored.get(target.path or "")
        updated = _updated(page)
        if cited is None or updated is None or updated >= cited:
            continue
        message = (
            f"page updated {updated.isoformat()} is older than its source "
            f"'{item.link.target}' ({name}: {cited.isoformat()}): review the page "
            "against the source, then change `updated`"
        )
        yield diagnostic("KB304", item.link.span, message)


def _updated(page: Page) -> date | None:
    value = page.meta.get("updated")
    return parse_date(value) if isinstance(value, str | date) else None
