"""Small parts of the renderer: URLs, layout, neighbourhood, progress bar, staging, strings."""

from __future__ import annotations

import io
import os
import posixpath
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbtool.progress import Progress
from kbtool.render import urls
from kbtool.render.card import Ref
from kbtool.render.i18n import STRINGS, translator
from kbtool.render.layout import layout
from kbtool.render.nav import NARROW, WIDE, inline_count
from kbtool.render.neighbourhood import MAX_SHOWN, neighbourhood_svg
from kbtool.render.site import PageInfo
from kbtool.stages.publish.staging import make_staging, reuse_file, write_file
from kbtool.stages.publish.swap import swap_in


def test_urls_are_relative_and_encoded() -> None:
    assert urls.page_output("wiki/concepts/x.md") == "wiki/concepts/x.html"
    assert urls.href("wiki/a/b.html", "index.html") == "../../index.html"
    assert urls.href("index.html", "wiki/概念.html") == "wiki/%E6%A6%82%E5%BF%B5.html"
    assert urls.href("wiki/a.html", "wiki/a.html", "x y") == "#x%20y"
    assert urls.root_of("wiki/a/b.html") == "../../"
    assert urls.root_of("index.html") == ""


# Files' paths: folders, then a file's name (a file is never also a folder).
_FOLDERS = st.lists(st.sampled_from(["wiki", "a", "概念", "x y"]), max_size=3)
_PATHS = st.builds(
    lambda folders, name: "/".join([*folders, name]), _FOLDERS, st.sampled_from(["a.md", "b.md"])
)


@given(_PATHS, _PATHS)
def test_relative_path_is_relpath_without_the_filesystem(here: str, there: str) -> None:
    expected = posixpath.relpath(there, posixpath.dirname(here) or ".")
    assert urls.relative_path(here, there) == expected


def test_tag_files_never_collide() -> None:
    assert urls.tag_output("transformer") == "tags/transformer.html"
    assert urls.tag_output("C++") != urls.tag_output("C#")
    assert urls.tag_output("注意力") == "tags/注意力.html"
    assert (
        urls.tag_output("../../etc").startswith("tags/")
        and ".." not in urls.tag_output("../../etc")[5:]
    )


def test_layout_is_deterministic_and_bounded() -> None:
    edges = [(i, (i * 7 + 1) % 300) for i in range(300)]
    first = layout(300, edges)
    assert first == layout(300, edges)
    assert all(-1.0001 <= x <= 1.0001 and -1.0001 <= y <= 1.0001 for x, y in first)
    # seeded by a previous layout, a new node starts near a neighbour
    seeded = layout(301, [*edges, (300, 0)], [*first, None])
    assert len(seeded) == 301
    assert layout(0, []) == []


def _info(neighbours: int) -> PageInfo:
    ref = Ref("wiki/a.md", "wiki/a.html", "A <page>", "concept")
    around = tuple(
        (Ref(f"wiki/n{i}.md", f"wiki/n{i}.html", f"Neighbour {i}", "method"), "related")
        for i in range(neighbours)
    )
    return PageInfo(ref, "", "", "", (), (), (), (), around, ())


def test_neighbourhood_svg_links_each_neighbour_and_escapes_titles() -> None:
    svg = neighbourhood_svg(_info(3), lambda r: r.output, "Neighbourhood")
    assert svg.count("<a href=") == 3 and "A &lt;page&gt;" in svg
    assert neighbourhood_svg(_info(0), lambda r: r.output, "x") == ""
    many = neighbourhood_svg(_info(40), lambda r: r.output, "x")
    assert many.count("<a href=") == MAX_SHOWN


def test_neighbourhood_nodes_of_one_side_are_a_line_apart() -> None:
    svg = neighbourhood_svg(_info(MAX_SHOWN), lambda r: r.output, "x")
    texts = re.findall(r'<text x="(\d+)" y="(\d+)" text-anchor="(start|end)"', svg)
    assert len(texts) == MAX_SHOWN
    for side in ("start", "end"):
        ys = sorted(int(y) for _, y, anchor in texts if anchor == side)
        gaps = [b - a for a, b in zip(ys, ys[1:], strict=False)]
        assert len(ys) == MAX_SHOWN // 2 and min(gaps) >= 2 * 11
    right = [int(x) for x, _, anchor in texts if anchor == "start"]
    assert min(right) > 180 and max(right) + 12 * 7 <= 360  # the label fits beside its node


@pytest.mark.parametrize(
    ("labels", "narrow", "wide"),
    [
        (["概念", "方法", "实体", "综述", "问答", "任务", "对比"], 7, 7),
        (["concept", "method", "entity", "overview", "query", "comparison"] * 2, 3, 7),
        ([], 0, 0),
    ],
)
def test_the_navigation_line_holds_the_types_that_fit(
    labels: list[str], narrow: int, wide: int
) -> None:
    fixed = ["首页", "来源", "图谱", "更多"]
    title = "机器人与深度学习知识库"
    assert inline_count(title, fixed, labels, NARROW) == narrow
    assert inline_count(title, fixed, labels, WIDE) == wide


def test_progress_bar_only_on_a_terminal() -> None:
    stream = io.StringIO()
    bar = Progress(10, "rendering", stream)
    bar.advance(10)
    bar.close()
    assert stream.getvalue() == ""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    bar = Progress(4, "rendering", tty)
    for _ in range(4):
        bar.advance()
    assert "4/4" in tty.getvalue()


def test_every_ui_string_exists_in_both_languages() -> None:
    assert STRINGS["zh"].keys() == STRINGS["en"].keys()
    assert translator("zh")("pages_count", n=3) == "3 页"
    assert translator("en")("no-such-key") == "no-such-key"


def test_staging_writes_never_go_through_a_shared_inode(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "a.html").write_text("old")
    staging = make_staging(site)
    assert staging.parent == tmp_path and staging.name.startswith(".site.build-")
    assert reuse_file(site, staging, "a.html")
    write_file(staging, "a.html", "new")
    assert (site / "a.html").read_text() == "old"
    assert not reuse_file(site, staging, "missing.html")


def test_reusing_a_file_makes_its_folder_and_takes_one_already_there(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "wiki/x").mkdir(parents=True)
    (site / "wiki/x/p.html").write_text("p")
    staging = make_staging(site)
    assert reuse_file(site, staging, "wiki/x/p.html")
    assert (staging / "wiki/x/p.html").read_text() == "p"
    assert reuse_file(site, staging, "wiki/x/p.html")  # two outputs share it: there already
    assert not reuse_file(site, staging, "wiki/gone/q.html")
    assert not (staging / "wiki/gone").exists()  # no empty folder left for a file not there


def test_swap_replaces_the_site_whole(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "gone.html").write_text("x")
    staging = make_staging(site)
    (staging / "index.html").write_text("new")
    swap_in(staging, site)
    assert sorted(os.listdir(site)) == ["index.html"]
    assert not staging.exists()
    first = make_staging(tmp_path / "fresh")
    (first / "index.html").write_text("first")
    swap_in(first, tmp_path / "fresh")
    assert (tmp_path / "fresh" / "index.html").read_text() == "first"
