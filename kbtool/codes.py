"""Every diagnostic code: its default severity and what it means. This table is the docs.

Codes are stable. KB0xx files, KB1xx frontmatter, KB2xx links and anchors, KB3xx graph,
KB4xx cells, KB5xx build, KB6xx the project's own rules (loading and running them). A new
rule is a row here, a check function and a fixture.

A project's rules (:mod:`kbtool.rules`) add their own codes, outside ``KB``: they are
registered here when loaded (:func:`register_project_rules`), so that every table of codes
(severities, ``--statistics``, SARIF) shows them as it shows a built-in one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["error", "warning", "off"]


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    severity: Level
    summary: str


_RULES = [
    # Files
    Rule("KB001", "error", "file is not valid UTF-8"),
    Rule("KB002", "error", "file is binary, not Markdown"),
    Rule("KB003", "error", "symlink leads outside the repository (not read)"),
    Rule("KB004", "error", "file cannot be read (symlink loop, permissions)"),
    # Frontmatter
    Rule("KB101", "error", "wiki page has no frontmatter"),
    Rule("KB102", "error", "frontmatter fence `---` is never closed"),
    Rule("KB103", "error", "frontmatter is not valid YAML"),
    Rule("KB104", "error", "frontmatter is not a mapping"),
    Rule("KB105", "error", "frontmatter key given twice"),
    Rule("KB106", "error", "required frontmatter key missing"),
    Rule("KB107", "error", "frontmatter value has the wrong type"),
    Rule("KB108", "error", "`updated` is not an ISO date (YYYY-MM-DD)"),
    Rule("KB109", "error", "`updated` is in the future"),
    Rule("KB110", "error", "`type` is not one of the configured types"),
    Rule("KB111", "warning", "`summary` is empty"),
    Rule("KB112", "error", "frontmatter YAML aliases expand too far (alias bomb)"),
    Rule("KB113", "warning", "`summary` spans several lines"),
    # Links
    Rule("KB201", "error", "`related` entry does not exist"),
    Rule("KB202", "error", "`related` entry is not a wiki page"),
    Rule("KB203", "error", "`sources` entry does not exist"),
    Rule("KB204", "error", "`sources` entry is not under the sources folder"),
    Rule("KB205", "warning", "entry listed twice in `related` or `sources`"),
    Rule("KB206", "warning", "page links to itself"),
    Rule("KB207", "error", "body link to a file that does not exist"),
    Rule("KB208", "error", "`#anchor` matches no heading of the target page"),
    Rule("KB209", "error", "`[[wikilink]]` matches no page"),
    Rule("KB210", "error", "link is absolute or leaves the repository (never opened)"),
    Rule("KB211", "warning", "`[[wikilink]]` matches several pages"),
    Rule("KB212", "off", "path in inline code names no file of the repository"),
    # Obsidian's syntax (flavor = "obsidian"); KB230-KB239 are kept for it
    Rule("KB230", "warning", "callout type Obsidian does not know (shown as a note)"),
    Rule("KB231", "warning", "block id `^id` given to two blocks (links land on the first)"),
    # Graph
    Rule("KB301", "warning", "orphan wiki page: no other page links to it"),
    Rule("KB302", "warning", "one-way `related`: the other page does not list this one"),
    Rule("KB303", "warning", "source page that no wiki page cites"),
    Rule(
        "KB304", "warning", "wiki page's `updated` is older than a source it cites (`source-date`)"
    ),
    Rule("KB305", "warning", "source page's date (`source-date`) is not a date"),
    # Upkeep (off until `kbtool init` or the configuration turns them on)
    Rule("KB306", "off", "another page's title or `aliases` entry named in plain text, not linked"),
    Rule("KB307", "off", "pages with the same title"),
    Rule("KB308", "off", "pages with nearly the same body (`duplicate-threshold`)"),
    Rule("KB309", "off", "term in bold or code on many pages, no page of its own (`--statistics`)"),
    # Cells
    Rule("KB401", "error", "cell options in the fence info string cannot be read"),
    Rule("KB402", "error", "cell option has a wrong value (`timeout` must be a positive number)"),
    Rule(
        "KB403", "error", "`execute`, `allow-network` or `inputs` is wrong, or an input is missing"
    ),
    Rule("KB404", "error", "cell raised an exception, or its doctest output differs"),
    Rule("KB405", "error", "cell tagged `raises-exception` raised nothing"),
    Rule("KB406", "error", "cell ran past its time limit (`cell-timeout`, `timeout=`)"),
    Rule("KB407", "error", "cell printed more than the output limit (`output-limit-kb`)"),
    Rule("KB408", "error", "page process died: os._exit, a crash, or out of memory"),
    Rule("KB409", "error", "cells left a process running after the page ended"),
    Rule("KB410", "error", "kbtool's cell worker failed (a bug: please report it)"),
    Rule("KB411", "warning", "cells run with some protections off (no Landlock here, or off)"),
    Rule("KB412", "error", 'page not run: `sandbox = "required"` and Landlock is missing'),
    Rule("KB420", "error", "cell uses IPython syntax (`%magic`, `!cmd`) but IPython is missing"),
    Rule("KB421", "error", "notebook cannot be imported: not valid JSON or nbformat"),
    Rule("KB422", "error", "cell output differs from the output saved at import"),
    Rule(
        "KB423",
        "error",
        "`compare-outputs` is not true or false, or the saved outputs are unreadable",
    ),
    # Build
    Rule("KB501", "warning", "formula cannot be converted to MathML (shown as TeX)"),
    Rule("KB502", "error", "page cannot be rendered: kbtool's renderer failed (please report it)"),
    Rule("KB503", "warning", "embed of a note that embeds it back, or nested past the limit"),
    Rule("KB504", "warning", "page published where the site has a page of its own (left out)"),
    Rule("KB510", "warning", "pages have Mermaid diagrams but Mermaid is not installed"),
    # Project rules
    Rule("KB601", "error", "project rule cannot be loaded (file, import or entry point)"),
    Rule("KB602", "error", "project rule raised an exception on a page"),
    Rule("KB603", "error", "project rule ran past its time limit (`rule-timeout`)"),
    Rule("KB604", "error", "project rule returned something that is not a list of findings"),
    Rule(
        "KB605",
        "error",
        "project rule's code is malformed or taken, or a configured code matches no rule",
    ),
]

RULES: dict[str, Rule] = {rule.code: rule for rule in _RULES}

#: The codes of the project's rules loaded last (see :mod:`kbtool.rule_loader`).
_PROJECT: dict[str, Rule] = {}


def register_project_rules(rules: list[Rule]) -> None:
    """Make ``rules`` the project's codes (replacing those registered before)."""
    _PROJECT.clear()
    _PROJECT.update((rule.code, rule) for rule in rules)


def rule_of(code: str) -> Rule | None:
    """The row of a built-in or a project code; None for a code nobody declared."""
    return RULES.get(code) or _PROJECT.get(code)


def all_rules() -> dict[str, Rule]:
    """Every code: the built-in ones, then the project's."""
    return {**RULES, **_PROJECT}
