"""`--timings`: each stage's seconds, and the share of them its worker processes had work."""

from __future__ import annotations

from pathlib import Path

from kbtool.config import config_from_table
from kbtool.stages.site import build_site
from kbtool.stages.workers import Workers
from kbtool.timings import Timings
from tests.stages.test_build import page, write


def test_each_lap_gets_the_share_the_workers_clock_advanced() -> None:
    workers = [0.0]
    timings = Timings(workers_clock=lambda: workers[0])
    timings.lap("scan")
    workers[0] += 2.5
    timings.lap("load")
    timings.lap("plan")
    assert timings.in_workers == {"load": 2.5}
    line = timings.format()
    assert "load " in line and "(2.50s in workers)" in line
    assert "plan " in line and line.count("in workers") == 1


def test_a_build_says_how_much_of_its_load_the_workers_did(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {f"wiki/p{n}.md": page(f"# Page {n}\n") for n in range(80)})
    config = config_from_table(root, {"language": "en", "search": False})
    report = build_site(config, jobs=2)
    assert report.published
    if Workers(2).worth_forking(80, 1):
        assert 0 < report.in_workers["load"] <= report.seconds["load"]
        assert set(report.in_workers) <= set(report.seconds)
