"""``kbtool lsp`` as a command: without its optional extra, a one-line error and exit 2."""

from __future__ import annotations

import sys


def test_lsp_without_its_extra_says_so_in_one_line(run_kbtool, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pygls", None)  # import pygls -> ImportError
    result = run_kbtool("lsp")
    assert result.code == 2
    assert result.err.strip() == "kbtool lsp needs the 'lsp' extra: pip install 'kbtool[lsp]'"
