"""What GitHub renders, as a reader sees it in Chromium: diagrams, Chinese bold, task lists,
bare links, alerts, formulas; hostile and huge diagrams; the navigation at laptop and phone
width. Screenshots of the dense Transformer page go to ``test-artifacts/``.

The bundled wiki plus a few pages of bad input is built once with ``kbtool build`` and served
from 127.0.0.1; every request for another host is aborted and recorded.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from kbtool.cli import main
from kbtool.render.diagrams import MERMAID
from tests._browser import Visit, Watched, screenshot

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
TRANSFORMER = "wiki/concepts/transformer.html"
FRONT = "---\ntype: concept\nsummary: 测试页\nupdated: 2026-01-01\ntags: [test]\n---\n"
#: Diagrams that try to run script in every way Mermaid offers, and one that tries to lower
#: the security level with a directive.
HOSTILE = (
    FRONT
    + """# 恶意图表

```mermaid
%%{init: {"securityLevel": "loose", "startOnLoad": true}}%%
flowchart TD
  A["<script>window.pwned = 'label'</script>开始"] --> B["<img src=x onerror=alert(1)>图"]
  B --> C["链接"]
  C --> D["回调"]
  click A callback "提示"
  click B call alert("call")
  click C href "javascript:window.pwned = 'href'"
  click D "javascript:alert('d')"
  E["<img src='https://example.org/track.png'>外链图"] --> F["<a href='javascript:alert(1)'>链</a>"]
```

```mermaid
%%{init: {"themeCSS": ".node rect { fill: url(https://example.org/fill.svg) }"}}%%
flowchart LR
  G[样式] --> H[外链]
```

```mermaid
sequenceDiagram
  participant U as <img src=x onerror="window.pwned = 'seq'">用户
  U->>U: <script>window.pwned = 'note'</script>
  link U: 恶意 @ javascript:window.pwned='link'
```
"""
)
BROKEN = (
    FRONT
    + """# 坏图表

```mermaid
flowchart TD
  A[开始 --> B{{未闭合
```

```mermaid
flowchart LR
  ok1[正常] --> ok2[图表]
```
"""
)
#: 5,000 nodes, written long (past the text bound) and short (past the edge bound): each
#: must fail fast with a message rather than hang the page.
HUGE = (
    FRONT
    + "# 巨型图表\n\n```mermaid\nflowchart TD\n"
    + "".join(f"  n{i}[节点{i}] --> n{i + 1}\n" for i in range(5000))
    + "```\n\n```mermaid\ngraph LR\nn0"
    + "".join(f"-->n{i:x}" for i in range(1, 5000))
    + "\n```\n"
)
#: Emphasis nested thousands deep, and an unclosed run: the build and the page must cope.
DEEP = (
    FRONT
    + "# 深层强调\n\n"
    + "**「" * 3000
    + "核心"
    + "」**" * 3000
    + "\n\n"
    + "中**文" * 5000
    + "\n"
)
EXTRA = {"diagram-hostile": HOSTILE, "diagram-broken": BROKEN, "diagram-huge": HUGE, "deep": DEEP}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not MERMAID.is_file():
        reason = f"{MERMAID} is missing: `make` installs it (npm ci)"
        pytest.fail(reason) if os.environ.get("CI", "").lower() == "true" else pytest.skip(reason)
    root = tmp_path_factory.mktemp("repo")
    for name in ("wiki", "sources"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    for stem, text in EXTRA.items():
        (root / "wiki" / "concepts" / f"{stem}.md").write_text(text, encoding="utf-8")
    assert main(["-C", str(root), "build"]) == 0, "kbtool build failed"
    return root / "site"


def wait_for_diagrams(page: Any, timeout: float = 60_000) -> None:
    """Bring each diagram near the screen, as a reader scrolling would, and wait for it."""
    for figure in page.locator("figure.diagram").all():
        figure.scroll_into_view_if_needed()
        page.wait_for_function(
            "f => f.hasAttribute('data-drawn')", arg=figure.element_handle(), timeout=timeout
        )
    page.wait_for_selector('html[data-diagrams="done"]', state="attached", timeout=timeout)
    page.evaluate("window.scrollTo(0, 0)")


def assert_clean(watched: Watched) -> None:
    assert watched.outside == [], f"requests left the site: {watched.outside}"
    assert watched.errors == [], f"console errors: {watched.errors}"
    assert watched.dialogs == [], f"dialogs opened: {watched.dialogs}"


def test_the_transformer_page_shows_what_github_shows(visit: Visit) -> None:
    page, watched = visit(TRANSFORMER)
    wait_for_diagrams(page)
    figure = page.locator("figure.diagram").first
    assert figure.get_attribute("data-drawn") == "true"
    svg = figure.locator("svg")
    assert svg.count() == 1 and "编码器" in (svg.text_content() or "")
    box = svg.bounding_box()
    assert box is not None and box["width"] > 200 and box["height"] > 100
    assert not figure.locator("pre.mermaid-source").is_visible()
    # Bold around 「…」, where CommonMark alone would not open it.
    bold = page.locator("main strong").all_inner_texts()
    assert "「残差连接 + LayerNorm」" in bold and "「头数 × 每头维度」" in bold
    boxes = page.locator('main input[type="checkbox"]')
    assert boxes.count() == 4 and all(boxes.nth(i).is_disabled() for i in range(4))
    assert page.locator('main input[type="checkbox"]:checked').count() == 2
    link = page.locator('main a[href="https://github.com/tensorflow/tensor2tensor"]')
    assert link.count() == 1 and link.inner_text() == "https://github.com/tensorflow/tensor2tensor"
    assert page.locator('main a[href^="https://pytorch.org/"]').inner_text().endswith(".html")
    assert page.locator("main .markdown-alert-tip .markdown-alert-title").inner_text() == "提示"
    assert page.locator("main .markdown-alert-note .markdown-alert-title").inner_text() == "备注"
    assert page.locator("main s").first.inner_text().startswith("用 RNN")
    assert page.locator("main .footnote-ref a").count() == 1
    maths = page.locator("main math")
    assert maths.count() >= 5
    argmin = page.locator("main math", has_text="arg min").first
    assert argmin.is_visible() and page.locator("main .math-error").count() == 0
    screenshot(page, "fidelity-transformer-desktop")
    assert_clean(watched)


def test_the_transformer_page_on_a_phone(visit: Visit) -> None:
    page, watched = visit(TRANSFORMER, width=390, height=844)
    wait_for_diagrams(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width}px wide on a 390px phone"
    nav = page.locator(".site-nav > ul")
    height = nav.bounding_box()["height"]
    line = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('.site-nav a')).lineHeight)"
    )
    assert height < 2 * line, "the navigation wraps onto more lines"
    assert page.locator("figure.diagram svg").count() == 1
    screenshot(page, "fidelity-transformer-phone")
    assert_clean(watched)


@pytest.mark.parametrize("width", [1280, 1024])
def test_the_navigation_fits_on_one_line_on_a_laptop(visit: Visit, width: int) -> None:
    page, watched = visit("index.html", width=width, height=800)
    items = page.locator(".site-nav > ul > li:visible")
    assert items.count() >= 10  # home, seven types, sources, graph
    tops = {round(items.nth(i).bounding_box()["y"]) for i in range(items.count())}
    assert len(tops) == 1, f"navigation items on {len(tops)} lines"
    fits = page.evaluate(
        "(() => { const n = document.querySelector('.site-nav');"
        " return n.scrollWidth <= n.clientWidth; })()"
    )
    assert fits, "the navigation needs scrolling on a laptop"
    concept = page.locator(".site-nav a", has_text="概念")
    assert [a.is_visible() for a in concept.all()].count(True) == 1  # in the line, not the menu
    assert not page.locator(".site-nav .nav-more").is_visible()  # every type fits the line
    assert_clean(watched)


def test_diagrams_follow_the_dark_theme(visit: Visit) -> None:
    fills = []
    for dark in (False, True):
        page, watched = visit(TRANSFORMER, dark=dark)
        wait_for_diagrams(page)
        fills.append(
            page.evaluate(
                "getComputedStyle(document.querySelector('figure.diagram svg .node rect')).fill"
            )
        )
        assert_clean(watched)
    assert fills[0] != fills[1], f"the same node colour in light and dark: {fills}"


def test_hostile_diagrams_run_nothing(visit: Visit) -> None:
    page, watched = visit("wiki/concepts/diagram-hostile.html")
    wait_for_diagrams(page)
    assert page.locator("figure.diagram svg").count() == 3
    for node in page.locator("figure.diagram svg .node, figure.diagram svg .actor").all():
        node.click(timeout=2000, no_wait_after=True, force=True)
    page.wait_for_timeout(300)
    assert page.evaluate("window.pwned") is None
    assert page.locator("main script, main [onerror], main [onclick], main iframe").count() == 0
    hrefs = page.locator("main a").evaluate_all(
        "links => links.map(a => a.getAttribute('href') || a.getAttribute('xlink:href') || '')"
    )
    assert not [h for h in hrefs if h.strip().lower().startswith("javascript:")]
    screenshot(page, "fidelity-hostile-diagrams")
    # What the page's own policy blocked (an inline handler, an image on another site) and the
    # 404 of `<img src=x>` are reported by the browser; nothing else may be.
    blocked = [e for e in watched.errors if "Content Security Policy" in e or "404" in e]
    assert blocked and watched.errors == blocked
    assert watched.outside == [] and watched.dialogs == []


def test_a_broken_diagram_shows_its_source_and_the_message(visit: Visit) -> None:
    page, watched = visit("wiki/concepts/diagram-broken.html")
    wait_for_diagrams(page)
    broken, good = page.locator("figure.diagram").all()
    assert broken.get_attribute("data-drawn") == "error"
    source = broken.locator("pre.mermaid-source")
    assert source.is_visible() and "未闭合" in source.inner_text()
    assert broken.locator(".diagram-error").inner_text().strip() != ""
    assert good.get_attribute("data-drawn") == "true" and good.locator("svg").count() == 1
    assert page.locator("body > svg, body > div[id^='ddiagram']").count() == 0  # no stray bomb
    screenshot(page, "fidelity-broken-diagram")
    assert_clean(watched)


def test_a_5000_node_diagram_fails_fast_with_its_source_shown(visit: Visit) -> None:
    page, watched = visit("wiki/concepts/diagram-huge.html")
    wait_for_diagrams(page, timeout=60_000)
    long, short = page.locator("figure.diagram").all()
    for figure, last in ((long, "n4999"), (short, f"n{4999:x}")):
        assert figure.get_attribute("data-drawn") == "error"
        assert last in figure.locator("pre.mermaid-source").inner_text()
    assert "too large" in long.locator(".diagram-error").inner_text()
    assert "edge" in short.locator(".diagram-error").inner_text().lower()
    assert_clean(watched)


def test_deep_emphasis_builds_and_shows(visit: Visit) -> None:
    page, watched = visit("wiki/concepts/deep.html")
    assert "核心" in page.locator("main").inner_text()
    assert page.locator("main strong").count() >= 1
    assert_clean(watched)


def test_mermaid_loads_only_when_a_diagram_comes_near(visit: Visit) -> None:
    page, watched = visit("wiki/concepts/transformer.html", height=300)
    page.wait_for_timeout(500)
    assert not [u for u in visit.requests if "mermaid.min.js" in u]  # the diagram is far below
    wait_for_diagrams(page)
    assert [u for u in visit.requests if u.endswith("assets/vendor/mermaid.min.js")]
    assert_clean(watched)


def test_mermaid_loads_only_on_pages_with_diagrams(visit: Visit) -> None:
    page, watched = visit("wiki/concepts/mamba.html")
    page.wait_for_timeout(300)
    assert not [u for u in visit.requests if "mermaid" in u or "diagrams.js" in u]
    assert page.evaluate("typeof window.mermaid") == "undefined"
    page, _ = visit(TRANSFORMER)
    wait_for_diagrams(page)
    assert [u for u in visit.requests if u.endswith("assets/vendor/mermaid.min.js")]
    assert_clean(watched)


def test_search_still_works_under_the_diagram_pages_policy(visit: Visit) -> None:
    page, watched = visit(TRANSFORMER)
    assert page.locator('meta[http-equiv="Content-Security-Policy"]').count() == 1
    page.fill('#search input[name="q"]', "注意力")
    page.wait_for_selector("#search-results .search-hit")
    assert page.locator("#search-results .search-hit").count() >= 2
    assert_clean(watched)
