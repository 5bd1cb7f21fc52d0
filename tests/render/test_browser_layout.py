"""The site's frame in Chromium, on a wiki with ten page types and no ``type-labels``: the
navigation on one line at 1280 px and on a phone, every type reachable; no request that fails
(the favicon is a data: URL); the neighbourhood drawing's labels apart on a busy page; and the
formulas of every notation typeset. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kbtool.cli import main
from tests._browser import Visit, screenshot

pytestmark = pytest.mark.browser

TYPES = (
    "concept",
    "method",
    "entity",
    "overview",
    "query",
    "comparison",
    "benchmark",
    "dataset",
    "person",
    "organization-and-research-laboratory-of-humanoid-robotics",
)
CONFIG = (
    f"[tool.kbtool]\ntypes = {list(TYPES)!r}\n".replace("'", '"')
    + 'site-title = "机器人与深度学习知识库"\nlanguage = "zh"\n'
)
NEIGHBOURS = [
    "扩散策略（Diffusion Policy）在双臂操作中的应用",
    "Action Chunking with Transformers",
    "视觉-语言-动作模型综述",
    "RT-2: Vision-Language-Action Models",
    "模仿学习中的复合误差",
    "人形机器人全身控制",
    "Open X-Embodiment 数据集",
    "Flow Matching 策略",
    "强化学习与世界模型",
    "ALOHA 低成本双臂平台",
    "Decision Transformer",
    "触觉传感与灵巧手",
    "ACT 的时间集成",
    "Behavior Cloning 基线",
    "大模型规划器（LLM Planner）",
    "机器人基础模型的扩展定律",
    "遥操作数据采集",
    "Sim-to-Real 迁移",
]
FORMULAS = (
    "行内 $x_i^2$ 与 \\(\\tilde{\\nabla}_{\\mathbf{p}}\\mathcal{L}\\)，"
    "**可实现的 \\(\\hat\\pi_k\\)**。\n"
    "构造\n\\[\n\\mathbf{x}(\\alpha)=\\alpha\\mathbf{x}_1+(1-\\alpha)\\mathbf{x}_2\n\\]\n\n"
    "| 项 | 说明 |\n|---|---|\n| 度量 | \\(\\sum_k \\|c_k\\|\\,k\\) |\n\n"
    "**$0.30/MTok** 缓存命中、**$3.00/MTok** 普通输入；见 www.example.com。\n"
)


def _page(kind: str, title: str, related: list[str], body: str = "") -> str:
    links = "".join(f"  - {name}.md\n" for name in related)
    return (
        f'---\ntype: {kind}\nsummary: "{title}的摘要"\nupdated: 2026-01-01\n'
        + (f"related:\n{links}" if related else "")
        + f"---\n# {title}\n\n{body or '正文。'}\n"
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ten-types")
    (root / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    wiki = root / "wiki"
    wiki.mkdir()
    names = [f"n{i}" for i in range(len(NEIGHBOURS))]
    for i, (name, title) in enumerate(zip(names, NEIGHBOURS, strict=True)):
        kind = TYPES[i % len(TYPES)]
        (wiki / f"{name}.md").write_text(_page(kind, title, ["busy"]), encoding="utf-8")
    busy = _page("concept", "一个邻居很多的页面", names, FORMULAS)
    (wiki / "busy.md").write_text(busy, encoding="utf-8")
    assert main(["-C", str(root), "build"]) == 0, "kbtool build failed"
    return root / "site"


def _visible_boxes(page: Any, selector: str) -> list[dict[str, float]]:
    return [b for b in (e.bounding_box() for e in page.locator(selector).all()) if b]


def _one_line_that_fits(page: Any) -> None:
    items = [
        li
        for li in page.locator(".site-nav > ul > li").all()
        if li.is_visible() and li.bounding_box()
    ]
    tops = {round(li.bounding_box()["y"]) for li in items}
    assert len(tops) == 1, f"navigation items on {len(tops)} lines"
    right = max(li.bounding_box()["x"] + li.bounding_box()["width"] for li in items)
    width = page.evaluate("document.documentElement.clientWidth")
    assert right <= width, "the navigation runs off the screen"
    search = page.locator("#search").bounding_box()
    if abs(search["y"] - min(tops)) < 10:  # the search box shares the line: no overlap
        assert right <= search["x"], "the navigation runs under the search box"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    title = page.locator(".site-title")
    line = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('.site-title')).lineHeight)"
    )
    assert title.bounding_box()["height"] < 1.5 * line, "the site title wraps"


def _reachable_types(page: Any) -> list[str]:
    """Every type link a reader can see: in the line, and in the menu once opened."""
    seen = [a.inner_text() for a in page.locator(".site-nav a").all() if a.is_visible()]
    menu = page.locator(".nav-more summary")
    if menu.is_visible():
        menu.click()
        in_menu = page.locator(".nav-more ul a")
        seen += [a.inner_text() for a in in_menu.all() if a.is_visible()]
        width = page.evaluate("document.documentElement.clientWidth")
        for box in _visible_boxes(page, ".nav-more ul a"):
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, "menu off the screen"
    return [name for name in seen if name in TYPES]


@pytest.mark.parametrize("width", [1280, 1024, 961])
def test_ten_types_fit_one_line_on_a_laptop_and_all_are_reachable(visit: Visit, width: int) -> None:
    page, watched = visit("index.html", width=width)
    _one_line_that_fits(page)
    inline = [a.inner_text() for a in page.locator(".site-nav .nav-type a").all() if a.is_visible()]
    assert inline, "no type in the line at all"
    assert sorted(_reachable_types(page)) == sorted(TYPES)  # each once, none lost
    screenshot(page, f"layout-nav-{width}-menu-open")
    assert watched.errors == [] and watched.outside == []


def test_ten_types_on_a_phone(visit: Visit) -> None:
    page, watched = visit("wiki/busy.html", width=390, height=844)
    _one_line_that_fits(page)
    assert sorted(_reachable_types(page)) == sorted(TYPES)
    screenshot(page, "layout-nav-phone-menu-open")
    page.mouse.click(4, 830)  # a click outside (the page's margin) closes the menu, as Escape does
    assert not page.locator(".nav-more ul").is_visible()
    page.locator(".nav-more summary").click()
    page.keyboard.press("Escape")
    assert not page.locator(".nav-more ul").is_visible()
    page.locator(".nav-more summary").click()
    page.locator(".nav-more ul a", has_text="dataset").click()
    page.wait_for_load_state("networkidle")
    assert page.url.endswith("types/dataset.html")
    assert watched.errors == [] and watched.outside == []


def test_no_request_fails(visit: Visit) -> None:
    for path in ("index.html", "wiki/busy.html", "types/concept.html", "sources.html"):
        page, watched = visit(path)
        assert watched.errors == [], f"{path}: console errors {watched.errors}"
        icon = page.locator('link[rel="icon"]')
        assert icon.count() == 1 and icon.get_attribute("href").startswith("data:image/svg+xml,")
    for path in ("graph.html", "search.html?q=机器人"):
        visit(path)
    assert visit.failed == []


def test_neighbourhood_labels_do_not_overlap(visit: Visit) -> None:
    page, watched = visit("wiki/busy.html")
    svg = page.locator("svg.neighbourhood")
    svg.scroll_into_view_if_needed()
    frame = svg.bounding_box()
    boxes = _visible_boxes(page, "svg.neighbourhood text")
    assert len(boxes) == 16 + 1  # MAX_SHOWN neighbours and the page itself
    for i, a in enumerate(boxes):
        assert (
            frame["x"] - 0.5 <= a["x"] and a["x"] + a["width"] <= frame["x"] + frame["width"] + 0.5
        )
        for b in boxes[i + 1 :]:
            apart = (
                a["x"] + a["width"] <= b["x"]
                or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"]
                or b["y"] + b["height"] <= a["y"]
            )
            assert apart, f"labels overlap: {a} and {b}"
    screenshot(page, "layout-busy-page")
    assert watched.errors == []


def test_every_formula_notation_is_typeset(visit: Visit) -> None:
    page, watched = visit("wiki/busy.html")
    main_text = page.locator("main").inner_text()
    assert "\\tilde" not in main_text and "\\mathbf" not in main_text
    assert page.locator("main math").count() == 5
    assert page.locator("main .math-error").count() == 0
    bold = page.locator("main strong").all_inner_texts()
    assert "$0.30/MTok" in bold and "$3.00/MTok" in bold  # prices, not one formula
    assert page.locator('main a[href="http://www.example.com"]').count() == 1
    screenshot(page, "layout-formulas")
    assert watched.errors == []
