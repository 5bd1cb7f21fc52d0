"""The language server: pygls wired to :class:`~kbtool.lsp.state.WikiState`.

As the author types, the open page is checked again (with whatever its text changes for other
pages) and the diagnostics of the open pages are sent; on a save, a rename or a change on
disk the files are read again and every page's diagnostics that changed are sent. A request
that fails answers with an error and leaves the server running.
"""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from kbtool import __version__, collector
from kbtool.config import Config, find_root, load_config
from kbtool.diagnostics import Diagnostic
from kbtool.lsp import actions, complete, navigate
from kbtool.lsp.state import WikiState
from kbtool.lsp.text import Lines, diagnostic_extent

log = logging.getLogger(__name__)

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


#: pages whose diagnostics are sent together (their pages read from the store in one batch)
_BATCH = 100


class KbtoolServer(LanguageServer):
    def __init__(self, config: Config | None) -> None:
        super().__init__("kbtool", __version__)
        self.config = config
        self.state: WikiState | None = None
        #: path -> the diagnostics last sent for it
        self.sent: dict[str, list[Diagnostic]] = {}

    def wiki(self) -> WikiState:
        if self.state is None:
            raise RuntimeError("the server is not initialised")
        return self.state

    def path_of(self, uri: str) -> str | None:
        """The repository path of a page's URI; None for what is not a page of the wiki."""
        full = to_fs_path(uri)
        state = self.wiki()
        path = state.relative(full) if full else None
        return path if path is not None and state.kind_of(path) is not None else None

    def lines(self, path: str) -> Lines:
        return Lines.of(self.wiki().text(path))

    def publish(self, paths: set[str] | None = None) -> None:
        """Send the diagnostics of ``paths`` (the open pages, after an edit: always, so that
        each version of the text gets its answer), or else of every page whose diagnostics
        differ from those sent."""
        state = self.wiki()
        found = state.diagnostics
        wanted = set(found) | set(self.sent) if paths is None else paths
        changed = [
            path
            for path in sorted(wanted)
            if paths is not None or path not in self.sent or self.sent[path] != found.get(path, [])
        ]
        # The pages (for each diagnostic's extent) are read in batches, each sent as it is
        # read: after a start, the editor shows the first pages' diagnostics at once.
        for start in range(0, len(changed), _BATCH):
            batch = changed[start : start + _BATCH]
            pages = state.pages_of(path for path in batch if found.get(path))
            for path in batch:
                now = self.sent[path] = found.get(path, [])
                lines = self.lines(path) if now else Lines([])
                page_uri = navigate.uri_of(state, path)
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(
                        uri=page_uri,
                        diagnostics=[_diagnostic(d, pages.get(path), lines) for d in now],
                        version=self._version(page_uri),
                    )
                )

    def _version(self, page_uri: str) -> int | None:
        """The version of the open page's text that was checked (the editor drops what is
        published for an older one); None for a page not open."""
        document = self.workspace.text_documents.get(unquote(page_uri))
        return None if document is None else document.version

    def recheck(self, paths: set[str] | None, rescan: bool = False) -> None:
        state = self.wiki()
        with collector.paused():  # collected when the state settles, the answer sent
            if rescan:
                state.rescan()
            state.check()
            self.publish(paths)
        state.settle()


def _diagnostic(d: Diagnostic, page: object, lines: Lines) -> types.Diagnostic:
    from kbtool.model import Page

    start, end = diagnostic_extent(page if isinstance(page, Page) else None, lines, d.line, d.col)
    first, last = lines.position(d.line, start), lines.position(d.line, end)
    return types.Diagnostic(
        range=types.Range(types.Position(*first), types.Position(*last)),
        message=d.message,
        severity=_SEVERITY.get(d.severity, types.DiagnosticSeverity.Information),
        code=d.code,
        source="kbtool",
        data={"fix": d.fix} if d.fix else None,  # a rule's edit, for its quick fix
    )


def make_server(config: Config | None) -> KbtoolServer:
    server = KbtoolServer(config)

    @server.feature(types.INITIALIZED)
    def initialized(ls: KbtoolServer, _: types.InitializedParams) -> None:
        config = ls.config
        if config is None:
            root = ls.workspace.root_path
            config = load_config(find_root(Path(root) if root else Path.cwd()))
        ls.state = WikiState.open(config)
        ls.recheck(None)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: KbtoolServer, _: None) -> None:
        if ls.state is not None:
            ls.state.close()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: KbtoolServer, params: types.DidOpenTextDocumentParams) -> None:
        _buffer(ls, params.text_document.uri, params.text_document.text)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: KbtoolServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        _buffer(ls, uri, ls.workspace.get_text_document(uri).source)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: KbtoolServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.recheck(None, rescan=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: KbtoolServer, params: types.DidCloseTextDocumentParams) -> None:
        path = ls.path_of(params.text_document.uri)
        if path is not None and ls.wiki().buffers.pop(path, None) is not None:
            ls.recheck(None)  # what the file says again, for it and for the others

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: KbtoolServer, _: types.DidChangeWatchedFilesParams) -> None:
        ls.recheck(None, rescan=True)

    @server.feature(types.WORKSPACE_DID_RENAME_FILES)
    def did_rename(ls: KbtoolServer, params: types.RenameFilesParams) -> None:
        state = ls.wiki()
        for item in params.files:
            old = state.relative(to_fs_path(item.old_uri) or "")
            if old is not None:
                state.buffers.pop(old, None)
        ls.recheck(None, rescan=True)

    _requests(server)
    return server


def _buffer(ls: KbtoolServer, uri: str, text: str) -> None:
    path = ls.path_of(uri)
    if path is None:
        return  # not a page of this wiki: nothing to check
    state = ls.wiki()
    state.buffers[path] = text.encode("utf-8")
    ls.recheck(set(state.buffers))


def _place(ls: KbtoolServer, uri: str, position: types.Position) -> tuple[str, Lines, int, int]:
    path = ls.path_of(uri)
    if path is None:
        raise ValueError(f"{uri} is not a page of this wiki")
    lines = ls.lines(path)
    line, col = lines.place(position.line, position.character)
    return path, lines, line, col


def _requests(server: KbtoolServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(
            trigger_characters=["(", "/", "#", "[", " ", "-", "^"], resolve_provider=True
        ),
    )
    def completion(ls: KbtoolServer, params: types.CompletionParams) -> types.CompletionList:
        path, lines, line, col = _place(ls, params.text_document.uri, params.position)
        return complete.complete(ls.wiki(), path, lines, line, col)

    @server.feature(types.COMPLETION_ITEM_RESOLVE)
    def resolve(ls: KbtoolServer, item: types.CompletionItem) -> types.CompletionItem:
        return complete.resolve(ls.wiki(), item)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: KbtoolServer, params: types.DefinitionParams) -> types.Location | None:
        return navigate.definition(
            ls.wiki(), *_place(ls, params.text_document.uri, params.position)
        )

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: KbtoolServer, params: types.HoverParams) -> types.Hover | None:
        return navigate.hover(ls.wiki(), *_place(ls, params.text_document.uri, params.position))

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def references(ls: KbtoolServer, params: types.ReferenceParams) -> list[types.Location]:
        return navigate.references(
            ls.wiki(), *_place(ls, params.text_document.uri, params.position)
        )

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: KbtoolServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        path = ls.path_of(params.text_document.uri)
        return navigate.document_symbols(ls.wiki(), path, ls.lines(path)) if path else []

    @server.feature(types.WORKSPACE_SYMBOL)
    def workspace_symbols(
        ls: KbtoolServer, params: types.WorkspaceSymbolParams
    ) -> list[types.WorkspaceSymbol]:
        return navigate.workspace_symbols(ls.wiki(), params.query)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll]
        ),
    )
    def code_action(ls: KbtoolServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return []
        return actions.code_actions(ls.wiki(), path, ls.lines(path), params.context.diagnostics)

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(
        ls: KbtoolServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        path, lines, line, _ = _place(ls, params.text_document.uri, params.position)
        found = actions.heading_at(ls.wiki(), path, line)
        if found is None:
            return None
        text = lines.get(line)
        start = text.find(found[1]) if found[1] else -1
        first = lines.position(line, start + 1 if start >= 0 else 1)
        last = lines.position(line, start + 1 + len(found[1]) if start >= 0 else len(text) + 1)
        return types.PrepareRenamePlaceholder(
            range=types.Range(types.Position(*first), types.Position(*last)),
            placeholder=found[1],
        )

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    def rename(ls: KbtoolServer, params: types.RenameParams) -> types.WorkspaceEdit:
        path, _, line, _ = _place(ls, params.text_document.uri, params.position)
        return actions.rename_heading(ls.wiki(), path, line, params.new_name)

    @server.feature(
        types.WORKSPACE_WILL_RENAME_FILES,
        types.FileOperationRegistrationOptions(
            filters=[
                types.FileOperationFilter(
                    scheme="file", pattern=types.FileOperationPattern(glob="**/*")
                )
            ]
        ),
    )
    def will_rename(ls: KbtoolServer, params: types.RenameFilesParams) -> types.WorkspaceEdit:
        state = ls.wiki()
        moves = {}
        for item in params.files:
            old = state.relative(to_fs_path(item.old_uri) or "")
            new = state.relative(to_fs_path(item.new_uri) or "")
            if old is not None and new is not None and old != new:
                moves[old] = new
        return actions.rename_files(state, moves)
