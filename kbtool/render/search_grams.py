"""CJK bigrams for the search index: what makes any run of Chinese characters findable.

Pagefind segments Chinese into words twice, at index time (its own segmenter) and in the
browser (``Intl.Segmenter``); where the two disagree a query for part of an indexed word finds
nothing. Measured with Pagefind 1.5.2 on the bundled wiki: ``意力`` found 0 of the 9 pages that
contain it, ``缩放点积`` 1 of 4. Chinese readers expect any run of characters a page contains to
find it, so the copy of a page handed to Pagefind has every run of CJK characters spelled as
overlapping bigrams in ASCII letters (``注意力`` -> ``kbgre kgmoigbap kgbapfcjl``: code points in
hex, digits as letters), which no segmenter splits. ``assets/search.js`` spells a query the
same way and asks Pagefind for the bigrams as a quoted phrase, which matches exactly the pages
whose text contains the query, and spells the page text back into characters for excerpts.

The spelling replaces the characters rather than being added beside them: Pagefind then
indexes no Chinese words of its own, which it would never be asked for (measured on 1,000 pages:
a third less indexing time and memory, and 40% smaller page texts for excerpts). Only the copy
handed to Pagefind is spelled; the published page is not. Any change to the spelling here
must be made in ``search.js`` too (browser tests check that both agree).

>>> gram_words("用注意力。")
['kbgre', 'khfcigmoi', 'kgmoigbap', 'kgbapfcjl']
>>> spell_text("Transformer 用注意力。")
'Transformer  kbgre khfcigmoi kgmoigbap kgbapfcjl 。'
>>> unspell_text(spell_text("Transformer 用注意力。"))
'Transformer用注意力。'
"""

from __future__ import annotations

import functools
import html as html_lib
import re

#: Bump when the spelling changes, so that no older index is reused.
VERSION = 6
#: Hex digits spelled as letters: Pagefind keeps an all-letter word whole in every language.
_NIBBLES = "abcdefghijklmnop"
#: Characters indexed as bigrams: CJK ideographs, kana, Hangul syllables (BMP only; the rare
#: astral ideographs keep Pagefind's own segmentation). Same class in search.js.
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
#: The word that starts every spelled run, so that the last bigram of one run and the first of
#: the next are never adjacent (``注意。意力`` must not match ``注意力``), and so that the client
#: finds the runs to spell back. Not itself a spelling: r is not a hex letter.
BREAK = "kbgre"
_SPELLED_RUN = re.compile(r"\s*\bkbgre((?:\s+k[a-p]{8}\b)+|\s+k[a-p]{4}\b)\s*")

#: Meta fields holding the title's and summary's bigrams. A quoted phrase is not ranked by
#: Pagefind, and content weights barely move BM25 scores, so search.js orders the phrase's
#: pages by the same words unquoted with large ``metaWeights`` on these fields: title matches
#: first, then summary matches, then the rest.
META_FIELDS = {"title": "kbtitle", "summary": "kbsummary"}
#: Elements whose text Pagefind does not index (besides ``data-pagefind-ignore``).
_SKIPPED = frozenset({"script", "style", "noscript", "template", "form", "nav", "footer", "svg"})
#: Elements whose content is not markup: skipped to their end tag.
_RAW = frozenset({"script", "style", "textarea"})
#: Elements that do not end a run of text: ``<strong>注意</strong>力`` reads as ``注意力``.
_INLINE = frozenset(
    {"a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "i", "ins",
     "kbd", "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u",
     "var", "wbr", "math", "mrow", "mi", "mo", "mn", "ms", "mtext", "msub", "msup", "msubsup",
     "semantics"}
)  # fmt: skip
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
     "track", "wbr"}
)  # fmt: skip
# A tag (attribute values may hold '>') or a comment. Hand-rolled rather than html.parser,
# which is four times slower and this runs over every page of a 10,000-page site.
_TAG = re.compile(r"""<(?:!--.*?-->|(/?)([a-zA-Z][^\s/>]*)((?:[^>"']|"[^"]*"|'[^']*')*)>)""", re.S)
_VALUES = re.compile(r"""=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+)""")
_META = re.compile(r"""data-pagefind-meta\s*=\s*["']?([\w-]+)""")
_META_ATTR = re.compile(r"""\s+data-pagefind-meta\s*=\s*(["'])(?:title|summary)\1""")


@functools.lru_cache(maxsize=65536)
def spell(char: str) -> str:
    """One BMP character as four letters, its code point's hex digits a-p.

    >>> spell("注")
    'gmoi'
    """
    code = ord(char)
    return "".join(_NIBBLES[(code >> shift) & 15] for shift in (12, 8, 4, 0))


def gram_words(text: str) -> list[str]:
    """The bigram words of every CJK run in ``text``, runs separated by :data:`BREAK`.

    A run of one character is spelled alone (``k`` + 4 letters), so that a one-character
    query, spelled the same way, finds it as a word and finds longer runs as a prefix.
    """
    words: list[str] = []
    for run in _CJK_RUN.findall(text):
        words.append(BREAK)
        if len(run) == 1:
            words.append("k" + spell(run))
            continue
        spelled = [spell(c) for c in run]
        words.extend("k" + a + b for a, b in zip(spelled, spelled[1:], strict=False))
    return words


def spell_query(query: str) -> str:
    """The Pagefind query that ``search.js`` sends for what a reader typed: each CJK run as a
    quoted phrase of its bigram words, the other words as typed. (The client's own copy of this
    function is in JavaScript; tests check that the two agree.)

    >>> spell_query("多头 Attention")
    '"kfjbkfjde" Attention'
    """
    phrases: list[str] = []

    def take(match: re.Match[str]) -> str:
        run = match.group(0)
        words = gram_words(run)[1:]
        phrases.append(words[0] if len(run) == 1 else '"' + " ".join(words) + '"')
        return " "

    rest = _CJK_RUN.sub(take, re.sub('["\u201c\u201d]', " ", query))
    return " ".join([*phrases, " ".join(rest.split())]).strip()


def spell_text(text: str) -> str:
    """``text`` with every CJK run replaced by its bigram words, spaced off."""
    return _CJK_RUN.sub(lambda run: " " + " ".join(gram_words(run.group(0))) + " ", text)


def _char(letters: str) -> str:
    """The character four letters spell (the inverse of :func:`spell`)."""
    code = 0
    for letter in letters:
        code = code * 16 + _NIBBLES.index(letter)
    return chr(code)


def _unspell_run(match: re.Match[str]) -> str:
    words = match.group(1).split()
    if len(words[0]) == 5:  # a run of one character
        return _char(words[0][1:])
    return _char(words[0][1:5]) + "".join(_char(word[5:]) for word in words)


def unspell_text(text: str) -> str:
    """Spelled runs back into characters (the spaces around them go too); what the client
    does with the page text Pagefind returns, before it cuts an excerpt."""
    return _SPELLED_RUN.sub(_unspell_run, text)


def _spell_flow(texts: list[str]) -> list[str]:
    """Spell pieces of text that read as one line across inline elements (``注意<b>力</b>``):
    a CJK run that crosses from one piece into the next is spelled as one run, each bigram
    word in the piece of its first character, so that its words stay adjacent.

    >>> _spell_flow(["用注意", "力"])
    [' kbgre khfcigmoi kgmoigbap kgbapfcjl ', '']
    """
    if len(texts) == 1:
        return [spell_text(texts[0])]
    joined = "".join(texts)
    runs = [(m.start(), m.end()) for m in _CJK_RUN.finditer(joined)]
    spelled, start, first_run = [], 0, 0
    for text in texts:
        end = start + len(text)
        pieces, cursor = [], start
        while first_run < len(runs) and runs[first_run][1] <= start:
            first_run += 1
        for run_start, run_end in runs[first_run:]:
            if run_start >= end:
                break
            here, there = max(run_start, start), min(run_end, end)
            words = []
            if run_start >= start:
                words.append(BREAK)
                if run_end - run_start == 1:
                    words.append("k" + spell(joined[run_start]))
            words += [
                "k" + spell(joined[at]) + spell(joined[at + 1])
                for at in range(here, min(there, run_end - 1))
            ]
            pieces.append(joined[cursor:here])
            if words:
                pieces.append(" " + " ".join(words) + " ")
            cursor = there
        pieces.append(joined[cursor:end])
        spelled.append("".join(pieces))
        start = end
    return spelled


def _scan(html: str, spell: bool) -> tuple[list[str], dict[str, list[str]]] | None:
    """Walk the part of ``html`` that Pagefind indexes. Return the page with every CJK run
    of that part spelled (when ``spell``) and the title and summary attributes taken off, in
    pieces, and the indexed text by field (title, summary, body); None if the page has no
    ``data-pagefind-body`` (Pagefind skips it)."""
    first = html.find("data-pagefind-body")
    if first < 0:
        return None
    fields: dict[str, list[str]] = {"title": [], "summary": [], "body": []}
    stack: list[tuple[str, bool, bool, str]] = []  # tag, in body, skipped, field: on entry
    in_body, skip, field, found = False, False, "body", False
    pos = html.rfind("<", 0, first)  # everything before the first body is not indexed
    out = [html[:pos]]
    flow: list[tuple[int, str]] = []  # indexed text since the last block boundary: (piece, text)

    def spell_flow() -> None:
        if spell and any(_CJK_RUN.search(text) for _, text in flow):
            for (piece, text), spelled in zip(flow, _spell_flow([t for _, t in flow]), strict=True):
                if spelled != text:
                    out[piece] = html_lib.escape(spelled, quote=False)
        flow.clear()

    while (match := _TAG.search(html, pos)) is not None:
        text = html[pos : match.start()]
        out.append(text)
        if in_body and not skip and text:
            plain = html_lib.unescape(text) if "&" in text else text
            fields[field].append(plain)
            flow.append((len(out) - 1, plain))
        out.append(match.group(0))
        pos = match.end()
        closing, tag, attrs = match.groups()
        if tag is None:
            continue  # a comment
        tag = tag.lower()
        if closing:
            if any(entry[0] == tag for entry in stack):
                while stack:  # close unclosed children too, as browsers do
                    open_tag, in_body, skip, field = stack.pop()
                    if open_tag == tag:
                        break
        elif tag not in _VOID and not attrs.endswith("/"):
            stack.append((tag, in_body, skip, field))
            names = _VALUES.sub("", attrs)
            if "data-pagefind-body" in names:
                in_body = found = True
            if "data-pagefind-ignore" in names or tag in _SKIPPED:
                skip = True
            meta = _META.search(attrs)
            if meta and meta.group(1) in META_FIELDS:
                field = meta.group(1)
                # Pagefind would take the spelled text as the title; it gets the real one.
                out[-1] = _META_ATTR.sub("", match.group(0))
            if tag in _RAW:
                end = html.find(f"</{tag}", pos)
                end = len(html) if end < 0 else end
                out.append(html[pos:end])
                pos = end
        if tag not in _INLINE:
            spell_flow()
            if in_body:
                fields[field].append("\n")
    spell_flow()
    out.append(html[pos:])
    return (out, fields) if found else None


def page_text(html: str) -> dict[str, str] | None:
    """The text Pagefind indexes from a page, as title, summary and the rest of the body;
    None if the page has no ``data-pagefind-body`` (Pagefind skips it)."""
    scanned = _scan(html, spell=False)
    if scanned is None:
        return None
    return {name: "".join(chunks) for name, chunks in scanned[1].items()}


def spell_page(html: str) -> str | None:
    """The copy of a page that Pagefind indexes, or None if Pagefind skips the page: its CJK
    runs spelled, its title and summary as hidden meta fields, both as written (for display)
    and spelled (:data:`META_FIELDS`, for ranking).

    >>> page = '<body><main data-pagefind-body><h1 data-pagefind-meta="title">注意力</h1></main>'
    >>> print(spell_page(page + "</body>"))  # doctest: +NORMALIZE_WHITESPACE
    <body><main data-pagefind-body><h1> kbgre kgmoigbap kgbapfcjl </h1></main><div hidden
    data-pagefind-meta="title">注意力</div><div hidden data-pagefind-meta="kbtitle">kbgre
    kgmoigbap kgbapfcjl</div></body>
    """
    scanned = _scan(html, spell=True)
    if scanned is None:
        return None
    out, fields = scanned
    metas = []
    for name, spelled_name in META_FIELDS.items():
        text = " ".join("".join(fields[name]).split())
        if text:
            spelled = " ".join(spell_text(text).split())
            for field, value in ((name, text), (spelled_name, spelled)):
                metas.append(
                    f'<div hidden data-pagefind-meta="{field}">{html_lib.escape(value)}</div>'
                )
    page = "".join(out)
    at = page.rfind("</body>")
    at = len(page) if at < 0 else at
    return page[:at] + "".join(metas) + page[at:]
