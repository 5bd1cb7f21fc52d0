"""Benchmark ``kbtool mcp`` through the protocol, as an agent's client drives it over stdio.

On a synthetic wiki (benchmarks/synth.py, real vocabulary) built first (``kbtool build``: the
site's search index, the store warm), it starts ``kbtool mcp --write`` with the SDK's own
client and prints:

  start              from starting the process to the answer to ``initialize``
  first answer       from starting the process to the first search's answer (the first
                     check of the wiki, made in the background after the start, included)
  search             a query (a title's word, or Chinese text), median of --repeat
  read_page section  one section of a page with headings, median
  backlinks          ``links`` of the page most linked to, median
  check draft        ``check`` of a one-page draft, median: a new page with links, and an
                     edit of a page
  validated write    ``write_page`` of an edited page (checked, refused on a new error,
                     written atomically), median; and of a new page
  search after write the first search after a write (the index updated), median

Targets at 7,000 pages, 2 cores: search, read_page, backlinks, check draft <= 100 ms;
a validated write <= 300 ms; start <= 1 s.

    python benchmarks/bench_mcp.py [-n 7000] [--repeat 20] [--root DIR]

With --root the wiki in DIR is used (its pages change: a page edited, pages added), else one
of -n pages is generated; either is built first, outside the count.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench_build import PYPROJECT
from harness import Workspace, kbtool_command, load_average, run_kbtool
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TARGETS = {
    "start": 1.0,
    "search": 0.1,
    "read_page section": 0.1,
    "backlinks": 0.1,
    "check draft (new page)": 0.1,
    "check draft (edit)": 0.1,
    "validated write": 0.3,
    "validated write (new page)": 0.3,
}


async def _call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    result = await session.call_tool(tool, arguments)
    if result.is_error:
        text = " ".join(getattr(block, "text", "") for block in result.content)
        raise RuntimeError(f"{tool} failed: {text}")
    return result.structured_content


async def _median(repeat: int, make: Callable[[int], Awaitable[Any]]) -> tuple[float, list[float]]:
    times = []
    for i in range(repeat):
        started = time.perf_counter()
        await make(i)
        times.append(time.perf_counter() - started)
    return statistics.median(times), times


def _draft(target: str, anchor_page: str, anchor: str, i: int) -> str:
    return (
        "---\ntype: concept\nsummary: 基准草稿\nupdated: 2020-01-01\n"
        f"related:\n  - ../../{target}\n---\n# 草稿 {i}\n\n"
        f"见 [目标](../../{target}) 与 [小节](../../{anchor_page}#{anchor})。\n"
    )


async def measure(root: Path, repeat: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    command = kbtool_command(root, "mcp", "--write")
    server = StdioServerParameters(command=command[0], args=command[1:])
    started = time.perf_counter()
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        figures["start"] = time.perf_counter() - started
        await _call(session, "search", query="注意力")
        figures["first answer"] = time.perf_counter() - started
        hubs = await _call(session, "hubs", limit=1)
        target = hubs["pages"][0]["path"]
        listed = await _call(session, "list_pages", folder="wiki", limit=200)
        paths = [p["path"] for p in listed["pages"]]
        titles = [p["title"] for p in listed["pages"]]
        outlines = {}
        for path in paths:
            page = await _call(session, "read_page", path=path)
            deeper = [h for h in page["outline"] if h["level"] >= 2]
            if deeper:
                outlines[path] = deeper
            if len(outlines) >= 10:
                break
        with_sections = sorted(outlines)
        words = [w for t in titles for w in re.split(r"[\s（）()：:，,]+", t) if len(w) >= 2]

        figures["search"], _ = await _median(
            repeat, lambda i: _call(session, "search", query=words[i % len(words)])
        )

        def section(i: int) -> Awaitable[Any]:
            path = with_sections[i % len(with_sections)]
            heading = outlines[path][i % len(outlines[path])]
            return _call(session, "read_page", path=path, section=heading["anchor"])

        figures["read_page section"], _ = await _median(repeat, section)
        figures["backlinks"], _ = await _median(
            repeat, lambda i: _call(session, "links", path=target)
        )
        anchor_page = with_sections[0]
        anchor = outlines[anchor_page][0]["anchor"]
        folder = target.rsplit("/", 1)[0]
        figures["check draft (new page)"], _ = await _median(
            repeat,
            lambda i: _call(
                session,
                "check",
                path=f"{folder}/bench-draft.md",
                text=_draft(target, anchor_page, anchor, i),
            ),
        )
        edited = paths[len(paths) // 2]
        page = await _call(session, "read_page", path=edited)
        text = (root / edited).read_text(encoding="utf-8")
        figures["check draft (edit)"], _ = await _median(
            repeat,
            lambda i: _call(session, "check", path=edited, text=text + f"\n草稿的一句话 {i}。\n"),
        )
        digest = page["digest"]
        writes, after = [], []
        for i in range(repeat):
            text += f"\n补充说明：一句新的话 kbtoolmcp{i}x。\n"
            begun = time.perf_counter()
            answer = await _call(session, "write_page", path=edited, text=text, if_match=digest)
            writes.append(time.perf_counter() - begun)
            digest = answer["digest"]
            begun = time.perf_counter()
            found = await _call(session, "search", query=f"kbtoolmcp{i}x")
            after.append(time.perf_counter() - begun)
            assert [h["path"] for h in found["hits"]] == [edited], found
        figures["validated write"] = statistics.median(writes)
        figures["search after write"] = statistics.median(after)
        created = []
        for i in range(max(3, repeat // 4)):
            path = f"{folder}/bench-new-{os.getpid()}-{i}.md"
            begun = time.perf_counter()
            await _call(
                session, "write_page", path=path, text=_draft(target, anchor_page, anchor, i)
            )
            created.append(time.perf_counter() - begun)
        figures["validated write (new page)"] = statistics.median(created)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=7000, help="pages (default 7000)")
    parser.add_argument("--repeat", type=int, default=20, help="calls per figure (default 20)")
    parser.add_argument("--root", type=Path, help="an existing wiki (its pages change)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kbtool-bench-mcp-") as tmp:
        root = args.root.resolve() if args.root else Path(tmp)
        if args.root is None:
            made = Workspace.create(root, args.n, PYPROJECT)
            print(f"generated {args.n:,} pages in {made.seconds:.1f} s", flush=True)
        # Built now, whatever was built before: the site's index and the store are then of
        # this code and of the pages as they are (an earlier run edited some).
        built = run_kbtool(root, "build", timeout=3600)
        print(f"built in {built.seconds:.1f} s (exit {built.code})", flush=True)
        pages = sum(1 for top in ("wiki", "sources") for _ in (root / top).rglob("*.md"))
        figures = asyncio.run(measure(root, args.repeat))
    print(f"kbtool mcp at {pages:,} pages, {os.cpu_count()} cores, load {load_average()}")
    for name, seconds in figures.items():
        target = TARGETS.get(name)
        verdict = "" if target is None else ("  met" if seconds <= target else "  missed")
        limit = "" if target is None else f" (target <= {target * 1000:.0f} ms)"
        print(f"  {name:<20} {seconds * 1000:9.1f} ms{limit}{verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
