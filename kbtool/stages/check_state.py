"""What a check made of every page, held by a session for its next check (see
:mod:`kbtool.stages.check_start`).

A check started from the store leaves most pages' values to be read when asked for; the
next check patches dictionaries of them. They are made whole when the session settles
(:func:`kbtool.stages.check_start.settle`), after its answer is out: an editor's first
diagnostics do not wait for every page's stand-in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from typing import TypeVar

from kbtool.diagnostics import Diagnostic
from kbtool.model import Page
from kbtool.page_facts import Basics
from kbtool.stages.facts import Facts

V = TypeVar("V")


@dataclass(frozen=True)
class CheckState:
    """Every page's values as the last check left them, by path in the snapshot's order."""

    #: the content digests the check ran on
    digests: dict[str, str]
    #: each page's check record key, as stored
    keys: dict[str, str]
    #: each page's facts, as stored
    facts: Mapping[str, Facts]
    #: the wiki's pages by path, sorted: stand-ins, but for those in ``real``
    pages: Mapping[str, Page]
    #: the pages checked, which ``pages`` holds as parsed (the others are stand-ins)
    real: frozenset[str]
    ingested: Mapping[str, date]
    basics: Mapping[str, Basics]
    #: each page's own diagnostics, as stored
    own: dict[str, list[Diagnostic]]

    def whole(self) -> CheckState:
        """This state with every mapping a dictionary, as the next check patches it."""
        return replace(
            self,
            facts=_whole(self.facts),
            pages=_whole(self.pages),
            ingested=_whole(self.ingested),
            basics=_whole(self.basics),
        )


def _whole(values: Mapping[str, V]) -> Mapping[str, V]:
    """``values`` as a dictionary (those read when asked for, read in one batch)."""
    return values if isinstance(values, dict) else dict(values.items())
