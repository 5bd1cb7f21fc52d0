"""Rules this wiki does not follow: those that fire on more than a share of its pages.

Such a rule is switched off when it only warns, and lowered to a warning when it is an
error, each with a comment saying how many reports it would make. KB304 (stale pages) is
never switched off: reporting those pages is what ``source-date`` is for.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from kbtool.checks import run_checks
from kbtool.codes import RULES
from kbtool.progress import StepProgress
from kbtool.wiki import Wiki

#: Rules init leaves as they are, however often they fire.
_KEEP = {"KB304"}
#: Fewer pages than this are no habit of the wiki, whatever their share (a tiny wiki).
MIN_PAGES = 5


def noisy_rules(wiki: Wiki, share: float) -> Iterator[tuple[str, str, str, str]]:
    """(code, proposed level, comment, reason) for each rule over ``share`` of its pages."""
    bar = StepProgress("checking")
    try:
        diagnostics = run_checks(wiki, progress=bar)
    finally:
        bar.close()
    reports: dict[str, int] = defaultdict(int)
    pages: dict[str, set[str]] = defaultdict(set)
    for d in diagnostics:
        reports[d.code] += 1
        pages[d.code].add(d.path)
    kinds = {path: page.kind for path, page in wiki.pages.items()}
    totals = {"wiki": len(wiki.wiki_pages)}
    totals["source"] = len(wiki.pages) - totals["wiki"]
    for code in sorted(reports):
        if code in _KEEP or code not in RULES:
            continue
        on = pages[code]
        kind = "source" if all(kinds.get(p) == "source" for p in on) else "wiki"
        total = totals[kind] if kind == "source" else max(totals["wiki"], 1)
        if len(on) <= share * total or len(on) < MIN_PAGES:
            continue
        level = "off" if RULES[code].severity == "warning" else "warning"
        counted = (
            f"{reports[code]} report{'' if reports[code] == 1 else 's'} on {len(on)} of "
            f"{total} {kind} pages ({len(on) / total:.0%})"
        )
        reason = (
            f'{code} = "{level}" ({RULES[code].summary}): {counted}, more than '
            f"{share:.0%} of them (--share {share:g})"
        )
        yield code, level, counted, reason
