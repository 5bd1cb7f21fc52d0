"""What every check shares: making a diagnostic from a code, a place and a message."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from kbtool.codes import RULES
from kbtool.diagnostics import Diagnostic
from kbtool.model import Span


def diagnostic(code: str, span: Span, message: str, fix: str | None = None) -> Diagnostic:
    """A diagnostic at its default severity; the configuration may change it later.

    A diagnostic is one line: line breaks in the message (from a value written in the page,
    say) are shown escaped.
    """
    message = message.replace("\r", "\\r").replace("\n", "\\n")
    return Diagnostic(span.path, span.line, span.col, code, RULES[code].severity, message, fix)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
