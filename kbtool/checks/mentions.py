"""KB306: a page names another page (its title, or an entry of its ``aliases``) in plain text
without linking it, as Obsidian's "unlinked mentions" shows.

Chinese has no spaces between words, so a name is found anywhere in the text, as a whole:
names of three characters or more, the longest first where two overlap (``多头注意力机制``
is one mention of that page, not of ``注意力机制``); a name that begins or ends with a Latin
letter or digit must stand at a word boundary there (``Transformer`` is not found in
``Transformers``). Letters match in any case, except in a short all-capital name
(``GPT``, ``RNN``), which must be written as it is. A Latin name next to a capitalised word
is part of a longer name, not a mention (``Transformer`` in ``Vision Transformer`` or
``Generative Pre-trained Transformer``, ``Action Chunking`` in ``Action Chunking
Transformer``), unless that word is a short one that starts sentences (``The``, ``See``).
Only prose counts: the frontmatter,
headings, fenced and inline code, math, HTML, and the text of links are blanked first, and
a page never mentions itself. A page that already links a page (in its body or its
``related``) is not told again about it.

All names are searched at once with an Aho–Corasick automaton (pyahocorasick): one pass over
the text whatever the number of pages. The automaton walks the UTF-8 bytes of the text (as a
string of code points below 256), not its characters: a node of pyahocorasick's trie finds
its next letter by a linear scan of its children, and the root of thousands of names has a
child for every CJK character that starts one, which the walk returns to at almost every
character; over bytes a node has few children (measured on 3,220 wiki pages: 2.5 s against
0.22 s).
"""

from __future__ import annotations

import functools
import hashlib
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import unquote

import ahocorasick

#: The fewest characters a name must have to be looked for.
MIN_LENGTH = 3
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_WORD = re.compile(r"[A-Za-z0-9_]")
_WORD_BYTES = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-{2,})[ \t]*$")
#: the first characters (after white space) of the lines that open or are blocks blanked
_BLOCK_OPENERS = frozenset("`~$#=-")
_MATH_BLOCK = re.compile(r"^\s*\$\$")
_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*<?([^\s>]+)>?.*$", re.M)
#: (what is blanked, the group holding a destination or wikilink, if any)
_INLINE = re.compile(
    r"(?=[`<\[!$hfw])"  # what a blanked construct can start with: fail fast elsewhere
    r"(?:(?P<code>(?<![`\\])(`+)(?!`).+?(?<!`)\2(?!`))"
    r"|(?P<comment><!--.*?-->)"
    r"|\[\[(?P<wikilink>[^\[\]|\n]+?)(?:\|[^\[\]\n]*)?\]\]"
    r"|!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(\s*<?(?P<dest>[^\s)>]*)>?(?:\s+[^)\n]*)?\)"
    r"|!?\[[^\[\]\n]*\]\[[^\[\]\n]*\]"
    r"|(?P<math>\$\$[^$]+?\$\$|(?<![\\$\w])\$[^$\s](?:[^$\n]*?[^$\s])?\$)"
    r"|(?P<autolink><[a-zA-Z][a-zA-Z0-9+.\-]*:[^\s<>]*>)"
    r"|(?P<html></?[a-zA-Z][^<>\n]*>)"
    r"|(?P<url>(?:https?|ftp)://[^\s<>()\[\]（）]+|www\.[^\s<>()\[\]（）]+))",
    re.S,
)
#: a capitalised word, and the space or hyphen after it, just before a name
_CAPITAL_BEFORE = re.compile(r"(?<![A-Za-z0-9_-])([A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)[ -]\Z")
#: a space or hyphen, and a capital, just after a name
_CAPITAL_AFTER = re.compile(r"[ -]([A-Z][A-Za-z0-9]*)")
#: capitalised words that open sentences and phrases rather than names
_OPENERS = frozenset(
    [
        "A",
        "An",
        "And",
        "As",
        "At",
        "By",
        "For",
        "From",
        "In",
        "Into",
        "Of",
        "On",
        "Or",
        "See",
        "The",
        "To",
        "Use",
        "Using",
        "Via",
        "With",
    ]
)
_FRONTMATTER_TARGET = re.compile(r"([^\s'\"\[\],]+\.md)\b")
#: a title written as "中文（English）" or "English (中文)" also goes by each part
_PARTS = re.compile(r"^(.+?)\s*[（(]([^（）()]+)[）)]\s*$")


def _lower(text: str) -> str:
    """``text`` lowered, every character in its place (else only Latin capitals lowered)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def names_of(title: str, aliases: Iterable[str] = ()) -> tuple[str, ...]:
    """The names a page goes by: its title, the parts of a ``中文（English）`` title, its
    aliases; only those long enough to be looked for, without repeats.

    >>> names_of("注意力机制（Attention）", ["self attention"])
    ('注意力机制（Attention）', '注意力机制', 'Attention', 'self attention')
    """
    found = [title.strip()]
    parts = _PARTS.match(title.strip())
    if parts:
        outer, inner = parts.group(1).strip(), parts.group(2).strip()
        found.append(outer)
        # "Mamba（选择性状态空间模型）": the other name; not "(arXiv:2303.04137)" or "(2017)"
        if _has_cjk(outer) != _has_cjk(inner) and not re.search(r"[\d:：，,]", inner):
            found.append(inner)
    found += [alias.strip() for alias in aliases if isinstance(alias, str)]
    return tuple(dict.fromkeys(n for n in found if _worth_finding(n)))


def _has_cjk(text: str) -> bool:
    return any("\u3400" <= c <= "\u9fff" for c in text)


def _worth_finding(name: str) -> bool:
    return len(name) >= MIN_LENGTH and "\n" not in name and any(c.isalpha() for c in name)


@dataclass(frozen=True)
class Named:
    """One page as the mentions check sees it: its path, kind and the names it goes by."""

    path: str
    kind: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class Mention:
    """A name of ``target`` written in plain text at ``line``:``col`` (1-based), unlinked."""

    target: str
    name: str
    line: int
    col: int
    #: the name as written in the text (its case may differ)
    written: str


class Names:
    """Every page's names, searched at once. Two pages that go by one name are left out of
    it (KB307 reports pages of the same title): a mention of either is not a mention of one.
    """

    def __init__(self, pages: Iterable[Named]) -> None:
        by_name: dict[str, list[Named]] = {}
        self.stems: dict[str, str] = {}
        listed = sorted(pages, key=lambda p: p.path)
        for page in listed:
            for name in page.names:
                by_name.setdefault(_lower(name), []).append(page)
        #: what a wikilink to each page starts with: ``[[`` and its stem or a name, lowered
        self._wikilinks: dict[str, frozenset[str]] = {}
        self._automaton = ahocorasick.Automaton()
        for key, owners in by_name.items():
            owners = list({o.path: o for o in owners}.values())
            if len(owners) > 1:  # prefer a wiki page over sources of the same name
                owners = [o for o in owners if o.kind == "wiki"] or owners
            if len(owners) != 1:
                continue
            name = next(n for n in owners[0].names if _lower(n) == key)
            exact = name.isascii() and name.isupper() and len(name) <= 5
            wide = _bytes_of(key)
            latin = (1 if _WORD.match(name[0]) else 0) | (2 if _WORD.match(name[-1]) else 0)
            value = (len(wide), len(key), owners[0].path, name, exact, latin)
            self._automaton.add_word(wide, value)
        for page in listed:
            stem = posixpath.basename(page.path).removesuffix(".md").lower()
            self.stems[stem] = page.path
            self._wikilinks[page.path] = frozenset(
                [f"[[{stem}", *(f"[[{_lower(n)}" for n in page.names)]
            )
        self.digest = names_digest(listed)
        self._empty = len(self._automaton) == 0
        if not self._empty:
            self._automaton.make_automaton()

    def find(self, path: str, text: str) -> list[Mention]:
        """The first unlinked mention of each other page in ``text``, the file of ``path``
        (frontmatter included), in the order written."""
        if self._empty:
            return []
        masked, linked = prose(path, text)
        wide = _bytes_of(_lower(masked))
        seen: set[str] = set()
        found = []
        # where the last match began, in bytes and in characters: a match begins and ends at
        # a character's first byte, so the bytes between two are whole characters
        byte_at = char_at = 0
        line, line_at = 1, 0  # the line of the last mention, and where it was counted to
        # Leftmost, longest, never overlapping: a name inside a longer one is not found.
        for last, (size, length, target, name, exact, latin) in self._automaton.iter_long(wide):
            if target == path or target in seen:
                continue
            first = last - size + 1
            # a Latin name's end at a word boundary, asked of the bytes (an ASCII byte is its
            # character, a byte of another character no word character)
            if latin & 1 and first > 0 and wide[first - 1] in _WORD_BYTES:
                continue
            if latin & 2 and last + 1 < len(wide) and wide[last + 1] in _WORD_BYTES:
                continue
            char_at += len(_text_of(wide[byte_at:first]))
            byte_at = first
            start, end = char_at, char_at + length - 1
            if exact and masked[start : end + 1] != name:
                continue
            if latin and _in_longer_name(masked, name, start, end):
                continue
            seen.add(target)
            if self._linked(target, linked):
                continue
            line += masked.count("\n", line_at, start)
            line_at = start
            col = start - (masked.rfind("\n", 0, start) + 1) + 1
            found.append(Mention(target, name, line, col, text[start : end + 1]))
        return found

    def _linked(self, target: str, linked: set[str]) -> bool:
        return target in linked or not self._wikilinks[target].isdisjoint(linked)


def _in_longer_name(text: str, name: str, start: int, end: int) -> bool:
    """Whether the name at ``start``..``end`` of ``text`` is part of a longer Latin name: a
    capitalised word just before or after it, on its Latin side."""
    if name[0].isascii() and name[0].isalpha():
        before = _CAPITAL_BEFORE.search(text, max(0, start - 40), start)
        if before and before.group(1) not in _OPENERS:
            return True
    if name[-1].isascii() and name[-1].isalnum():
        after = _CAPITAL_AFTER.match(text, end + 1)
        if after and after.group(1) not in _OPENERS:
            return True
    return False


def _bytes_of(text: str) -> str:
    """``text``'s UTF-8 bytes as a string of code points below 256 (what the automaton
    walks)."""
    return text.encode("utf-8", "surrogatepass").decode("latin-1")


def _text_of(wide: str) -> str:
    return wide.encode("latin-1").decode("utf-8", "surrogatepass")


def names_digest(pages: Iterable[Named]) -> str:
    """A digest of every page's path, kind and names: what each page's mentions depend on,
    beside its own text."""
    hasher = hashlib.blake2b(digest_size=12)
    for page in sorted(pages, key=lambda p: p.path):
        hasher.update("\x00".join((page.path, page.kind, *page.names)).encode() + b"\x01")
    return hasher.hexdigest()


def prose(path: str, text: str) -> tuple[str, set[str]]:
    """``text`` with all but its prose blanked (every character but a line break becomes a
    space, so places hold), and what it links: repository paths, and ``[[name`` (lowered) of
    each wikilink."""
    lines = text.split("\n")
    linked: set[str] = set()
    folder = posixpath.dirname(path)
    body = _blank_frontmatter(lines, folder, linked)
    _blank_blocks(lines, body)
    joined = "\n".join(lines)
    for match in _DEFINITION.finditer(joined):
        _add_target(folder, match.group(1), linked)
    joined = _DEFINITION.sub(_blank, joined)
    return _INLINE.sub(lambda m: _blank_inline(m, folder, linked), joined), linked


def _blank(match: re.Match[str]) -> str:
    text = match.group()
    if "\n" not in text:
        return " " * len(text)
    return "\n".join(" " * len(line) for line in text.split("\n"))


def _blank_inline(match: re.Match[str], folder: str, linked: set[str]) -> str:
    if match.group("wikilink"):
        linked.add("[[" + _lower(match.group("wikilink").strip().removesuffix(".md")))
    elif match.group("dest"):
        _add_target(folder, match.group("dest"), linked)
    return _blank(match)


def _add_target(folder: str, raw: str, linked: set[str]) -> None:
    target = _target(folder, raw)
    if target is not None:
        linked.add(target)


@functools.lru_cache(maxsize=1 << 16)
def _target(folder: str, raw: str) -> str | None:
    """The repository path a link's destination names (pages link the same pages often)."""
    target = unquote(raw.partition("#")[0].partition("?")[0])
    if target and ":" not in target:
        return posixpath.normpath(posixpath.join(folder, target))
    return None


def _blank_frontmatter(lines: list[str], folder: str, linked: set[str]) -> int:
    """Blank the frontmatter (its ``.md`` paths are what the page links); the first body
    line's index."""
    start = 1 if lines and lines[0].startswith("\ufeff") else 0
    if not lines or lines[0].lstrip("\ufeff").rstrip() != "---":
        return 0
    for number in range(1, len(lines)):
        if lines[number].rstrip() in ("---", "..."):
            for index in range(start, number + 1):
                for target in _FRONTMATTER_TARGET.findall(lines[index]):
                    _add_target(folder, target, linked)
                lines[index] = " " * len(lines[index])
            return number + 1
    return 0


def _blank_blocks(lines: list[str], start: int) -> None:
    """Blank fenced code, display math and headings, line by line."""
    fence: str | None = None
    math = False
    for index in range(start, len(lines)):
        line = lines[index]
        if fence is None and not math and line.lstrip()[:1] not in _BLOCK_OPENERS:
            continue  # prose: none of the patterns below can match
        blank = " " * len(line)
        if fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            lines[index] = blank
        elif math:
            math = not line.rstrip().endswith("$$")
            lines[index] = blank
        elif opening := _FENCE.match(line):
            fence = opening.group(1)
            lines[index] = blank
        elif _MATH_BLOCK.match(line):
            math = line.count("$$") == 1
            lines[index] = blank
        elif _HEADING.match(line):
            lines[index] = blank
        elif _SETEXT.match(line) and index > start and lines[index - 1].strip():
            lines[index - 1], lines[index] = " " * len(lines[index - 1]), blank


def mention_message(mention: Mention) -> str:
    return written_message(mention.written, mention.target)


def written_message(written: str, target: str) -> str:
    """KB306's message of a name ``written`` in the text, of the page ``target``."""
    return (
        f"'{written}' names page '{target}' without linking it "
        "(`kbtool fix` links its first mention)"
    )


def link_text(path: str, mention: Mention) -> str:
    """The Markdown link that replaces the mention in the page of ``path``."""
    relative = posixpath.relpath(mention.target, posixpath.dirname(path) or ".")
    return f"[{mention.written}]({relative.replace(' ', '%20')})"


def mentions_of(names: Names, pages: Iterable[tuple[str, str]]) -> Iterator[tuple[str, Mention]]:
    """(path, mention) for each page given as (path, text)."""
    for path, text in pages:
        for mention in names.find(path, text):
            yield path, mention
