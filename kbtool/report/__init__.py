"""Diagnostics out: every format takes one :class:`Report` and returns the text to print.

``text`` (compiler-style lines), ``json``, ``github`` (workflow annotations) and ``sarif``
(code scanning); ``--statistics`` is a view of text and json. The link graph's exports
(``kbtool graph``) are :mod:`kbtool.report.graph`.
"""

from __future__ import annotations

from collections.abc import Callable

from kbtool.report.github import format_github
from kbtool.report.json_report import format_json
from kbtool.report.sarif import format_sarif
from kbtool.report.text import format_text
from kbtool.report.view import Report

FORMATS: dict[str, Callable[[Report], str]] = {
    "text": format_text,
    "json": format_json,
    "github": format_github,
    "sarif": format_sarif,
}
#: the formats that have a ``--statistics`` view
WITH_STATISTICS = ("text", "json")


def format_report(fmt: str, report: Report) -> str:
    return FORMATS[fmt](report)


__all__ = ["FORMATS", "WITH_STATISTICS", "Report", "format_report"]
