"""KB1xx: the frontmatter of wiki pages against the configured schema."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from typing import Any

from kbtool.checks.base import diagnostic, did_you_mean
from kbtool.config import WHOLE
from kbtool.diagnostics import Diagnostic
from kbtool.model import Page, Span
from kbtool.wiki import Wiki

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_PARSE_FAILURES = {"KB001", "KB002", "KB102", "KB103", "KB104", "KB112"}

# Expected type of each known key: (accepts, description for the message).
_LIST_OF_STR = (
    lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
    "a list of strings",
)
_TYPES: dict[str, tuple[Any, str]] = {
    "type": (lambda v: isinstance(v, str), "a string"),
    "title": (lambda v: isinstance(v, str), "a string"),
    "summary": (lambda v: isinstance(v, str), "a string"),
    "description": (lambda v: isinstance(v, str), "a string"),
    "updated": (lambda v: isinstance(v, str | date), "a date (YYYY-MM-DD)"),
    "tags": _LIST_OF_STR,
    "aliases": _LIST_OF_STR,
    "related": _LIST_OF_STR,
    "sources": _LIST_OF_STR,
    "execute": (lambda v: isinstance(v, bool), "true or false"),
}


def _checked_wiki_pages(wiki: Wiki) -> Iterator[Page]:
    return (page for page in wiki.checked_pages if page.kind == "wiki")


def _wiki_pages_with_frontmatter(wiki: Wiki) -> Iterator[Page]:
    for page in _checked_wiki_pages(wiki):
        if page.frontmatter is not None:
            yield page


def _at(page: Page, key: str) -> Span:
    assert page.frontmatter is not None
    return Span(page.path, page.frontmatter.line_of(key), 1)


def check_missing_frontmatter(wiki: Wiki) -> Iterator[Diagnostic]:
    for page in _checked_wiki_pages(wiki):
        if page.frontmatter is None and not any(p.code in _PARSE_FAILURES for p in page.problems):
            message = "wiki page has no frontmatter; start the file with a '---' YAML block"
            yield diagnostic("KB101", Span(page.path), message)


def check_required_keys(wiki: Wiki) -> Iterator[Diagnostic]:
    for page in _wiki_pages_with_frontmatter(wiki):
        assert page.frontmatter is not None
        for key in wiki.config.required:
            if page.meta.get(key) is None:
                span = Span(page.path, page.frontmatter.first_line - 1, 1)
                yield diagnostic("KB106", span, f"required key '{key}' is missing")


#: Keys Obsidian reads from a string as well as from a list: one tag, one alias.
_ONE_OR_MORE = frozenset({"tags", "aliases"})


def check_value_types(wiki: Wiki) -> Iterator[Diagnostic]:
    config = wiki.config
    vault = config.wiki == WHOLE or config.flavor == "obsidian"
    for page in _wiki_pages_with_frontmatter(wiki):
        for key, value in page.meta.items():
            if key not in _TYPES or value is None:
                continue
            accepts, expected = _TYPES[key]
            if accepts(value) or vault and key in _ONE_OR_MORE and isinstance(value, str):
                continue
            message = f"'{key}' must be {expected}, not {_kind(value)}"
            if expected == "a list of strings" and isinstance(value, str):
                message += f"; write it as a YAML list: '{key}: [{value}]' or one '- item' per line"
            yield diagnostic("KB107", _at(page, key), message)


def _kind(value: Any) -> str:
    if isinstance(value, list):
        odd = [item for item in value if not isinstance(item, str)]
        return f"a list holding {_kind(odd[0])}" if odd else "a list"
    names = {
        str: "a string",
        dict: "a mapping",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }
    return names.get(type(value), f"a {type(value).__name__}")


def check_updated_date(wiki: Wiki) -> Iterator[Diagnostic]:
    for page in _wiki_pages_with_frontmatter(wiki):
        value = page.meta.get("updated")
        if not isinstance(value, str):
            continue
        try:
            when = date.fromisoformat(value) if _ISO_DATE.match(value.strip()) else None
        except ValueError:
            when = None
        if when is None:
            message = f"'updated' is {value!r}, not an ISO date like 2026-10-18"
            yield diagnostic("KB108", _at(page, "updated"), message)
        elif when > wiki.today:
            message = f"'updated' is {value}, which is after today ({wiki.today.isoformat()})"
            yield diagnostic("KB109", _at(page, "updated"), message)


def check_page_type(wiki: Wiki) -> Iterator[Diagnostic]:
    types = wiki.config.types
    for page in _wiki_pages_with_frontmatter(wiki):
        value = page.meta.get("type")
        if isinstance(value, str) and value not in types:
            hint = did_you_mean(value, types) or f" (expected one of: {', '.join(types)})"
            yield diagnostic("KB110", _at(page, "type"), f"type '{value}' is not configured{hint}")


def check_summary(wiki: Wiki) -> Iterator[Diagnostic]:
    for page in _wiki_pages_with_frontmatter(wiki):
        value = page.meta.get("summary")
        if not isinstance(value, str):
            continue
        if not value.strip():
            yield diagnostic("KB111", _at(page, "summary"), "'summary' is empty")
        elif "\n" in value.strip():
            yield diagnostic("KB113", _at(page, "summary"), "'summary' should be one line")
