"""Where each page of the site lives, and relative URLs between them.

Every URL the site writes is relative, so the site works from any folder, from any static host
and (where the browser allows it) from ``file://``. A page keeps its repository path with
``.md`` replaced by ``.html``: ``wiki/concepts/transformer.md`` becomes
``wiki/concepts/transformer.html``.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from urllib.parse import quote

from kbtool.parse.slugs import slugify

HOME = "index.html"
SOURCES_INDEX = "sources.html"
GRAPH = "graph.html"
GRAPH_DATA = "graph-data.js"
HUBS = "hubs.html"
CHANGES = "changes.html"
FEED = "feed.xml"
SEARCH = "search.html"
NOT_FOUND = "404.html"
SITEMAP = "sitemap.xml"


def page_output(path: str) -> str:
    """Output file of a page, relative to the site folder."""
    return path[:-3] + ".html" if path.endswith(".md") else path + ".html"


def _name_slug(name: str) -> str:
    """A file name for a tag or type: its slug, plus a short hash when the slug loses
    characters, so two names that slug alike (``C++`` and ``C#``) never share a file and the
    name of one never depends on the others."""
    slug = slugify(name).strip("-") or "x"
    if slug != name:
        slug += "-" + hashlib.blake2b(name.encode(), digest_size=3).hexdigest()
    return slug


def tag_output(tag: str) -> str:
    return f"tags/{_name_slug(tag)}.html"


def type_output(page_type: str) -> str:
    return f"types/{_name_slug(page_type)}.html"


def figure_output(digest: str) -> str:
    return f"figures/{digest}.svg"


def href(from_output: str, to_output: str, anchor: str | None = None) -> str:
    """Relative, percent-encoded link from one output file to another.

    >>> href("wiki/concepts/a.html", "wiki/entities/b.html", "注意力")
    '../entities/b.html#%E6%B3%A8%E6%84%8F%E5%8A%9B'
    """
    if to_output == from_output and anchor:
        return "#" + quote(anchor, safe="")
    url = _quoted(relative_path(from_output, to_output))
    return url + ("#" + quote(anchor, safe="") if anchor else "")


@lru_cache(maxsize=1 << 16)
def _quoted(relative: str) -> str:
    """A relative URL percent-encoded: the indexes link to every page from folders of the
    same depth, so most are asked for again."""
    return quote(relative, safe="/")


def relative_path(from_file: str, to_file: str) -> str:
    """The path of ``to_file`` relative to ``from_file``'s folder: ``posixpath.relpath`` for
    two normalised paths (site outputs, page paths), without its filesystem work (it is
    called for every link of every page, and for every page an editor's completion lists).

    >>> relative_path("wiki/concepts/a.md", "wiki/entities/b.md")
    '../entities/b.md'
    """
    here = from_file.split("/")[:-1]
    there = to_file.split("/")
    common = 0
    while common < len(here) and common < len(there) - 1 and here[common] == there[common]:
        common += 1
    return "../" * (len(here) - common) + "/".join(there[common:])


def root_of(output: str) -> str:
    """The prefix that leads from ``output`` back to the site's root folder ('' or '../..../')."""
    return "../" * output.count("/")
