"""``kbtool build``: the gate, the pages, incremental rebuilds, the atomic swap, safety."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kbtool.cli import main
from kbtool.config import Config, config_from_table
from kbtool.diagnostics import Diagnostic
from kbtool.execute.results import CellResult, PageResult
from kbtool.stages import pipeline as build_module
from kbtool.stages.site import BuildReport, build_site


def page(body: str = "", **meta: object) -> str:
    keys: dict[str, object] = {"type": "concept", "summary": "一句话摘要", "updated": "2020-01-01"}
    keys.update(meta)
    lines = ["---"]
    for key, value in keys.items():
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines += [f"  - {item}" for item in value]
        else:
            lines.append(f"{key}: {value}")
    return "\n".join(lines) + "\n---\n" + body


def small_wiki() -> dict[str, str]:
    return {
        "wiki/concepts/transformer.md": page(
            "# Transformer\n\n## 注意力\n\n缩放点积注意力 $QK^\\top$.\n\n"
            "See [Mamba](mamba.md#选择性扫描).\n",
            tags="[attention, transformer]",
            related=["mamba.md"],
            sources=["../../sources/papers/aiayn.md"],
        ),
        "wiki/concepts/mamba.md": page(
            "# Mamba\n\n## 选择性扫描\n\nBack to [Transformer](transformer.md).\n",
            tags="[ssm]",
            related=["transformer.md"],
        ),
        "wiki/entities/karpathy.md": page(
            "# Andrej Karpathy\n\nTeaches [Transformer](../concepts/transformer.md).\n",
            type="entity",
            related=["../concepts/transformer.md"],
        ),
        "sources/papers/aiayn.md": "# Attention Is All You Need\n\nThe paper.\n",
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, small_wiki())
    (root / "pyproject.toml").write_text(
        '[tool.kbtool]\nlanguage = "en"\nseverity = { KB3 = "off" }\n'
    )
    return root


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def config(root: Path) -> Config:
    return config_from_table(root, {"language": "en", "severity": {"KB3": "off"}})


def build(root: Path, **kwargs: object) -> BuildReport:
    return build_site(config(root), jobs=1, **kwargs)  # type: ignore[arg-type]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_build_writes_every_kind_of_page(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-C", str(repo), "build"]) == 0
    assert "published site/" in capsys.readouterr().out
    site = repo / "site"
    for name in (
        "index.html",
        "404.html",
        "search.html",
        "sources.html",
        "graph.html",
        "graph-data.js",
        "sitemap.xml",
        "types/concept.html",
        "types/entity.html",
        "tags/attention.html",
        "wiki/concepts/transformer.html",
        "sources/papers/aiayn.html",
        "assets/style.css",
        "assets/pygments.css",
        "assets/graph.js",
    ):
        assert (site / name).is_file(), name
    html = (site / "wiki/concepts/transformer.html").read_text()
    assert '<main id="content" tabindex="-1">' in html and "data-pagefind" not in html
    assert (site / "search" / "meta.js").is_file()
    assert '<form id="search" role="search" action="../../search.html">' in html
    assert '<div id="search-results"' in html and 'src="../../assets/search-loader.js"' in html
    assert 'href="mamba.html#%E9%80%89%E6%8B%A9%E6%80%A7%E6%89%AB%E6%8F%8F"' in html
    assert "<math" in html
    assert 'id="注意力"' in html
    # related and sources by title, backlinks, neighbourhood
    assert '<a href="../../sources/papers/aiayn.html">Attention Is All You Need</a>' in html
    assert (
        'id="backlinks"' in html
        and '<a href="../entities/karpathy.html">Andrej Karpathy</a>' in html
    )
    assert '<svg class="neighbourhood"' in html
    index = (site / "index.html").read_text()
    assert "Recently updated" in index and "wiki/concepts/mamba.html" in index
    sitemap = (site / "sitemap.xml").read_text()
    assert "<loc>wiki/concepts/transformer.html</loc>" in sitemap
    assert '"title"' not in (site / "graph-data.js").read_text()[:20]
    assert "window.KB_GRAPH" in (site / "graph-data.js").read_text()


def test_ui_strings_follow_the_language(repo: Path) -> None:
    report = build_site(config_from_table(repo, {"severity": {"KB3": "off"}}), jobs=1)
    assert report.ok
    html = (repo / "site/wiki/concepts/transformer.html").read_text()
    assert '<html lang="zh-CN">' in html and "链接到本页的页面" in html


def test_errors_stop_the_build_and_leave_the_site_alone(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert build(repo).ok
    before = snapshot(repo / "site")
    write(
        repo, {"wiki/concepts/mamba.md": page("# Mamba\n\n## 选择性扫描\n\n[broken](nowhere.md)\n")}
    )
    assert main(["-C", str(repo), "build"]) == 1
    out = capsys.readouterr().out
    assert "KB207" in out and "not published" in out
    assert snapshot(repo / "site") == before


def test_failing_cells_stop_the_build(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    failed = PageResult(
        "wiki/concepts/mamba.md",
        "failed",
        (
            CellResult(
                0, 9, "failed", reason="AssertionError", error="Traceback ...", error_line=10
            ),
        ),
    )
    monkeypatch.setattr(build_module, "run_cells", lambda *a: {failed.path: failed})
    assert main(["-C", str(repo), "build"]) == 1
    out = capsys.readouterr().out
    assert "wiki/concepts/mamba.md:10:1: KB404 error cell-1 failed: AssertionError" in out
    assert not (repo / "site").exists()


def test_cell_outputs_appear_under_their_cells(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(
        repo,
        {"wiki/concepts/mamba.md": page("# Mamba\n\n## 选择性扫描\n\n```python\nprint(1)\n```\n")},
    )
    svg = "<svg xmlns='http://www.w3.org/2000/svg'><circle r='3'/></svg>"
    result = PageResult(
        "wiki/concepts/mamba.md",
        "passed",
        (CellResult(0, 11, "passed", stdout="1\n", figures=(svg,)),),
    )
    monkeypatch.setattr(build_module, "run_cells", lambda *a: {result.path: result})
    assert build(repo).ok
    html = (repo / "site/wiki/concepts/mamba.html").read_text()
    assert '<pre class="cell-stdout">1\n</pre>' in html
    [figure] = list((repo / "site/figures").iterdir())
    assert figure.read_text() == svg and f"../../figures/{figure.name}" in html


def test_a_second_build_renders_nothing(repo: Path) -> None:
    first = build(repo)
    assert first.published and first.rendered == first.outputs
    second = build(repo)
    assert second.ok and not second.published and second.rendered == 0


def test_a_one_page_edit_rerenders_that_page_and_its_dependants(repo: Path) -> None:
    assert build(repo).ok
    text = (repo / "wiki/concepts/mamba.md").read_text().replace("# Mamba", "# Mamba SSM")
    (repo / "wiki/concepts/mamba.md").write_text(text)
    report = build(repo)
    assert report.published
    rendered = set(report.rendered_outputs)
    # the page, the page whose related list shows its title, the indexes that list it
    assert {"page:wiki/concepts/mamba.md", "page:wiki/concepts/transformer.md"} <= rendered
    assert {"types/concept.html", "tags/ssm.html", "index.html", "graph-data.js"} <= rendered
    # Karpathy, which links Transformer as Mamba does, shows Mamba among its similar pages.
    assert "page:wiki/entities/karpathy.md" in rendered
    # a preview shows its page's own text alone: only the edited page's is written again
    assert [name for name in rendered if name.startswith("preview:")] == [
        "preview:wiki/concepts/mamba.md"
    ]
    assert "page:sources/papers/aiayn.md" not in rendered
    assert "tags/attention.html" not in rendered  # lists Transformer only
    html = (repo / "site/wiki/concepts/transformer.html").read_text()
    assert ">Mamba SSM</a>" in html


def test_a_body_edit_leaves_other_pages_alone(repo: Path) -> None:
    assert build(repo).ok
    path = repo / "wiki/concepts/mamba.md"
    path.write_text(path.read_text() + "\nOne more sentence.\n")
    report = build(repo)
    assert report.rendered_outputs == [
        "page:wiki/concepts/mamba.md",
        "preview:wiki/concepts/mamba.md",
    ]


def test_removed_pages_disappear(repo: Path) -> None:
    write(repo, {"wiki/entities/extra.md": page("# Extra\n", type="entity", tags="[lonely]")})
    assert build(repo).ok
    assert (repo / "site/wiki/entities/extra.html").exists()
    assert (repo / "site/tags/lonely.html").exists()
    (repo / "wiki/entities/extra.md").unlink()
    assert build(repo).ok
    assert not (repo / "site/wiki/entities/extra.html").exists()
    assert not (repo / "site/tags/lonely.html").exists()


def test_an_interrupted_build_leaves_the_previous_site_whole(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert build(repo).ok
    before = snapshot(repo / "site")
    path = repo / "wiki/concepts/mamba.md"
    path.write_text(path.read_text() + "\nchanged\n")

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(build_module, "index_site", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build(repo)
    assert snapshot(repo / "site") == before
    assert [p.name for p in repo.iterdir() if p.name.startswith(".site")] == []


def test_search_false_leaves_the_index_out(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def indexed(*args: object) -> None:
        raise AssertionError("the search index was built")

    monkeypatch.setattr(build_module, "index_site", indexed)
    report = build_site(config_from_table(repo, {"search": False}), jobs=1)
    assert report.ok and report.published and report.search is None
    assert "search" not in report.seconds
    assert (repo / "site/wiki/concepts/mamba.html").is_file()


def test_a_deleted_output_file_is_rendered_again(repo: Path) -> None:
    assert build(repo).ok
    (repo / "site/wiki/concepts/mamba.html").unlink()
    path = repo / "wiki/concepts/transformer.md"
    path.write_text(path.read_text() + "\nchanged\n")
    assert build(repo).ok
    assert (repo / "site/wiki/concepts/mamba.html").exists()


def test_unchanged_files_are_shared_not_rewritten(repo: Path) -> None:
    assert build(repo).ok
    karpathy = repo / "site/wiki/entities/karpathy.html"
    inode = karpathy.stat().st_ino
    path = repo / "wiki/concepts/mamba.md"
    path.write_text(path.read_text() + "\nchanged\n")
    assert build(repo).ok
    assert karpathy.stat().st_ino == inode  # hard-linked from the previous site


def test_nothing_is_written_outside_site_and_the_cache(repo: Path) -> None:
    before = {p for p in repo.rglob("*")}
    assert build(repo).ok
    after = {p for p in repo.rglob("*")}
    new = {p.relative_to(repo).parts[0] for p in after - before}
    assert new <= {"site", ".kbtool"}


def test_frontmatter_and_raw_html_cannot_inject_script(repo: Path) -> None:
    write(
        repo,
        {
            "wiki/concepts/evil.md": page(
                "# <script>alert('t')</script>\n\n<img src=x onerror=\"alert(1)\">\n\n"
                "<script>alert(2)</script>\n\n"
                "[x](javascript:alert(3))\n",
                summary='"<script>alert(4)</script>"',
                tags="['<b onmouseover=alert(5)>']",
            )
        },
    )
    assert build(repo).ok
    html = (repo / "site/wiki/concepts/evil.html").read_text()
    body = html.split("<main", 1)[1]
    assert "<script>" not in body and "onerror=" not in body and 'href="javascript:' not in body
    assert "&lt;script&gt;alert(4)&lt;/script&gt;" in html
    assert "<b onmouseover" not in html
    for other in (repo / "site").rglob("*.html"):
        assert "<script>alert" not in other.read_text()


def test_a_bad_formula_is_a_warning_unless_configured_as_an_error(repo: Path) -> None:
    write(repo, {"wiki/concepts/mamba.md": page("# Mamba\n\n## 选择性扫描\n\nbad $x^$ formula\n")})
    report = build(repo)
    assert report.ok and [d.code for d in report.diagnostics] == ["KB501"]
    assert report.diagnostics[0].line == 10
    again = build(repo)  # reported again when nothing was re-rendered
    assert [d.code for d in again.diagnostics] == ["KB501"]
    strict = config_from_table(repo, {"severity": {"KB3": "off", "KB501": "error"}})
    before = snapshot(repo / "site")
    report = build_site(strict, jobs=1)
    assert not report.ok and snapshot(repo / "site") == before


def test_parallel_rendering_gives_the_same_site(tmp_path: Path) -> None:
    files = {
        f"wiki/concepts/p{i}.md": page(
            f"# Page {i}\n\n[next](p{(i + 1) % 60}.md) $x_{i}$\n", related=[f"p{(i + 1) % 60}.md"]
        )
        for i in range(60)
    }
    one, two = tmp_path / "one", tmp_path / "two"
    write(one, files)
    write(two, files)
    cfg = {"severity": {"KB3": "off"}}
    assert build_site(config_from_table(one, cfg), jobs=1).ok
    assert build_site(config_from_table(two, cfg), jobs=2).ok
    assert snapshot(one / "site").keys() == snapshot(two / "site").keys()
    assert (one / "site/wiki/concepts/p7.html").read_bytes() == (
        two / "site/wiki/concepts/p7.html"
    ).read_bytes()


def test_stale_staging_folders_are_cleaned(repo: Path) -> None:
    leftover = repo / ".site.build-dead"
    leftover.mkdir()
    (leftover / "x.html").write_text("x")
    assert build(repo).ok
    assert not leftover.exists()
    assert os.path.isdir(repo / "site")


def test_a_diagnostic_has_one_encoding_that_holds_every_field() -> None:
    from kbtool.stages.unchanged import _diagnostics

    found = Diagnostic("wiki/a.md", 3, 4, "KB207", "warning", "no such page", "fix it")
    assert found.row() == [getattr(found, name) for name in Diagnostic._fields]
    assert json.loads(json.dumps([found])) == [found.row()]  # a record holds them as is
    assert _diagnostics([found.row()]) == [found]
    assert Diagnostic.from_row(json.loads(json.dumps(found.row()))) == found
    for damaged in ([1, 2], ["a", "3", 4, "KB1", "error", "m", None], None):
        assert _diagnostics([damaged]) is None


def test_the_cache_folder_ignores_itself_and_keeps_a_gitignore_of_the_users(repo: Path) -> None:
    assert build(repo).ok
    ignore = repo / ".kbtool" / ".gitignore"
    assert ignore.read_text().splitlines()[-1] == "*"
    ignore.write_text("store.sqlite\n")  # the user's own: never replaced
    assert build(repo).ok
    assert ignore.read_text() == "store.sqlite\n"
