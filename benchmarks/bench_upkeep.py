"""What the upkeep checks (KB212, KB306-KB308) cost ``kbtool check``: cold with them on against
cold with them off, a check after a one-page edit with them on and off, and one after a new
page (every page's mentions found again: a new title is a new name).

Two copies of one synthetic wiki, one configured with the checks on and one without, so each
keeps its own store; cold runs of the two are interleaved, so that the load of a shared
machine falls on both alike, and the fastest of each is taken. Beside the seconds, the CPU
seconds of each cold run (its workers' with it), paired round by round: on a shared machine
they vary less than the seconds do.

    python benchmarks/bench_upkeep.py [-n 7000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Row, Workspace, header, load_average, median, run_kbtool, share, table, within

ON = (
    "[tool.kbtool]\n"
    'severity = { KB212 = "warning", KB306 = "warning", KB307 = "warning", KB308 = "warning" }\n'
)
OFF = "[tool.kbtool]\n"


def bench(n: int, rounds: int, limit: float) -> None:
    with tempfile.TemporaryDirectory(prefix="kbtool-bench-upkeep-") as tmp:
        off = Workspace.create(Path(tmp) / "off", n, OFF)
        on_root = Path(tmp) / "on"
        shutil.copytree(off.root, on_root)
        (on_root / "pyproject.toml").write_text(ON, encoding="utf-8")
        on = Workspace(on_root, [on_root / p.relative_to(off.root) for p in off.pages], 0.0)
        lines = header("kbtool check with the upkeep checks on and off", n, off)
        cold: dict[str, list[float]] = {"off": [], "on": []}
        cpu: dict[str, list[float]] = {"off": [], "on": []}
        found = ""
        for _ in range(rounds):
            for name, workspace in (("off", off), ("on", on)):
                workspace.forget()
                run = run_kbtool(workspace.root, "check", "--statistics", timeout=limit)
                cold[name].append(run.seconds)
                cpu[name].append(run.cpu_seconds)
                if name == "on":
                    found = _upkeep_counts(run.stdout)
        edits: dict[str, list[float]] = {"off": [], "on": []}
        for _ in range(3):
            for name, workspace in (("off", off), ("on", on)):
                workspace.edit()
                edits[name].append(run_kbtool(workspace.root, "check", timeout=limit).seconds)
        new_page = on.root / "wiki" / "concepts" / "bench-new-page.md"
        new_page.write_text(
            "---\ntype: concept\nsummary: 新页\nupdated: 2026-01-01\n---\n# 基准测试新页面\n\n正文。\n",
            encoding="utf-8",
        )
        added = run_kbtool(on.root, "check", timeout=limit).seconds
        off_cold, on_cold = min(cold["off"]), min(cold["on"])
        # the median of each round's ratio of CPU seconds, on to off
        ratio = median([on / off for on, off in zip(cpu["on"], cpu["off"], strict=True)])
        rows = [
            Row("cold check, upkeep checks off", off_cold),
            Row(
                "cold check, upkeep checks on",
                on_cold,
                share(on_cold, off_cold, "{:.2f}x off"),
                "<= 1.15x off",
                within(on_cold, off_cold, 1.15),
            ),
            Row("cold check, off: CPU seconds (median)", median(cpu["off"])),
            Row(
                "cold check, on: CPU seconds (median)",
                median(cpu["on"]),
                share(ratio, 1.0, "{:.2f}x off"),
                "<= 1.15x off",
                ratio <= 1.15,
            ),
            Row("one-page edit, off (median of 3)", median(edits["off"])),
            Row(
                "one-page edit, on (median of 3)",
                median(edits["on"]),
                share(median(edits["on"]), median(edits["off"]), "{:.2f}x off"),
                "<= 0.3 s",
                median(edits["on"]) <= 0.3,
            ),
            Row("a new page (every page's mentions again), on", added),
        ]
        lines += [
            table(rows, limit),
            f"  cold runs (s): off {cold['off']}, on {cold['on']}",
            f"  cold runs (CPU s): off {cpu['off']}, on {cpu['on']}",
            f"  the cold check with them on reported: {found}",
            f"load average at end: {load_average()}",
        ]
        print("\n".join(lines))


def _upkeep_counts(statistics: str) -> str:
    """``KB306 40497, ...``: the upkeep codes' counts in ``--statistics`` output."""
    counts = [line.split()[:2] for line in statistics.splitlines() if len(line.split()) > 1]
    codes = ("KB212", "KB306", "KB307", "KB308")
    return ", ".join(f"{code} {count}" for count, code, *_ in counts if code in codes) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=7000, help="pages (default 7000)")
    parser.add_argument("--rounds", type=int, default=2, help="cold runs of each (default 2)")
    parser.add_argument("--step-timeout", type=float, default=900.0)
    args = parser.parse_args()
    bench(args.n, args.rounds, args.step_timeout)


if __name__ == "__main__":
    main()
