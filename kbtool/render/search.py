"""The site's offline full-text search: a Pagefind index built over the finished site.

Each page that has ``data-pagefind-body`` is copied, its CJK runs spelled as bigram words
(:mod:`kbtool.render.search_grams`), into a staging folder under the cache; Pagefind's binary
indexes that folder into ``site/pagefind/``, which ``assets/search.js`` queries. An unchanged
site reuses the previous bundle instead of indexing again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from kbtool.config import Config
from kbtool.errors import KbtoolError
from kbtool.lifecycle import dying_with_parent
from kbtool.render import search_grams

#: Pagefind's bundle folder inside the site; ``search.js`` loads ``pagefind/pagefind.js``.
BUNDLE = "pagefind"
#: Stamp inside the bundle: what it was built from, so an unchanged site reuses it.
STAMP = "kbtool-search.json"
#: Pagefind's UI bundles; the site has its own client, so they are not published.
_UNUSED = re.compile(r"^pagefind-(ui|component-ui|modular-ui|highlight)\.")


class SearchIndexError(KbtoolError):
    """Pagefind could not be started or could not index the site."""


def _pages(site_dir: Path) -> list[Path]:
    """Every HTML page of the site, in a stable order, except Pagefind's own files."""
    bundle = site_dir / BUNDLE
    return [p for p in sorted(site_dir.rglob("*.html")) if bundle not in p.parents]


def _fingerprint(site_dir: Path, pages: list[Path], config: Config) -> str:
    """A hash of everything the index is built from."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{search_grams.VERSION}\0{_pagefind_version()}\0{config.language}\0".encode())
    for path in pages:
        data = path.read_bytes()
        digest.update(f"{path.relative_to(site_dir).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def _pagefind_version() -> str:
    try:
        from importlib.metadata import version

        return version("pagefind")
    except Exception:  # noqa: BLE001 - an unknown version only disables reuse
        return "unknown"


def _pagefind() -> Path:
    """The Pagefind binary: the extended (CJK) build that ``pagefind[extended]`` installs."""
    try:
        from pagefind.service import get_executable
    except ImportError as error:
        raise SearchIndexError(f"search index: {error}; install 'pagefind[extended]'") from error
    binary = get_executable()
    if binary is None:
        raise SearchIndexError("search index: no Pagefind binary; pip install 'pagefind[extended]'")
    return binary


def _stage_one(source: Path, target: Path) -> bool:
    """Copy one page, spelled, to ``target``; False if Pagefind would skip it."""
    spelled = search_grams.spell_page(source.read_text(encoding="utf-8"))
    if spelled is None:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(spelled, encoding="utf-8")
    return True


def _stage(site_dir: Path, pages: list[Path], stage: Path) -> int:
    """Write each page, spelled, under ``stage`` at its path in the site;
    return how many pages Pagefind will index."""
    if stage.exists():
        shutil.rmtree(stage)
    return sum(_stage_one(p, stage / p.relative_to(site_dir)) for p in pages)


def _index(stage: Path, out: Path, language: str) -> None:
    """Run Pagefind's CLI over the staged pages. (Its Python API answers one request per
    0.1 s poll, which is 17 minutes for 10,000 pages; the CLI indexes them in seconds.)"""
    command = [
        str(_pagefind()),
        "--site",
        str(stage),
        "--output-path",
        str(out),
        "--force-language",
        language,
        "--keep-index-url",
        "--silent",
    ]
    try:
        done = subprocess.run(
            dying_with_parent(command), capture_output=True, text=True, check=False
        )
    except OSError as error:
        raise SearchIndexError(f"search index: cannot run Pagefind: {error}") from error
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip()
        raise SearchIndexError(f"search index: Pagefind failed ({done.returncode}): {detail}")


def _reuse(previous: Path, out: Path, fingerprint: str) -> bool:
    """Link the previous build's bundle into ``out`` if it was built from the same pages."""
    try:
        stamp = json.loads((previous / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if stamp.get("fingerprint") != fingerprint:
        return False

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)  # the temporary site sits beside site/: same file system
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(previous, out, copy_function=link)
    return True


def _size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def build_search_index(site_dir: Path, config: Config) -> dict[str, Any]:
    """Index every page of ``site_dir`` that has ``data-pagefind-body`` into
    ``site_dir/pagefind/``; return figures for the build report.

    The previous site's bundle is reused when no indexed page changed.
    """
    started = time.perf_counter()
    out = site_dir / BUNDLE
    if out.exists():
        shutil.rmtree(out)
    pages = _pages(site_dir)
    fingerprint = _fingerprint(site_dir, pages, config)
    previous = config.root / config.site_dir / BUNDLE
    reused = previous.resolve() != out.resolve() and _reuse(previous, out, fingerprint)
    if reused:
        indexed = json.loads((out / STAMP).read_text(encoding="utf-8"))["pages"]
    else:
        stage = config.cache_path / "search-stage"
        try:
            indexed = _stage(site_dir, pages, stage)
            if indexed:  # Pagefind refuses to build an index of nothing
                _index(stage, out, config.language)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
        out.mkdir(exist_ok=True)
        for item in out.iterdir():
            if _UNUSED.match(item.name):
                item.unlink()
        stamp = {"fingerprint": fingerprint, "pages": indexed, "grams": search_grams.VERSION}
        (out / STAMP).write_text(json.dumps(stamp), encoding="utf-8")
    files, size = _size(out)
    return {
        "pages": indexed,
        "files": files,
        "bytes": size,
        "seconds": round(time.perf_counter() - started, 3),
        "reused": reused,
    }
