"""KB309: terms set in bold or in inline code on many pages that have no page of their own, a
list of candidates for new pages that ``kbtool check --statistics`` prints (off by default).

A term is the text of a ``**bold**`` run or of an inline code span that is no path and no
code (letters, digits, CJK, spaces and ``-``, two to forty characters, not only digits),
counted once per page on the wiki pages; a term that a page goes by (its title, a part of
a ``中文（English）`` title, an alias), in any case, is not a candidate, nor one on more than
half of the pages (a template's label).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from kbtool.checks.mentions import prose

_BOLD = re.compile(r"\*\*([^*\n]{2,40}?)\*\*|__([^_\n]{2,40}?)__")
_CODE = re.compile(r"(?<!`)`([^`\n]{2,40})`(?!`)")
_TERM = re.compile(r"^[\w\- ]+$")
#: pages a term must be on to be listed
MIN_PAGES = 5


def page_terms(path: str, text: str) -> set[str]:
    """The bold and code terms of one page's text, stripped of quotes and spaces."""
    masked, _ = prose(path, _CODE.sub(lambda m: "**" + m.group(1) + "**", text))
    found = set()
    for match in _BOLD.finditer(masked):
        term = (match.group(1) or match.group(2)).strip(" 「」“”\"'：:，,。")
        if _TERM.match(term) and not term.isdigit() and len(term) >= 2:
            found.add(term)
    return found


def candidate_terms(
    pages: Iterable[tuple[str, str]], names: Iterable[str], least: int = MIN_PAGES
) -> list[tuple[str, int]]:
    """(term, pages) of every term on ``least`` pages or more that no page goes by, most
    pages first; ``pages``: (path, text) of the wiki pages, ``names``: every page's names."""
    known = {name.casefold() for name in names}
    counts: Counter[str] = Counter()
    spelt: dict[str, str] = {}
    seen = []
    for path, text in pages:
        seen.append(path)
        for term in {t.casefold(): t for t in page_terms(path, text)}.items():
            counts[term[0]] += 1
            spelt.setdefault(term[0], term[1])
    most = max(least, len(seen) // 2)  # on most pages: a template's label (**一句话定义**)
    listed = [(spelt[k], n) for k, n in counts.items() if least <= n <= most and k not in known]
    return sorted(listed, key=lambda item: (-item[1], item[0]))


def format_terms(terms: list[tuple[str, int]], shown: int = 30) -> str:
    """The candidate list as ``--statistics`` prints it."""
    if not terms:
        return "KB309: no term in bold or code is on many pages without a page of its own"
    lines = [
        f"KB309: {len(terms)} terms in bold or code on {MIN_PAGES}+ pages, no page of their own:"
    ]
    lines += [f"{n:>5}  {term}" for term, n in terms[:shown]]
    if len(terms) > shown:
        lines.append(f"  ... and {len(terms) - shown} more")
    return "\n".join(lines)


def text_names(path: str, text: str) -> tuple[str, ...]:
    """The names a page goes by, read from its text alone: its title (``title:``, else the
    first ``# `` heading, else the file name) and its ``aliases``."""
    import yaml

    from kbtool.checks.mentions import names_of
    from kbtool.parse.frontmatter import split_frontmatter

    front, body_start, _ = split_frontmatter(text)
    meta: object = {}
    if front:
        try:
            meta = yaml.safe_load(front) or {}
        except yaml.YAMLError:
            meta = {}
    meta = meta if isinstance(meta, dict) else {}
    title = meta.get("title")
    if not isinstance(title, str) or not title.strip():
        heading = re.search(r"^# (.+)$", text.split("\n", body_start)[-1], re.M)
        title = heading.group(1).strip() if heading else path.rsplit("/", 1)[-1][:-3]
    aliases = meta.get("aliases")
    return names_of(title, aliases if isinstance(aliases, list) else ())
