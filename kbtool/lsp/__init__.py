"""``kbtool lsp``: the wiki in the editor, over the Language Server Protocol.

:mod:`kbtool.lsp.state` holds the wiki as the editor sees it (the files, with the unsaved
text of open pages laid over them) and checks it with the build's incremental check;
:mod:`~kbtool.lsp.text` converts between the page model's places and the protocol's;
:mod:`~kbtool.lsp.complete`, :mod:`~kbtool.lsp.navigate` and :mod:`~kbtool.lsp.actions`
answer requests; :mod:`~kbtool.lsp.server` wires them to pygls. Only the last imports pygls.
"""
