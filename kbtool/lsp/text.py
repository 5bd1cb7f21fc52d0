"""Places in a page: the page model counts 1-based lines and characters; the protocol counts
0-based lines and UTF-16 code units (a character beyond the BMP is two)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kbtool.edits.locate import unplaced_wikilink
from kbtool.edits.spans import split_lines
from kbtool.model import Link, Page

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def utf16(line: str, chars: int) -> int:
    """The UTF-16 offset of the first ``chars`` characters of ``line``."""
    head = line[:chars]
    return len(head) + len(_ASTRAL.findall(head))


def chars(line: str, units: int) -> int:
    """The character offset of UTF-16 offset ``units`` in ``line``."""
    if not _ASTRAL.search(line):
        return min(units, len(line))
    count = 0
    for index, char in enumerate(line):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(line)


@dataclass(frozen=True)
class Lines:
    """A page's lines, as the parser numbered them."""

    lines: list[str]

    @classmethod
    def of(cls, text: str) -> Lines:
        return cls([line for line, _ in split_lines(text)])

    def get(self, number: int) -> str:
        """Line ``number`` (1-based), or "" past the end."""
        return self.lines[number - 1] if 1 <= number <= len(self.lines) else ""

    def position(self, line: int, col: int) -> tuple[int, int]:
        """A 1-based line and character column as the protocol's (line, character)."""
        return line - 1, utf16(self.get(line), col - 1)

    def place(self, line: int, character: int) -> tuple[int, int]:
        """The protocol's (line, character) as a 1-based line and character column."""
        return line + 1, chars(self.get(line + 1), character) + 1


def link_extent(page: Page, lines: Lines, link: Link) -> tuple[int, int]:
    """The columns (1-based, end exclusive) the link's raw target takes on its line."""
    text = lines.get(link.span.line)
    name = link.target
    start = text.find(name, max(link.span.col - 1, 0))
    if (start < 0 or start > link.span.col + 1) and link.kind == "wikilink":
        # not where the parser placed it (in a table, `[[Note\|label]]`): by its name
        found = unplaced_wikilink(page, link, text, name.partition("#")[0].strip())
        start = -1 if found is None else text.find(name, found)
    if start < 0 or start > link.span.col + 1 and link.kind != "wikilink":
        return link.span.col, link.span.col + len(name)
    return start + 1, start + 1 + len(name)


def link_at(page: Page, lines: Lines, line: int, col: int) -> Link | None:
    """The link whose target is written at 1-based ``line``, ``col`` (its end included, so
    that a cursor just after a target finds it)."""
    for link in page.links:
        if link.span.line != line:
            continue
        start, end = link_extent(page, lines, link)
        if start <= col <= end:
            return link
    return None


def diagnostic_extent(page: Page | None, lines: Lines, line: int, col: int) -> tuple[int, int]:
    """The columns a diagnostic covers: the link written there, else the rest of the line."""
    if page is not None:
        for link in page.links:
            if link.span.line == line and link.span.col == col:
                return link_extent(page, lines, link)
    text = lines.get(line)
    end = len(text.rstrip()) + 1
    return col, max(end, col + 1) if text.strip() else col
