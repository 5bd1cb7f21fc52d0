"""Pages listed by their frontmatter: ``type = method``, ``tags contains sim2real``,
``updated < 2026-06-01``, each condition a string, all of them to hold."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kbtool.agent.errors import Refused
from kbtool.agent.models import PageList
from kbtool.agent.reading import card_of, json_safe
from kbtool.agent.state import AgentWiki
from kbtool.model import Page

#: The most pages one answer lists; the rest from ``next_offset``.
MAX_PAGES = 200

_CONDITION = re.compile(
    r"^\s*([A-Za-z0-9_.-]+)\s*(==|=|!=|<=|>=|<|>|contains|exists|missing)\s*(.*?)\s*$"
)
_OPERATORS = "=, !=, <, <=, >, >=, contains, exists, missing"

Test = Callable[[Page], bool]


def _value(page: Page, key: str) -> Any:
    if key == "title":
        return page.title
    if key == "path":
        return page.path
    return json_safe(page.meta.get(key))


def _compare(operator: str, value: Any, wanted: str) -> bool:
    if operator == "contains":
        if isinstance(value, list):
            return any(str(item) == wanted for item in value)
        return isinstance(value, str) and wanted in value
    if value is None or isinstance(value, list | dict):
        return False
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if operator in ("=", "=="):
        return text == wanted
    if operator == "!=":
        return text != wanted
    left: Any = text
    right: Any = wanted
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            left, right = float(value), float(wanted)
        except ValueError:
            return False
    try:
        return bool(
            {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[
                operator
            ]
        )
    except TypeError:
        return False


def parse_condition(text: str) -> Test:
    match = _CONDITION.match(text)
    if match is None:
        raise Refused(
            f"cannot read the condition '{text}': write KEY OPERATOR VALUE, like "
            f"'type = method', 'tags contains sim2real' or 'updated < 2026-06-01' "
            f"(operators: {_OPERATORS})"
        )
    key, operator, wanted = match.groups()
    wanted = wanted.strip("'\"")
    if operator == "exists":
        return lambda page: _value(page, key) is not None
    if operator == "missing":
        return lambda page: _value(page, key) is None
    return lambda page: _compare(operator, _value(page, key), wanted)


def list_pages(
    wiki: AgentWiki,
    where: list[str] | None = None,
    folder: str | None = None,
    offset: int = 0,
    limit: int = 50,
) -> PageList:
    tests = [parse_condition(text) for text in where or []]
    state = wiki.checked()
    prefix = folder.strip("/") + "/" if folder else ""
    paths = [p for p in state.disk.digests() if p.startswith(prefix)]
    pages = state.pages_of(paths)
    found = [pages[p] for p in sorted(pages) if all(test(pages[p]) for test in tests)]
    limit = max(1, min(limit, MAX_PAGES))
    shown = found[offset : offset + limit]
    more = offset + limit < len(found)
    return PageList(
        total=len(found),
        pages=[card_of(page) for page in shown],
        next_offset=offset + limit if more else None,
    )
