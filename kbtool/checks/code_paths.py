"""KB212: inline code that names a file of the repository by its path (`wiki/concepts/x.md`),
where nothing is. Links are checked and rewritten by ``kbtool mv``; a path in code is text to
Markdown, and after a move it goes on naming the old place unless it is checked too.

A code span is a path when it has no spaces, a folder and a file extension (an anchor or a
line number may follow: `wiki/a.md#方法`, `kbtool/cli.py:42`), and its first folder is one of
the repository's; it is read from the repository's root, as such paths are written. Whether
the file is there is asked through the facts view, so an incremental check looks again
when a page or file of that path appears or goes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from kbtool.checks.base import diagnostic
from kbtool.diagnostics import Diagnostic
from kbtool.model import Span
from kbtool.wiki import Status, Wiki

_REST = re.compile(r"(?:#[^\s`]*|:\d+(?:[:-]\d+)?)$")


def code_path_target(written: str) -> str:
    """The repository path a code span names, without its anchor or line number.

    >>> code_path_target("./wiki/concepts/x.md#方法")
    'wiki/concepts/x.md'
    """
    return posixpath.normpath(_REST.sub("", written))


def check_code_paths(wiki: Wiki) -> Iterator[Diagnostic]:
    for page in wiki.checked_pages:
        for written, line, col in page.code_paths:
            target = code_path_target(written)
            top = target.split("/", 1)[0]
            if target.startswith("..") or top in ("", "."):
                continue
            if wiki.in_repository(page.path, top) is not Status.DIRECTORY:
                continue  # not a path of this repository (`torch/nn.py`, `a/b.c`)
            if wiki.in_repository(page.path, target) is Status.MISSING:
                message = f"`{written}` names no file of the repository"
                yield diagnostic("KB212", Span(page.path, line, col), message)
