"""The link graph as a library: nodes, edges and their kinds, backlinks, exports, statistics."""

from __future__ import annotations

import io
import json

import networkx as nx
import pytest

from kbtool.config import load_config
from kbtool.report.graph import backlinks, build_graph, edges, export, format_stats, stats
from kbtool.stages.load import load_wiki
from kbtool.wiki import Wiki


@pytest.fixture
def wiki(make_wiki, page) -> Wiki:
    root = make_wiki(
        {
            "wiki/a.md": page(
                '# A "quoted" \\ title\n\n'
                "[b](b.md) [b again](b.md#b) ![img](fig.png) [[c]] [me](a.md)\n"
                "[gone](gone.md) [web](https://example.com)\n",
                tags="[x, y]",
                related=["b.md", "b.md"],
                sources=["../sources/s.md"],
            ),
            "wiki/b.md": page("# B\n", type="method", related=["a.md"]),
            "wiki/c.md": page("# C\n\n![fig](fig.png)\n"),
            "wiki/d.md": page("# D, alone\n"),
            "wiki/fig.png": b"\x89PNG",
            "sources/s.md": "# Source S\n",
        }
    )
    return load_wiki(load_config(root), jobs=1, use_store=False)


def test_edges_between_pages_with_their_kind(wiki: Wiki) -> None:
    # Repeats merge; self-links, missing targets, files that are not pages and URLs are no
    # edges; a wikilink and a body link are both "link".
    assert sorted(edges(wiki)) == [
        ("wiki/a.md", "sources/s.md", "source"),
        ("wiki/a.md", "wiki/b.md", "link"),
        ("wiki/a.md", "wiki/b.md", "related"),
        ("wiki/a.md", "wiki/c.md", "link"),
        ("wiki/b.md", "wiki/a.md", "related"),
    ]


def test_backlinks(wiki: Wiki) -> None:
    assert backlinks(wiki) == {
        "sources/s.md": ["wiki/a.md"],
        "wiki/a.md": ["wiki/b.md"],
        "wiki/b.md": ["wiki/a.md"],
        "wiki/c.md": ["wiki/a.md"],
        "wiki/d.md": [],
    }


def test_nodes_carry_path_kind_type_title_tags(wiki: Wiki) -> None:
    graph = build_graph(wiki)
    assert graph.nodes["wiki/a.md"] == {
        "path": "wiki/a.md",
        "kind": "wiki",
        "type": "concept",
        "title": 'A "quoted" \\ title',
        "tags": ["x", "y"],
    }
    assert graph.nodes["wiki/b.md"]["type"] == "method"
    assert graph.nodes["sources/s.md"] == {
        "path": "sources/s.md",
        "kind": "source",
        "type": "source",
        "title": "Source S",
        "tags": [],
    }
    assert graph.number_of_edges() == 5


def test_json_export_round_trips(wiki: Wiki) -> None:
    graph = build_graph(wiki)
    data = json.loads(export(graph, "json"))
    again = nx.node_link_graph(data, edges="edges")
    assert dict(again.nodes(data=True)) == dict(graph.nodes(data=True))
    assert sorted((u, v, a["kind"]) for u, v, a in again.edges(data=True)) == sorted(edges(wiki))


def test_graphml_export_reads_back_with_networkx(wiki: Wiki) -> None:
    graph = build_graph(wiki)
    again = nx.read_graphml(io.BytesIO(export(graph, "graphml").encode("utf-8")))
    assert set(again.nodes) == set(graph.nodes)
    assert again.nodes["wiki/a.md"]["tags"] == "x,y"  # GraphML has no lists
    assert again.nodes["wiki/a.md"]["title"] == 'A "quoted" \\ title'
    assert sorted((u, v, a["kind"]) for u, v, a in again.edges(data=True)) == sorted(edges(wiki))
    assert graph.nodes["wiki/a.md"]["tags"] == ["x", "y"]  # the export did not change the graph


def test_dot_export_quotes_titles(wiki: Wiki) -> None:
    lines = export(build_graph(wiki), "dot").splitlines()
    assert '  "wiki/a.md" [label="A \\"quoted\\" \\\\ title", type="concept"];' in lines
    assert '  "wiki/a.md" -> "wiki/c.md" [kind=link, style=dotted];' in lines
    assert sum("->" in line for line in lines) == 5


def test_unknown_export_format(wiki: Wiki) -> None:
    with pytest.raises(ValueError, match="unknown graph format"):
        export(build_graph(wiki), "svg")


def test_stats(wiki: Wiki) -> None:
    data = stats(build_graph(wiki))
    assert data["pages"] == 5 and data["edges"] == 5
    assert data["pages_by_type"] == {"concept": 3, "method": 1, "source": 1}
    assert data["edges_by_kind"] == {"link": 2, "related": 2, "source": 1}
    # d has no links at all: its own component; an orphan, as nothing links to it.
    assert (data["components"], data["largest_component"]) == (2, 4)
    assert data["orphans"] == ["wiki/d.md"]
    assert data["most_linked"][0] == {"path": "sources/s.md", "backlinks": 1}
    assert {item["path"] for item in data["most_linked"]} == {
        "sources/s.md",
        "wiki/a.md",
        "wiki/b.md",
        "wiki/c.md",
    }
    text = format_stats(data)
    assert text.splitlines()[0] == "5 pages, 5 edges, 2 components (largest: 4 pages)"
    assert text.rstrip().endswith("orphans (1):\n  wiki/d.md")


def test_graphml_holds_titles_and_tags_with_control_characters(make_wiki, page) -> None:
    # XML 1.0 cannot hold most control characters even escaped: they used to make the
    # GraphML unreadable. They are replaced by U+FFFD.
    root = make_wiki({"wiki/a.md": page("# Bad \x0b title \x1b[31m\n", tags='["a\\x01b"]')})
    graph = build_graph(load_wiki(load_config(root), jobs=1, use_store=False))
    again = nx.read_graphml(io.BytesIO(export(graph, "graphml").encode("utf-8")))
    assert again.nodes["wiki/a.md"]["title"] == "Bad \ufffd title \ufffd[31m"
    assert again.nodes["wiki/a.md"]["tags"] == "a\ufffdb"
    assert json.loads(export(graph, "json"))["nodes"][0]["title"] == "Bad \x0b title \x1b[31m"


def test_bare_urls_are_no_edges(make_wiki, page) -> None:
    root = make_wiki(
        {
            "wiki/a.md": page("# A\n\n见 https://example.org/wiki/b.md）与 [b](b.md)。\n"),
            "wiki/b.md": page("# B\n\nhttps://example.org/wiki/a.md\n"),
        }
    )
    wiki = load_wiki(load_config(root), jobs=1, use_store=False)
    assert sorted(edges(wiki)) == [("wiki/a.md", "wiki/b.md", "link")]
    assert [link.target for link in wiki.pages["wiki/b.md"].links] == []
