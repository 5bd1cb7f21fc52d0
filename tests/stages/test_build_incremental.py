"""Incremental equals clean: random sequences of edits, each followed by an incremental build
of one copy of the wiki and a clean build of the same files elsewhere; the two sites must be
the same byte for byte (pages, assets, the graph's nodes and edges). Also with incremental
builds killed at a random moment before the next one."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Protocol

import pytest

import kbtool.stages.check
from kbtool.config import load_config
from kbtool.render.urls import GRAPH_DATA
from kbtool.session import Session
from kbtool.stages import check_start, siteinfo
from kbtool.stages.site import build_site

PYPROJECT = """[tool.kbtool]
language = "en"
search = false
execute = "opt-in"
severity = { KB2 = "warning", KB3 = "off", KB510 = "off" }
"""
FOLDERS = ("wiki/concepts", "wiki/methods")
TYPES = ("concept", "method", "entity")
TAGS = ("attention", "robotics", "ssm", "rl")


class RandomWiki:
    """A small wiki kept as data, so that every edit is a change to one page's parts."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.pages: dict[str, dict[str, object]] = {}
        self.images: set[str] = set()
        self.counter = 0
        for _ in range(8):
            self.add()
        for n in range(3):
            self.pages[f"sources/papers/s{n}.md"] = {"source": True, "title": f"Paper {n}"}

    def wiki_paths(self) -> list[str]:
        return sorted(p for p, v in self.pages.items() if not v.get("source"))

    def add(self) -> None:
        self.counter += 1
        folder = self.rng.choice(FOLDERS)
        self.pages[f"{folder}/p{self.counter}.md"] = {
            "title": f"Page {self.counter}",
            "type": self.rng.choice(TYPES),
            "tags": self.rng.sample(TAGS, self.rng.randint(0, 2)),
            "related": [],
            "sources": [],
            "links": [],
            "wikilinks": [],
            "headings": ["Intro", "注意力"],
            "image": False,
            "diagram": False,
            "broken_yaml": False,
        }

    def text(self, path: str) -> str:
        page = self.pages[path]
        if page.get("source"):
            return f"# {page['title']}\n\nThe paper.\n"
        folder = os.path.dirname(path)

        def rel(target: str) -> str:
            return os.path.relpath(target, folder).replace(os.sep, "/")

        lines = ["---"]
        lines.append("type: [" if page["broken_yaml"] else f"type: {page['type']}")
        lines += ["summary: 一句话摘要", "updated: 2020-01-01"]
        lines.append(f"tags: [{', '.join(page['tags'])}]")  # type: ignore[arg-type]
        for key in ("related", "sources"):
            targets: list[str] = page[key]  # type: ignore[assignment]
            if targets:
                lines.append(f"{key}:")
                lines += [f"  - {rel(t)}" for t in targets]
        lines += ["---", f"# {page['title']}", ""]
        for heading in page["headings"]:  # type: ignore[attr-defined]
            lines += [f"## {heading}", "", "Some text.", ""]
        for target, anchor in page["links"]:  # type: ignore[attr-defined]
            lines.append(f"See [it]({rel(target)}{'#' + anchor if anchor else ''}).")
        for name in page["wikilinks"]:  # type: ignore[attr-defined]
            lines.append(f"And [[{name}]].")
        if page["image"]:
            lines.append(f"![figure]({rel('wiki/figure.png')})")
        if page["diagram"]:
            lines += ["", "```mermaid", "graph LR; A-->B", "```"]
        return "\n".join(lines) + "\n"

    def edit(self) -> str:
        """One random edit; its name (for the failure message)."""
        rng = self.rng
        wiki = self.wiki_paths()
        path = rng.choice(wiki)
        page = self.pages[path]
        others = [p for p in self.pages if p != path]
        kind = rng.choice(
            [
                "add", "remove", "rename", "retype", "title", "heading", "link", "unlink",
                "wikilink", "related", "sources", "tags", "image", "diagram", "broken", "fix",
            ]
        )  # fmt: skip
        if kind == "add" or len(wiki) < 4:
            self.add()
        elif kind == "remove":
            del self.pages[path]
        elif kind == "rename":
            self.counter += 1
            new = f"{rng.choice(FOLDERS)}/p{self.counter}.md"
            self.pages[new] = self.pages.pop(path)
        elif kind == "retype":
            page["type"] = rng.choice(TYPES)
        elif kind == "title":
            page["title"] = f"Page {rng.randint(0, 99)}"
        elif kind == "heading":
            page["headings"] = rng.sample(["Intro", "注意力", "方法", "Results"], rng.randint(1, 3))
        elif kind == "link":
            target = rng.choice(others)
            anchor = rng.choice(["", "intro", "注意力", "方法", "missing"])
            page["links"] = [*page["links"], (target, anchor)]  # type: ignore[misc]
        elif kind == "unlink" and page["links"]:
            page["links"] = page["links"][1:]  # type: ignore[index]
        elif kind == "wikilink":
            name = os.path.basename(rng.choice(others)).removesuffix(".md")
            page["wikilinks"] = [
                *page["wikilinks"],
                rng.choice([name, f"Page {rng.randint(0, 9)}"]),
            ]  # type: ignore[misc]
        elif kind == "related":
            page["related"] = rng.sample(others, min(len(others), rng.randint(0, 3)))
        elif kind == "sources":
            sources = [p for p in self.pages if self.pages[p].get("source")]
            page["sources"] = rng.sample(sources, rng.randint(0, len(sources)))
        elif kind == "tags":
            page["tags"] = rng.sample(TAGS, rng.randint(0, 3))
        elif kind == "image":
            page["image"] = not page["image"]
            if rng.random() < 0.5:
                self.images ^= {"wiki/figure.png"}
        elif kind == "diagram":
            page["diagram"] = not page["diagram"]
        elif kind == "broken":
            page["broken_yaml"] = True  # an error: the build stops at the gate
        elif kind == "fix":
            for other in self.pages.values():
                other["broken_yaml"] = False
        return f"{kind} {path}"

    def write(self, root: Path) -> None:
        """Make ``root`` hold exactly these pages (and images), leaving kbtool's own files."""
        for folder in ("wiki", "sources"):
            if (root / folder).exists():
                shutil.rmtree(root / folder)
        for path in self.pages:
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(self.text(path), encoding="utf-8")
        for image in self.images:
            (root / image).write_bytes(b"\x89PNG\r\n\x1a\n" + image.encode())
        (root / "pyproject.toml").write_text(PYPROJECT)


def site_files(root: Path) -> dict[str, bytes]:
    site = root / "site"
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}


def build(root: Path, session: Session | None = None) -> bool:
    """A one-shot build, or the next of ``session``'s (as ``kbtool serve`` builds)."""
    if session is None:
        return build_site(load_config(root), jobs=1).ok
    session.config = load_config(root)
    session.scan()
    return session.build(jobs=1).ok


class Edited(Protocol):
    """A wiki kept as data: each edit is a change to it, written whole to a folder."""

    def edit(self) -> str: ...

    def write(self, root: Path) -> None: ...


def clean_build(wiki: Edited, root: Path) -> tuple[bool, dict[str, bytes]]:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    wiki.write(root)
    ok = build(root)
    return ok, site_files(root) if ok else {}


def edits_build_as_clean_builds(wiki: Edited, tmp_path: Path, serving: bool, edits: int) -> None:
    """Edit ``wiki`` ``edits`` times, each followed by an incremental build (one-shot, or the
    next of one session's, as ``kbtool serve`` builds) and a clean build of the same files
    elsewhere: the two sites are the same byte for byte."""
    live, scratch = tmp_path / "live", tmp_path / "clean"
    live.mkdir()
    wiki.write(live)
    kept = Session(load_config(live)) if serving else None
    assert build(live, kept)
    history: list[str] = []
    for _ in range(edits):
        history.append(wiki.edit())
        wiki.write(live)
        ok = build(live, kept)
        clean_ok, clean = clean_build(wiki, scratch)
        assert ok == clean_ok, history
        if ok:
            assert_same(live, clean, history)


def graph(data: bytes) -> tuple[object, ...]:
    """The graph's nodes (type, title, URL) and edges, without the positions: a changed graph
    is laid out from the previous positions, so those depend on the history by design."""
    text = data.decode().removeprefix("window.KB_GRAPH = ").rstrip().removesuffix(";")
    value = json.loads(text)
    nodes = [node[2:] for node in value["nodes"]]
    return value["types"], nodes, value["edges"], value["paths"]


def assert_same(incremental: Path, clean: dict[str, bytes], history: list[str]) -> None:
    got = site_files(incremental)
    assert sorted(got) == sorted(clean), history
    assert graph(got.pop(GRAPH_DATA)) == graph(clean[GRAPH_DATA]), history
    different = [name for name in got if got[name] != clean[name]]
    assert different == [], (different, history)


@pytest.fixture
def patched(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The stages that started from a session's build before, patched, once per build."""
    taken: list[str] = []
    real_check, real_site = check_start.start_from_held, siteinfo._patched

    def check(*args):  # type: ignore[no-untyped-def]
        start = real_check(*args)
        taken.extend(["check"] if start is not None else [])
        return start

    def site(*args):  # type: ignore[no-untyped-def]
        taken.append("site facts")
        return real_site(*args)

    monkeypatch.setattr(kbtool.stages.check, "start_from_held", check)
    monkeypatch.setattr(siteinfo, "_patched", site)
    return taken


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("serving", [False, True], ids=["build", "serve"])
def test_incremental_builds_equal_clean_builds(
    tmp_path: Path, seed: int, serving: bool, patched: list[str]
) -> None:
    # serving: the builds reuse their pages, site facts and published record between them,
    # in one session, as `kbtool serve` does
    edits_build_as_clean_builds(RandomWiki(random.Random(seed)), tmp_path, serving, edits=14)
    # A session's check did start from the build before's (the site facts' too, in the
    # seeds whose builds pass the gate with the same pages twice in a row).
    assert ("check" in patched) == serving
    assert serving or patched == []


def _killed_build(root: Path, rng: random.Random) -> None:
    """`kbtool build` in a process of its own, stopped by a random signal at a random moment."""
    process = subprocess.Popen(
        [sys.executable, "-m", "kbtool", "-C", str(root), "build", "-j", "1"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(rng.uniform(0.0, 1.2))
    process.send_signal(rng.choice([signal.SIGKILL, signal.SIGTERM, signal.SIGINT]))
    process.wait(timeout=60)


@pytest.mark.parametrize("seed", range(3))
def test_incremental_builds_after_killed_ones_equal_clean_builds(tmp_path: Path, seed: int) -> None:
    rng = random.Random(1000 + seed)
    wiki = RandomWiki(rng)
    live, scratch = tmp_path / "live", tmp_path / "clean"
    live.mkdir()
    wiki.write(live)
    assert build(live)
    history: list[str] = []
    for _ in range(6):
        history.append(wiki.edit())
        wiki.write(live)
        _killed_build(live, rng)
        history.append(wiki.edit())
        wiki.write(live)
        ok = build(live)
        clean_ok, clean = clean_build(wiki, scratch)
        assert ok == clean_ok, history
        if ok:
            assert_same(live, clean, history)


def test_a_removed_link_leaves_the_backlinks_of_the_page_it_led_to(tmp_path: Path) -> None:
    wiki = RandomWiki(random.Random(7))
    source, target = wiki.wiki_paths()[:2]
    wiki.pages[source]["links"] = [(target, "")]
    wiki.write(tmp_path)
    assert build(tmp_path)
    title = str(wiki.pages[source]["title"])
    page = tmp_path / "site" / target.replace(".md", ".html")
    assert title in page.read_text()  # a backlink
    wiki.pages[source]["links"] = []
    wiki.write(tmp_path)
    assert build(tmp_path)
    assert title not in page.read_text()
