"""Benchmark ``kbtool lsp`` and ``kbtool mv`` on a synthetic wiki (benchmarks/synth.py).

With the store warm (one ``kbtool check`` first), it starts the server as an editor does (a
subprocess on stdio, driven by pygls's client) and prints, from one run:

  first diagnostics   from starting the process to the first diagnostics it publishes
  keystroke           a character typed into an open page -> its diagnostics (median of 20)
  completion          a link target completed, and a Chinese anchor (median of 20 each, and
                      the first of each)
  memory              the server's resident memory at the end, and its peak
  mv                  ``kbtool mv`` of the page with the most backlinks, and whether
                      ``kbtool check`` afterwards reports what it did before (moved paths mapped)

Targets at 7,000 pages, 2 cores: keystroke <= 200 ms, completion <= 100 ms, first
diagnostics <= 2 s, memory <= 600 MB, mv of a page with 150 backlinks <= 2 s.

    python benchmarks/bench_lsp.py [-n 7000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

sys.path.insert(0, str(Path(__file__).parent))
import synth  # noqa: E402

KBTOOL = [sys.executable, "-m", "kbtool"]


def _kbtool(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KBTOOL, "-C", str(root), *args], capture_output=True, text=True)


def _findings_moved(
    found: Counter[tuple[str, int, str]], moves: dict[str, str]
) -> Counter[tuple[str, int, str]]:
    return Counter({(moves.get(p, p), line, code): n for (p, line, code), n in found.items()})


def _findings(root: Path, moves: dict[str, str], *options: str) -> Counter[tuple[str, int, str]]:
    out = json.loads(_kbtool(root, "check", "--format", "json", *options).stdout)
    found: Counter[tuple[str, int, str]] = Counter()
    for d in out["diagnostics"]:
        path = d["path"]
        for old, new in moves.items():
            path = new if path == old else path
        found[path, d["line"], d["code"]] += 1
    return found


def _memory(pid: int) -> tuple[float, float]:
    """Resident and peak resident memory of ``pid``, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def _warm_client(client: LanguageClient) -> None:
    """Make the client's decoder of a completion answer (its first answer of a type takes it
    60-70 ms), so that the first completion's figure is the server's."""
    item = types.CompletionItem(
        label="x",
        label_details=types.CompletionItemLabelDetails(description="x"),
        text_edit=types.TextEdit(types.Range(types.Position(0, 0), types.Position(0, 0)), "x"),
    )
    answer = types.CompletionResponse(id=0, result=types.CompletionList(False, [item]))
    converter = client.protocol._converter  # the one the client decodes answers with
    converter.structure(converter.unstructure(answer), types.CompletionResponse)


async def _server(root: Path, page: str, anchor_page: str) -> dict[str, float]:
    client = LanguageClient("bench", "1")
    published: asyncio.Queue[tuple[float, str, int | None]] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait((time.perf_counter(), params.uri, params.version))

    async def checked(uri: str, version: int) -> float:
        """When the diagnostics of ``version`` of the open page arrived (those of the other
        pages, and of its versions before, are passed over; from a server that sends no
        version, the next for the page)."""
        while True:
            at, which, of = await published.get()
            if which == uri and of in (version, None):
                return at

    started = time.perf_counter()
    await client.start_io(*KBTOOL, "-C", str(root), "lsp")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(root))
        )
    )
    client.initialized(types.InitializedParams())
    first, _, _ = await published.get()
    figures = {"first diagnostics": first - started}
    uri = from_fs_path(str(root / page)) or ""
    text = (root / page).read_text()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="markdown", version=1, text=text
            )
        )
    )
    await checked(uri, 1)
    times = []
    for version in range(2, 22):
        text += "x" if version % 2 else "[坏](missing.md)"
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        times.append(await checked(uri, version) - sent)
    figures["keystroke"] = statistics.median(times)
    # Completion: a link target from a prefix, then the anchors of a page.
    for version, name, typed in (
        (100, "completion (target)", "\n[x](../con"),
        (101, "completion (anchor)", f"\n[x](../../{anchor_page}#"),
    ):
        text += typed
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        await checked(uri, version)
        lines = text.split("\n")
        position = types.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)
        _warm_client(client)
        times = []
        for _ in range(20):
            sent = time.perf_counter()
            answer = await client.text_document_completion_async(
                types.CompletionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri), position=position
                )
            )
            times.append(time.perf_counter() - sent)
        items = answer.items if isinstance(answer, types.CompletionList) else answer or []
        figures[name] = statistics.median(times)
        figures[name + " first"] = times[0]  # what the author waits for once
        figures[name + " items"] = len(items)
    assert client._server is not None
    figures["memory (MB)"], figures["peak memory (MB)"] = _memory(client._server.pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=7000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        synth.generate(root, args.n)
        (root / "pyproject.toml").write_text('[tool.kbtool]\nwiki = "wiki"\n')
        _kbtool(root, "check")  # the store warm, as after any earlier check
        wiki_pages = sorted(p.relative_to(root).as_posix() for p in (root / "wiki").rglob("*.md"))
        backlinks: Counter[str] = Counter()
        for path in root.rglob("*.md"):
            for other in set(_targets(path, root)):
                backlinks[other] += 1
        target, count = backlinks.most_common(1)[0]
        anchor_page = next(p for p in wiki_pages if "## " in (root / p).read_text())
        figures = asyncio.run(_server(root, wiki_pages[len(wiki_pages) // 2], anchor_page))
        print(f"kbtool lsp at {args.n} pages, {os.cpu_count()} cores, store warm")
        for name, value in figures.items():
            unit = "" if "MB" in name or "items" in name else " ms"
            shown = value if unit == "" else value * 1000
            print(f"  {name:<28} {shown:10.1f}{unit}")
        before = _findings(root, {})
        new = "wiki/moved/renamed-page.md"
        started = time.perf_counter()
        moved = _kbtool(root, "mv", str(root / target), str(root / new))
        seconds = time.perf_counter() - started
        same = _findings(root, {}) == _findings_moved(before, {target: new})
        print(
            f"  kbtool mv ({count} backlinks)      {seconds * 1000:10.1f} ms  "
            f"exit {moved.returncode}; check afterwards as before: {same}"
        )
        print("  " + (moved.stdout.strip() or moved.stderr.strip()))
        if not same:
            after = _findings(root, {})
            moved_before = _findings_moved(before, {target: new})
            print("  only before:", sorted((moved_before - after).items())[:5])
            print("  only after:", sorted((after - moved_before).items())[:5])
            cold = _findings(root, {}, "--no-cache")
            print("  incremental check == cold check afterwards:", cold == after)


def _targets(path: Path, root: Path) -> list[str]:
    """The pages a page's body and frontmatter links lead to, as repository paths."""
    import re

    found = []
    text = path.read_text()
    for raw in re.findall(r"\]\(([^)#\s]+\.md)", text) + re.findall(r"^  - (\S+\.md)$", text, re.M):
        full = os.path.normpath(path.parent / raw)
        if os.path.exists(full):
            found.append(Path(full).relative_to(root).as_posix())
    return found


if __name__ == "__main__":
    main()
