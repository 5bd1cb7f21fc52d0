"""``kbtool init``'s analysis: look at an existing wiki and propose its ``[tool.kbtool]``.

Each proposal comes from what the pages show: the folders that hold them (and the folders
their ``related`` lists point into), the page types in use, whether their python blocks are
meant to run, where source pages record their date, and which rules this wiki does not
follow (those that fire on more than a share of its pages). :func:`analyse` returns the
values with a comment and a reason each; :mod:`kbtool.adopt.pyproject` writes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kbtool.adopt import cells, dates, folders, language, rules
from kbtool.config import WHOLE, Config
from kbtool.progress import StepProgress
from kbtool.stages.load import load_wiki
from kbtool.stages.scan import Snapshot, scan
from kbtool.wiki import Wiki

#: Default share of pages above which a rule is taken as one this wiki does not follow.
DEFAULT_SHARE = 0.2


@dataclass
class Proposal:
    """What to write: TOML key -> value, its comment, and the reason printed for it."""

    values: dict[str, Any] = field(default_factory=dict)
    comments: dict[str, str] = field(default_factory=dict)
    #: Per-item comments of a list value (the page count of each type).
    item_comments: dict[str, dict[str, str]] = field(default_factory=dict)
    severity: dict[str, str] = field(default_factory=dict)
    severity_comments: dict[str, str] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    #: The wiki as read for the analysis (None when there was none to read).
    wiki: Wiki | None = None

    def set(self, key: str, value: Any, comment: str = "", reason: str = "") -> None:
        self.values[key] = value
        if comment:
            self.comments[key] = comment
        if reason:
            self.reasons.append(reason)


def analyse(base: Config, share: float = DEFAULT_SHARE, jobs: int | None = None) -> Proposal:
    """Propose a configuration for the wiki under ``base.root``.

    ``base`` is the repository's current configuration: the keys init does not decide
    (``exclude``, ``cache-dir``...) shape what it looks at; the keys it decides do not, so
    that running it again proposes the same.
    """
    proposal = Proposal()
    root = base.root
    wiki_folder, sources_folder, why = folders.main_folders(root, base)
    proposal.reasons += why
    # The keys init decides are left at their defaults while it looks, so that what it finds
    # does not depend on what it wrote last time, and a wiki checked before with no
    # configuration has its pages in the page cache already.
    defaults = Config(root)
    config = replace(
        base,
        wiki=wiki_folder,
        wiki_more=(),
        sources=sources_folder,
        severity={},
        ignore=(),
        source_date=None,
        types=defaults.types,
        required=defaults.required,
        execute=defaults.execute,
    )
    if (root / ".obsidian").is_dir():  # read as Obsidian reads it: callouts, block ids...
        config = replace(config, flavor="obsidian")
        proposal.set(
            "flavor",
            "obsidian",
            reason='flavor = "obsidian": the notes are read as Obsidian reads them',
        )
    if not (root / wiki_folder).is_dir():
        proposal.set("wiki", wiki_folder)
        proposal.set("sources", sources_folder)
        proposal.reasons.append(
            f"no wiki pages found: create {wiki_folder}/ for wiki pages and "
            f"{sources_folder}/ for source pages; everything else keeps its default"
        )
        return proposal
    snapshot = scan(config, trust=False)  # every byte held: read once, for the analysis
    wiki = _load(config, snapshot, jobs)
    more, why = folders.more_wiki_folders(wiki) if wiki_folder != WHOLE else ([], [])
    proposal.reasons += why
    if more:
        config = replace(config, wiki_more=tuple(more))
        snapshot = scan(config, trust=False)
        wiki = _load(config, snapshot, jobs)
    wiki_value: str | list[str] = [wiki_folder, *more] if more else wiki_folder
    sources_count = sum(1 for p in wiki.pages.values() if p.kind == "source")
    shown = ", ".join(f"{f}/" for f in config.wiki_folders)
    proposal.reasons.insert(
        0,
        f"folders: {len(wiki.pages) - sources_count} wiki pages in {shown}; "
        f"{sources_count} source pages in {sources_folder}/",
    )
    proposal.set("wiki", wiki_value)
    proposal.set("sources", sources_folder)
    _propose_types(proposal, wiki)
    _propose_required(proposal, wiki, base.required, share)
    found_language = language.propose_language(wiki, snapshot)
    if found_language is not None and found_language[0] != base.language:
        proposal.set("language", found_language[0], reason=found_language[1])
    elif found_language is not None:
        proposal.reasons.append(found_language[1] + " (as it is)")
    decision = cells.execute_decision(wiki)
    if decision is not None:
        proposal.set("execute", decision.value, decision.comment, decision.reason)
    else:
        proposal.reasons.append("execute: no python blocks in the wiki pages; left as it is")
    found = dates.propose_source_date(wiki, snapshot)
    if found is not None:
        how, comment, reason = found
        proposal.set("source-date", how, comment, reason)
    else:
        proposal.reasons.append(
            "source-date: no frontmatter key or labelled field gives a date on most source "
            "pages; stale pages (KB304) stay unchecked"
        )
    config = replace(
        config,
        types=tuple(proposal.values.get("types", config.types)),
        required=tuple(proposal.values.get("required", config.required)),
        source_date=_as_source_date(proposal.values.get("source-date")),
    )
    # Same pages, same links: only the settings the checks read change, so the links already
    # resolved are kept rather than resolved again (seconds on thousands of pages).
    wiki.config = config
    proposal.wiki = wiki
    for code, level, comment, reason in rules.noisy_rules(wiki, share):
        proposal.severity[code] = level
        proposal.severity_comments[code] = comment
        proposal.reasons.append(reason)
    if not proposal.severity:
        proposal.reasons.append(
            f"severity: no rule fires on more than {share:.0%} of the pages; every rule stays "
            "as it is"
        )
    for code, level, comment, reason in rules.upkeep_rules(wiki):
        if level:
            proposal.severity[code] = level
            proposal.severity_comments[code] = comment
        proposal.reasons.append(reason)
    if wiki_folder == WHOLE:
        _propose_for_notes(proposal, wiki)
    return proposal


#: The codes of a link to a note that does not exist: in a vault, a note not created yet.
NOT_CREATED_YET = ("KB207", "KB209")


def _propose_for_notes(proposal: Proposal, wiki: Wiki) -> None:
    """Obsidian shows a link to a missing note as one to a note "not created yet", and makes
    the note when it is clicked: in a vault such a link is a warning, not an error. And a
    note needs no frontmatter."""
    bare = sum(1 for page in wiki.wiki_pages if page.frontmatter is None)
    if bare and not proposal.values.get("required", True):
        proposal.severity["KB101"] = "off"
        proposal.severity_comments["KB101"] = f"{bare} notes without frontmatter, as Obsidian's"
        proposal.reasons.append(
            f'KB101 = "off" (page without frontmatter): {bare} of {len(wiki.wiki_pages)} notes '
            "have none, and no key is required"
        )
    for code in NOT_CREATED_YET:
        if proposal.severity.get(code) == "off":
            continue
        proposal.severity[code] = "warning"
        proposal.severity_comments[code] = "a note not created yet, as Obsidian shows it"
    proposal.reasons.append(
        "severity: KB207, KB209 (links to notes that do not exist) are warnings: in Obsidian "
        "they are notes not created yet"
    )


def _load(config: Config, snapshot: Snapshot, jobs: int | None) -> Wiki:
    bar = StepProgress("reading pages")
    try:
        return load_wiki(config, jobs=jobs, snapshot=snapshot, progress=bar)
    finally:
        bar.close()


def _as_source_date(value: Any) -> tuple[str, str] | None:
    if isinstance(value, dict) and len(value) == 1:
        ((how, name),) = value.items()
        return str(how), str(name)
    return None


def _propose_types(proposal: Proposal, wiki: Wiki) -> None:
    counts, typos = folders.page_types(wiki)
    if not counts and wiki.wiki_pages:
        proposal.set("types", [], reason="types: no page has a `type`; none offered")
    if not counts:
        return
    names = list(counts)
    proposal.set("types", names)
    plural = {name: f"{n} page{'' if n == 1 else 's'}" for name, n in counts.items()}
    proposal.item_comments["types"] = plural
    found = ", ".join(f"{name} {n}" for name, n in counts.items())
    proposal.reasons.append(f"types: {len(names)} page types in use ({found})")
    for typo, (n, close) in typos.items():
        proposal.reasons.append(
            f"types: '{typo}' ({n} page{'' if n == 1 else 's'}) left out: it looks like a "
            f"misspelt '{close}', so `kbtool check` reports it (KB110)"
        )


def _propose_required(
    proposal: Proposal, wiki: Wiki, required_now: tuple[str, ...], share: float
) -> None:
    pages = wiki.wiki_pages  # a note without frontmatter has none of the keys
    if not pages:
        return
    required = list(required_now)
    kept = []
    for key in required:
        missing = sum(1 for p in pages if key not in p.meta)
        if missing > share * len(pages):
            proposal.reasons.append(
                f"required: '{key}' left out: {missing} of {len(pages)} wiki pages "
                f"({missing / len(pages):.0%}) do not have it"
            )
        else:
            kept.append(key)
    if kept != required:
        proposal.set(
            "required",
            kept,
            f"{', '.join(sorted(set(required) - set(kept)))} left out: many pages lack them",
        )


def describe(proposal: Proposal) -> str:
    """The reasons, one a line, for the terminal."""
    return "\n".join(f"  {reason}" for reason in proposal.reasons)
