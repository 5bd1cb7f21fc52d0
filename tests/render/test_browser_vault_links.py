"""Every heading and block link of the fixture vaults lands in Chromium on what it names.

Each vault (``tests/fixtures/vault-*``) is copied, configured by ``kbtool init --yes`` alone
and built. Then each link with a ``#`` part to a note, as written in the notes
(``[[Note#Heading]]``, ``[[Note#A#B]]``, ``[[Note#^id]]``, ``[[#Heading]]``,
``[x](Note.md#heading)``, and the link to its origin that an embed ``![[Note#^id]]`` shows),
is clicked on its page: the browser must arrive at the note the link opens, on the element
the link names (the heading of that text, the right one of two with the same words, or the
block with that id), which is the page's ``:target`` and is scrolled into view.

The expected element comes from the notes' Markdown, read here by Obsidian's rules, not
from kbtool: a heading by its text (punctuation left out, in any case), ``#A#B`` the heading
B under A, ``#^id`` the block that ends with ``^id``.
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import shutil
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest

from kbtool.cli import main
from tests._browser import static_server

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent.parent / "fixtures"
VAULTS = sorted(p.name for p in FIXTURES.glob("vault-*"))
HEIGHT = 360  # a short window, so that a link lower on the page must scroll to land
_WIKILINK = re.compile(r"(!?)\[\[(.+?)\]\]")
_MARKDOWN = re.compile(r"(?<![!\]])\[[^\]]*\]\((<[^>]+>|[^)\s]+)\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_BLOCK = re.compile(r"\s\^([A-Za-z0-9-]+)\s*$")
#: the links of a rendered note's body that lead to an element of a note: every link with a #
#: part but those of the page's frame, those to files (a PDF's page) and those a heading holds
#: to itself. Looked for in the whole document, so that a body whose HTML ends the page's
#: <main> early still shows its links here (the next test catches that on its own).
_RENDERED = """() => [...document.querySelectorAll('a[href*="#"]')].filter(a => {
  const url = new URL(a.href);
  const heading = a.closest('h1, h2, h3, h4, h5, h6');
  const itself = heading && decodeURIComponent(url.hash) === '#' + heading.id;
  const frame = a.closest('nav, aside, footer, header, .skip-link');
  return url.pathname.endsWith('.html') && !itself && !frame;
})"""


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Note:
    path: str  # from the vault's root
    headings: tuple[Heading, ...]
    blocks: dict[str, str]  # id -> the block's text, as shown


@dataclass(frozen=True)
class VaultLink:
    """A link with a ``#`` part to a note, as written, and what it must land on."""

    vault: str
    note: str  # the note it is written in
    ordinal: int  # its place among such links of that note
    written: str
    target: str  # the note it opens
    anchor: str  # its # part, decoded

    @property
    def id(self) -> str:
        return f"{self.vault}:{self.note}:{self.written}"


def _notes(root: Path) -> dict[str, Note]:
    notes = {}
    for file in sorted(root.rglob("*.md")):
        rel = file.relative_to(root).as_posix()
        if rel.startswith((".", "Templates/", "模板/")) or "/." in rel:
            continue
        headings, blocks = [], {}
        for line in file.read_text(encoding="utf-8").splitlines():
            if match := _HEADING.match(line):
                headings.append(Heading(len(match.group(1)), match.group(2)))
            elif match := _BLOCK.search(line):
                shown = line[: match.start()].strip()
                blocks[match.group(1)] = re.sub(r"^([-*+]|\d+\.)\s+", "", shown)
        notes[rel] = Note(rel, tuple(headings), blocks)
    return notes


def _by_name(notes: dict[str, Note], reader: str, name: str) -> str:
    """The note a wikilink's name opens: by the end of its path, the shortest path first."""
    wanted = name.strip().removesuffix(".md").lower()
    if not wanted:
        return reader
    fitting = [
        p for p in notes if (p.lower()[:-3] == wanted or p.lower()[:-3].endswith("/" + wanted))
    ]
    assert fitting, f"{reader}: no note named {name!r}"
    return min(fitting, key=lambda p: (p.count("/"), p))


def _by_path(notes: dict[str, Note], reader: str, target: str) -> str:
    """The note a Markdown link opens: relative to the note, else from the root, else by name."""
    if not target:
        return reader
    relative = posixpath.normpath(posixpath.join(posixpath.dirname(reader), target))
    for path in (relative, target):
        if path in notes:
            return path
    return _by_name(notes, reader, target)


def _links(vault: str) -> list[VaultLink]:
    root = FIXTURES / vault
    notes = _notes(root)
    found = []
    for rel in notes:
        written_links: list[tuple[int, str, str, str]] = []
        text = (root / rel).read_text(encoding="utf-8")
        for match in _WIKILINK.finditer(text):
            inner = match.group(2).replace("\\|", "|").split("|", 1)[0]
            name, hash_, anchor = inner.partition("#")
            if hash_ and posixpath.splitext(name)[1].lower() in ("", ".md"):
                target = _by_name(notes, rel, name)
                written_links.append((match.start(), match.group(0), target, anchor))
        for match in _MARKDOWN.finditer(text):
            destination = match.group(1).strip("<>")
            path, hash_, anchor = destination.partition("#")
            path = unquote(path)
            if hash_ and "://" not in path and posixpath.splitext(path)[1] in ("", ".md"):
                target = _by_path(notes, rel, path)
                written_links.append((match.start(), match.group(0), target, unquote(anchor)))
        for ordinal, (_, written, target, anchor) in enumerate(sorted(written_links)):
            found.append(VaultLink(vault, rel, ordinal, written, target, anchor))
    return found


def _key(text: str) -> str:
    """A heading's text as Obsidian compares it: letters and digits only, in any case."""
    kept = [c for c in text.lower() if unicodedata.category(c)[0] in "LN" or c.isspace()]
    return " ".join("".join(kept).split())


def expected(note: Note, anchor: str) -> tuple[str, str, int]:
    """What ``anchor`` names on ``note``: ("block", its text, 0) or ("heading", its text,
    which of the headings with that text it is)."""
    parts = [part.strip() for part in anchor.split("#") if part.strip()]
    if parts[0].startswith("^"):
        return "block", note.blocks[parts[0][1:]], 0
    at, level, end = 0, 0, len(note.headings)
    for part in parts:
        found = next(
            i
            for i in range(at, end)
            if note.headings[i].level > level and _key(note.headings[i].text) == _key(part)
        )
        level = note.headings[found].level
        end = next((i for i in range(found + 1, end) if note.headings[i].level <= level), end)
        at = found
    text = note.headings[at].text
    return "heading", text, sum(h.text == text for h in note.headings[:at])


LINKS = [link for vault in VAULTS for link in _links(vault)]
NOTES = [(vault, note) for vault in VAULTS for note in _notes(FIXTURES / vault)]

#: what does not land yet, and why: each turns into a failure once it does
KNOWN: dict[str, str] = {}


def _cases(kind: str, values: list[Any], ids: list[str]) -> list[Any]:
    """``values`` as parameters, those in :data:`KNOWN` expected to fail, with the reason."""
    cases = []
    for value, id_ in zip(values, ids, strict=True):
        reason = KNOWN.get(f"{kind}{id_}")
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        cases.append(pytest.param(*value, marks=marks, id=id_))
    return cases


def _note_cases(kind: str, notes: list[tuple[str, str]]) -> list[Any]:
    return _cases(kind, notes, [f"{vault}:{note}" for vault, note in notes])


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Each vault built from ``kbtool init --yes`` alone, served: vault -> base URL."""
    with contextlib.ExitStack() as stack:
        bases = {}
        for vault in VAULTS:
            root = tmp_path_factory.mktemp(vault) / vault
            shutil.copytree(FIXTURES / vault, root, ignore=shutil.ignore_patterns("expected-*"))
            assert main(["-C", str(root), "init", "--yes"]) == 0
            assert main(["-C", str(root), "build", "-j", "1"]) == 0
            bases[vault] = stack.enter_context(static_server(root / "site"))
        yield bases


def _url(base: str, note: str) -> str:
    return base + quote(note[: -len(".md")] + ".html")


def test_the_vaults_have_links_of_every_kind() -> None:
    written = " ".join(link.written for link in LINKS if link.vault == "vault-en")
    for kind in ("[[Headings#Usage]]", "#Install]]", "#^para-1]]", "[[#", "](Headings.md#"):
        assert kind in written, kind


@pytest.mark.parametrize(
    ("vault", "note"), _note_cases("inside:", sorted({(k.vault, k.note) for k in LINKS}))
)
def test_a_notes_links_are_inside_its_body(
    browser: Any, sites: dict[str, str], vault: str, note: str
) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(_url(sites[vault], note))
        outside = page.evaluate_handle(_RENDERED).evaluate(
            "links => links.filter(a => !a.closest('main .page-body'))"
            ".map(a => a.getAttribute('href') + ' in ' + a.parentElement.tagName)"
        )
    finally:
        context.close()
    assert not outside, f"{note}: the browser put these links outside its body:\n" + "\n".join(
        outside
    )


@pytest.mark.parametrize(("vault", "note"), _note_cases("in view:", NOTES))
def test_a_heading_opened_from_another_page_stays_in_view(
    browser: Any, sites: dict[str, str], vault: str, note: str
) -> None:
    """What a link from elsewhere does: the note opened at each of its headings stays
    there once all it shows has loaded (an embedded file must not pull the page away)."""
    context = browser.new_context(viewport={"width": 1280, "height": HEIGHT})
    moved = []
    try:
        page = context.new_page()
        page.goto(_url(sites[vault], note))
        ids = page.eval_on_selector_all(
            "main .page-body :is(h1, h2, h3, h4, h5, h6)[id]", "hs => hs.map(h => h.id)"
        )
        for id_ in ids:
            page.goto("about:blank")  # each heading a page load of its own
            page.goto(_url(sites[vault], note) + "#" + quote(id_))
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(300)
            top = page.evaluate(
                "id => document.getElementById(id).getBoundingClientRect().top", id_
            )
            if not 0 <= top < HEIGHT:
                focused = page.evaluate("() => document.activeElement.outerHTML.slice(0, 120)")
                moved.append(f"#{id_}: its top at {top:.0f} px; focus on {focused}")
    finally:
        context.close()
    assert not moved, f"{note}: headings scrolled out of view after loading:\n" + "\n".join(moved)


@pytest.mark.parametrize("link", _cases("", [(k,) for k in LINKS], [k.id for k in LINKS]))
def test_a_heading_or_block_link_lands_on_what_it_names(
    browser: Any, sites: dict[str, str], link: VaultLink
) -> None:
    base = sites[link.vault]
    notes = _notes(FIXTURES / link.vault)
    kind, text, nth = expected(notes[link.target], link.anchor)
    context = browser.new_context(viewport={"width": 1280, "height": HEIGHT})
    try:
        page = context.new_page()
        page.goto(_url(base, link.note))
        page.wait_for_load_state("networkidle")  # as a reader clicks: on a page that has settled
        rendered = page.evaluate_handle(_RENDERED)
        count = rendered.evaluate("links => links.length")
        on_note = sum(1 for other in LINKS if (other.vault, other.note) == (link.vault, link.note))
        assert count == on_note, f"{link.note}: {count} links rendered, {on_note} written"
        anchor = rendered.evaluate_handle(f"links => links[{link.ordinal}]").as_element()
        href = anchor.evaluate("a => a.href")
        anchor.click()
        page.wait_for_url(href)
        page.wait_for_load_state("networkidle")
        landed = page.evaluate(
            """() => {
              const id = decodeURIComponent(location.hash.slice(1));
              const el = document.getElementById(id);
              if (!el) return {url: location.href, id};
              const box = el.getBoundingClientRect();
              const same = [...document.querySelectorAll('main .page-body ' + el.tagName)]
                .filter(h => h.innerText.trim() === el.innerText.trim());
              return {url: location.href, id, tag: el.tagName.toLowerCase(),
                      text: el.innerText.trim(), nth: same.indexOf(el),
                      target: document.querySelector(':target') === el,
                      top: box.top, bottom: box.bottom, height: innerHeight};
            }"""
        )
    finally:
        context.close()
    where = f"{link.note}: {link.written} went to {landed}"
    assert landed["url"].split("#")[0] == _url(base, link.target), where
    assert "tag" in landed, f"{where}: no element has that id"
    if kind == "block":
        assert landed["text"] == text, where
    else:
        assert re.fullmatch(r"h[1-6]", landed["tag"]) and landed["text"] == text, where
        assert landed["nth"] == nth, f"{where}: not heading {nth + 1} of those named {text!r}"
    assert landed["target"], where
    assert 0 <= landed["top"] < landed["height"] and landed["bottom"] > 0, f"{where}: not in view"
