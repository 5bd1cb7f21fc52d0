"""CJK bigrams for the search index: what makes any run of Chinese characters findable.

Pagefind segments Chinese into words twice, at index time (its own segmenter) and in the
browser (``Intl.Segmenter``); where the two disagree a query for part of an indexed word finds
nothing. Measured with Pagefind 1.5.2 on the bundled wiki: ``意力`` found 0 of the 9 pages that
contain it, ``缩放点积`` 1 of 4. Chinese readers expect any run of characters a page contains to
find it, so every run of CJK characters is also given to Pagefind as overlapping bigrams spelled
in ASCII letters (``注意力`` -> ``kgmoigbap kgbapfcjl``: code points in hex, digits as letters),
which no segmenter splits. ``assets/search.js`` spells a query the same way and asks Pagefind for
the bigrams as a quoted phrase, which matches exactly the pages whose text contains the query.

The bigrams go only into the copy of a page handed to Pagefind, never into the published page.
Any change to the spelling here must be made in ``search.js`` too (a browser test checks that
both agree).

>>> gram_words("用注意力。")
['kbgre', 'khfcigmoi', 'kgmoigbap', 'kgbapfcjl']
"""

from __future__ import annotations

import functools
import html as html_lib
import re

#: Bump when the spelling changes, so that no older index is reused.
VERSION = 4
#: Hex digits spelled as letters: Pagefind keeps an all-letter word whole in every language.
_NIBBLES = "abcdefghijklmnop"
#: Characters indexed as bigrams: CJK ideographs, kana, Hangul syllables (BMP only; the rare
#: astral ideographs still get Pagefind's own segmentation). Same class in search.js.
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
#: First word of the bigram block; the client cuts Pagefind's page text here for excerpts.
SENTINEL = "kbgrams"
#: Written between runs so that the last bigram of one run and the first of the next are not
#: adjacent: ``注意。意力`` must not match a phrase query for ``注意力``. Not a spelling: r > p.
BREAK = "kbgre"

#: Weights of the fields that rank first (headings as Pagefind weighs an h3); the rest of the
#: body has Pagefind's default, 1.
WEIGHTS = {"title": 10, "summary": 5, "headings": 5}
_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})
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


def page_text(html: str) -> dict[str, str] | None:
    """The text Pagefind indexes from a page, as title, summary, headings and the rest of the
    body; None if the page has no ``data-pagefind-body`` (Pagefind skips it)."""
    first = html.find("data-pagefind-body")
    if first < 0:
        return None
    parts: dict[str, list[str]] = {"title": [], "summary": [], "headings": [], "body": []}
    stack: list[tuple[str, bool, bool, str]] = []  # tag, in body, skipped, field: on entry
    in_body, skip, field, found = False, False, "body", False
    pos = html.rfind("<", 0, first)  # everything before the first body is not indexed
    while (match := _TAG.search(html, pos)) is not None:
        if in_body and not skip and match.start() > pos:
            parts[field].append(html[pos : match.start()])
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
            elif tag in _HEADINGS and field == "body":
                field = "headings"
            if tag in _RAW:
                end = html.find(f"</{tag}", pos)
                pos = len(html) if end < 0 else end
        if in_body and tag not in _INLINE:
            parts[field].append("\n")
    if not found:
        return None
    return {name: html_lib.unescape("".join(chunks)) for name, chunks in parts.items()}


def grams_block(html: str) -> str | None:
    """The hidden elements of bigram words for one page, or None if Pagefind skips the page:
    a body of bigrams for every field, and the title's and summary's bigrams again as meta
    fields (:data:`META_FIELDS`), which Pagefind's ``metaWeights`` boost."""
    text = page_text(html)
    if text is None:
        return None
    paragraphs = [SENTINEL]
    metas = []
    for name, value in text.items():
        # A run repeated on a page (a table column, a recurring label) is indexed once: the
        # phrase still matches, and the most common terms' posting lists, which are what a
        # query downloads, stay short.
        words = " ".join(gram_words("\n".join(dict.fromkeys(_CJK_RUN.findall(value)))))
        if not words:
            continue
        weight = WEIGHTS.get(name)
        attr = f' data-pagefind-weight="{weight}"' if weight else ""
        paragraphs.append(f"<p{attr}>{words}</p>")
        if name in META_FIELDS:
            metas.append(f'<div hidden data-pagefind-meta="{META_FIELDS[name]}">{words}</div>')
    # A body of its own: Pagefind indexes every data-pagefind-body element of a page, in order.
    body = f"<div hidden data-pagefind-body data-kbtool-grams>{''.join(paragraphs)}</div>"
    return body + "".join(metas)


def augment(html: str) -> str | None:
    """``html`` with its bigram block at the end of ``<body>``, or None if Pagefind skips it.

    >>> page = '<body><main data-pagefind-body><h1 data-pagefind-meta="title">注意力</h1></main>'
    >>> augment(page + "</body>").count('data-pagefind-weight="10">kbgre kgmoigbap kgbapfcjl<')
    1
    """
    block = grams_block(html)
    if block is None:
        return None
    at = html.rfind("</body>")
    return html[:at] + block + html[at:] if at >= 0 else html + block
