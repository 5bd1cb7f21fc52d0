"""Every value the stages reuse between builds or keystrokes, declared once: its name, what
its key is made of, and where it lives (with its record kind when it is also stored, whose
codec it has; ``store/records.py`` declares those). A stage asks the run's
:class:`~kbtool.reuse.values.Reuse` for a value with the key it computes now; a value held
under another key is made again. ``docs/architecture.md`` lists them from this table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbtool.diagnostics import Diagnostic
from kbtool.model import Page
from kbtool.reuse.values import Reusable

if TYPE_CHECKING:
    from collections.abc import Hashable

    from kbtool.render.card import Ref
    from kbtool.render.changes import Change
    from kbtool.render.context import Frame
    from kbtool.render.fill import OwnFill
    from kbtool.render.markdown import PageBody
    from kbtool.render.site import Listing, PageInfo
    from kbtool.stages.check_state import CheckState
    from kbtool.stages.facts import Facts
    from kbtool.stages.planned import Planned
    from kbtool.stages.publish.published import Published, Spare
    from kbtool.stages.site_state import SiteState
    from kbtool.wiki import Wiki

PAGES: Reusable[str, tuple[Page, PageBody | None]] = Reusable(
    "pages",
    "the file's digest, its kind, the page's and body's record keys",
    "process and store",
    "page",
)
STORED: Reusable[tuple[str, bool, int], bool] = Reusable(
    "stored",
    "the page's and body's record keys, its kind, whether search texts are asked for, the"
    " generation of the store's known keys",
)
CHECK_KEYS: Reusable[tuple[str, str], str] = Reusable(
    "check keys", "the settings and the date, the file's digest"
)
PAGE_FACTS: Reusable[str, Facts] = Reusable(
    "facts", "the page's check record key", "process and store", "facts"
)
DIAGNOSTICS: Reusable[tuple[str, int], list[Diagnostic]] = Reusable(
    "diagnostics",
    "the page's check record key, the generation of the store's known keys",
    "process and store",
    "check",
)
STAND_INS: Reusable[Facts, Page] = Reusable("stand-ins", "the page's facts")
CHECK_STATE: Reusable[tuple[str, int], CheckState] = Reusable(
    "check state",
    "(whole) the settings and the date, the generation of the store's known keys: every"
    " page's digest, record key, facts, stand-in and diagnostics as the last check left them",
)
CHECK_WIKI: Reusable[None, Wiki] = Reusable(
    "check wiki", "(whole) its resolution indexes hold while every page's facts are the same"
)
INFO_KEYS: Reusable[tuple[str, str], str] = Reusable("info keys", "the file's digest, the settings")
INFOS: Reusable[str, PageInfo] = Reusable(
    "infos", "the page's site-facts record key", "process and store", "info"
)
LISTINGS: Reusable[tuple[str, Ref], Listing] = Reusable(
    "listings",
    "the page's site-facts record key, the page as other pages show it",
    "process and store",
    "listing",
)
SITE_STATE: Reusable[tuple[str, int], SiteState] = Reusable(
    "site state",
    "(whole) the settings, the generation of the store's known keys: every page's digest,"
    " site-facts record key, ref and listing as the last build left them",
)
REFS: Reusable[tuple[str, str], Ref] = Reusable("refs", "the page's title and type")
HISTORY: Reusable[str, str] = Reusable(
    "history",
    "(whole) the repository, the folders logged, the fingerprint of git's HEAD",
    "process and store",
    "history",
)
CHANGES: Reusable[tuple[str | None, str], list[Change]] = Reusable(
    "changes", "(whole) the log, the digest of every page's listing"
)
#: the digest, and each listing's own digest by path, with the listing (``stages/listed.py``)
LISTED: Reusable[
    tuple[tuple[str, ...], tuple[Listing, ...]], tuple[str, dict[str, tuple[Listing, bytes]]]
] = Reusable("listed", "(whole) every page's listing")
#: the listings the output rows' inputs were last set from, by path (``stages/output_rows.py``)
LISTED_SET: Reusable[None, dict[str, Listing]] = Reusable(
    "listed set", "(whole) the listings the output rows' inputs were set from"
)
SIMILAR_LISTS: Reusable[str, dict[str, tuple[str, ...]]] = Reusable(
    "similar lists", "(whole) the digest of every page's listing"
)
OUTPUTS: Reusable[tuple[str, str], tuple[Planned, Planned]] = Reusable(
    "page outputs",
    "the keys of the page's HTML and link preview (the engine's `page keys`,"
    " `stages/page_outputs.py`)",
)
FRAMES: Reusable[Hashable, Frame | None] = Reusable(
    "page frames",
    "what the page's key is made of but its embeds, whether its body has headings and"
    " diagrams: its HTML around its body, of the pages a session rendered last",
)
OWN_FILLS: Reusable[Hashable, OwnFill] = Reusable(
    "own fills",
    "what the page's key is made of but its embeds: its body with its own holes filled (its"
    " links, images and cells; not its embeds), of the pages a session rendered last",
)
SITE_RECORD: Reusable[str, dict[str, Published]] = Reusable(
    "published",
    "(whole) the site folder; valid while the store's output keys are its own",
    "process and store",
    "published",
)
SPARE: Reusable[str, Spare] = Reusable(
    "spare",
    "(whole) the site folder; valid while the folder is what it was kept as",
    "process and store",
    "spare",
)

#: every declaration, in the order the stages first ask for them
ALL: tuple[Reusable[Any, Any], ...] = (
    PAGES,
    STORED,
    CHECK_KEYS,
    PAGE_FACTS,
    DIAGNOSTICS,
    STAND_INS,
    CHECK_STATE,
    CHECK_WIKI,
    INFO_KEYS,
    INFOS,
    LISTINGS,
    SITE_STATE,
    REFS,
    HISTORY,
    CHANGES,
    LISTED,
    SIMILAR_LISTS,
    OUTPUTS,
    FRAMES,
    OWN_FILLS,
    LISTED_SET,
    SITE_RECORD,
    SPARE,
)
