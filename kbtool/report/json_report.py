"""``--format json``: ``{diagnostics, summary}`` (and ``statistics`` when asked)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from kbtool.report.statistics import count_codes
from kbtool.report.view import Report


def format_json(report: Report) -> str:
    data: dict[str, Any] = {
        "diagnostics": [d._asdict() for d in report.diagnostics],
        "summary": asdict(report.summary),
    }
    if report.statistics:
        data["statistics"] = [asdict(row) for row in count_codes(report.diagnostics)]
    return json.dumps(data, ensure_ascii=False, indent=2)
