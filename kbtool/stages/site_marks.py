"""Which pages the site facts stage makes again after a check (``stages/siteinfo.py``),
marked in the store before the link table changes.

What the site shows of a page changes with its file, or with what its links reach. A page
checked again only because it read a fact that changed (an anchor of a page it links to),
whose links reach what they reached, is shown as it was: not marked. A page whose file
changed but whose title, type and links did not is shown by the pages it is joined to as
before: marked *alone*, only its own site facts are made again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbtool.stages.facts import Facts
from kbtool.store.db import Store


def site_marks(
    store: Store,
    parts: Mapping[str, Any],
    changed: set[str],
    facts: tuple[Mapping[str, Facts | None], Mapping[str, Facts]],
    pages: int,
) -> tuple[set[str], set[str]]:
    """``(shown anew, alone)`` among the pages checked now (``parts``: their part of the link
    table, as ``Store.set_links`` takes it), of which ``changed`` had their file change;
    ``facts``: every page's facts before the check and the checked pages' now."""
    rest = {path: part for path, part in parts.items() if path not in changed}
    alone = _shown_alike(store, parts, changed, facts, pages)
    return ((changed & set(parts)) - alone) | store.links_changed(rest), alone


def _shown_alike(
    store: Store,
    parts: Mapping[str, Any],
    changed: set[str],
    facts: tuple[Mapping[str, Facts | None], Mapping[str, Facts]],
    pages: int,
) -> set[str]:
    """The pages among ``changed`` that other pages show as before: the same kind, title and
    type, and the same part of the link table. None when most pages changed (a cold build:
    the site facts stage then makes every page's anyway)."""
    own = {path: part for path, part in parts.items() if path in changed}
    if 2 * len(own) > pages:
        return set()
    old_facts, new_facts = facts

    def alike(path: str) -> bool:
        old, new = old_facts.get(path), new_facts.get(path)
        return old is not None and new is not None and old.shown() == new.shown()

    candidates = {path: part for path, part in own.items() if alike(path)}
    return set(candidates) - store.links_changed(candidates)
