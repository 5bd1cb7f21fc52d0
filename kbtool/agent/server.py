"""The Model Context Protocol server: the SDK's ``MCPServer`` wired to one
:class:`~kbtool.agent.state.AgentWiki`, over stdio or streamable HTTP on 127.0.0.1.

Every tool runs through a :class:`~kbtool.agent.guard.Guard`: under the wiki's lock, its
failures answered as tool errors, never as a traceback.
"""

from __future__ import annotations

import logging
import threading

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError

from kbtool import __version__
from kbtool.agent import prompts
from kbtool.agent.guard import Guard
from kbtool.agent.search import SearchIndex
from kbtool.agent.state import AgentWiki

log = logging.getLogger(__name__)


def make_server(wiki: AgentWiki) -> tuple[MCPServer, SearchIndex]:
    from kbtool.agent.tools import register_read_tools, register_write_tools

    server: MCPServer = MCPServer(
        "kbtool",
        title="kbtool wiki",
        instructions=prompts.INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    guard = Guard(wiki)
    index = SearchIndex(wiki)
    register_read_tools(server, guard, wiki, index)
    if wiki.permissions.write:
        register_write_tools(server, guard, wiki)
    _resources(server, guard, wiki)
    _prompts(server)
    return server, index


def _resources(server: MCPServer, guard: Guard, wiki: AgentWiki) -> None:
    from kbtool.agent.paths import page_path

    @server.resource(
        "kbtool://page/{+path}",
        name="page",
        description="A page of the wiki or the sources, as written (Markdown with frontmatter)",
        mime_type="text/markdown",
    )
    def page(path: str) -> str:
        def read() -> str:
            return wiki.read(page_path(wiki, path)).decode("utf-8-sig", "replace")

        try:
            return guard("page", read)
        except ToolError as error:  # a resource's error, with the same message
            raise ResourceError(str(error)) from None


def _prompts(server: MCPServer) -> None:
    @server.prompt(name="ingest", description="Ingest a source page into the wiki")
    def ingest(source: str) -> str:
        return prompts.ingest(source)

    @server.prompt(name="answer", description="Answer a question from the wiki, with citations")
    def answer(question: str) -> str:
        return prompts.answer(question)

    @server.prompt(name="lint", description="Fix what check reports; link mentions; merge")
    def lint(scope: str = "") -> str:
        return prompts.lint(scope)


def warm_up(wiki: AgentWiki, index: SearchIndex) -> threading.Thread:
    """Check the wiki in the background once the server is up, so that the first tool call
    does not pay for it (it waits for the lock instead)."""

    def work() -> None:
        with wiki.lock:
            try:
                wiki.checked()
            except Exception:  # the first tool call tries again and says what is wrong
                log.exception("the first check failed")

    thread = threading.Thread(target=work, name="kbtool-mcp-warm-up", daemon=True)
    thread.start()
    return thread


def watch(wiki: AgentWiki, stop: threading.Event) -> threading.Thread | None:
    """Tell the wiki of every change on disk (an editor, git, another agent), as serve's
    watcher sees them."""
    try:
        from kbtool.serve import Watcher

        watcher = Watcher(wiki.config)
    except Exception:  # no watching: edits by others are seen after the next write
        log.warning("cannot watch the wiki's folders for changes", exc_info=True)
        return None

    def work() -> None:
        try:
            for batch in watcher.batches(stop):
                wiki.saw_change(batch)
        except BaseException:  # noqa: BLE001 - a thread's end; nothing to hand it to
            log.warning("the watcher stopped", exc_info=True)
        finally:
            watcher.close()

    thread = threading.Thread(target=work, name="kbtool-mcp-watch", daemon=True)
    thread.start()
    return thread
