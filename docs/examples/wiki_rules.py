"""Two rules of the bundled wiki's own, as examples of kbtool's rule API (docs/rules.md).

Use them with ``[tool.kbtool] rules = ["docs/examples/wiki_rules.py"]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kbtool.rules import Edit, FactsView, Finding, RulePage, rule

DEFINITION = "> **一句话定义**："


@rule("WIKI001", "warning", "a concept page opens with its one-line definition")
def concept_opens_with_definition(page: RulePage) -> Iterator[Finding]:
    """The first line after a concept page's title is ``> **一句话定义**：...``; the fix
    writes the page's ``summary`` there."""
    if page.kind != "wiki" or page.type != "concept":
        return
    title = next((h for h in page.headings if h.level == 1), None)
    after = title.line if title else page.body_line - 1
    first = next(((n, text) for n, text in page.lines() if n > after and text.strip()), None)
    if first is not None and first[1].startswith(DEFINITION):
        return
    line = first[0] if first else after + 1
    summary = page.meta.get("summary")
    edit = None
    if title is not None and isinstance(summary, str) and summary.strip():
        edit = Edit(title.line + 1, 1, title.line + 1, 1, f"\n{DEFINITION}{summary.strip()}\n")
    yield Finding(f"a concept page opens with '{DEFINITION}' after its title", line, 1, edit)


#: Claims that are true on the day they are written and go stale.
ABSOLUTE = re.compile(r"[Ss]tate[- ]of[- ]the[- ]art|\bSOTA\b|最新|当前最强|目前最好")
#: What each claim holds, for a test far cheaper than the expression (it runs on every page).
_CUES = ("of the art", "of-the-art", "SOTA", "最新", "当前最强", "目前最好")


@rule("WIKI002", "warning", "an absolute claim in a page older than pages on its topics", "facts")
def stale_absolute_claims(page: RulePage, facts: FactsView) -> Iterator[Finding]:
    """ "State of the art", 最新, 当前最强 in a page whose ``updated`` is older than another
    page sharing one of its tags: the newer page may have overtaken the claim."""
    if page.kind != "wiki" or not page.updated or not any(c in page.text for c in _CUES):
        return
    claims = [(n, m) for n, text in page.lines() for m in ABSOLUTE.finditer(text)]
    if not claims:  # asked nothing of other pages: edits to them never check this one again
        return
    newer = [
        (other.updated, other.path, tag)
        for tag in page.tags
        for other in facts.with_tag(tag)
        if other.updated > page.updated
    ]
    if not newer:
        return
    updated, path, tag = max(newer)
    for number, match in claims:
        yield Finding(
            f"'{match.group()}' in a page updated {page.updated}; {path} (tag '{tag}') "
            f"is newer ({updated}): is it still so?",
            number,
            match.start() + 1,
        )
