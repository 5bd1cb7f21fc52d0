"""The benchmarks' own parts: the synthetic wiki's shape, the calibration's arithmetic and the
bounded kbtool process. No timings are asserted; speed is what the benchmarks print."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import bench_reading  # noqa: E402
import calibrate  # noqa: E402
import harness  # noqa: E402
import reading_probe  # noqa: E402
import synth  # noqa: E402

from kbtool.cli import main  # noqa: E402


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))}


@pytest.fixture(scope="module")
def wiki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synth")
    synth.generate(root, 400)
    (root / "pyproject.toml").write_text('[tool.kbtool]\nexecute = "opt-in"\n', encoding="utf-8")
    return root


def test_the_same_n_and_seed_give_the_same_bytes(tmp_path: Path, wiki: Path) -> None:
    synth.generate(tmp_path / "again", 400)
    synth.generate(tmp_path / "other", 400, seed=1)
    assert tree(tmp_path / "again") == tree(wiki)
    assert tree(tmp_path / "other").keys() == tree(wiki).keys()
    assert tree(tmp_path / "other") != tree(wiki)


def test_pages_have_the_real_wikis_mix(wiki: Path) -> None:
    pages = list(wiki.rglob("*.md"))
    wiki_pages = [p.read_text(encoding="utf-8") for p in (wiki / "wiki").rglob("*.md")]
    sources = list((wiki / "sources").rglob("*.md"))
    assert len(pages) == 400 and 0.5 < len(sources) / len(pages) < 0.6
    assert len(list((wiki / "sources/papers").glob("*.md"))) > 0.6 * len(sources)
    mermaid = sum("```mermaid\nflowchart" in text for text in wiki_pages) / len(wiki_pages)
    assert 0.3 < mermaid < 0.5
    everything = "\n".join(wiki_pages)
    for feature in ("**「", "```python", "\n$$\n", "| 缩写 | 英文全称 |", "<https://", "\n1. "):
        assert feature in everything, feature
    assert re.search(r"\$[^$\n]+\$", everything) and re.search(r"`[^`\n]+`", everything)


def test_source_pages_are_a_field_list_without_frontmatter(wiki: Path) -> None:
    for path in (wiki / "sources").rglob("*.md"):
        text = path.read_text(encoding="utf-8")
        assert text.startswith("# ")
        assert re.search(r"^- \*\*入库日期：\*\* 2026-\d\d-\d\d$", text, flags=re.M), path


def test_the_only_problems_are_the_deliberately_broken_links(
    wiki: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-C", str(wiki), "check", "--format", "json", "-j", "1"]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    codes = {d["code"] for d in found}
    assert codes <= {"KB201", "KB203", "KB207", "KB208", "KB301", "KB302", "KB303"}
    broken = [d for d in found if d["code"] in ("KB201", "KB203", "KB207")]
    assert all("-missing.md" in d["message"] for d in broken)
    assert 0 < len(broken) < 0.05 * 400 * 40  # about 2% of some 40 links a page


def test_calibration_reads_pages_as_kbtool_parses_them(tmp_path: Path) -> None:
    page = tmp_path / "a.md"
    page.write_text("---\ntype: concept\n---\n# 标题\n\n正文。\n", encoding="utf-8")
    pages = calibrate.Pages.read([page])
    assert pages.size == len(page.read_bytes())
    assert pages.texts == ["\n\n\n# 标题\n\n正文。\n"]


@pytest.mark.parametrize(("ratio", "ok"), [(1.0, True), (0.85, True), (1.19, True), (1.25, False)])
def test_calibration_is_within_twenty_percent_or_not(ratio: float, ok: bool) -> None:
    result = calibrate.Calibration(ratio * 2e6, 2e6, 1e6, 1e6, 1, 1, 1)
    assert result.ok is ok
    assert ("NOT within" in "\n".join(result.lines())) is not ok


def test_a_process_past_its_limit_is_stopped_with_its_children(tmp_path: Path) -> None:
    marker = tmp_path / "child-alive"
    child = f"import time; time.sleep(3); open({str(marker)!r}, 'w')"
    code = "import subprocess, sys, time\n"
    code += f"subprocess.Popen([sys.executable, '-c', {child!r}])\ntime.sleep(30)"
    started = time.perf_counter()
    run = harness.Process([sys.executable, "-c", code]).wait(1.0)
    assert run.timed_out and run.code is None
    assert time.perf_counter() - started < 10
    time.sleep(3)
    assert not marker.exists()  # the grandchild went with the group


def test_a_kbtool_run_reports_its_exit_code_and_memory(wiki: Path) -> None:
    run = harness.run_kbtool(wiki, "check", "--format", "json", "-j", "1", timeout=120)
    assert run.code == 1 and not run.timed_out
    assert run.peak_rss_mb > 10 and json.loads(run.stdout)["summary"]


def test_the_reading_benchmark_reads_the_hover_delay_preview_js_has() -> None:
    render = Path(__file__).parent.parent / "kbtool" / "render"  # its assets/, as in a site
    assert 0 < reading_probe.preview_delay(render) < 2000


def test_reading_figures_a_missed_preview_counts_and_a_median_decides() -> None:
    assert reading_probe.percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert reading_probe.percentile([float(i) for i in range(1, 21)], 0.95) == 19.0
    assert reading_probe.intervals([0.0, 16.5, 33.5]) == [16.5, 17.0]
    row = bench_reading._latency("HTTP", "preview", [10.0, 60.0, 70.0, float("inf")])
    assert row.met is False and "3 over 50 ms (1 not shown in 5 s)" in row.figure
    assert bench_reading._latency("HTTP", "preview", [10.0, 20.0, 70.0]).met is True
    assert bench_reading.within(float("nan"), 1.0) is None
