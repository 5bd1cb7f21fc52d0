"""Page results -> a JUnit XML report, the format CI systems read and merge across a matrix.

One ``<testcase>`` per python cell, named as the pytest plugin names its items (class
``wiki.concepts.transformer.md``, name ``cell-3``), so a report from ``kbtool test`` and one
from ``pytest --junitxml`` describe the same cells the same way. A page that failed with no
failing cell (a process left running, a bad option) charges its failure to its last cell that
ran, or its first cell, as the plugin does.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from kbtool.execute.results import CellResult, PageResult

#: Characters XML 1.0 cannot hold at all, even escaped (what a cell printed may contain them).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m[0]):02x}", text)


def _blamed(page: PageResult) -> int | None:
    """The position of the cell that carries a page-level failure, if any."""
    if page.status != "failed" or not page.cells or any(c.status == "failed" for c in page.cells):
        return None
    ran = [i for i, cell in enumerate(page.cells) if cell.status == "passed"]
    return ran[-1] if ran else 0


def _case(page: PageResult, number: int, cell: CellResult, blamed: bool) -> ET.Element:
    case = ET.Element(
        "testcase",
        classname=page.path.replace("/", "."),
        name=f"cell-{number}",
        file=page.path,
        line=str(cell.error_line or cell.line),
        time=f"{cell.duration:.3f}",
    )
    if cell.status == "failed" or blamed:
        reason = (cell.reason if cell.status == "failed" else page.reason) or "failed"
        code = (cell.code if cell.status == "failed" else page.code) or "KB404"
        failure = ET.SubElement(case, "failure", message=_clean(f"{code} {reason}"), type=code)
        failure.text = _clean(cell.error or reason)
    elif cell.status == "skipped":
        ET.SubElement(case, "skipped", message=cell.reason or "skip-execution")
    elif cell.status == "not-run":
        ET.SubElement(
            case, "skipped", message=f"not run: {page.reason or 'an earlier cell failed'}"
        )
    for tag, text in (("system-out", cell.stdout), ("system-err", cell.stderr)):
        if text:
            ET.SubElement(case, tag).text = _clean(text)
    return case


def junit_xml(results: Sequence[PageResult], seconds: float) -> bytes:
    suite = ET.Element("testsuite", name="kbtool", time=f"{seconds:.3f}")
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for page in results:
        blamed = _blamed(page)
        for position, cell in enumerate(page.cells):
            case = _case(page, position + 1, cell, position == blamed)
            suite.append(case)
            counts["tests"] += 1
            counts["failures"] += case.find("failure") is not None
            counts["skipped"] += case.find("skipped") is not None
    for name, value in counts.items():
        suite.set(name, str(value))
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    text: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return text


def write_junit(path: Path, results: Sequence[PageResult], seconds: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(junit_xml(results, seconds))
