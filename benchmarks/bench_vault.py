"""Benchmark kbtool on an Obsidian vault (benchmarks/synth_vault.py), configured only by
``kbtool init --yes``, against the wiki benchmark's pages of the same bytes.

From one run, kbtool run as whole processes:

  check      cold `kbtool check` of the vault (nothing in .kbtool/)
  build      cold `kbtool build` of the vault and of a synthetic wiki (synth.py) whose pages
             hold as many bytes, interleaved (vault, wiki, vault, wiki, ...) so that the load
             of a shared machine falls on both alike; seconds per MB of Markdown, and the
             vault's against the wiki's (target: within 1.2x)
  serve      `kbtool serve` on the vault: a sentence written into a hub's section that other
             notes embed (``![[Hub#Heading]]``), then the time from the write to every
             embedding page (and the hub) served with the new text: one embedding page
             polled every 20 ms, then the others read (target: median <= 0.3 s). Before the first edit every embedding page must show the
             section's text; where none does, embeds are not rendered and no figure is given.

Both sites are built with kbtool's defaults (the search index included). The wiki has the
build benchmark's settings (its broken links are warnings); the vault has what init wrote.

    python benchmarks/bench_vault.py [-n 5000] [--builds 3] [--edits 5] [--jobs J] [--serve-only] [--quick]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).parent))
import synth_vault  # noqa: E402
from bench_build import PYPROJECT  # noqa: E402
from harness import (
    Process,
    Row,
    Run,
    Workspace,
    kbtool_command,
    load_average,
    median,
    run_kbtool,
    table,
)  # noqa: E402

POLL = 0.02
SERVE_TARGET, BYTE_TARGET = 0.3, 1.2
EDIT_LIMIT = 30.0  # seconds an edit may take to be served before it counts as never
_SERVING = re.compile(r"serving .* at (http://127\.0\.0\.1:\d+/)")
_CODE = re.compile(r":\d+:\d+: (KB\d{3}) (\w+) ")


@dataclass(frozen=True)
class Built:
    seconds: float
    site_mb: float
    run: Run


def forget(root: Path) -> None:
    """Remove what kbtool remembers and the site, so that the next run is cold."""
    for name in (".kbtool", "site"):
        shutil.rmtree(root / name, ignore_errors=True)


def folder_mb(root: Path) -> float:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 1e6


def cold_build(root: Path, limit: float, jobs: list[str]) -> Built:
    forget(root)
    run = run_kbtool(root, "build", *jobs, timeout=limit, ok=(0, 1))
    if run.code != 0:
        tail = "\n".join([*run.stdout.splitlines()[-8:], *run.stderr.splitlines()[-3:]])
        raise SystemExit(f"kbtool build of the {root.name} exited {run.code}:\n{tail}")
    return Built(run.seconds, folder_mb(root / "site"), run)


def wiki_of_bytes(root: Path, wanted: int) -> Workspace:
    """The wiki benchmark's pages (synth.py) with about ``wanted`` bytes of Markdown: its
    bytes a page measured on a small wiki first."""
    with tempfile.TemporaryDirectory(prefix="kbtool-bench-probe-") as tmp:
        probe = Workspace.create(Path(tmp), 400, PYPROJECT)
        per_page = probe.size / len(probe.pages)
    return Workspace.create(root, max(10, round(wanted / per_page)), PYPROJECT)


def url_of(base: str, root: Path, note: Path) -> str:
    return base + quote(note.relative_to(root).as_posix()[: -len(".md")] + ".html")


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8", errors="replace"))
    except (urllib.error.URLError, OSError):
        return ""  # between two builds the file may be missing for a moment


def served_after(urls: list[str], word: str, since: float, limit: float) -> float:
    """Seconds from ``since`` until every URL serves ``word`` (inf: not within ``limit``).

    The first URL is polled alone, so that polling costs what it does for one page; the
    rest are then read once and, where one lacks the word, polled until it has it. A
    rebuild swaps the whole site at once, so they are usually all there already."""
    waiting, seen = list(urls), since
    while waiting:
        head, *rest = waiting
        if word in fetch(head):
            seen = time.perf_counter()
            waiting = [url for url in rest if word not in fetch(url)]
            continue
        if time.perf_counter() - since > limit:
            return float("inf")
        time.sleep(POLL)
    return seen - since


def write_into_section(section: synth_vault.Section, word: str) -> None:
    """A sentence with ``word`` right under the section's heading, inside the section."""
    lines = section.note.read_text(encoding="utf-8").split("\n")
    at = lines.index(f"## {section.heading}") + 1
    lines.insert(at, f"\n补充一句 {word}。")
    section.note.write_text("\n".join(lines), encoding="utf-8")


@dataclass
class Served:
    start_seconds: float
    shown_before: int  # embedding pages showing the section's text before any edit
    edits: list[float]
    run: Run
    #: the same edits of a note nobody embeds, to its own page served: the vault's baseline
    plain: list[float] = field(default_factory=list)


def _serving(found: threading.Event, process: Process, limit: float) -> bool:
    """Whether serve said where it serves within ``limit`` seconds, before it exited."""
    deadline = time.perf_counter() + limit
    while not found.wait(0.2):
        if process.popen.poll() is not None or time.perf_counter() > deadline:
            return False
    return True


def plain_note(vault: synth_vault.Vault) -> Path:
    """A note in the middle of the vault that no note embeds, whole or in part."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in vault.notes)
    notes = vault.notes[len(vault.notes) // 2 :]
    return next(p for p in notes if f"![[{p.stem}" not in text and p != vault.section.note)


def measure_serve(vault: synth_vault.Vault, edits: int, limit: float) -> Served:
    found, base = threading.Event(), []

    def on_line(line: str) -> None:
        if match := _SERVING.search(line):
            base.append(match.group(1))
            found.set()

    section, root = vault.section, vault.root
    started = time.perf_counter()
    process = Process(kbtool_command(root, "serve", "-p", "0"), on_line=on_line)
    start, shown, seconds, plain = float("inf"), 0, [], []
    try:
        if _serving(found, process, limit):
            start = time.perf_counter() - started
            embedders = [url_of(base[0], root, p) for p in section.embedders]
            shown = sum(section.marker in fetch(url) for url in embedders)
            if shown:  # else embeds are not rendered: a figure would measure nothing
                urls = [*embedders, url_of(base[0], root, section.note)]
                for k in range(edits):
                    time.sleep(0.5)  # let the watcher settle after the previous rebuild
                    word = f"kbtoolvaultedit{k}x{int(started)}"
                    write_into_section(section, word)
                    seconds.append(served_after(urls, word, time.perf_counter(), EDIT_LIMIT))
            note = plain_note(vault)
            for k in range(edits):
                time.sleep(0.5)
                word = f"kbtoolplainedit{k}x{int(started)}"
                with note.open("a", encoding="utf-8") as f:
                    f.write(f"\n补充一句 {word}。\n")
                since = time.perf_counter()
                plain.append(served_after([url_of(base[0], root, note)], word, since, EDIT_LIMIT))
    finally:
        process.signal(signal.SIGINT)  # serve's own way out, as Ctrl-C; killed after 15 s
        run = process.wait(15)
    return Served(start, shown, seconds, run, plain)


def serve_row(served: Served, embedders: int) -> Row:
    """The serve figure's row: measured, or why it was not."""
    step, target = "serve: embedded section edited to served", f"median <= {SERVE_TARGET} s"
    if served.start_seconds == float("inf"):
        tail = " / ".join(served.run.stderr.strip().splitlines()[-2:])
        why = f"serve never said where it serves (exit {served.run.code}): {tail}"
        return Row(step, None, "not measured", target, note=why)
    if served.shown_before == 0:
        why = f"none of the {embedders} embedding pages shows the section's text: embeds are not rendered"
        return Row(step, None, "not measured", target, note=why)
    middle = median(served.edits) if served.edits else float("inf")
    return Row(
        f"{step} ({len(served.edits)}x)",
        middle,
        f"max {max(served.edits):.2f} s" if served.edits else "",
        target,
        middle <= SERVE_TARGET,
        note="each: " + ", ".join(f"{s:.2f}" for s in served.edits) + " s; "
        f"a note nobody embeds, edited alike: {', '.join(f'{s:.2f}' for s in served.plain)} s; "
        f"the hub and {embedders} embedding pages ({served.shown_before} showed the section before); "
        f"serve answered {served.start_seconds:.2f} s after it started; peak RSS {served.run.peak_rss_mb:.0f} MB",
    )


def codes(run: Run) -> str:
    counted = Counter(f"{code} {severity}" for code, severity in _CODE.findall(run.stdout))
    return ", ".join(f"{key} x{count}" for key, count in sorted(counted.items())) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, default=5000, help="notes in the vault (default 5000)")
    parser.add_argument(
        "--builds", type=int, default=3, help="cold builds of each, interleaved (default 3)"
    )
    parser.add_argument(
        "--edits", type=int, default=5, help="edits of the embedded section served (default 5)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="300 notes, one build of each, two edits"
    )
    parser.add_argument(
        "--step-timeout", type=float, default=600.0, help="seconds a step may take (default 600)"
    )
    parser.add_argument(
        "--jobs", type=int, help="the builds' -j (both alike; default: kbtool's own)"
    )
    parser.add_argument(
        "--serve-only", action="store_true", help="one cold build of the vault, then serve"
    )
    args = parser.parse_args()
    n, builds, edits = (300, 1, 2) if args.quick else (args.n, args.builds, args.edits)
    limit = args.step_timeout
    jobs = ["-j", str(args.jobs)] if args.jobs else []
    with tempfile.TemporaryDirectory(prefix=f"kbtool-bench-vault-{n}-") as tmp:
        started = time.perf_counter()
        vault = synth_vault.generate(Path(tmp) / "vault", n)
        vault_mb = vault.note_bytes / 1e6
        print("kbtool on an Obsidian vault, against the wiki benchmark's pages of the same bytes")
        print(f"command: python {' '.join(sys.argv)}")
        print(f"cores: {len(os.sched_getaffinity(0))}; load average at start: {load_average()}")
        print(f"builds: kbtool build {' '.join(jobs) or '(its default workers)'}")
        print(
            f"vault: {len(vault.notes):,} notes ({vault_mb:.1f} MB), {len(vault.attachments)} attachments "
            f"({vault.attachment_bytes / 1e3:.0f} KB), generated in {time.perf_counter() - started:.1f} s; "
            f"the edited section is embedded by {len(vault.section.embedders)} notes",
            flush=True,
        )
        run_kbtool(vault.root, "init", "--yes", timeout=limit, ok=(0,))
        print(
            "kbtool init --yes wrote:\n" + (vault.root / "kbtool.toml").read_text(encoding="utf-8"),
            flush=True,
        )
        if args.serve_only:
            print(f"cold build of the vault: {cold_build(vault.root, limit, jobs).seconds:.2f} s")
            served = measure_serve(vault, edits, limit)
            print(table([serve_row(served, len(vault.section.embedders))], limit))
            print(f"  load average at the end: {load_average()}")
            return
        wiki = wiki_of_bytes(Path(tmp) / "wiki", vault.note_bytes)
        wiki_mb = wiki.size / 1e6
        print(f"wiki: {len(wiki.pages):,} pages ({wiki_mb:.1f} MB, synth.py)", flush=True)

        forget(vault.root)
        check = run_kbtool(vault.root, "check", timeout=limit, ok=(0, 1))
        print(
            f"cold check of the vault: {check.seconds:.2f} s, exit {check.code}; {codes(check)}",
            flush=True,
        )
        vault_builds, wiki_builds = [], []
        for _ in range(builds):
            vault_builds.append(cold_build(vault.root, limit, jobs))
            wiki_builds.append(cold_build(wiki.root, limit, jobs))
            print(
                f"cold builds: vault {vault_builds[-1].seconds:.2f} s, wiki {wiki_builds[-1].seconds:.2f} s",
                flush=True,
            )
        served = measure_serve(vault, edits, limit)

    ratios = [
        (v.seconds / vault_mb) / (w.seconds / wiki_mb)
        for v, w in zip(vault_builds, wiki_builds, strict=True)
    ]
    ratio = median(ratios)
    v_cold, w_cold = (
        median([b.seconds for b in vault_builds]),
        median([b.seconds for b in wiki_builds]),
    )
    rows = [
        Row(
            "cold check, vault",
            check.seconds,
            f"{check.seconds / vault_mb:.2f} s/MB",
            note=f"{vault_mb:.1f} MB of notes",
        ),
        Row(
            f"cold build, vault ({builds}x)",
            v_cold,
            f"{v_cold / vault_mb:.2f} s/MB",
            note="each: "
            + ", ".join(f"{b.seconds:.2f}" for b in vault_builds)
            + f" s; site {vault_builds[-1].site_mb:.0f} MB; peak RSS {max(b.run.peak_rss_mb for b in vault_builds):.0f} MB",
        ),
        Row(
            f"cold build, wiki of the same bytes ({builds}x)",
            w_cold,
            f"{w_cold / wiki_mb:.2f} s/MB",
            note="each: "
            + ", ".join(f"{b.seconds:.2f}" for b in wiki_builds)
            + f" s; {wiki_mb:.1f} MB of pages; site {wiki_builds[-1].site_mb:.0f} MB",
        ),
        Row(
            "vault's s/MB / wiki's, paired",
            None,
            f"{ratio:.2f}x (" + ", ".join(f"{r:.2f}" for r in ratios) + ")",
            f"<= {BYTE_TARGET}x",
            ratio <= BYTE_TARGET,
        ),
    ]
    rows.append(serve_row(served, len(vault.section.embedders)))
    print(f"\nN = {len(vault.notes):,} notes: figures from this one run")
    print(table(rows, limit))
    print(f"  load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
