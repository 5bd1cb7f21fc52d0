"""Running the project's own rules on the checked pages of a wiki.

Each rule runs on each page within the time limit (``rule-timeout``), its findings checked
before they become diagnostics: a rule that raises (KB602), runs too long (KB603) or returns
something that is not findings at places of its page (KB604) yields one diagnostic naming the
rule and the page, and the other rules still run. What a rule reads of other pages goes
through the page's :class:`~kbtool.rules.FactsView`, recorded as the page's reads, so an
incremental check makes its findings again exactly when a built-in check's would be.
"""

from __future__ import annotations

import json
import re
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kbtool.checks.deadline import PastDeadline, call_within
from kbtool.codes import RULES
from kbtool.diagnostics import Diagnostic
from kbtool.model import Page
from kbtool.page_facts import Basics
from kbtool.rule_loader import ProjectRules
from kbtool.rules import (
    Edit,
    FactsView,
    Finding,
    OtherPage,
    RulePage,
    RuleSpec,
    Section,
    frozen_meta,
)
from kbtool.wiki import Wiki

Enabled = Callable[[str], bool]
Read = Callable[[str], bytes]
#: More findings than this of one rule on one page is a rule gone wrong.
MAX_FINDINGS = 1000
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


class _Facts:
    """The facts view's source: the wiki's pages and their basics, read as recorded."""

    def __init__(self, wiki: Wiki) -> None:
        self._wiki = wiki
        # made once for the wiki, not for each share of its pages a worker checks
        self._others: dict[str, OtherPage | None] = wiki.shared("rule others", dict)
        self._with: dict[str, tuple[OtherPage, ...]] = wiki.shared("rule pages with", dict)

    def read_fact(self, reader: str, name: str) -> None:
        self._wiki.read_fact(reader, name)

    def other(self, path: str) -> OtherPage | None:
        if path not in self._others:
            page = self._wiki.pages.get(path)
            basics = self._wiki.basics_of(path)
            self._others[path] = (
                None
                if page is None or basics is None
                else OtherPage(path, page.kind, page.title, *basics)
            )
        return self._others[path]

    def pages_with(self, name: str) -> tuple[OtherPage, ...]:
        if name not in self._with:
            found = (self.other(path) for path in self._wiki.paths_with(name))
            self._with[name] = tuple(page for page in found if page is not None)
        return self._with[name]


def project_diagnostics(
    wiki: Wiki, rules: ProjectRules, enabled: Enabled, read: Read | None = None
) -> list[Diagnostic]:
    """The enabled project rules' diagnostics on the wiki's checked pages; ``read(path)``
    gives a page's bytes (the run's snapshot, with the editor's unsaved text)."""
    active = [spec for spec in rules.rules if enabled(spec.code)]
    if not active:
        return []
    source = _Facts(wiki)
    found: list[Diagnostic] = []
    for page in wiki.checked_pages:
        text = _text(wiki, page, read)
        if text is None:
            continue
        rule_page = _rule_page(page, text)
        facts = FactsView(page.path, source)
        for spec in active:
            found += run_rule(spec, rule_page, facts, rules.timeout)
    return found


def _text(wiki: Wiki, page: Page, read: Read | None) -> str | None:
    try:
        data = read(page.path) if read else (wiki.config.root / page.path).read_bytes()
    except Exception:  # noqa: BLE001 - changed or gone since the scan: the next check sees it
        return None
    return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")


def _rule_page(page: Page, text: str) -> RulePage:
    basics = Basics.of(page)
    headings = tuple(Section(h.level, h.text, h.slug, h.line) for h in page.headings)
    return RulePage(
        page.path,
        page.kind,
        page.title,
        text,
        frozen_meta(page.meta),
        headings,
        page.body_line,
        basics.type,
        basics.tags,
        basics.updated,
    )


def run_rule(spec: RuleSpec, page: RulePage, facts: FactsView, timeout: float) -> list[Diagnostic]:
    """One rule on one page: its findings as diagnostics, or the one diagnostic saying how
    the rule failed."""
    args: tuple[Any, ...] = (page, facts) if spec.reads == "facts" else (page,)
    try:
        result = call_within(timeout, lambda: _findings(spec.function(*args)))
    except PastDeadline:
        return [_failed("KB603", spec, page, f"ran past its time limit ({timeout:g} s)")]
    except (Exception, SystemExit) as error:  # noqa: BLE001 - the project's code, reported
        return [_failed("KB602", spec, page, f"raised {_said(error)}")]
    if isinstance(result, str):
        return [_failed("KB604", spec, page, result)]
    line_count = max(1, page.text.count("\n") + 1)
    diagnostics = []
    for item in result:
        wrong = _wrong_finding(item, line_count)
        if wrong:
            return [_failed("KB604", spec, page, wrong)]
        assert isinstance(item, Finding)  # as _wrong_finding found
        diagnostics.append(_diagnostic(spec, page.path, item))
    return diagnostics


def _findings(result: object) -> list[object] | str:
    """The items of a rule's result, or what is wrong with it (a string)."""
    if result is None:
        return []
    if isinstance(result, str | bytes | Mapping) or not isinstance(result, Iterable):
        return f"returned {type(result).__name__}, not a list of Finding"
    items = []
    for item in result:
        items.append(item)
        if len(items) > MAX_FINDINGS:
            return f"returned more than {MAX_FINDINGS} findings"
    return items


def _wrong_finding(item: object, line_count: int) -> str | None:
    if not isinstance(item, Finding):
        return f"returned {type(item).__name__} among its findings, not Finding"
    if not isinstance(item.message, str) or not item.message.strip():
        return "returned a Finding without a message"
    if not _place_ok(item.line, item.col, line_count):
        return f"returned a Finding at line {item.line!r}, col {item.col!r}, not in the page"
    edit = item.edit
    if edit is not None:
        if not isinstance(edit, Edit) or not isinstance(edit.new, str):
            return "returned a Finding whose edit is not an Edit"
        ends = _place_ok(edit.line, edit.col, line_count) and _place_ok(
            edit.end_line, edit.end_col, line_count
        )
        if not ends or (edit.end_line, edit.end_col) < (edit.line, edit.col):
            return "returned an Edit whose range is not in the page"
    return None


def _place_ok(line: object, col: object, line_count: int) -> bool:
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (line, col))
    return ints and 1 <= line <= line_count and col >= 1  # type: ignore[operator]


def _diagnostic(spec: RuleSpec, path: str, finding: Finding) -> Diagnostic:
    message = _CONTROL.sub(" ", finding.message.strip())[:1000]
    return Diagnostic(
        path,
        finding.line,
        finding.col,
        spec.code,
        spec.severity,
        message,
        encode_edit(finding.edit),
    )


def encode_edit(edit: Edit | None) -> str | None:
    """An edit as a diagnostic's ``fix``: JSON, as it is stored."""
    if edit is None:
        return None
    return json.dumps({"edit": [edit.line, edit.col, edit.end_line, edit.end_col, edit.new]})


def decode_edit(fix: str | None) -> Edit | None:
    """The edit a diagnostic's ``fix`` holds, if it holds one."""
    try:
        line, col, end_line, end_col, new = json.loads(fix or "")["edit"]
    except (TypeError, ValueError, KeyError):
        return None
    if not all(isinstance(v, int) for v in (line, col, end_line, end_col)):
        return None
    return Edit(line, col, end_line, end_col, new) if isinstance(new, str) else None


def _failed(code: str, spec: RuleSpec, page: RulePage, what: str) -> Diagnostic:
    message = f"project rule {spec.code} ({spec.name}, {spec.origin}) {what} on {page.path}"
    return Diagnostic(page.path, 1, 1, code, RULES[code].severity, _CONTROL.sub(" ", message))


def _said(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    said = f"{type(error).__name__}: {text[0][:200]}" if text else type(error).__name__
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return said
    return f"{said} (at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno})"
