"""The "most linked" page (render/indexes.py) ranks pages by how many pages link to them."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from kbtool.config import load_config
from kbtool.stages.site import build_site


def test_hubs_are_ranked_by_the_pages_that_link_them(
    make_wiki: Callable[[dict[str, str | bytes]], Path], page: Callable[..., str]
) -> None:
    root = make_wiki(
        {
            "pyproject.toml": '[tool.kbtool]\nlanguage = "en"\nsearch = false\n',
            "wiki/a.md": page("# A\n\n[b](b.md) [c](c.md)\n"),
            "wiki/b.md": page("# B\n\n[c](c.md)\n"),
            "wiki/c.md": page("[a](a.md)\n", title='"C & <co>"'),
            "wiki/d.md": page("# D\n\n[c](c.md) [b](b.md)\n"),
        }
    )
    assert build_site(load_config(root)).ok
    html = (root / "site/hubs.html").read_text()
    ranked = re.findall(r'<li><a href="([^"]+)">([^<]+)</a>.*?linked from (\d+)', html)
    assert ranked == [
        ("wiki/c.html", "C &amp; &lt;co&gt;", "3"),
        ("wiki/b.html", "B", "2"),
        ("wiki/a.html", "A", "1"),
    ]  # d: linked from none, left out
    assert 'href="hubs.html"' in (root / "site/index.html").read_text()
