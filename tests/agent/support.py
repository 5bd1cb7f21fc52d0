"""The agent tests' helpers: a small wiki, and ``kbtool mcp`` driven over stdio by the SDK's
own client, as an agent drives it."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import page_text, write_tree

ATTENTION = page_text(
    "# 注意力机制（Attention）\n\n"
    "## 缩放点积注意力\n\nSoftmax of QK^T over sqrt(d).\n\n"
    "## 多头注意力\n\nSeveral heads attend at once. ^heads\n",
    summary="注意力机制",
    tags="[attention]",
)
TRANSFORMER = page_text(
    "# Transformer\n\nUses [attention](attention.md#多头注意力).\n\n## 结构\n\nEncoder, decoder.\n",
    summary="Transformer",
    related=["attention.md"],
    type="method",
)
PYPROJECT = '[tool.kbtool]\nignore = ["KB301", "KB302", "KB303"]\n'


def small_wiki(root: Path, extra: Mapping[str, str | bytes] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    files: dict[str, str | bytes] = {
        "pyproject.toml": PYPROJECT,
        "wiki/concepts/attention.md": ATTENTION,
        "wiki/methods/transformer.md": TRANSFORMER.replace(
            "attention.md", "../concepts/attention.md"
        ),
        "sources/papers/vaswani.md": "# Attention Is All You Need\n\nThe paper.\n",
        **(extra or {}),
    }
    return write_tree(root, files)


class ToolError(Exception):
    """A tool answered with an error: its text."""


class Agent:
    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def call(self, tool: str, **arguments: Any) -> Any:
        """The tool's structured answer; ToolError with its text if it answered an error."""
        result = await self.session.call_tool(tool, arguments)
        if result.is_error:
            texts = [getattr(block, "text", "") for block in result.content]
            raise ToolError("\n".join(texts))
        return result.structured_content


@contextlib.asynccontextmanager
async def connect(root: Path, *options: str) -> AsyncIterator[Agent]:
    """``kbtool -C root mcp OPTIONS`` started and initialised, as an agent's client does."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "kbtool", "-C", str(root), "mcp", *options]
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield Agent(session)
