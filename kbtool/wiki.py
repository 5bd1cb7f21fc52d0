"""The parsed wiki: every page by path, lookups by stem and title, and link resolution.

Resolution is lexical first: a target is joined to the page's folder and normalised without
touching the disk, so a path that is absolute or climbs above the repository is refused before
anything is opened. Only then are pages looked up, and other files merely stat-ed. In a vault
(:attr:`Wiki.obsidian`) links resolve as Obsidian resolves them (:mod:`kbtool.obsidian_links`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property
from typing import Any, NamedTuple, TypeVar
from urllib.parse import unquote

from kbtool import obsidian_links
from kbtool.config import WHOLE, Config
from kbtool.discover import Unreadable, left_out
from kbtool.link_status import Status as Status  # where every module has found it
from kbtool.link_status import stat_target
from kbtool.model import Link, LinkKind, Page
from kbtool.page_facts import Basics, basic_names, near_fact

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")
_DRIVE = re.compile(r"^[a-zA-Z]:[\\/]")


@dataclass(frozen=True, slots=True)
class Target:
    """Where a link leads. ``path`` is repository-relative; ``page`` is set for pages."""

    status: Status
    path: str | None = None
    anchor: str | None = None
    page: Page | None = None
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ResolvedLink:
    page: Page
    link: Link
    target: Target


class ShownLink(NamedTuple):
    """A resolved link as far as the site shows it, small enough to send between
    processes: the page it is on, its kind and target as written, what resolving it found,
    and the page it reached (None unless it did, unambiguously or not)."""

    page: str
    kind: LinkKind
    target: str
    status: Status
    to: str | None

    def edge(self) -> tuple[str, str, str] | None:
        """(from, to, link kind) when the link reached another page."""
        if self.to is None or self.to == self.page:
            return None
        return (self.page, self.to, self.kind)

    @classmethod
    def of(cls, item: ResolvedLink) -> ShownLink:
        target = item.target
        reached = target.page is not None and target.status in (Status.OK, Status.AMBIGUOUS)
        to = target.page.path if reached and target.page is not None else None
        return cls(item.page.path, item.link.kind, item.link.target, target.status, to)


def is_external(target: str) -> bool:
    """``https:``, ``mailto:``, ``//host``... but not a Windows drive or an absolute path."""
    if ":" not in target:  # most links of a wiki: decided without a regular expression
        return target.startswith("//")
    return bool(_SCHEME.match(target)) and not _DRIVE.match(target) or target.startswith("//")


#: An index that resolution builds from the pages' paths, kinds, titles and slugs.
_T = TypeVar("_T")


def _grouped(items: Iterable[_T], name: Callable[[_T], str]) -> dict[str, list[_T]]:
    """``items`` grouped by ``name(item)``, case-insensitively (wikilinks ignore case)."""
    index: dict[str, list[_T]] = {}
    for item in items:
        index.setdefault(name(item).lower(), []).append(item)
    return index


@dataclass
class Wiki:
    config: Config
    #: by path, in sorted order; a build's may read each page only when it is asked for
    pages: Mapping[str, Page]
    unreadable: list[Unreadable] = field(default_factory=list)
    #: The date `updated` is compared with; fixed by tests.
    today: date = field(default_factory=date.today)
    #: The pages whose links and own diagnostics are wanted (None: all). The others may be
    #: stand-ins that carry only what links to them need: path, kind, title, slugs.
    checked: frozenset[str] | None = None
    #: The date each source page was ingested (``source-date``), for the sources that are not
    #: checked; None: read from the checked pages' files.
    ingested: Mapping[str, date] | None = None
    #: Each page's type, tags and `updated`, for the pages that are stand-ins (the project
    #: rules read them); None: read from the pages.
    basics: Mapping[str, Basics] | None = None
    _stats_seen: dict[str, Status] = field(default_factory=dict, repr=False)
    # (folder, raw target) -> (status, path, anchor): pages of one folder share most targets.
    _resolved_paths: dict[tuple[str, str], tuple[Status, str | None, str | None]] = field(
        default_factory=dict, repr=False
    )
    # The resolution indexes made so far, by name: one dict shared by the wikis of the same
    # pages (a copy made for checking some of them, say), so that each is made once.
    _indexes: dict[str, Any] = field(default_factory=dict, repr=False)
    # page -> the facts of other pages its checks read, as resolution and the hints asked
    _reads: dict[str, set[str]] = field(default_factory=dict, repr=False)
    # A vault's files by name, read once a check (obsidian_links.vault_files)
    _files: dict[str, Any] = field(default_factory=dict, repr=False)

    def with_pages(self, pages: Mapping[str, Page]) -> Wiki:
        """A wiki of ``pages``, all checked, that reuses what this one resolved and indexed:
        valid because resolution depends only on which paths are pages, and on their kinds,
        titles and slugs, and ``pages`` are this one's (or the pages these stand in for)."""
        if list(pages) != list(self.pages):
            raise ValueError("with_pages needs the same page paths")
        wiki = Wiki(self.config, pages, self.unreadable, self.today)
        wiki._resolved_paths, wiki._stats_seen = self._resolved_paths, self._stats_seen
        wiki._files = self._files
        return self.share_indexes(wiki)

    def share_files(self, other: Wiki) -> None:
        """Take ``other``'s vault files by name (read, or to be read, once for both): valid
        while no file but notes came or went between the two."""
        self._files = other._files

    def checking(self, paths: Iterable[str]) -> Wiki:
        """This wiki with ``paths`` as its checked pages, sharing what it resolved, indexed
        and asked of the disk."""
        return self.share_indexes(replace(self, checked=frozenset(paths), _reads={}))

    def share_indexes(self, wiki: Wiki) -> Wiki:
        """``wiki``, sharing the indexes resolving wikilinks and hints with this one (made by
        either): valid for a wiki whose pages have the same paths, kinds, titles and slugs."""
        wiki._indexes = self._indexes
        return wiki

    # -- the facts view: what the checks of a page read of other pages, recorded as read ----
    def _read(self, reader: str, *facts: str) -> None:
        self._reads.setdefault(reader, set()).update(facts)

    def reads(self, path: str) -> set[str]:
        """The names of the facts of other pages that resolving and checking ``path``'s
        links read (``path:``, ``stat:``, ``stem:``, ``title:``, ``near:``, ``stems``):
        what an incremental check compares to know whether to check the page again."""
        return set(self._reads.get(path, ()))

    def read_fact(self, reader: str, name: str) -> None:
        """Record that a check of ``reader`` read the fact ``name`` (a project rule's
        ``page:``, ``tag:`` or ``type:``)."""
        self._read(reader, name)

    def basics_of(self, path: str) -> Basics | None:
        """The type, tags and `updated` of the page at ``path`` (None: no such page)."""
        page = self.pages.get(path)
        if page is None:
            return None
        if self.basics is not None and path in self.basics:
            return self.basics[path]
        return Basics.of(page)

    def paths_with(self, name: str) -> tuple[str, ...]:
        """The pages with the basic ``name``: ``tag:T`` (tagged T) or ``type:T``, by path."""
        return self._made("by_basic", self._by_basic).get(name, ())

    def _by_basic(self) -> dict[str, tuple[str, ...]]:
        index: dict[str, list[str]] = {}
        for path in self.pages:
            basics = self.basics_of(path)
            for name in basic_names(basics) if basics else ():
                index.setdefault(name, []).append(path)
        return {name: tuple(paths) for name, paths in index.items()}

    def pages_with_stem(self, reader: str, stem: str) -> list[Page]:
        """The pages whose file name (without ``.md``) is ``stem``, in any case."""
        self._read(reader, f"stem:{stem.lower()}")
        return [self.pages[path] for path in self.paths_by_stem.get(stem.lower(), ())]

    def every_stem(self, reader: str) -> Mapping[str, list[str]]:
        """Every page's stem, with the paths of its pages (a hint compares a name with all
        of them)."""
        self._read(reader, "stems")
        return self.paths_by_stem

    def stems_in(self, reader: str, folder: str, start: str) -> tuple[dict[str, str], list[str]]:
        """The pages of ``folder`` by stem, and the stems there that start with ``start``: the
        read is of those alone (a page added elsewhere in the folder changes no hint)."""
        self._read(reader, near_fact(folder, start))
        return self.by_folder.get(folder, {}), self.by_folder_start.get((folder, start), [])

    def in_repository(self, reader: str, path: str) -> Status:
        """Whether the repository-relative ``path`` (normalised) is a page (OK), a folder, another
        file (OK), or nothing (MISSING); what it read is recorded as ``reader``'s."""
        if path in self.pages:
            self._read(reader, f"path:{path}")
            return Status.OK
        self._read(reader, f"path:{path}", f"stat:{path}")
        return self._stat(path)

    def make_indexes(self) -> None:
        """Make now every index that resolving a link or a hint may ask for: a session reads
        ahead what its first rebuild would otherwise make while the author waits."""
        _ = (self.paths_by_stem, self.by_title, self.by_folder, self.by_folder_start)  # made
        self._made("by_basic", self._by_basic)
        if self.obsidian:
            self._vault_files()

    def shared(self, name: str, make: Callable[[], _T]) -> _T:
        """``make()``, made once for this wiki and the wikis that share its indexes (valid
        only for a value that depends on the pages' facts alone)."""
        return self._made(f"shared:{name}", make)

    def _made(self, name: str, make: Callable[[], _T]) -> _T:
        if name not in self._indexes:
            self._indexes[name] = make()
        return self._indexes[name]  # type: ignore[no-any-return]

    def add_stats(self, stats: Mapping[str, Status]) -> None:
        """Take what another process asked of the disk (see :attr:`stats`)."""
        self._stats_seen.update(stats)

    @property
    def obsidian(self) -> bool:
        """Whether links resolve as Obsidian's do: ``flavor = "obsidian"``, or ``wiki = "."``."""
        return getattr(self.config, "flavor", "") == "obsidian" or self.config.wiki == WHOLE

    @property
    def wiki_pages(self) -> list[Page]:
        return [p for p in self.pages.values() if p.kind == "wiki"]

    @cached_property
    def checked_pages(self) -> list[Page]:
        if self.checked is None:
            return list(self.pages.values())
        return [self.pages[path] for path in self.pages if path in self.checked]

    @property
    def paths_by_stem(self) -> dict[str, list[str]]:
        """The pages' paths by their stem: made of the paths alone, so that a hint or a link
        by name reads only the pages it finds."""
        return self._made("paths_by_stem", lambda: _grouped(self.pages, obsidian_links.note_name))

    @property
    def by_title(self) -> dict[str, list[Page]]:
        return self._made("by_title", lambda: _grouped(self.pages.values(), lambda p: p.title))

    @property
    def by_folder(self) -> dict[str, dict[str, str]]:
        """folder -> {file stem: path}, for 'did you mean' hints."""
        return self._made("by_folder", self._by_folder)

    def _by_folder(self) -> dict[str, dict[str, str]]:
        index: dict[str, dict[str, str]] = {}
        for path in self.pages:  # a page's stem is its file name's
            folder, name = posixpath.split(path)
            index.setdefault(folder, {})[name.removesuffix(".md")] = path
        return index

    @property
    def by_folder_start(self) -> dict[tuple[str, str], list[str]]:
        """(folder, first two letters) -> file stems: the names a fuzzy hint compares."""
        return self._made("by_folder_start", self._by_folder_start)

    def _by_folder_start(self) -> dict[tuple[str, str], list[str]]:
        index: dict[tuple[str, str], list[str]] = {}
        for folder, stems in self.by_folder.items():
            for stem in stems:
                index.setdefault((folder, stem[:2]), []).append(stem)
        return index

    @cached_property
    def edges(self) -> list[tuple[str, str, str]]:
        """(from, to, link kind) for every link between two different pages, without repeats."""
        found = (ShownLink.of(item).edge() for item in self.links)
        return list(dict.fromkeys(edge for edge in found if edge is not None))

    @cached_property
    def links(self) -> list[ResolvedLink]:
        """Every link of every checked page, resolved once."""
        return [
            ResolvedLink(page, link, self.resolve(page, link))
            for page in self.checked_pages
            for link in page.links
        ]

    def resolve(self, page: Page, link: Link) -> Target:
        """Where ``link`` of ``page`` leads; the facts of other pages this read are recorded
        as ``page``'s (see :meth:`reads`)."""
        if link.kind == "wikilink":
            return self._resolve_wikilink(page.path, link.target)
        if not link.target.strip().partition("#")[0].partition("?")[0]:  # `#anchor`: this page
            fragment = link.target.strip().partition("#")[2]
            return Target(Status.OK, page.path, unquote(fragment) if fragment else None, page)
        key = (posixpath.dirname(page.path), link.target)
        if key not in self._resolved_paths:
            self._resolved_paths[key] = self._resolve_path(*key)
        status, path, anchor = self._resolved_paths[key]
        target_page = self.pages.get(path) if path and status is Status.OK else None
        if path is not None and status not in (Status.EXTERNAL, Status.OUTSIDE):
            # whether a page is there (its kind, title, slugs); else what the disk says
            self._read(page.path, f"path:{path}", *(() if target_page else (f"stat:{path}",)))
        if status is Status.MISSING and self.obsidian:  # from the vault's root, or by name
            written = unquote(link.target.strip().partition("#")[0].partition("?")[0])
            return self._resolve_by_name(page.path, written.replace("\\", "/"), anchor)
        return Target(status, path, anchor, target_page)

    def _resolve_path(self, folder: str, target: str) -> tuple[Status, str | None, str | None]:
        raw = target.strip()
        if is_external(raw):
            return Status.EXTERNAL, None, None
        raw, _, anchor = raw.partition("#")
        raw = raw.partition("?")[0]
        decoded_anchor = unquote(anchor) if anchor else None
        path = unquote(raw).replace("\\", "/")
        if path.startswith("/") or re.match(r"^[a-zA-Z]:/", path):  # POSIX or Windows absolute
            return Status.OUTSIDE, path, None
        joined = posixpath.normpath(posixpath.join(folder, path))
        if joined == ".." or joined.startswith("../"):
            return Status.OUTSIDE, joined, None
        if joined in self.pages:
            return Status.OK, joined, decoded_anchor
        return self._stat(joined), joined, decoded_anchor

    def _vault_files(self) -> dict[str, Any]:
        """A vault's files by name, read once for this wiki and those sharing them."""
        if not self._files:
            self._files.update(obsidian_links.vault_files(self.config.root, left_out(self.config)))
        return self._files

    def _stat(self, path: str) -> Status:
        if path not in self._stats_seen:
            self._stats_seen[path] = stat_target(str(self.config.root), path)
        return self._stats_seen[path]

    @property
    def stats(self) -> dict[str, Status]:
        """Every non-page path a link led to, with what the disk said about it."""
        return dict(self._stats_seen)

    def _resolve_wikilink(self, reader: str, text: str) -> Target:
        name, _, anchor = text.partition("#")
        if not name.strip():  # `[[#Heading]]`: a part of this page
            return Target(Status.OK, reader, anchor.strip() or None, self.pages.get(reader))
        if self.obsidian:
            return self._resolve_by_name(reader, name.strip(), anchor.strip() or None)
        name = name.strip().removesuffix(".md")
        self._read(reader, f"stem:{name.lower()}", f"title:{name.lower()}")
        matches = self.pages_with_stem(reader, name) or self.by_title.get(name.lower()) or []
        if len(matches) > 1:  # Prefer a wiki page over a source page of the same name.
            wiki_matches = [p for p in matches if p.kind == "wiki"]
            matches = wiki_matches or matches
        anchor_text = anchor.strip() or None
        if not matches:
            return Target(Status.MISSING, None, anchor_text)
        self._read(reader, f"path:{matches[0].path}")  # its kind and slugs
        if len(matches) > 1:
            paths = tuple(sorted(p.path for p in matches))
            return Target(Status.AMBIGUOUS, matches[0].path, anchor_text, matches[0], paths)
        return Target(Status.OK, matches[0].path, anchor_text, matches[0])

    def _resolve_by_name(self, reader: str, linkpath: str, anchor: str | None) -> Target:
        """A note by its name and any folders before it, else another file by its name."""
        named = self.pages_with_stem(reader, obsidian_links.note_name(linkpath))
        # Which note opens depends on the reader's folder alone, and on the pages' paths: the
        # choice is kept with the indexes (a session's saves share them while those hold).
        chosen: dict[tuple[str, str], obsidian_links.Choice] = self._made("note-chosen", dict)
        key = (posixpath.dirname(reader), linkpath)
        found = chosen.get(key)
        if found is None:
            notes = [p.path for p in named]
            chosen[key] = found = obsidian_links.choose(linkpath, reader, notes, note=True)
        if found.path is None:
            return self._resolve_file(reader, linkpath, anchor)
        self._read(reader, f"path:{found.path}")  # its kind and slugs
        status = Status.AMBIGUOUS if found.ties else Status.OK
        return Target(status, found.path, anchor, self.pages[found.path], found.ties)

    def _resolve_file(self, reader: str, linkpath: str, anchor: str | None) -> Target:
        """A file that is not a page, by its name (an attachment, a canvas, a PDF). What the
        disk says of each file it may be, and of where a new one would go, is read."""
        found, watched = obsidian_links.choose_file(self._vault_files(), linkpath, reader)
        self._read(reader, *(f"{fact}:{path}" for path in watched for fact in ("path", "stat")))
        statuses = [self._stat(path) for path in watched]  # each kept, for the next check
        if found.path is None or statuses[-1] is not Status.OK:
            return Target(Status.MISSING, None, anchor)
        status = Status.AMBIGUOUS if found.ties else Status.OK
        return Target(status, found.path, anchor, None, found.ties)
