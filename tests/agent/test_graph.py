"""The graph tools, in process: links and backlinks with anchors, neighbourhood, orphans,
wanted pages, hubs, unlinked mentions, similar pages."""

from __future__ import annotations

from pathlib import Path

from kbtool.agent.graph import hubs, links, neighbourhood, orphans, unlinked_mentions, wanted
from kbtool.agent.graph import similar as similar_pages
from kbtool.agent.search import SearchIndex
from kbtool.agent.state import AgentWiki
from kbtool.config import load_config
from tests.agent.support import small_wiki
from tests.conftest import page_text

EXTRA = {
    "pyproject.toml": "[tool.kbtool]\n",  # orphans reported
    "wiki/notes/a.md": page_text(
        "# A\n\n[x](../concepts/attention.md#缩放点积注意力) [y](../concepts/ghost.md) [[ghost]]\n",
        tags="[attention]",
    ),
    "wiki/notes/b.md": page_text("# B\n\n[gone](../concepts/ghost.md)\n"),
    "wiki/notes/lonely.md": page_text("# Lonely\n\nIt talks of Transformer in plain text.\n"),
}


def _wiki(tmp_path: Path) -> AgentWiki:
    return AgentWiki(load_config(small_wiki(tmp_path / "repo", EXTRA)))


def test_links_and_backlinks_name_their_anchors(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    found = links(wiki, "wiki/concepts/attention.md")
    into = sorted((b.path, b.kind, b.anchor) for b in found.backlinks)
    assert into == [
        ("wiki/methods/transformer.md", "link", "多头注意力"),
        ("wiki/methods/transformer.md", "related", None),
        ("wiki/notes/a.md", "link", "缩放点积注意力"),
    ]
    out = {(o.target, o.status) for o in links(wiki, "wiki/notes/a.md").outgoing}
    assert ("../concepts/ghost.md", "missing") in out


def test_neighbourhood_hubs_orphans_and_wanted(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    near = neighbourhood(wiki, "wiki/notes/a.md", depth=2)
    assert [(p.path, p.score) for p in near.pages] == [
        ("wiki/concepts/attention.md", 1),
        ("wiki/methods/transformer.md", 2),
    ]
    assert hubs(wiki).pages[0].path == "wiki/concepts/attention.md"
    lonely = {p.path for p in orphans(wiki).pages}
    assert {"wiki/notes/lonely.md", "wiki/notes/a.md"} <= lonely
    assert "wiki/concepts/attention.md" not in lonely
    ghost = wanted(wiki).pages[0]
    assert ghost.path == "wiki/concepts/ghost.md" and ghost.score == 2


def test_unlinked_mentions_and_similar_pages(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    found = unlinked_mentions(wiki, SearchIndex(wiki), "wiki/methods/transformer.md")
    assert [(p.path, p.detail) for p in found.pages] == [
        ("wiki/notes/lonely.md", "line 8: Transformer")
    ]
    like = [p.path for p in similar_pages(wiki, "wiki/notes/a.md").pages]
    assert "wiki/concepts/attention.md" not in like  # it links that one already
