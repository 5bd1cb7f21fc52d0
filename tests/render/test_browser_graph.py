"""The graph page in headless Chromium, on the bundled wiki: its filters (type, tag, folder,
community, depth around the selected page, the most linked, recently updated), the legend,
and the side panel a click or a tap opens; pinch-zoom on a phone. Every expected count is
worked out here from graph-data.js itself. A page of hostile text is added; screenshots go
to ``test-artifacts/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from kbtool.cli import main
from tests._browser import bundled_wiki, screenshot, static_server

pytestmark = pytest.mark.browser

HOSTILE = """---
type: concept
summary: "<img src=x onerror=\\"window.pwned = 'summary'\\">恶意摘要"
updated: 2026-01-01
tags: [testing]
related: [transformer.md]
---
# 恶意 <img src=x onerror="window.pwned = 'title'">

正文。
"""
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    extra = {"wiki/concepts/hostile-graph.md": HOSTILE}
    root = bundled_wiki(tmp_path_factory.mktemp("repo"), extra)
    assert main(["-C", str(root), "build"]) == 0
    return root / "site"


@pytest.fixture(scope="module")
def http_base(site: Path) -> Iterator[str]:
    with static_server(site) as url:
        yield url


@pytest.fixture(params=["http", "file"])
def base(request: pytest.FixtureRequest, site: Path) -> str:
    if request.param == "file":
        return site.as_uri() + "/"
    return str(request.getfixturevalue("http_base"))


@pytest.fixture
def graph_page(browser: Any, base: str) -> Iterator[Any]:
    """``graph_page(**context options)`` -> (page, errors) on graph.html, drawn."""
    contexts: list[Any] = []

    def opened(**options: Any) -> tuple[Any, list[str]]:
        context = browser.new_context(**(options or {"viewport": {"width": 1280, "height": 900}}))
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "graph.html")
        page.wait_for_selector('#graph-canvas[data-ready="true"]')
        return page, errors

    yield opened
    for context in contexts:
        context.close()


def _shown(page: Any) -> int:
    return int(page.locator("#graph-canvas").get_attribute("data-shown"))


def _data(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("window.KB_GRAPH"))


def _find(page: Any, text: str) -> None:
    page.fill("#graph-find", text)
    page.press("#graph-find", "Enter")
    page.locator("#graph-panel").wait_for(state="visible")


def test_each_filter_shows_the_pages_it_should(graph_page: Any) -> None:
    page, errors = graph_page()
    data = _data(page)
    nodes, n = data["nodes"], len(data["nodes"])
    assert _shown(page) == n
    concept = data["types"].index("concept")
    page.select_option("#graph-type", str(concept))
    assert _shown(page) == sum(1 for node in nodes if node[2] == concept) < n
    page.click("#graph-clear")
    page.wait_for_function(f"document.querySelector('#graph-canvas').dataset.shown === '{n}'")
    tag = data["tags"].index("attention")
    page.fill("#graph-tag", "attention")
    assert _shown(page) == sum(1 for node in nodes if tag in node[6]) < n
    page.fill("#graph-tag", "no-such-tag")
    assert _shown(page) == 0
    page.fill("#graph-tag", "")
    folders = page.locator("#graph-folder option").all_inner_texts()
    assert "wiki/concepts" in folders and "sources/papers" in folders
    page.select_option("#graph-folder", label="sources/papers")
    expected = sum(1 for p in data["paths"] if p.rsplit("/", 1)[0] == "sources/papers")
    assert _shown(page) == expected < n
    page.select_option("#graph-folder", "-1")
    page.select_option("#graph-community", "0")
    assert _shown(page) == sum(1 for node in nodes if node[4] == 0) < n
    assert errors == []


def test_communities_are_named_by_their_most_linked_page(graph_page: Any) -> None:
    page, errors = graph_page()
    data = _data(page)
    nodes, edges = data["nodes"], data["edges"]
    inlinks = [0] * len(nodes)
    for b in edges[1::2]:
        inlinks[b] += 1
    labels = page.locator("#graph-community option").all_inner_texts()[1:]
    assert len(labels) == len(data["communities"]) >= 2
    for c, label_node in enumerate(data["communities"]):
        members = [i for i, node in enumerate(nodes) if node[4] == c]
        assert max(inlinks[i] for i in members) == inlinks[label_node]
        assert labels[c] == f"{nodes[label_node][3]} ({len(members)})"
    sizes = [sum(1 for node in nodes if node[4] == c) for c in range(len(labels))]
    assert sizes == sorted(sizes, reverse=True)  # largest first
    assert errors == []


def test_the_legend_hides_and_shows_a_type(graph_page: Any) -> None:
    page, errors = graph_page()
    data = _data(page)
    n, source = len(data["nodes"]), data["types"].index("source")
    toggle = page.locator(f'#graph-legend button[data-group="{source}"]')
    assert toggle.get_attribute("aria-pressed") == "true"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "false"
    assert _shown(page) == sum(1 for node in data["nodes"] if node[2] != source)
    toggle.click()
    assert _shown(page) == n
    page.select_option("#graph-colour", "community")  # the legend is now the communities
    first = page.locator('#graph-legend button[data-group="0"]')
    assert data["nodes"][data["communities"][0]][3] in first.inner_text()
    first.click()
    assert _shown(page) == sum(1 for node in data["nodes"] if node[4] != 0)
    assert errors == []


def test_depth_top_and_recency(graph_page: Any) -> None:
    page, errors = graph_page()
    data = _data(page)
    nodes, edges, paths = data["nodes"], data["edges"], data["paths"]
    _find(page, "Transformer")
    me = paths.index("wiki/concepts/transformer.md")
    assert page.locator("#graph-canvas").get_attribute("data-selected") == str(me)
    pairs = list(zip(edges[::2], edges[1::2], strict=True))

    def step(around: set[int]) -> set[int]:  # one link further, either way
        return around | {b for a, b in pairs if a in around} | {a for a, b in pairs if b in around}

    one, two = len(step({me})), len(step(step({me})))
    page.select_option("#graph-depth", "1")
    assert _shown(page) == one < len(nodes)
    page.select_option("#graph-depth", "2")
    assert _shown(page) == two >= one
    page.select_option("#graph-depth", "0")
    page.fill("#graph-top", "5")
    assert _shown(page) == 5
    page.fill("#graph-top", "")
    today = (date.today() - date(1970, 1, 1)).days
    days = sorted(today - node[5] for node in nodes if node[5] >= 0)
    within = days[len(days) // 2]
    page.fill("#graph-days", str(within))
    assert _shown(page) == sum(1 for d in days if d <= within) < len(nodes)
    assert errors == []


def test_a_click_opens_the_panel_and_its_links_select(graph_page: Any, base: str) -> None:
    page, errors = graph_page()
    _find(page, "Transformer")
    page.keyboard.press("Escape")
    panel = page.locator("#graph-panel")
    panel.wait_for(state="hidden")
    box = page.locator("#graph-canvas").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # centred on it
    panel.wait_for(state="visible")
    assert page.url.endswith("graph.html")  # the click did not leave the page
    assert panel.locator("h2").inner_text() == "Transformer"
    page.wait_for_function("document.querySelector('.graph-panel-summary').textContent !== ''")
    assert "自注意力" in panel.locator(".graph-panel-summary").inner_text()
    assert panel.locator(".graph-panel-type").inner_text() == "概念"
    assert panel.locator(".graph-panel-out button").count() >= 3
    assert panel.locator(".graph-panel-in button").count() >= 3
    screenshot(page, f"graph-panel-{base[:4]}")
    link = panel.locator(".graph-panel-out button").first
    name, node = link.inner_text(), link.get_attribute("data-node")
    link.click()
    page.wait_for_function(
        "t => document.querySelector('#graph-panel-title').textContent === t", arg=name
    )
    assert page.locator("#graph-canvas").get_attribute("data-selected") == node
    panel.locator(".graph-panel-open").click()
    page.wait_for_load_state("load")
    assert page.locator("h1").first.inner_text() == name
    assert errors == []


def test_hostile_text_in_the_panel_stays_text(graph_page: Any) -> None:
    page, errors = graph_page()
    _find(page, "恶意")
    panel = page.locator("#graph-panel")
    assert panel.locator("h2").inner_text().startswith("恶意")  # the title lost its markup
    page.wait_for_function("document.querySelector('.graph-panel-summary').textContent !== ''")
    assert "<img" in panel.locator(".graph-panel-summary").inner_text()
    assert panel.locator("img, script").count() == 0
    assert page.evaluate("window.pwned") is None
    assert errors == []


def test_on_a_phone_a_tap_selects_and_two_fingers_zoom(graph_page: Any, base: str) -> None:
    page, errors = graph_page(**PHONE)
    assert not page.locator("#graph-filters").is_visible()  # folded, the graph comes first
    _find(page, "Transformer")
    page.keyboard.press("Escape")
    canvas = page.locator("#graph-canvas")
    box = canvas.bounding_box()
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2 + 6, box["y"] + box["height"] / 2 + 6)
    page.locator("#graph-panel").wait_for(state="visible")
    assert page.locator("#graph-panel h2").inner_text() == "Transformer"
    screenshot(page, f"graph-phone-panel-{base[:4]}")
    page.keyboard.press("Escape")
    before = float(canvas.get_attribute("data-zoom"))
    # Two fingers moving apart: Playwright taps with one, so the pointer events are sent.
    canvas.evaluate(
        """c => {
          const r = c.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
          const send = (type, id, dx) => c.dispatchEvent(new PointerEvent(type, {
            pointerId: id, pointerType: "touch", clientX: x + dx, clientY: y, bubbles: true}));
          send("pointerdown", 1, -20); send("pointerdown", 2, 20);
          for (let d = 20; d <= 80; d += 10) {
            send("pointermove", 1, -d); send("pointermove", 2, d);
          }
          send("pointerup", 1, -80); send("pointerup", 2, 80);
        }"""
    )
    after = float(canvas.get_attribute("data-zoom"))
    assert after > before * 3  # the fingers went from 40 px apart to 160
    assert page.locator("#graph-panel").is_hidden()  # a pinch selects nothing
    assert errors == []


_MOVE = """c => new Promise((done) => {
  const r = c.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
  const pointer = (type, dx) => c.dispatchEvent(new PointerEvent(type, {
    pointerId: 3, pointerType: "mouse", buttons: 1, clientX: x + dx, clientY: y, bubbles: true}));
  const got = [];
  c.dispatchEvent(new WheelEvent("wheel", {
    deltaY: -100, clientX: x, clientY: y, bubbles: true, cancelable: true}));
  // graph.js asked for its frame first: this runs after its drawing, in the same frame
  requestAnimationFrame(() => {
    got.push(c.dataset.linksDrawn);
    pointer("pointerdown", 0); pointer("pointermove", 40);
    requestAnimationFrame(() => {
      got.push(c.dataset.linksDrawn);
      pointer("pointerup", 40);
      done(got);
    });
  });
})"""


def test_while_the_view_moves_the_links_are_moved_and_drawn_again_once_it_rests(
    graph_page: Any,
) -> None:
    page, errors = graph_page()
    canvas = page.locator("#graph-canvas")
    drawn = "Number(document.querySelector('#graph-canvas').dataset.linksDrawn) > 0"
    page.wait_for_function(drawn)
    at_rest = int(canvas.get_attribute("data-links-drawn"))
    # a wheel event, then a drag: each frame moves the picture of the links, draws none
    assert canvas.evaluate(_MOVE) == ["0", "0"]
    assert float(canvas.get_attribute("data-zoom")) > 1
    page.wait_for_function(drawn)  # ~150 ms after the last move, at the new view
    assert 0 < int(canvas.get_attribute("data-links-drawn")) <= at_rest
    assert errors == []
