"""What every check shares: making a diagnostic from a code, a place and a message."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from functools import lru_cache

from kbtool.codes import RULES
from kbtool.diagnostics import Diagnostic
from kbtool.model import Span

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return {"\n": "\\n", "\r": "\\r"}.get(char, f"\\x{ord(char):02x}")


def diagnostic(code: str, span: Span, message: str, fix: str | None = None) -> Diagnostic:
    """A diagnostic at its default severity; the configuration may change it later.

    A diagnostic is one line of plain text: line breaks and other control characters in the
    message (from a value written in the page, say) are shown escaped.
    """
    message = _CONTROL.sub(_escape, message)
    return Diagnostic(span.path, span.line, span.col, code, RULES[code].severity, message, fix)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = _closest(word, tuple(choices))
    return f" (did you mean '{close}'?)" if close is not None else ""


@lru_cache(maxsize=64)
def _closest(word: str, choices: tuple[str, ...]) -> str | None:
    # Remembered: a session checks a page again at each save, and a broken link's hint
    # compares its name with every page's (9 ms at 5,000 notes).
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return close[0] if close else None
