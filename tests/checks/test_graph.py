"""KB3xx: orphans, one-way `related`, uncited sources."""

from __future__ import annotations

from kbtool.diagnostics import Diagnostic


def brief(diagnostics: list[Diagnostic]) -> list[str]:
    return [f"{d.path}:{d.line}:{d.col} {d.code} {d.severity}" for d in diagnostics]


def test_a_mutually_linked_wiki_is_silent(make_wiki, check_wiki, page) -> None:
    root = make_wiki(
        {
            "wiki/a.md": page(related=["b.md"], sources=["../sources/s.md"]),
            "wiki/b.md": page(related=["a.md"]),
            "sources/s.md": "# S\n",
        }
    )
    assert check_wiki(root, select=["KB3"]) == []


def test_graph_findings_in_a_small_wiki(make_wiki, check_wiki, page) -> None:
    root = make_wiki(
        {
            "wiki/a.md": page(related=["b.md"], sources=["../sources/s.md"]),
            "wiki/b.md": page(related=["a.md"]),
            "wiki/c.md": page("[a](a.md) [[d]]\n"),
            "wiki/d.md": page("[c](c.md)\n"),
            "wiki/e.md": page("[t](../sources/t.md)\n", related=["c.md"]),
            "wiki/f.md": page(related=["e.md"]),
            "sources/s.md": "# S\n",
            "sources/t.md": "# T\n",
        }
    )
    # Incoming: a <- b, c; b <- a; c <- d, e; d <- c; e <- f; f <- nothing: f is the orphan.
    # e lists c and f lists e, neither back (related items on line 6): two one-way entries.
    # s is cited by a, t by e's body link: no uncited source.
    assert brief(check_wiki(root, select=["KB3"])) == [
        "wiki/e.md:6:5 KB302 warning",
        "wiki/f.md:1:1 KB301 warning",
        "wiki/f.md:6:5 KB302 warning",
    ]


def test_kb301_orphan(make_wiki, check_wiki, page) -> None:
    root = make_wiki(
        {
            "wiki/a.md": page("[b](b.md)\n"),
            "wiki/b.md": page(),
            "wiki/c.md": page(),
            "sources/s.md": "# S\n\n[a](../wiki/a.md)\n",  # a source page linking counts too
        }
    )
    diagnostics = check_wiki(root, select=["KB301"])
    assert brief(diagnostics) == ["wiki/c.md:1:1 KB301 warning"]
    assert "orphan" in diagnostics[0].message


def test_kb301_self_links_and_broken_links_do_not_count(make_wiki, check_wiki, page) -> None:
    root = make_wiki(
        {
            "wiki/a.md": page("[self](a.md) [[a]]\n", related=["a.md"]),
            "wiki/b.md": page("[a](a.md#no-such-heading)\n", related=["a.md"]),
        }
    )
    # b -> a exists (a broken anchor still reaches the page), so only b is an orphan.
    assert brief(check_wiki(root, select=["KB301"])) == ["wiki/b.md:1:1 KB301 warning"]


def test_kb302_one_way_related(make_wiki, check_wiki, page) -> None:
    root = make_wiki(
        {
            "wiki/a.md": page(related=["b.md", "c.md"]),
            "wiki/b.md": page(related=["a.md"]),
            "wiki/c.md": page("[a](a.md)\n"),  # a body link is not a `related` entry
        }
    )
    diagnostics = check_wiki(root, select=["KB302"])
    # a's related items are on lines 6 (b.md) and 7 (c.md); only c.md is one-way.
    assert brief(diagnostics) == ["wiki/a.md:7:5 KB302 warning"]
    assert "'c.md' does not list this page" in diagnostics[0].message


def test_kb302_can_be_turned_off(make_wiki, check_wiki, page) -> None:
    root = make_wiki(
        {
            "pyproject.toml": '[tool.kbtool.severity]\nKB302 = "off"\n',
            "wiki/a.md": page(related=["b.md"]),
            "wiki/b.md": page("[a](a.md)\n"),
        }
    )
    assert check_wiki(root, select=["KB3"]) == []


def test_kb303_uncited_source(make_wiki, check_wiki, page) -> None:
    root = make_wiki(
        {
            "wiki/a.md": page("[body link](../sources/b.md)\n", sources=["../sources/a.md"]),
            "sources/a.md": "# A\n\n[c](c.md)\n",  # a source citing a source does not count
            "sources/b.md": "# B\n",
            "sources/c.md": "# C\n",
        }
    )
    diagnostics = check_wiki(root, select=["KB303"])
    assert brief(diagnostics) == ["sources/c.md:1:1 KB303 warning"]
