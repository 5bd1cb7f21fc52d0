"""``kbtool mcp`` end to end, as an agent drives it over stdio with the SDK's own client:
search, read a section, draft a page with a broken link and a broken anchor, get both back
from ``check`` with fixes, write the corrected page, see it in the linked page's backlinks
and in search, move it, and find every link rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from tests.agent.support import ToolError, connect, small_wiki
from tests.conftest import page_text

pytestmark = pytest.mark.asyncio(loop_scope="function")

MHA = "wiki/concepts/multi-head.md"


def _draft(anchor: str, target: str) -> str:
    return page_text(
        "# 多头注意力（Multi-Head Attention）\n\n"
        f"Built from [注意力](attention.md#{anchor}); see [the paper](../../{target}).\n"
        "Zebrafinch heads split the model dimension.\n",
        summary="多头注意力",
        related=["attention.md"],
        sources=["../../sources/papers/vaswani.md"],
    )


async def test_an_agents_session(tmp_path: Path) -> None:
    root = small_wiki(tmp_path / "repo")
    async with connect(root, "--write") as agent:
        found = await agent.call("search", query="注意力")
        assert found["hits"][0]["path"] == "wiki/concepts/attention.md"

        section = await agent.call(
            "read_page", path="wiki/concepts/attention.md", section="多头注意力"
        )
        assert section["text"].startswith("## 多头注意力")
        assert "Softmax" not in section["text"]  # only the section asked for
        assert [h["anchor"] for h in section["outline"]][1:] == ["缩放点积注意力", "多头注意力"]

        # A draft with a broken anchor and a broken link: both back, with fixes.
        draft = _draft("多头注意", "sources/papers/missing.md")
        checked = await agent.call("check", path=MHA, text=draft)
        codes = sorted(d["code"] for d in checked["added"])
        assert codes == ["KB207", "KB208"], checked
        assert all(d["fix"] for d in checked["added"])
        anchor = next(d for d in checked["added"] if d["code"] == "KB208")
        assert "多头注意力" in anchor["message"]  # did you mean
        assert not (root / MHA).exists()

        with pytest.raises(ToolError, match="KB207"):
            await agent.call("write_page", path=MHA, text=draft)
        assert not (root / MHA).exists()

        written = await agent.call(
            "write_page", path=MHA, text=_draft("多头注意力", "sources/papers/vaswani.md")
        )
        assert written["created"] and (root / MHA).is_file()

        links = await agent.call("links", path="wiki/concepts/attention.md")
        into = [(b["path"], b["anchor"]) for b in links["backlinks"]]
        assert (MHA, "多头注意力") in into

        found = await agent.call("search", query="zebrafinch")
        assert [hit["path"] for hit in found["hits"]] == [MHA]

        # Another page links the new one, edited by section; then the page moves.
        page = await agent.call("read_page", path="wiki/methods/transformer.md")
        await agent.call(
            "edit_section",
            path="wiki/methods/transformer.md",
            section="结构",
            text="Encoder, decoder, [multi-head](../concepts/multi-head.md).\n",
            if_match=page["digest"],
        )
        moved = await agent.call("move_page", path=MHA, destination="wiki/methods/mha.md")
        assert moved["links_rewritten"] >= 3
        text = (root / "wiki/methods/mha.md").read_text(encoding="utf-8")
        assert "../concepts/attention.md#多头注意力" in text
        assert "(mha.md)" in (root / "wiki/methods/transformer.md").read_text(encoding="utf-8")
        assert not (root / MHA).exists()

        after = await agent.call("check")
        assert after["errors"] == 0, after["diagnostics"]
        found = await agent.call("search", query="zebrafinch")
        assert [hit["path"] for hit in found["hits"]] == ["wiki/methods/mha.md"]


async def test_read_only_unless_write(tmp_path: Path) -> None:
    root = small_wiki(tmp_path / "repo")
    async with connect(root) as agent:
        tools = {tool.name for tool in (await agent.session.list_tools()).tools}
        assert "search" in tools and "check" in tools
        assert not tools & {"write_page", "edit_section", "move_page"}


async def test_resources_and_prompts(tmp_path: Path) -> None:
    root = small_wiki(tmp_path / "repo")
    async with connect(root) as agent:
        read = await agent.session.read_resource("kbtool://page/wiki/concepts/attention.md")
        assert "# 注意力机制" in read.contents[0].text  # type: ignore[union-attr]
        with pytest.raises(MCPError, match="wiki/nope.md is not a page of this wiki"):
            await agent.session.read_resource("kbtool://page/wiki/nope.md")
        prompts = {p.name for p in (await agent.session.list_prompts()).prompts}
        assert prompts == {"ingest", "answer", "lint"}
        got = await agent.session.get_prompt("ingest", {"source": "sources/papers/vaswani.md"})
        assert "sources/papers/vaswani.md" in got.messages[0].content.text  # type: ignore[union-attr]


async def test_streamable_http_on_the_loopback(tmp_path: Path) -> None:
    import asyncio
    import socket
    import subprocess
    import sys

    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    root = small_wiki(tmp_path / "repo")
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    command = [sys.executable, "-m", "kbtool", "-C", str(root), "mcp", "--http", str(port)]
    server = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):  # until it listens
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            await asyncio.sleep(0.1)
        async with (
            streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            found = await session.call_tool("search", {"query": "注意力"})
            assert found.structured_content["hits"][0]["path"] == "wiki/concepts/attention.md"
    finally:
        server.terminate()
        server.wait(20)


async def test_a_page_written_by_someone_else_is_seen(tmp_path: Path) -> None:
    import asyncio

    root = small_wiki(tmp_path / "repo")
    async with connect(root) as agent:
        await agent.call("search", query="注意力")  # the server has checked the wiki
        other = page_text("# Other\n\nA quokka links [it](concepts/attention.md).\n")
        (root / "wiki/other.md").write_text(other, encoding="utf-8")
        for _ in range(100):  # the watcher tells the server within a fraction of a second
            found = await agent.call("search", query="quokka")
            if found["total"]:
                break
            await asyncio.sleep(0.1)
        assert [hit["path"] for hit in found["hits"]] == ["wiki/other.md"]
        links = await agent.call("links", path="wiki/concepts/attention.md")
        assert "wiki/other.md" in {b["path"] for b in links["backlinks"]}
