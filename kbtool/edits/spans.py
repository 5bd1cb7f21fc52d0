"""Edits by exact span: a page's bytes with some targets replaced, and nothing else changed.

Lines are counted as the parser counts them (``\r\n``, ``\r`` and ``\n`` each end a line) and
columns are characters of the decoded line, 1-based, which is what the page model's spans
hold. A byte-order mark is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_LINE_END = re.compile(r"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, order=True)
class TextEdit:
    """Replace characters ``col`` up to ``end_col`` (exclusive) of ``line`` by ``new``."""

    path: str
    line: int
    col: int
    end_col: int
    new: str
    #: the text replaced, to make sure the file still holds it
    old: str = ""


class StaleEdit(ValueError):
    """The file no longer holds the text an edit was planned for."""


def split_lines(text: str) -> list[tuple[str, str]]:
    """(line, its line ending) for every line of ``text``; the last has ``""``."""
    out, start = [], 0
    for match in _LINE_END.finditer(text):
        out.append((text[start : match.start()], match.group()))
        start = match.end()
    out.append((text[start:], ""))
    return out


def decode(data: bytes) -> tuple[bytes, str]:
    """(the byte-order mark or b"", the text). Raises UnicodeDecodeError."""
    bom = _BOM if data.startswith(_BOM) else b""
    return bom, data[len(bom) :].decode("utf-8")


def apply_edits_text(text: str, edits: Iterable[TextEdit]) -> str:
    lines = split_lines(text)
    by_line: dict[int, list[TextEdit]] = {}
    for edit in edits:
        by_line.setdefault(edit.line, []).append(edit)
    for number, line_edits in by_line.items():
        if not 1 <= number <= len(lines):
            raise StaleEdit(f"line {number} is past the end of the file")
        line, ending = lines[number - 1]
        # From the right, so that earlier columns stay where they were.
        for edit in sorted(line_edits, key=lambda e: e.col, reverse=True):
            start, end = edit.col - 1, edit.end_col - 1
            if edit.old and line[start:end] != edit.old:
                raise StaleEdit(f"line {number} no longer reads {edit.old!r} at column {edit.col}")
            line = line[:start] + edit.new + line[end:]
        lines[number - 1] = (line, ending)
    return "".join(line + ending for line, ending in lines)


def apply_edits(data: bytes, edits: Iterable[TextEdit]) -> bytes:
    """``data`` with ``edits`` applied; every byte outside their spans is kept."""
    edits = list(edits)
    if not edits:
        return data
    bom, text = decode(data)
    return bom + apply_edits_text(text, edits).encode("utf-8")
