"""The check stage's checks of many pages (``checks/upkeep.py``'s rows, KB306–KB308), run
on the run's engine: its inputs set from every page's facts and the snapshot, its traces
taken from the store (the check stage keeps them there), so that a one-shot check after an
edit makes again only what the edit touched, as a session does."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

from kbtool.checks import Enabled, upkeep
from kbtool.checks.upkeep import NAMES, SKETCH, settings_of
from kbtool.checks.wiki_view import CARD, TEXT, card_digest, run_rows, set_pages
from kbtool.diagnostics import Diagnostic
from kbtool.engine.persist import load
from kbtool.stages.facts import Facts
from kbtool.stages.run import Run


def upkeep_diagnostics(run: Run, facts: Mapping[str, Facts], enabled: Enabled) -> list[Diagnostic]:
    """The diagnostics of ``WIKI_CHECKS`` at their default severities; ``facts``: every
    page's."""
    wanted = [row for row in upkeep.WIKI_CHECKS if any(enabled(code) for code in row.codes)]
    if not wanted:  # they are off by default: a check then sets none of their inputs
        return []
    engine = run.reuse.engine
    set_page_inputs(run, facts)
    if run.use_store:
        load(engine, run.store, [NAMES, SKETCH, *(row.query for row in wanted)])
    return run_rows(engine, wanted, enabled)


def set_page_inputs(run: Run, facts: Mapping[str, Facts]) -> None:
    """Set the inputs the checks of many pages and the output rows read: every page's path,
    card and text, and the settings; ``facts``: every page's. A card set again as it was
    starts no revision; a text's reader is made only for a new or changed text (it holds
    that reader alone, not the snapshot)."""
    engine = run.reuse.engine
    digests = run.snapshot.digests()
    engine.set_to(CARD, {path: f.card[0] for path, f in facts.items()}, card_digest)
    # The pages' digests are the snapshot's, unless pages went unread (compared in C).
    texts = digests if digests.keys() == facts.keys() else {p: digests[p] for p in facts}
    for path in engine.differing(TEXT, texts):
        engine.set_lazy(TEXT, path, digests[path], partial(_text, run.snapshot.reader(path)))
    set_pages(engine, facts, settings_of(run.config.duplicate_threshold))


def _text(read: Callable[[], bytes]) -> str:
    """The page's text as the parser reads it; a file changed since the scan raises
    (the check then scans again), so no value is made of other bytes than the digest's."""
    return read().decode("utf-8-sig", errors="replace").replace("\r\n", "\n")
