"""``kbtool notebook NB.ipynb --to md`` and ``kbtool notebook DIR --to md``: import notebooks.

Each notebook becomes a page beside it (or under ``--out``), with frontmatter the wiki accepts
and links between the imported notebooks pointing at their pages (see
:mod:`kbtool.notebook_import`); its saved text outputs go to ``<page>.outputs.json`` beside the
page, for ``compare-outputs``. A file that is not a notebook gets a KB421 diagnostic and nothing
is written for it; the other notebooks of a folder are still imported. An existing page is
never overwritten unless it is the same text, or ``--force`` is given.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from kbtool.config import Config
from kbtool.diagnostics import Diagnostic
from kbtool.errors import UsageError
from kbtool.execute.compare import saved_outputs_path
from kbtool.notebook_import import (
    NotebookProblem,
    has_frontmatter,
    heading_anchors,
    import_notebook,
    load_notebook,
)


def import_notebooks(args: argparse.Namespace, config: Config, source: Path) -> int:
    page_type = args.type or config.types[0]
    if page_type not in config.types:
        allowed = ", ".join(config.types)
        raise UsageError(f"--type {page_type}: not one of the configured types ({allowed})")
    if source.is_dir():
        notebooks = sorted(
            p for p in source.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
        )
        out_dir = Path(args.out) if args.out else source
        targets = {nb: out_dir / nb.relative_to(source).with_suffix(".md") for nb in notebooks}
    else:
        targets = {source: Path(args.out) if args.out else source.with_suffix(".md")}
    loaded, problems = {}, []
    for notebook_path in targets:
        try:
            text = notebook_path.read_text(encoding="utf-8")
            loaded[notebook_path] = load_notebook(text)
        except UnicodeDecodeError as error:
            problems.append(_problem(notebook_path, NotebookProblem(f"not UTF-8 ({error.reason})")))
        except NotebookProblem as problem:
            problems.append(_problem(notebook_path, problem))
    anchors = {path: heading_anchors(nb) for path, nb in loaded.items()}
    written = 0
    for notebook_path, notebook in loaded.items():
        target = targets[notebook_path]
        folder = notebook_path.parent
        links = {_rel(other, folder): _rel(targets[other], target.parent) for other in loaded}
        by_link = {_rel(other, folder): anchors[other] for other in loaded}
        imported = import_notebook(notebook, page_type, links, anchors=by_link)
        if target.exists() and not args.force and _read(target) != imported.page:
            problems.append(
                Diagnostic(
                    str(target), 1, 1, "KB421", "error", "page exists; not overwritten (--force)"
                )
            )
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(imported.page, encoding="utf-8")
        has_text = any(c["stdout"] or c["value"] or c["displays"] for c in imported.saved)
        if has_text and not has_frontmatter(notebook):
            saved = {"notebook": notebook_path.name, "cells": imported.saved}
            text = json.dumps(saved, ensure_ascii=False, indent=1) + "\n"
            saved_outputs_path(target).write_text(text, encoding="utf-8")
        print(f"wrote {target}")
        written += 1
    for diagnostic in sorted(problems):
        print(diagnostic.format())
    if source.is_dir():
        print(f"{written} notebooks imported, {len(problems)} not")
    return 1 if problems else 0


def _problem(path: Path, problem: NotebookProblem) -> Diagnostic:
    message = f"cannot import {path.name}: {problem.reason}; nothing written"
    return Diagnostic(str(path), problem.line, problem.col, "KB421", "error", message)


def _rel(path: Path, folder: Path) -> str:
    return Path(os.path.relpath(path, folder)).as_posix()


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
