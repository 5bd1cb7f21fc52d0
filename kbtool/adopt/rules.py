"""Rules this wiki does not follow: those that fire on more than a share of its pages.

Such a rule is switched off when it only warns, and lowered to a warning when it is an
error, each with a comment saying how many reports it would make. KB304 (stale pages) is
never switched off: reporting those pages is what ``source-date`` is for.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from kbtool.checks import run_checks
from kbtool.codes import RULES
from kbtool.diagnostics import Diagnostic
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


#: The upkeep checks, off by default, that init proposes to turn on when they find something.
UPKEEP = ("KB212", "KB306", "KB307", "KB308")
#: More reports than this are not read, one by one: such a check is proposed off, with the
#: pages that have the most of them to start from.
READABLE = 200
#: How many of those pages the reason names.
WORST = 5


def upkeep_rules(wiki: Wiki) -> Iterator[tuple[str, str, str, str]]:
    """(code, proposed level, comment, reason) for each upkeep check: "warning" with what it
    would report where it finds something; else None as the level, with the reason."""
    from kbtool.checks.code_paths import check_code_paths
    from kbtool.checks.upkeep import check_upkeep

    found = check_upkeep(wiki, lambda code: code in UPKEEP) + list(check_code_paths(wiki))
    reports: dict[str, int] = defaultdict(int)
    pages: dict[str, set[str]] = defaultdict(set)
    for d in found:
        reports[d.code] += 1
        pages[d.code].add(d.path)
    for code in UPKEEP:
        if wiki.config.level(code) != "off" and code in wiki.config.severity:
            continue  # the user's own choice
        summary = RULES[code].summary
        if not reports[code]:
            yield code, "", "", f"{code} ({summary}): nothing to report; left off"
            continue
        counted = (
            f"{reports[code]:,} report{'' if reports[code] == 1 else 's'} on "
            f"{len(pages[code]):,} page{'' if len(pages[code]) == 1 else 's'}"
        )
        if reports[code] > READABLE:
            yield code, "", "", _too_many(code, summary, counted, found)
            continue
        yield code, "warning", counted, f'{code} = "warning" ({summary}): {counted}'


def _too_many(code: str, summary: str, counted: str, found: list[Diagnostic]) -> str:
    """Why ``code`` stays off, and where to start reading its reports."""
    per_page = Counter(d.path for d in found if d.code == code)
    worst = per_page.most_common(WORST)
    shown = ", ".join(f"{path} ({n})" for path, n in worst)
    return (
        f"{code} ({summary}): {counted}, more than {READABLE} are not read one by one: left "
        f'off. Most on {shown}; to read those first, set {code} = "warning" and run '
        f"`kbtool check --select {code} {worst[0][0]}`"
    )
