"""The search client in headless Chromium: typing, highlights, search.html?q=, paging, the
keyboard, a site opened from a folder, and the same answers as ``kbtool search``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kbtool.cli import main
from kbtool.search.codec import unscript
from kbtool.search.engine import IndexFiles, hits, rank
from kbtool.search.excerpt import plain_text
from kbtool.search.pagefiles import CUT, PageReader
from kbtool.search.tokens import normalise, words
from tests._browser import Watched, bundled_wiki, screenshot

pytestmark = pytest.mark.browser

HOSTILE = """---
type: concept
summary: 恶意文本的页面
updated: 2026-01-01
---
# 恶意文本

正文里写着 `<script>window.pwned = 1</script>` 和 <b>粗体</b>，
还有 `<img src=x onerror=alert(1)>` 恶意图片。
"""
#: Astral characters before a match: an excerpt counted in UTF-16 units would start elsewhere.
ASTRAL = (
    """---
type: concept
summary: 表情符号很多的页面
updated: 2026-01-01
---
# 表情符号

"""
    + "🤖" * 45
    + " 前文 "
    + "𝔸" * 30
    + " 目标词语 在这里，后面还有 "
    + "🦾" * 80
    + "\n"
)
LONG = "---\ntype: concept\nsummary: 长列表 N\nupdated: 2026-01-01\n---\n# 长列表 N\n\n"
EDIT = "\n补充：独一无二的新句子 zyxwordq 与注意力。\n"
AGREE = (
    "独一无二",
    "zyxwordq",
    "zyxw",
    "注意力",
    "transformer",
    "trans",
    "Attention",
    '"multi-head attention"',
    "强化学习",
    "机",
    "位置 编码",
    "RT-2",
    "policy",
    "恶意",
    "script",
    "目标词语",
    "Mamba 选择性 状态空间 SSM",
    "transformer 注意力 位置编码",
    "强化学习 -sim2real",
    "policy type:concept",
    "attention -type:source",
    "注意力 tag:transformer",
    '"attention" 机制',
    "动作分块模仿学习",
    "transfomer attention",
    "Mamba",
    "Karpaty",
    "选择性状态空间模型",
    "强化",
    "化学习与注",
    "长列表 强化学习",
    # in-links, wiki pages before sources, a title shared by a source and a wiki page
    "Attention Is All You Need",
    "Mamba",
    "Transformer 注意力 位置编码",
    "深度学习 反向传播 初始化",
    "type:source",
    "tag:transformer",
)
BAD = ("", "!!!", "<script>alert(1)</script>", "(a+)+$[", "🤖" * 50, "\ud800x", "注" * 10000)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    extra = {"wiki/concepts/hostile-text.md": HOSTILE, "wiki/concepts/astral-text.md": ASTRAL}
    root = bundled_wiki(tmp_path_factory.mktemp("repo"), extra)
    for i in range(30):  # pages that make long posting lists, kept apart from their positions
        text = LONG.replace("N", str(i)) + "强化学习与注意力。" * (40 + i) + "\n"
        (root / "wiki" / "concepts" / f"long-{i}.md").write_text(text, encoding="utf-8")
    assert main(["-C", str(root), "build"]) == 0
    # An edit after the first build: the index gets an update segment, which the client reads.
    edited = root / "wiki" / "concepts" / "transformer.md"
    edited.write_text(edited.read_text(encoding="utf-8") + EDIT, encoding="utf-8")
    assert main(["-C", str(root), "build"]) == 0
    assert "delta" in (root / "site" / "search" / "meta.js").read_text(encoding="utf-8")
    assert list((root / "site" / "search" / "p").glob("*.js"))  # long lists' positions
    return root / "site"


def clean(watched: Watched) -> None:
    assert watched.outside == [], f"requests left the site: {watched.outside}"
    assert watched.errors == [], f"console errors: {watched.errors}"
    assert watched.dialogs == [], f"dialogs opened: {watched.dialogs}"


def terminal(site: Path, query: str, count: int | None = 10) -> tuple[int, list[list[str]]]:
    index = IndexFiles(site / "search")
    ranked = rank(index, query)
    found = hits(index, ranked, 0, count)
    return ranked.total, [
        [h.doc.card.path, h.doc.card.title, h.label, plain_text(list(h.excerpt))] for h in found
    ]


BROWSER_SEARCH = """async ([q, n]) => {
  const r = await kbtoolSearch.search(q, 0, n);
  const text = (x) => x.excerpt.map((p) => p[0]).join("");
  return [r.total, r.results.map((x) => [x.path, x.title, x.label, text(x)])];
}"""


def engine(page: Any) -> None:
    """Reach for the search box, which loads the search engine, and wait for it."""
    page.locator("#search-input").focus()
    page.wait_for_function("!!window.kbtoolSearch")


def typed(page: Any, text: str) -> None:
    """Type ``text`` key by key and wait for the results of the whole of it: results follow
    each keystroke, and on a slow machine those of a prefix show first."""
    page.locator("#search-input").press_sequentially(text, delay=20)
    page.wait_for_selector(f"#search-results[data-query='{text}'] .search-hit")


def test_typing_shows_results_with_highlights(visit: Any, site: Path) -> None:
    page, watched = visit("index.html")
    typed(page, "注意力")
    total, first = terminal(site, "注意力", 8)
    assert str(total) in page.locator("#search-results .search-status").inner_text()
    titles = page.locator("#search-results .search-hit-title").all_inner_texts()
    assert titles == [title for _, title, _, _ in first]
    marks = page.locator("#search-results mark").all_inner_texts()
    assert marks and all(m == "注意力" for m in marks)
    assert page.locator("#search-results a.search-all").count() == (total > 8)
    screenshot(page, "search-typing")
    clean(watched)


def test_search_page_pages_through_every_result_in_terminal_order(visit: Any, site: Path) -> None:
    page, watched = visit("search.html?q=%E6%B3%A8%E6%84%8F%E5%8A%9B")  # 注意力
    page.wait_for_selector('main #search-results[aria-busy="false"] .search-hit')
    assert page.locator("#search-input").input_value() == "注意力"
    hits_ = page.locator("main #search-results .search-hit")
    more = page.locator("main #search-results button.search-more")
    assert hits_.count() == 10 and more.count() == 1
    while more.count():
        shown = hits_.count()
        more.click()
        page.wait_for_function(
            f"document.querySelectorAll('main #search-results .search-hit').length > {shown}"
        )
    total, everything = terminal(site, "注意力", None)
    listed = page.locator("main a.search-hit-link").evaluate_all(
        "links => links.map(a => decodeURI(new URL(a.href).pathname))"
    )
    assert len(listed) == total
    assert [p.removesuffix(".html") for p in listed] == [
        "/" + path.removesuffix(".md") for path, _, _, _ in everything
    ]
    screenshot(page, "search-paging")
    clean(watched)


def test_keyboard_moves_through_results_and_opens_one(visit: Any) -> None:
    page, watched = visit("index.html")
    typed(page, "Transformer")
    page.keyboard.press("ArrowDown")
    first = page.locator("#search-results a.search-hit-link").first
    assert first.evaluate("a => a === document.activeElement")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    assert first.evaluate("a => a === document.activeElement")
    page.keyboard.press("Enter")
    page.wait_for_url("**/wiki/concepts/transformer.html")  # the page titled so, first
    clean(watched)


def test_escape_closes_and_enter_opens_the_search_page(visit: Any) -> None:
    page, watched = visit("index.html")
    typed(page, "policy")
    page.keyboard.press("Escape")  # closes the list (and, in a search box, clears it)
    assert page.locator("#search-results .search-hit").count() == 0
    page.locator("#search-input").fill("policy")
    page.keyboard.press("Enter")
    page.wait_for_selector('main #search-results[aria-busy="false"] .search-hit')
    assert "search.html?q=policy" in page.url
    clean(watched)


def test_terminal_and_browser_agree(visit: Any, site: Path) -> None:
    page, watched = visit("index.html")
    engine(page)
    assert terminal(site, "独一无二")[0] == 1  # the edit is found, from the update segment
    for query in AGREE:
        total, results = terminal(site, query)
        assert total, query  # each query finds something, so the comparison says something
        assert page.evaluate(BROWSER_SEARCH, [query, 10]) == [total, results], query
    [astral] = terminal(site, "目标词语")[1]
    assert astral[3].startswith("…") and "目标词语" in astral[3]  # cut inside the emoji run
    clean(watched)


def test_an_excerpt_past_a_pages_cut_reads_its_rest_and_agrees(visit: Any, site: Path) -> None:
    cut = [(name, doc) for name, doc in _page_entries(site) if doc.get("more")]
    assert cut, "no page of the bundled wiki is longer than a page file holds"
    name, doc = cut[0]
    reader = PageReader(site / "search", unscript((site / "search" / "meta.js").read_bytes()))
    whole = next(d for i in range(400) if (d := reader.doc(i)) and d.card.path == doc["path"])
    late = [w for w in words(whole.body[CUT:]) if len(w) > 5 and w not in normalise(doc["body"])]
    assert late, name
    page, watched = visit("index.html")
    engine(page)
    total, results = terminal(site, late[0])
    assert any(late[0] in normalise(excerpt) for _, _, _, excerpt in results)
    assert page.evaluate(BROWSER_SEARCH, [late[0], 10]) == [total, results]
    clean(watched)


def _page_entries(site: Path) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for file in sorted((site / "search" / "d").glob("*.js")):
        out += [(file.name, d) for d in unscript(file.read_bytes())["docs"] if d]
    return out


def test_bad_queries_are_answered_in_the_browser(visit: Any) -> None:
    page, watched = visit("index.html")
    engine(page)
    for query in BAD:
        total, results = page.evaluate(BROWSER_SEARCH, [query, 10])
        assert total >= 0 and len(results) <= 10
    page.locator("#search-input").fill("<img src=x onerror=alert(1)>")
    page.wait_for_selector("#search-results .search-status")
    clean(watched)


def test_page_text_with_script_never_runs(visit: Any) -> None:
    page, watched = visit("search.html?q=pwned")
    page.wait_for_selector('main #search-results[aria-busy="false"] .search-hit')
    excerpt = page.locator("main .search-hit-excerpt").first.inner_text()
    assert "<script>" in excerpt  # shown as text
    assert page.locator("main #search-results script, main #search-results img").count() == 0
    page.locator("#search-input").fill("恶意图片 onerror")
    page.wait_for_timeout(300)
    assert page.evaluate("window.pwned") is None
    clean(watched)


def test_a_page_read_without_searching_never_loads_the_engine(visit: Any) -> None:
    page, watched = visit("wiki/concepts/transformer.html")
    page.wait_for_load_state("load")
    page.mouse.wheel(0, 400)  # reading: scrolling, no search box reached
    page.wait_for_timeout(200)
    assert page.evaluate("!!window.kbtoolSearch") is False
    assert not page.evaluate(
        "performance.getEntriesByType('resource').some((r) => /search(\\.js|\\/)/.test(r.name))"
    )
    typed(page, "缩放点积")  # the box reached: the engine loads and answers what was typed
    assert page.locator("#search-results mark").first.inner_text() == "缩放点积"
    clean(watched)


def test_what_was_typed_while_the_engine_loaded_is_answered_when_it_starts(visit: Any) -> None:
    page, watched = visit("wiki/concepts/transformer.html")
    held: list[Any] = []
    page.route("**/assets/search.js", lambda route: held.append(route))  # held till let through
    page.locator("#search-input").press_sequentially("缩放点积", delay=20)
    page.wait_for_function("document.querySelectorAll('script[src$=\"search.js\"]').length")
    assert held and page.evaluate("!!window.kbtoolSearch") is False
    held[0].continue_()  # no keystroke after it: the text already typed is searched
    page.wait_for_selector("#search-results[data-query='缩放点积'] .search-hit")
    clean(watched)


def test_search_works_from_a_folder(browser: Any, site: Path) -> None:
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto((site / "wiki" / "concepts" / "transformer.html").as_uri())
        typed(page, "缩放点积")
        assert page.locator("#search-results mark").first.inner_text() == "缩放点积"
        page.goto((site / "search.html").as_uri() + "?q=policy")
        page.wait_for_selector('main #search-results[aria-busy="false"] .search-hit')
        assert errors == []
        assert requests and all(url.startswith("file://") for url in requests)
        screenshot(page, "search-file-url")
    finally:
        context.close()
