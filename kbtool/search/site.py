"""The build's search stage: the site's pages -> their :class:`SearchDoc` -> ``site/search/``.

Each page's body is parsed here a second time for its tokens (:func:`_tokens`): the one
place to change when the load stage hands over the tokens (or the finished SearchDocs) of its
single parse. Until then a page whose content is unchanged since the live site was built
takes its SearchDoc from the live index instead of being parsed again, so an edit of one
page parses one page here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from kbtool.config import Config
from kbtool.model import Page
from kbtool.parse.frontmatter import blank_frontmatter
from kbtool.parse.markdown import markdown_parser
from kbtool.search import layout
from kbtool.search.codec import unscript
from kbtool.search.pagefiles import PageReader
from kbtool.search.text import SearchDoc, search_doc
from kbtool.search.writer import SearchStats, write_search_index
from kbtool.wiki import Wiki

#: Which page content each SearchDoc of the index was made from: path -> [digest, id].
ORIGINS = "origins.json"
#: Bump when :func:`search_doc` changes what it extracts, so no older SearchDoc is reused.
TEXT_VERSION = 1


def _tokens(config: Config, page: Page) -> list[Token]:
    """The markdown-it tokens of ``page``'s body (parsed again from its file)."""
    text = (config.root / page.path).read_bytes().decode("utf-8-sig", errors="replace")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return markdown_parser().parse(blank_frontmatter(text, page.body_line - 1))


def _previous(old: Path | None) -> dict[str, Any]:
    if old is None:
        return {}
    try:
        data = json.loads((old / ORIGINS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != TEXT_VERSION:
        return {}
    origins = data.get("pages")
    return origins if isinstance(origins, dict) else {}


def _reader(old: Path | None) -> PageReader | None:
    try:
        return PageReader(old, unscript((old / layout.META).read_bytes())) if old else None
    except (OSError, ValueError):
        return None


def search_docs(config: Config, wiki: Wiki, old: Path | None) -> dict[str, SearchDoc]:
    """Every page's SearchDoc, taken from the index in ``old`` where the page is unchanged."""
    previous = _previous(old)
    reader = _reader(old) if previous else None
    docs: dict[str, SearchDoc] = {}
    for path, page in wiki.pages.items():
        row = previous.get(path)
        doc = None
        if reader and isinstance(row, list) and len(row) == 2 and row[0] == page.digest:
            doc = reader.doc(int(row[1]))
            doc = doc if doc is not None and doc.path == path else None
        docs[path] = doc if doc is not None else search_doc(page, _tokens(config, page))
    return docs


def build_search(config: Config, wiki: Wiki, staging: Path, live: Path) -> SearchStats:
    """Write the index of ``wiki`` into ``staging/search``, updating the live site's."""
    old = live / layout.FOLDER
    old_dir = old if (old / layout.TABLE).is_file() else None
    docs = search_docs(config, wiki, old_dir)
    folder = staging / layout.FOLDER
    stats = write_search_index(docs, folder, old_dir)
    data = json.loads((folder / layout.TABLE).read_text(encoding="utf-8"))
    rows = {**data["table"], **data.get("delta", {})}  # the update segment's ids win
    origins = {path: [page.digest, rows[path][0]] for path, page in wiki.pages.items()}
    data = {"version": TEXT_VERSION, "pages": origins}
    (folder / ORIGINS).write_text(json.dumps(data), encoding="utf-8")
    return stats
