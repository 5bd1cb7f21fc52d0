"""Diagnostics out: every format takes one :class:`Report` and returns the text to print.

``text`` (compiler-style lines), ``json``, ``github`` (workflow annotations) and ``sarif``
(code scanning); ``--statistics`` is a view of text and json. The link graph's exports
(``kbtool graph``) are :mod:`kbtool.report.graph`. A format's module is imported when it is
asked for, not whenever the command line starts.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import cast

from kbtool.report.view import Report

#: format name -> (module, function) that writes it
FORMATS: dict[str, tuple[str, str]] = {
    "text": ("kbtool.report.text", "format_text"),
    "json": ("kbtool.report.json_report", "format_json"),
    "github": ("kbtool.report.github", "format_github"),
    "sarif": ("kbtool.report.sarif", "format_sarif"),
}
#: the formats that have a ``--statistics`` view
WITH_STATISTICS = ("text", "json")


def format_report(fmt: str, report: Report) -> str:
    module, function = FORMATS[fmt]
    writer = cast(Callable[[Report], str], getattr(importlib.import_module(module), function))
    return writer(report)


__all__ = ["FORMATS", "WITH_STATISTICS", "Report", "format_report"]
