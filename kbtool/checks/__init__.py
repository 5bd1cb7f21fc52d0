"""All checks, in two tables, and the function that runs them.

A page check is a plain function ``Wiki -> Iterator[Diagnostic]`` over the wiki's checked
pages, whose diagnostics are each at a place in one of those pages; a graph check reads the
link graph of the whole wiki as a :class:`~kbtool.checks.graph.Graph` (in memory, or the
store's). The codes a check can emit are
listed beside it so that switching every one of its codes off skips the function entirely.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from kbtool.checks import code_paths, files, frontmatter, graph, links, stale, upkeep
from kbtool.checks.graph import Graph, TableGraph, link_table
from kbtool.checks.project import project_diagnostics
from kbtool.checks.wiki_view import DIAGNOSTIC_ROWS
from kbtool.diagnostics import Diagnostic, enabled_codes, filter_diagnostics
from kbtool.engine import WHOLE, Input, Query, Reads
from kbtool.rule_loader import project_rules
from kbtool.wiki import Wiki

__all__ = ["CHECKS", "GRAPH_CHECKS", "filter_diagnostics", "run_checks"]

Check = Callable[[Wiki], Iterator[Diagnostic]]
GraphCheck = Callable[[Graph], Iterator[Diagnostic]]
Enabled = Callable[[str], bool]

CHECKS: tuple[tuple[Check, tuple[str, ...]], ...] = (
    (
        files.check_parse_problems,
        ("KB001", "KB002", "KB102", "KB103", "KB104", "KB105", "KB112", "KB230", "KB231", "KB401"),
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
    (code_paths.check_code_paths, ("KB212",)),
    (stale.check_source_dates, ("KB304", "KB305")),
)

GRAPH_CHECKS: tuple[tuple[GraphCheck, tuple[str, ...]], ...] = (
    (graph.check_orphans, ("KB301",)),
    (graph.check_one_way_related, ("KB302",)),
    (graph.check_uncited_sources, ("KB303",)),
)


def page_diagnostics(
    wiki: Wiki, enabled: Enabled, progress: Callable[[int, int], None] | None = None
) -> list[Diagnostic]:
    """The page checks' diagnostics of the wiki's checked pages, at default severities.
    ``progress(checks done, checks)`` is told after each check (for a progress bar)."""
    found: list[Diagnostic] = []
    for done, (check, codes) in enumerate(CHECKS, 1):
        if any(enabled(code) for code in codes):
            found += check(wiki)
        if progress:
            progress(done, len(CHECKS))
    return found


def graph_diagnostics(graph: Graph, wiki: Wiki, enabled: Enabled) -> list[Diagnostic]:
    """The graph checks' diagnostics, and those of files that could not be read."""
    return unreadable_diagnostics(wiki, enabled) + graph_rule_diagnostics(graph, enabled)


def unreadable_diagnostics(wiki: Wiki, enabled: Enabled) -> list[Diagnostic]:
    """The diagnostics of the files that could not be read."""
    if any(enabled(code) for code in ("KB003", "KB004")):
        return list(files.check_unreadable(wiki))
    return []


def graph_rule_diagnostics(graph: Graph, enabled: Enabled) -> list[Diagnostic]:
    """The graph checks' diagnostics: they depend on the link graph alone."""
    found: list[Diagnostic] = []
    for check, codes in GRAPH_CHECKS:
        if any(enabled(code) for code in codes):
            found += check(graph)
    return found


#: the link graph the graph checks read (the store's link table; its digest, the table's
#: version, changes whenever the table does)
LINK_GRAPH: Input[Graph] = Input("link graph")


def _graph_rules(reads: Reads, codes: str) -> list[Diagnostic]:
    graph = reads.input(LINK_GRAPH, WHOLE)
    wanted = set(codes.split(","))
    return [] if graph is None else graph_rule_diagnostics(graph, wanted.__contains__)


#: the graph checks' diagnostics, keyed by the codes enabled (joined by commas)
GRAPH_RULES = Query("graph rules", _graph_rules, DIAGNOSTIC_ROWS)


def run_checks(
    wiki: Wiki,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    paths: Iterable[str] = (),
    progress: Callable[[int, int], None] | None = None,
) -> list[Diagnostic]:
    """Run every enabled check; apply configured severities; sort; keep only ``paths``.

    ``progress(checks done, checks)`` is told after each check (for a progress bar)."""
    select, ignore = tuple(select), tuple(ignore)
    enabled = enabled_codes(wiki.config, select, ignore)
    found = page_diagnostics(wiki, enabled, progress)
    rules = project_rules(wiki.config)
    found += project_diagnostics(wiki, rules, enabled) + list(rules.problems)
    found += graph_diagnostics(TableGraph(link_table(wiki)), wiki, enabled)
    found += upkeep.check_upkeep(wiki, enabled)
    return filter_diagnostics(found, wiki.config, select, ignore, paths)
