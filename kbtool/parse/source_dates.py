"""When a source page says it was ingested: a frontmatter key, or a labelled field in its body.

``source-date = { key = "ingested" }`` reads ``ingested: 2026-08-19`` from the frontmatter;
``source-date = { label = "入库日期" }`` reads a line such as ``- **入库日期：** 2026-08-19``
from the body (bold or not, ASCII or full-width colon). ``kbtool init`` uses the same reader to
find which of the two a wiki uses.

>>> find_label("- **入库日期：** 2026-08-19\\n", "入库日期")
('2026-08-19', 1, 13)
>>> parse_date("2026-08-19（补录）")
datetime.date(2026, 8, 19)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from typing import Any

from kbtool.model import Page

_ISO = re.compile(r"(\d{4}-\d{2}-\d{2})(?!\d)")
# Page text is hostile: every run of spaces is matched possessively (`*+`), so that a long
# line of blanks cannot make the pattern backtrack through it quadratically.
#: A labelled field: an optional list marker, the label (bold or not), a colon, the value.
_FIELD = (
    r"^[ \t]*+(?:[-*+][ \t]++)?(?:\*\*|__)?{label}[ \t]*+(?:\*\*|__)?[ \t]*+[:：][ \t]*+"
    r"(?:\*\*|__)?[ \t]*+(?P<value>[^\n]*+)"
)
#: Any labelled field, for `kbtool init` to count which labels hold dates.
ANY_FIELD = re.compile(
    r"^[ \t]*+[-*+][ \t]++\*\*(?P<label>[^*\n:：]{1,40}+)(?:[:：]\*\*|\*\*[ \t]*+[:：])"
    r"[ \t]*+(?P<value>[^\n]*+)",
    re.M,
)


@dataclass(frozen=True, slots=True)
class SourceDate:
    """A source page's date as written; ``when`` is None when the text is not a date."""

    raw: str
    when: date | None
    line: int
    col: int


def parse_date(value: Any) -> date | None:
    """A date from a YAML value or a field's text: an ISO date, optionally followed by words."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        return None
    match = _ISO.match(value.strip().strip("`*_"))
    if not match:
        return None
    try:
        return date.fromisoformat(match.group(1))
    except ValueError:  # 2026-13-01
        return None


@cache
def _field_pattern(label: str) -> re.Pattern[str]:
    return re.compile(_FIELD.format(label=re.escape(label)), re.M)


def find_label(text: str, label: str, start_line: int = 1) -> tuple[str, int, int] | None:
    """(value, line, column of the value) of the first ``label: value`` line at or after
    ``start_line``, or None."""
    offset = 0
    for _ in range(start_line - 1):  # Skip the frontmatter: its keys are not body fields.
        offset = text.find("\n", offset) + 1
        if offset == 0:
            return None
    match = _field_pattern(label).search(text, offset)
    if not match:
        return None
    line_start = text.rfind("\n", 0, match.start()) + 1
    line = text.count("\n", 0, match.start()) + 1
    return match.group("value").rstrip(), line, match.start("value") - line_start + 1


def read_source_date(page: Page, text: str | None, how: tuple[str, str]) -> SourceDate | None:
    """The date ``page`` gives in the configured place; None when it gives none there."""
    kind, name = how
    if kind == "key":
        if name not in page.meta or page.meta[name] in (None, ""):
            return None
        value = page.meta[name]
        line = page.frontmatter.line_of(name) if page.frontmatter else 1
        return SourceDate(str(value), parse_date(value), line, 1)
    if text is None:
        return None
    found = find_label(text, name, page.body_line)
    if found is None or not found[0]:
        return None
    raw, line, col = found
    return SourceDate(raw, parse_date(raw), line, col)
