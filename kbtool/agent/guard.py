"""How every tool runs: under the wiki's lock (the SDK runs tools in worker threads, and the
session is one mutable thing), with a :class:`~kbtool.agent.errors.Refused` answered as the
tool's error, and any other exception as an error that names the tool and says the server goes
on: never a traceback to the client (it goes to the server's log, on stderr)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from kbtool.agent.errors import Refused
from kbtool.agent.state import AgentWiki

log = logging.getLogger(__name__)

T = TypeVar("T")


class Guard:
    """Runs a tool's work under the wiki's lock, its failures turned into tool errors."""

    def __init__(self, wiki: AgentWiki) -> None:
        self.wiki = wiki

    def __call__(self, tool: str, work: Callable[[], T]) -> T:
        with self.wiki.lock:
            try:
                return work()
            except Refused as refused:
                raise ToolError(str(refused)) from None
            except RecursionError:
                log.exception("tool %s", tool)
                raise ToolError(f"{tool}: the input is nested too deeply to handle") from None
            except Exception as error:  # a bug or the disk: the server goes on
                log.exception("tool %s failed", tool)
                raise ToolError(
                    f"{tool} failed inside kbtool ({type(error).__name__}: {error}); the server "
                    "goes on: try again, or another way, and report the bug if it stays"
                ) from None
