"""Hostile input through the protocol, each a test: writes out of the wiki, into the sources,
through a symbolic link, over a newer text, of YAML that does not parse, of 10 MB; cells that
read the user's files or loop forever. Each gets a clear error or is contained; nothing is
written or lost, and the server goes on answering."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest

from kbtool.agent.state import MAX_WRITE_BYTES
from kbtool.execute import landlock
from tests.agent.support import ATTENTION, ToolError, connect, small_wiki
from tests.conftest import page_text

pytestmark = pytest.mark.asyncio(loop_scope="function")

NEW = page_text("# New\n\nLinks [attention](attention.md).\n", summary="new")


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but kbtool's own folder, with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and ".kbtool" not in p.parts
    }


async def _refused(root: Path, match: str, tool: str = "write_page", **arguments: object) -> str:
    """Call ``tool`` with ``arguments`` on a --write server: it must answer an error matching
    ``match`` and change no file; the server then still answers."""
    before = _tree(root.parent)
    async with connect(root, "--write") as agent:
        with pytest.raises(ToolError, match=match) as refused:
            await agent.call(tool, **arguments)
        assert "Traceback" not in str(refused.value)
        still = await agent.call("read_page", path="wiki/concepts/attention.md")
        assert still["title"] == "注意力机制（Attention）"
    assert _tree(root.parent) == before
    return str(refused.value)


async def test_a_write_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    root = small_wiki(tmp_path / "repo")
    await _refused(root, r"leads out", path="../outside.md", text=NEW)
    await _refused(root, r"leads out", path="wiki/../../outside.md", text=NEW)
    await _refused(root, r"outside the repository", path=str(tmp_path / "x.md"), text=NEW)
    assert not (tmp_path / "outside.md").exists()


async def test_a_write_into_the_sources_is_refused(tmp_path: Path) -> None:
    root = small_wiki(tmp_path / "repo")
    await _refused(root, r"sources folder", path="sources/papers/vaswani.md", text=NEW)
    await _refused(root, r"sources folder", path="sources/papers/new.md", text=NEW)


async def test_a_write_through_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    root = small_wiki(tmp_path / "repo")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "victim.md").write_text("keep me\n", encoding="utf-8")
    (root / "wiki/linked").symlink_to(outside, target_is_directory=True)
    (root / "wiki/concepts/victim.md").symlink_to(outside / "victim.md")
    await _refused(root, r"symbolic link", path="wiki/linked/new.md", text=NEW)
    await _refused(root, r"symbolic link", path="wiki/concepts/victim.md", text=NEW)
    assert (outside / "victim.md").read_text(encoding="utf-8") == "keep me\n"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.md"]


async def test_a_write_over_a_newer_text_is_refused(tmp_path: Path) -> None:
    root = small_wiki(tmp_path / "repo")
    page = root / "wiki/concepts/attention.md"
    async with connect(root, "--write") as agent:
        read = await agent.call("read_page", path="wiki/concepts/attention.md")
        newer = ATTENTION + "\nAnother agent's paragraph.\n"
        page.write_text(newer, encoding="utf-8")
        edited = ATTENTION.replace("Several heads", "Many heads")
        with pytest.raises(ToolError, match="changed since it was read"):
            await agent.call("write_page", path=read["path"], text=edited, if_match=read["digest"])
        with pytest.raises(ToolError, match="if_match"):
            await agent.call("write_page", path=read["path"], text=edited)
        with pytest.raises(ToolError, match="changed since it was read"):
            await agent.call(
                "edit_section",
                path=read["path"],
                section="多头注意力",
                text="Many heads.\n",
                if_match=read["digest"],
            )
    assert page.read_text(encoding="utf-8") == newer


async def test_a_write_of_yaml_that_does_not_parse_is_refused(tmp_path: Path) -> None:
    root = small_wiki(tmp_path / "repo")
    broken = "---\ntype: concept\nsummary: [unclosed\nupdated: 2020-01-01\n---\n# Broken\n"
    message = await _refused(root, r"KB103", path="wiki/concepts/broken.md", text=broken)
    assert "fix:" in message and "not written" in message


async def test_a_write_of_ten_megabytes_is_refused(tmp_path: Path) -> None:
    root = small_wiki(tmp_path / "repo")
    huge = NEW + "字" * (10 * 1024 * 1024 // 3)
    assert len(huge.encode()) > 10 * MAX_WRITE_BYTES
    await _refused(root, r"more than the", path="wiki/concepts/huge.md", text=huge)


async def test_a_move_onto_an_existing_page_is_refused(tmp_path: Path) -> None:
    root = small_wiki(tmp_path / "repo")
    await _refused(
        root,
        r"exists",
        tool="move_page",
        path="wiki/concepts/attention.md",
        destination="wiki/methods/transformer.md",
    )


needs_landlock = pytest.mark.skipif(
    not landlock.abi_version() and os.environ.get("CI") != "true",
    reason=f"needs Landlock: {landlock.unavailable_reason()}",
)
FAST = '[tool.kbtool]\nignore = ["KB301", "KB303"]\npreload = []\ncell-timeout = 2\n'


def _cell_page(code: str) -> str:
    return page_text(f"# Cells\n\n```python\n{code}\n```\n", summary="cells")


@needs_landlock
async def test_cells_that_read_the_users_files_are_contained(tmp_path: Path) -> None:
    secret = "the planted secret " + secrets.token_hex(8)
    home = tmp_path / "home"
    home.mkdir()
    (home / "secret.txt").write_text(secret, encoding="utf-8")
    code = f"print(open({str(home / 'secret.txt')!r}).read())"
    root = small_wiki(
        tmp_path / "repo", {"pyproject.toml": FAST, "wiki/cells.md": _cell_page(code)}
    )
    async with connect(root) as agent:
        ran = await agent.call("run_cells", path="wiki/cells.md")
    assert ran["status"] == "failed"
    cell = ran["cells"][0]
    assert cell["status"] == "failed" and cell["error_line"] == 9
    assert "PermissionError" in (cell["error"] or "")
    assert secret not in str(ran)


async def test_cells_that_loop_forever_are_stopped(tmp_path: Path) -> None:
    root = small_wiki(
        tmp_path / "repo",
        {"pyproject.toml": FAST, "wiki/cells.md": _cell_page("while True:\n    pass")},
    )
    async with connect(root) as agent:
        ran = await agent.call("run_cells", path="wiki/cells.md")
        assert ran["status"] == "failed"
        cell = ran["cells"][0]
        assert cell["status"] == "failed" and cell["line"] == 9
        assert "timed out after 2 s" in cell["reason"]
        found = await agent.call("search", query="注意力")  # the server goes on
        assert found["total"] >= 1
