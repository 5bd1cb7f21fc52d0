"""KB0xx and parse-time problems: files that cannot be read, YAML that cannot be loaded."""

from __future__ import annotations

from collections.abc import Iterator

from kbtool.checks.base import diagnostic
from kbtool.diagnostics import Diagnostic
from kbtool.model import Span
from kbtool.wiki import Wiki


def check_unreadable(wiki: Wiki) -> Iterator[Diagnostic]:
    for item in wiki.unreadable:
        yield diagnostic(item.problem.code, Span(item.path), item.problem.message)


def check_parse_problems(wiki: Wiki) -> Iterator[Diagnostic]:
    """Everything the parser noticed: encoding, fences, YAML syntax, duplicate keys."""
    for page in wiki.checked_pages:
        for problem in page.problems:
            yield diagnostic(
                problem.code, Span(page.path, problem.line, problem.col), problem.message
            )
