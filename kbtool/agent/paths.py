"""The paths a tool is given, made safe: a repository-relative POSIX path to a page, never
outside the repository, never through a symbolic link, never into the sources unless the
server was started to allow it."""

from __future__ import annotations

import os
import posixpath
import stat

from kbtool.agent.errors import Refused
from kbtool.agent.state import AgentWiki


def normal_path(wiki: AgentWiki, given: str) -> str:
    """``given`` (relative to the repository; a leading ``./`` or the repository's absolute
    path is allowed) as a normalised POSIX path inside the repository."""
    text = given.strip().replace("\\", "/")
    if not text or "\x00" in text:
        raise Refused(f"'{given}' is not a path: give a page's path, like wiki/concepts/x.md")
    root = wiki.config.root.as_posix().rstrip("/")
    if text.startswith(root + "/"):
        text = text[len(root) + 1 :]
    if text.startswith("/"):
        raise Refused(f"'{given}' is outside the repository {root}: give a path relative to it")
    path = posixpath.normpath(text)
    if path == ".." or path.startswith("../") or "/../" in f"/{text}/":
        raise Refused(f"'{given}' leads out of its folder ('..'): give the page's own path")
    return path


def page_path(wiki: AgentWiki, given: str) -> str:
    """The path of an existing page of the wiki or of the sources."""
    path = normal_path(wiki, given)
    if path not in wiki.checked().disk.digests():
        hint = _nearest(wiki, path)
        raise Refused(f"{path} is not a page of this wiki{hint}; find pages with search")
    return path


def _nearest(wiki: AgentWiki, path: str) -> str:
    stem = posixpath.basename(path).removesuffix(".md")
    same = [p for p in wiki.checked().disk.digests() if posixpath.basename(p) == stem + ".md"]
    return f" (did you mean {', '.join(sorted(same)[:3])}?)" if same else ""


def writable_path(wiki: AgentWiki, given: str) -> str:
    """The path of a page that may be written: a Markdown file in a wiki folder (or in the
    sources, if allowed), reached through no symbolic link, that is a regular file if it
    exists."""
    if not wiki.permissions.write:
        raise Refused("this server is read-only: start it with `kbtool mcp --write` to write")
    path = normal_path(wiki, given)
    kind = wiki.state.kind_of(path)
    folders = ", ".join(f"{f}/" for f in wiki.config.wiki_folders)
    if kind is None:
        raise Refused(
            f"{path} is not a page path: a page is a .md file in {folders} "
            "(not in a hidden or excluded folder)"
        )
    if kind == "source" and not wiki.permissions.sources:
        raise Refused(
            f"{path} is in the sources folder, which this server does not write: sources are "
            f"the archive pages are written from; write a page in {folders} instead"
        )
    _no_symlink_on_the_way(wiki, path)
    return path


def _no_symlink_on_the_way(wiki: AgentWiki, path: str) -> None:
    at = wiki.config.root
    parts = path.split("/")
    for number, part in enumerate(parts, 1):
        at = at / part
        try:
            mode = os.lstat(at).st_mode
        except FileNotFoundError:
            return  # the rest is to be made
        except OSError as error:
            raise Refused(f"{path}: cannot look at {at.name}: {error.strerror}") from None
        if stat.S_ISLNK(mode):
            raise Refused(f"{path} goes through a symbolic link ({at.name}): not written")
        if number == len(parts) and not stat.S_ISREG(mode):
            raise Refused(f"{path} is not a regular file: not written")
