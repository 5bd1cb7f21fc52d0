"""All checks, in one table, and the function that runs them.

A check is a plain function ``Wiki -> Iterator[Diagnostic]``; the codes it can emit are listed
beside it so that switching every one of its codes off skips the function entirely.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from kbtool.checks import files, frontmatter, graph, links
from kbtool.diagnostics import Diagnostic
from kbtool.wiki import Wiki

Check = Callable[[Wiki], Iterator[Diagnostic]]

CHECKS: tuple[tuple[Check, tuple[str, ...]], ...] = (
    (files.check_unreadable, ("KB003", "KB004")),
    (
        files.check_parse_problems,
        ("KB001", "KB002", "KB102", "KB103", "KB104", "KB105", "KB112", "KB401"),
    ),
    (frontmatter.check_missing_frontmatter, ("KB101",)),
    (frontmatter.check_required_keys, ("KB106",)),
    (frontmatter.check_value_types, ("KB107",)),
    (frontmatter.check_updated_date, ("KB108", "KB109")),
    (frontmatter.check_page_type, ("KB110",)),
    (frontmatter.check_summary, ("KB111", "KB113")),
    (links.check_outside_links, ("KB210",)),
    (links.check_related, ("KB201", "KB202")),
    (links.check_sources, ("KB203", "KB204")),
    (links.check_duplicate_entries, ("KB205",)),
    (links.check_self_links, ("KB206",)),
    (links.check_body_links, ("KB207",)),
    (links.check_anchors, ("KB208",)),
    (links.check_wikilinks, ("KB209", "KB211")),
    (graph.check_orphans, ("KB301",)),
    (graph.check_one_way_related, ("KB302",)),
    (graph.check_uncited_sources, ("KB303",)),
)


def _matches(code: str, patterns: Iterable[str]) -> bool:
    return any(code.startswith(p) for p in patterns)


def run_checks(
    wiki: Wiki,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    paths: Iterable[str] = (),
) -> list[Diagnostic]:
    """Run every enabled check; apply configured severities; sort; keep only ``paths``."""
    config = wiki.config
    select, ignore, paths = tuple(select), tuple(ignore) + config.ignore, tuple(paths)

    def enabled(code: str) -> bool:
        if select and not _matches(code, select):
            return False
        return not _matches(code, ignore) and config.level(code) != "off"

    found: list[Diagnostic] = []
    for check, codes in CHECKS:
        if not any(enabled(code) for code in codes):
            continue
        for d in check(wiki):
            if enabled(d.code):
                level = config.level(d.code)
                found.append(d if level == d.severity else _with_severity(d, level))
    if paths:
        found = [
            d
            for d in found
            if any(d.path == p or d.path.startswith(p.rstrip("/") + "/") for p in paths)
        ]
    return sorted(found)


def _with_severity(d: Diagnostic, level: str) -> Diagnostic:
    return Diagnostic(d.path, d.line, d.col, d.code, level, d.message, d.fix)  # type: ignore[arg-type]
