"""Site search: CJK bigrams, the Pagefind index, and queries in a browser.

Chinese readers expect substring semantics: any run of two or more characters a page contains
must find it. The tests build a small site of Chinese pages in the site's markup, index it with
the real Pagefind binary, then check recall three ways: the bigram spelling itself (a
Hypothesis property), the index files Pagefind wrote (decoded here, no browser), and the real
client in headless Chromium.
"""

from __future__ import annotations

import gzip
import html
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _browser import browser, open_page, screenshot, static_server  # noqa: F401
from hypothesis import given
from hypothesis import strategies as st

from kbtool.config import Config
from kbtool.render import search, search_grams
from kbtool.render.search_grams import BREAK, gram_words, page_text, spell, spell_query

ASSETS = Path(search.__file__).parent / "assets"
#: The terms the issue names, and what else a reader of this wiki types.
REQUIRED = ["注意力", "位置编码", "多头", "缩放点积", "人形"]
MORE = ["意力", "点积注", "自注意力", "机器人", "扩散策略", "状态空间", "一种生成框"]

PAGE = """<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>{title}</title>
<link rel="stylesheet" href="{root}assets/search.css">
<script src="{root}assets/search.js" defer></script></head>
<body>
<header class="site-header" data-pagefind-ignore="all">
  <nav><a href="{root}index.html">首页 注意力导航</a></nav>
  <form id="search" role="search" action="{root}search.html">
    <input id="search-input" type="search" name="q" autocomplete="off"></form>
  <div id="search-results" aria-live="polite"></div>
</header>
<main id="content" tabindex="-1" data-pagefind-body>
<article>
<h1 data-pagefind-meta="title" data-pagefind-weight="10">{title}</h1>
<p class="summary" data-pagefind-meta="summary" data-pagefind-weight="5">{summary}</p>
<dl class="page-meta" data-pagefind-ignore><dd>concept</dd></dl>
<div class="page-body">{body}</div>
<footer class="page-links" data-pagefind-ignore><h2>反向链接</h2><ul><li>{backlink}</li></ul>
</footer>
</article>
</main>
</body></html>
"""
SEARCH_PAGE = """<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>搜索</title>
<link rel="stylesheet" href="assets/search.css"><script src="assets/search.js" defer></script>
</head><body><header><form id="search" role="search" action="search.html">
<input id="search-input" type="search" name="q"></form></header>
<main id="content"><h1>搜索结果</h1><div id="search-results" aria-live="polite"></div></main>
</body></html>
"""
#: path: (title, summary, body HTML, backlink title shown in an ignored footer)
PAGES: dict[str, tuple[str, str, str, str]] = {
    "wiki/concepts/transformer.html": (
        "Transformer",
        "用自注意力替代循环与卷积的序列建模架构。",
        "<h2>缩放点积注意力</h2><p>注意力权重衡量每个位置取多少信息；<strong>多头</strong>"
        "注意力在不同子空间并行。</p><h2>位置编码</h2><p>正弦位置编码注入顺序信息。</p>"
        "<p>Scaled Dot-Product <em>Attention</em> &amp; LayerNorm.</p>",
        "Mamba",
    ),
    "wiki/concepts/mamba.html": (
        "Mamba",
        "选择性状态空间模型，线性复杂度。",
        "<p>与 <strong>注意</strong>力 不同，状态空间模型按时间递推。</p>"
        "<pre><code>h = A h + B x  # 没有点积注意力</code></pre>",
        "Transformer",
    ),
    "wiki/methods/humanoid-policy.html": (
        "人形机器人策略网络",
        "人形机器人的策略网络架构与控制频率。",
        "<p>人形机器人用 Transformer 或 MLP 作为策略骨干。</p><ul><li>控制频率 50 Hz</li></ul>",
        "注意力机制",
    ),
    "wiki/methods/diffusion-policy.html": (
        "扩散策略",
        "把动作生成当作去噪过程。",
        "<p>扩散策略在机器人模仿学习中表现稳定；它的骨干可以是注意力网络。</p>"
        "<p>人形机器人、人形手、人形腿：人形平台上扩散策略很常见。</p>"
        "<p>扩散模型是一种<strong>生成</strong>框架。</p>"
        "<p>注意。力学约束另行处理。</p>",
        "人形机器人策略网络",
    ),
    "wiki/entities/paper-attention.html": (
        "Attention Is All You Need",
        "提出 Transformer 与多头注意力的论文。",
        "<p>论文提出<a href='../concepts/transformer.html'>多头注意力</a>与位置编码，"
        "<span title='a > b'>缩放点积</span>作为核心。</p>",
        "Transformer",
    ),
    "sources/papers/aiayn.html": (
        "论文归档：Attention Is All You Need",
        "",
        "<p>原文链接与摘要。Self-attention, multi-head.</p><script>var 注意力 = 1;</script>",
        "",
    ),
}


def write_site(root: Path) -> Path:
    """The small site, as the templates would render it, with the real client assets."""
    for rel, (title, summary, body, backlink) in PAGES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        page_root = "../" * rel.count("/")
        path.write_text(
            PAGE.format(
                title=html.escape(title),
                summary=html.escape(summary),
                body=body,
                backlink=html.escape(backlink),
                root=page_root,
            ),
            encoding="utf-8",
        )
    (root / "index.html").write_text("<!doctype html><title>home</title><p>首页注意力</p>")
    (root / "search.html").write_text(SEARCH_PAGE, encoding="utf-8")
    (root / "assets").mkdir(exist_ok=True)
    for name in ("search.js", "search.css"):
        shutil.copy(ASSETS / name, root / "assets" / name)
    return root


def visible_texts(site: Path) -> dict[str, str]:
    """What a reader can find on each indexed page: its page_text, joined."""
    texts = {}
    for rel in PAGES:
        text = page_text((site / rel).read_text(encoding="utf-8"))
        assert text is not None
        texts["/" + rel] = "\n".join(text.values())
    return texts


def containing(texts: dict[str, str], query: str) -> set[str]:
    return {url for url, text in texts.items() if query.lower() in text.lower()}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Config, dict[str, Any]]:
    """The small site, indexed once for the module: (site folder, config, stats)."""
    root = tmp_path_factory.mktemp("repo")
    site = write_site(root / "site")
    config = Config(root=root)
    stats = search.build_search_index(site, config)
    return site, config, stats


# -- spelling -----------------------------------------------------------------------------


def test_spell_is_four_letters_of_the_code_point() -> None:
    assert spell("注") == "gmoi"  # U+6CE8
    assert spell("一") == "eoaa"  # U+4E00
    assert all(len(spell(c)) == 4 and set(spell(c)) <= set("abcdefghijklmnop") for c in "注力あ한")


def test_gram_words_are_overlapping_bigrams_per_run() -> None:
    assert gram_words("注意力") == [
        BREAK,
        "k" + spell("注") + spell("意"),
        "k" + spell("意") + spell("力"),
    ]
    # Punctuation, Latin and spaces end a run; a lone character is a word of its own.
    assert gram_words("注意，力") == [
        BREAK,
        "k" + spell("注") + spell("意"),
        BREAK,
        "k" + spell("力"),
    ]
    assert gram_words("Transformer 的 attention") == [BREAK, "k" + spell("的")]
    assert gram_words("no CJK here") == []


def test_spell_query_quotes_each_run_and_keeps_other_words() -> None:
    assert spell_query("注意力") == '"' + " ".join(gram_words("注意力")[1:]) + '"'
    assert spell_query("多头 Attention") == '"kfjbkfjde" Attention'
    assert spell_query("注") == "k" + spell("注")
    assert spell_query('"缩放" “点积”') == '"{}" "{}"'.format(
        gram_words("缩放")[1], gram_words("点积")[1]
    )
    assert spell_query("  ") == ""


def _phrase_in(words: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(words[i : i + n] == phrase for i in range(len(words) - n + 1))


_CHARS = "注意力多头位置编码缩放点积人形"


@given(
    text=st.text(alphabet=_CHARS + "，。 aZ1", max_size=40),
    query=st.text(alphabet=_CHARS, min_size=2, max_size=5),
)
def test_phrase_of_bigrams_matches_exactly_the_substrings(text: str, query: str) -> None:
    """The invariant the search rests on: a page's bigram words contain the query's bigrams as
    a phrase if and only if its text contains the query."""
    assert _phrase_in(gram_words(text), gram_words(query)[1:]) == (query in text)


# -- what Pagefind is given -----------------------------------------------------------------


def test_page_text_splits_title_summary_and_body() -> None:
    title, summary, body, _ = PAGES["wiki/concepts/transformer.html"]
    html_text = PAGE.format(title=title, summary=summary, body=body, backlink="反向", root="")
    text = page_text(html_text)
    assert text is not None
    assert text["title"].strip() == "Transformer"
    assert text["summary"].strip() == summary
    assert "缩放点积注意力" in text["body"] and "多头注意力" in text["body"]  # <strong> joins
    assert "Attention & LayerNorm" in text["body"]  # entities decoded
    # The header, the ignored footer and meta list are not indexed, as Pagefind skips them.
    assert "导航" not in "".join(text.values()) and "反向" not in "".join(text.values())
    assert "concept" not in text["body"]


def test_page_text_skips_scripts_and_pages_without_a_body() -> None:
    text = page_text("<body><main data-pagefind-body><script>var 注意力</script>正文</main>")
    assert text is not None and "注意力" not in text["body"] and "正文" in text["body"]
    assert page_text("<html><body><p>注意力</p></body></html>") is None
    tricky = "<main data-pagefind-body><span title='a > b'>缩放</span>点积<!-- 注释 --></main>"
    text = page_text(tricky)
    assert text is not None and "缩放点积" in text["body"] and "注释" not in text["body"]


def test_block_elements_end_a_run() -> None:
    text = page_text("<main data-pagefind-body><p>注意</p><p>力</p><li>多</li><li>头</li></main>")
    assert text is not None
    assert not _phrase_in(gram_words(text["body"]), gram_words("注意力")[1:])
    assert not _phrase_in(gram_words(text["body"]), gram_words("多头")[1:])


def test_spell_page_spells_what_pagefind_indexes_and_nothing_else() -> None:
    source = PAGE.format(
        title="注意力 &amp; Attention",
        summary="多头",
        body="<p>位置编码 PE</p><script>var 脚本 = 1;</script>",
        backlink="反向链接",
        root="",
    )
    spelled = search_grams.spell_page(source)
    assert spelled is not None
    main = spelled[spelled.index("<main") : spelled.index("</main>")]
    assert not re.search(
        f"[{search_grams.CJK_CHARS}]", main.replace("脚本", "").replace("反向链接", "")
    )
    assert " ".join(gram_words("位置编码")) + " " in main and "PE" in main
    assert "&amp; Attention" in main  # the rest of the text, as it was
    assert "var 脚本 = 1;" in main and "反向链接" in main  # script and ignored parts untouched
    assert "首页 注意力导航" in spelled  # outside the body: not indexed, not spelled
    # The title and summary are meta fields as written and as spelled, not from the h1.
    assert 'data-pagefind-meta="title"' not in main
    assert '<div hidden data-pagefind-meta="title">注意力 &amp; Attention</div>' in spelled
    assert (
        f'data-pagefind-meta="kbtitle">{" ".join(gram_words("注意力"))} &amp; Attention<' in spelled
    )
    assert (
        f'<div hidden data-pagefind-meta="kbsummary">{" ".join(gram_words("多头"))}</div>'
        in spelled
    )
    assert spelled.index("kbsummary") < spelled.index("</body>")
    assert search_grams.spell_page("<html><body>no body</body></html>") is None


_PLAIN = st.text(alphabet=_CHARS + "，。 \nAZaz19&<", max_size=60)


@given(text=_PLAIN, cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=4))
def test_inline_elements_do_not_split_a_run(text: str, cuts: list[int]) -> None:
    """``注意<b>力</b>``: text cut into pieces by inline elements is spelled into the same
    words, in the same order, as the uncut text."""
    bounds = sorted({0, len(text), *(c for c in cuts if c < len(text))})
    pieces = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)] or [""]
    spelled = search_grams._spell_flow(pieces)
    assert "".join(spelled).split() == search_grams.spell_text(text).split()


@given(text=_PLAIN)
def test_unspelling_gives_back_the_text(text: str) -> None:
    """What the client shows: the text as written, but for the spaces around CJK runs."""
    expected = re.sub(f"\\s*([{search_grams.CJK_CHARS}]+)\\s*", r"\1", text)
    assert search_grams.unspell_text(search_grams.spell_text(text)) == expected


# -- the index Pagefind writes ---------------------------------------------------------------


def test_index_bundle_is_complete_and_lean(built: tuple[Path, Config, dict[str, Any]]) -> None:
    site, config, stats = built
    bundle = site / "pagefind"
    assert stats["pages"] == len(PAGES) and not stats["reused"]
    assert stats["bytes"] > 0 and stats["files"] == len(
        [p for p in bundle.rglob("*") if p.is_file()]
    )
    names = {p.name for p in bundle.iterdir()}
    assert {"pagefind.js", "pagefind-entry.json", "fragment", "index", search.STAMP} <= names
    assert any(n.endswith(".pf_meta") for n in names)
    assert len(list((bundle / "fragment").iterdir())) == len(PAGES)
    assert not [n for n in names if n.startswith(("pagefind-ui", "pagefind-component-ui"))]
    # Published pages are untouched, the staging folder is gone, nothing else was written.
    assert all("kbgre" not in (site / rel).read_text(encoding="utf-8") for rel in PAGES)
    assert not (config.cache_path / "search-stage").exists()
    assert {p.name for p in config.root.iterdir()} <= {"site", ".kbtool"}


def _cbor(data: bytes, at: int) -> tuple[Any, int]:
    """Just enough CBOR for Pagefind's index files (no floats, no indefinite lengths)."""
    head = data[at]
    major, info = head >> 5, head & 31
    at += 1
    if info < 24:
        arg = info
    elif info <= 27:
        size = 1 << (info - 24)
        arg = int.from_bytes(data[at : at + size], "big")
        at += size
    else:
        raise ValueError(f"CBOR item {head:#x} at {at} is not used by Pagefind 1.x")
    if major == 0:
        return arg, at
    if major == 1:
        return -1 - arg, at
    if major in (2, 3):
        raw = data[at : at + arg]
        return (raw if major == 2 else raw.decode("utf-8")), at + arg
    if major == 4:
        items = []
        for _ in range(arg):
            item, at = _cbor(data, at)
            items.append(item)
        return items, at
    if major == 7 and info in (20, 21, 22):
        return {20: False, 21: True, 22: None}[info], at
    raise ValueError(f"CBOR major type {major} is not used by Pagefind 1.x")


def _pagefind_file(path: Path) -> Any:
    data = gzip.decompress(path.read_bytes())
    assert data.startswith(b"pagefind_dcd")
    return data[len(b"pagefind_dcd") :]


def read_index(bundle: Path) -> dict[str, set[str]]:
    """Every word of the index and the URLs of the pages it is on, read from Pagefind's files
    (format of Pagefind 1.x: meta = [version, [[fragment, words]...], chunks, ...]; a chunk =
    [[word, [[page delta, locations, ...]...], ...]...])."""
    meta, _ = _cbor(_pagefind_file(next(bundle.glob("*.pf_meta"))), 0)
    urls = []
    for fragment, _words in meta[1]:
        urls.append(
            json.loads(_pagefind_file(bundle / "fragment" / f"{fragment}.pf_fragment"))["url"]
        )
    words: dict[str, set[str]] = {}
    for chunk in sorted((bundle / "index").glob("*.pf_index")):
        entries, _ = _cbor(_pagefind_file(chunk), 0)
        for word, postings, *_ in entries[0]:
            page = 0
            for posting in postings:
                page += posting[0]  # page numbers are stored as deltas
                words.setdefault(word, set()).add(urls[page])
    return words


@pytest.fixture(scope="module")
def index_words(built: tuple[Path, Config, dict[str, Any]]) -> dict[str, set[str]]:
    try:
        return read_index(built[0] / "pagefind")
    except (ValueError, KeyError, IndexError, TypeError) as error:
        pytest.skip(f"this Pagefind's index format is not the one this reader knows: {error}")


@pytest.mark.parametrize("query", REQUIRED + MORE)
def test_index_has_every_page_that_contains_the_query(
    built: tuple[Path, Config, dict[str, Any]], index_words: dict[str, set[str]], query: str
) -> None:
    """Recall, read from the index files: every page containing the query holds all of the
    query's bigram words (the browser test checks the phrase too)."""
    expected = containing(visible_texts(built[0]), query)
    assert expected, f"the fixture site should contain {query}"
    words = gram_words(query)[1:]
    pages = set.intersection(*(index_words.get(w, set()) for w in words))
    assert expected <= pages, f"{query}: missing {expected - pages}"


def test_index_has_english_words_lower_case(index_words: dict[str, set[str]]) -> None:
    assert "/wiki/concepts/transformer.html" in index_words["transformer"]
    assert "/wiki/concepts/transformer.html" in index_words["layernorm"]


def test_ignored_parts_are_not_indexed(
    built: tuple[Path, Config, dict[str, Any]], index_words: dict[str, set[str]]
) -> None:
    # 注意力 is in the ignored footer of humanoid-policy and in a <script> of aiayn, only.
    pages = set.intersection(*(index_words[w] for w in gram_words("注意力")[1:]))
    assert "/wiki/methods/humanoid-policy.html" not in pages
    assert "/sources/papers/aiayn.html" not in pages


def test_unchanged_site_reuses_the_previous_bundle(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    config = Config(root=root)
    write_site(root / "site")
    first = search.build_search_index(root / "site", config)
    staging = write_site(root / ".site-new")
    again = search.build_search_index(staging, config)
    assert again["reused"] and again["pages"] == first["pages"]
    assert sorted(p.name for p in (staging / "pagefind").rglob("*")) == sorted(
        p.name for p in (root / "site" / "pagefind").rglob("*")
    )
    edited = staging / "wiki/concepts/mamba.html"
    edited.write_text(
        edited.read_text(encoding="utf-8").replace("线性", "次二次"), encoding="utf-8"
    )
    assert not search.build_search_index(staging, config)["reused"]


def test_site_without_indexable_pages(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html><body>home</body></html>")
    stats = search.build_search_index(site, Config(root=tmp_path))
    assert stats["pages"] == 0 and (site / "pagefind" / search.STAMP).exists()


def test_missing_pagefind_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pagefind.service

    monkeypatch.setattr(pagefind.service, "get_executable", lambda: None)
    site = write_site(tmp_path / "site")
    with pytest.raises(search.SearchIndexError, match="pagefind"):
        search.build_search_index(site, Config(root=tmp_path))


# -- in a browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(built: tuple[Path, Config, dict[str, Any]]) -> Iterator[str]:
    with static_server(built[0]) as base:
        yield base


@pytest.fixture(scope="module")
def query_page(browser: Any, served: str) -> Iterator[Any]:  # noqa: F811
    """One page of the site, shared by the tests that only run queries through its client."""
    context, page, watched = open_page(browser, served)
    page.goto(served + "wiki/concepts/mamba.html")
    page.wait_for_function("window.kbtoolSearch !== undefined")
    yield page
    context.close()
    assert not watched.errors and not watched.outside and not watched.dialogs


@pytest.fixture
def search_page(browser: Any, served: str) -> Iterator[Any]:  # noqa: F811
    context, page, watched = open_page(browser, served)
    page.goto(served + "wiki/concepts/mamba.html")
    page.wait_for_function("window.kbtoolSearch !== undefined")
    yield page
    context.close()
    assert not watched.errors and not watched.outside and not watched.dialogs


def _urls(page: Any, query: str) -> list[str]:
    answer = page.evaluate("q => window.kbtoolSearch.search(q, 0, 100)", query)
    return [r["url"] for r in answer["results"]]


@pytest.mark.browser
@pytest.mark.parametrize("query", REQUIRED + MORE)
def test_browser_finds_exactly_the_pages_containing_the_query(
    built: tuple[Path, Config, dict[str, Any]], query_page: Any, query: str
) -> None:
    page = query_page
    expected = {"/" + url.lstrip("/") for url in containing(visible_texts(built[0]), query)}
    assert set(_urls(page, query)) == expected


@pytest.mark.browser
def test_browser_english_is_case_insensitive(query_page: Any) -> None:
    page = query_page
    for query in ("transformer", "TRANSFORMER", "Transformer"):
        assert "/wiki/concepts/transformer.html" in _urls(page, query)
    assert _urls(page, "layernorm") == ["/wiki/concepts/transformer.html"]


@pytest.mark.browser
def test_browser_ranks_title_and_summary_matches_first(query_page: Any) -> None:
    page = query_page

    def first(query: str) -> str:
        # A batch of one: the order is Pagefind's ranking, not the client's re-sorting of a batch.
        answer = page.evaluate("q => window.kbtoolSearch.search(q, 0, 1)", query)
        return str(answer["results"][0]["url"])

    # 人形 is in humanoid-policy's title, and five times in diffusion-policy's body.
    assert first("人形") == "/wiki/methods/humanoid-policy.html"
    # 多头注意力 is in paper-attention's summary, and in transformer's body.
    assert first("多头注意力") == "/wiki/entities/paper-attention.html"
    assert _urls(page, "多头注意力")[0] == "/wiki/entities/paper-attention.html"


@pytest.mark.browser
def test_browser_query_spelling_matches_python(query_page: Any) -> None:
    page = query_page
    for query in [
        "注意力",
        "多头 Attention",
        "注",
        '"缩放" “点积”',
        "あいう 한국어",
        "RT-1 的策略",
    ]:
        assert page.evaluate("q => window.kbtoolSearch.pagefindQuery(q)", query) == spell_query(
            query
        )
    for text in ["Transformer 用注意力。", "注，意 力 x", "あいう 한국어 RT-1 的策略"]:
        spelled = search_grams.spell_text(text)
        with_markers = spelled.replace(" ", " \u200b")  # as Pagefind returns page text
        assert page.evaluate("t => window.kbtoolSearch.unspell(t)", with_markers) == (
            search_grams.unspell_text(spelled)
        )


@pytest.mark.browser
def test_browser_results_as_you_type(search_page: Any) -> None:
    page = search_page
    page.fill("#search-input", "注意力")
    page.wait_for_selector("#search-results.open .search-hit")
    titles = page.locator("#search-results .search-hit-title").all_inner_texts()
    assert "Transformer" in titles
    marks = page.locator("#search-results .search-hit-excerpt mark").all_inner_texts()
    assert marks and all(m == "注意力" for m in marks)
    assert "kbgre" not in page.locator("#search-results").inner_text()
    screenshot(page, "search-as-you-type")
    page.keyboard.press("Escape")
    assert not page.locator("#search-results .search-hit").count()


@pytest.mark.browser
def test_browser_search_page_lists_results(browser: Any, served: str) -> None:  # noqa: F811
    context, page, watched = open_page(browser, served)
    page.goto(served + "search.html?q=" + "注意力")
    page.wait_for_selector("main #search-results .search-hit")
    links = page.locator("main #search-results a.search-hit-link")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert any(h and h.endswith("/wiki/concepts/transformer.html") for h in hrefs)
    assert page.input_value("#search-input") == "注意力"
    page.locator("main #search-results a.search-hit-link").first.click()
    page.wait_for_load_state()
    assert re.search(r"/wiki/.+\.html$", page.url)
    screenshot(page, "search-page-followed")
    context.close()
    assert not watched.errors and not watched.outside


@pytest.mark.browser
def test_browser_hostile_text_in_results_is_not_markup(tmp_path: Path, browser: Any) -> None:  # noqa: F811
    site = tmp_path / "site"
    body = "<p>&lt;img src=x onerror=&quot;window.pwned=1&quot;&gt; 恶意注意力</p>"
    hostile = {"wiki/x.html": ('<b onmouseover="x">标题</b>', "摘要&lt;script&gt;", body, "")}
    for rel, (title, summary, text, backlink) in hostile.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(
            PAGE.format(
                title=html.escape(title), summary=summary, body=text, backlink=backlink, root="../"
            ),
            encoding="utf-8",
        )
    (site / "assets").mkdir()
    for name in ("search.js", "search.css"):
        shutil.copy(ASSETS / name, site / "assets" / name)
    search.build_search_index(site, Config(root=tmp_path))
    with static_server(site) as base:
        context, page, watched = open_page(browser, base)
        page.goto(base + "wiki/x.html")
        page.fill("#search-input", "恶意")
        page.wait_for_selector("#search-results .search-hit")
        assert page.locator("#search-results img").count() == 0
        assert page.locator("#search-results b").count() == 0
        assert "<b onmouseover" in page.locator("#search-results .search-hit-title").inner_text()
        assert page.evaluate("window.pwned") is None
        context.close()
    assert not watched.dialogs and not watched.errors
