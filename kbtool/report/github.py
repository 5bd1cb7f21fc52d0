"""``--format github``: GitHub Actions workflow commands, one annotation per diagnostic."""

from __future__ import annotations

from kbtool.report.view import Report


def _escape(text: str, *, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(report: Report) -> str:
    lines = []
    for d in report.diagnostics:
        command = "error" if d.severity == "error" else "warning"
        props = f"file={_escape(d.path, property_value=True)},line={d.line},col={d.col}"
        props += f",title={d.code}"
        lines.append(f"::{command} {props}::{_escape(d.message)}")
    lines.append(report.summary.format())
    return "\n".join(lines)
