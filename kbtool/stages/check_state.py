"""What a check made of every page, held by a session for its next check (see
:mod:`kbtool.stages.check_start`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from kbtool.diagnostics import Diagnostic
from kbtool.model import Page
from kbtool.page_facts import Basics
from kbtool.stages.facts import Facts


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
