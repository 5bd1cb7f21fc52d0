"""What every output of one build shares: the wiki, what the site shows of each page, cell
results, UI strings, and the variables every template gets."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from kbtool.config import Config
from kbtool.execute.results import PageResult
from kbtool.render import urls
from kbtool.render.changes import Change
from kbtool.render.embeds import PageEmbeds, Shown
from kbtool.render.fill import OwnFill
from kbtool.render.i18n import translator
from kbtool.render.markdown import PageBody
from kbtool.render.nav import NARROW, WIDE, inline_count
from kbtool.render.site import Listing, PageInfo
from kbtool.render.vault import home_note, is_vault
from kbtool.wiki import Wiki

#: a page's HTML before and after its body
Frame = tuple[str, str]
#: ``frames(page, made_of, make)``: the page's frame, held while made of what equals
#: ``made_of``, else ``make()``; None: the page is rendered whole
Frames = Callable[[str, Hashable, Callable[[], Frame | None]], Frame | None]
#: ``own_fills(page, made_of, make)``: the page's body with its own holes filled, held alike
OwnFills = Callable[[str, Hashable, Callable[[], OwnFill]], OwnFill]

#: what a context makes of its settings and listings alone (its cached properties)
_MADE_OF_BOTH = frozenset(
    ("vault", "home_note", "_nav_type_names", "nav_inline", "_common_key", "common_key_bytes")
)


@dataclass(frozen=True)
class SiteContext:
    config: Config
    wiki: Wiki
    #: what the site shows of each page beyond its body: read when a page is rendered
    infos: Mapping[str, PageInfo]
    #: what the indexes and the graph show of every page
    listings: Mapping[str, Listing]
    results: dict[str, PageResult]
    #: the bodies of the pages to render, rendered when they were parsed, with holes to fill
    bodies: Mapping[str, PageBody] = field(default_factory=dict)
    #: each page's similar pages (:mod:`kbtool.render.similar`), by path
    similar: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: the recent changes, newest first (:mod:`kbtool.render.changes`)
    changes: tuple[Change, ...] = ()
    #: each page that shows notes in place: what its embeds show (``stages/embeds.py``)
    embeds: Mapping[str, PageEmbeds] = field(default_factory=dict)
    #: the embeds of the pages to render, made already, by their key
    #: (:func:`kbtool.render.embeds.embed_key`)
    shown: Mapping[str, Shown] = field(default_factory=dict)
    #: where the pages rendered now keep their frames (None: each page rendered whole)
    frames: Frames | None = None
    #: where they keep their bodies with their own holes filled (None: filled whole)
    own_fills: OwnFills | None = None

    def but(self, **changes: Any) -> SiteContext:
        """This context with ``changes`` to what it holds beside the settings and the
        listings, keeping what it made of those two (each a pass over every page, which a
        save would otherwise make again for each copy)."""
        if changes.keys() & {"config", "listings"}:
            raise ValueError("a context of other settings or listings makes its own")
        copy = replace(self, **changes)
        copy.__dict__.update((k, v) for k, v in self.__dict__.items() if k in _MADE_OF_BOTH)
        return copy

    @property
    def t(self) -> Callable[..., str]:
        return translator(self.config.language)

    @property
    def title(self) -> str:
        return self.config.site_title

    def type_label(self, name: str) -> str:
        """What the site calls page type ``name`` (``type-labels``, else the name itself)."""
        return self.config.type_labels.get(name, name)

    @cached_property
    def vault(self) -> bool:
        """Whether the site is an Obsidian vault's (:func:`kbtool.render.vault.is_vault`)."""
        return is_vault(self.config)

    @cached_property
    def home_note(self) -> str | None:
        """The vault's home note, its front page (:func:`kbtool.render.vault.home_note`)."""
        return home_note(self.config, self.listings)

    def type_names(self) -> list[str]:
        """The page types with a page of their own: every configured type, then the others
        the pages use; in a vault, only the types its notes use."""
        used = {item.card.type for item in self.listings.values()} - {"", "source"}
        configured = list(self.config.types)
        if self.vault:
            configured = [name for name in configured if name in used]
        return configured + sorted(used - set(self.config.types))

    def nav_types(self) -> list[tuple[str, str]]:
        """(label, URL from the site root) of each configured page type; in a vault, of each
        type its notes use."""
        names = self._nav_type_names
        return [(self.type_label(name), urls.type_output(name)) for name in names]

    @cached_property
    def _nav_type_names(self) -> tuple[str, ...]:
        return tuple(self.type_names()) if self.vault else self.config.types

    @cached_property
    def nav_inline(self) -> tuple[int, int]:
        """How many page types the navigation shows in its line on a laptop and on a wide
        screen (:mod:`kbtool.render.nav`); the rest are in its menu."""
        links = ("folders", "graph", "unresolved") if self.vault else ("sources", "graph")
        fixed = [self.t(key) for key in ("home", *links, "nav_more")]
        labels = [label for label, _ in self.nav_types()]
        narrow, wide = (inline_count(self.title, fixed, labels, w) for w in (NARROW, WIDE))
        return narrow, wide

    def template_vars(self, output: str, page_title: str, **extra: Any) -> dict[str, Any]:
        """The variables of ``base.html`` for a page written at ``output``."""
        base: dict[str, Any] = {
            "t": self.t,
            "root": urls.root_of(output),
            "site_title": self.title,
            "page_title": page_title,
            "nav_types": self.nav_types(),
            "nav_inline": self.nav_inline,
            "type_label": self.type_label,
            "description": "",
            "search_page": False,
            # where pages live, for preview.js: the links it previews lead there
            "page_folders": " ".join((*self.config.wiki_folders, self.config.sources)),
            # a vault's navigation: its folders and its notes not created yet
            "nav_vault": self.vault,
        }
        base.update(extra)
        return base

    def common_key(self) -> tuple[Any, ...]:
        """What every page's key shares: every setting (the renderer's code is in every
        output record's key: :data:`kbtool.store.records.OUTPUT`)."""
        return self._common_key

    @cached_property
    def common_key_bytes(self) -> bytes:
        """:meth:`common_key` as bytes, made once for every page's key."""
        return repr(self.common_key()).encode()

    @cached_property
    def _common_key(self) -> tuple[Any, ...]:
        if self.vault:  # every page shows the types in the navigation, the home note its own
            return (self.config.fingerprint(), self._nav_type_names, self.home_note)
        return (self.config.fingerprint(),)
