"""``--format sarif``: diagnostics as SARIF 2.1.0, for GitHub code scanning and other viewers.

Each code is a rule (id, short description, help, default level); each diagnostic a result
at the same line and column as the text output, with a repository-relative URI and a
fingerprint that does not depend on the line, so that an annotation stays with its problem
while the lines above it change.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from kbtool import __version__
from kbtool.codes import RULES, all_rules
from kbtool.diagnostics import Diagnostic
from kbtool.report.view import Report

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_LINE = re.compile(r"\bline \d+")
FINGERPRINT = "kbtool/v1"

#: What to do, by the code's group (its first digit).
_ADVICE = {
    "KB0": "The file could not be read as a page; fix or remove it.",
    "KB1": "Correct the page's YAML frontmatter; the configured schema is in `[tool.kbtool]`.",
    "KB2": "Point the link at an existing page, file or heading, relative to this page.",
    "KB3": "Link the pages to each other as the wiki means them to be, or switch the rule off "
    "with `[tool.kbtool.severity]`.",
    "KB4": "Fix the page's python cells or their options; `kbtool test PAGE` runs them.",
    "KB5": "The page could not be rendered as written; the site shows it as best it can.",
    "KB6": "Fix the project's rule (`[tool.kbtool] rules`, or the package that installs it).",
}
#: What to do about a finding of one of the project's own rules.
_PROJECT_ADVICE = "A rule of this project's own; its docstring says more."


def repository_prefix(root: Path) -> str:
    """``root``'s path inside its Git repository ('' at the top), for repository-relative URIs."""
    root = root.resolve()
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            inside = root.relative_to(folder).as_posix()
            return "" if inside == "." else inside + "/"
    return ""


def _level(severity: str) -> str:
    return {"error": "error", "warning": "warning"}.get(severity, "none")


def _rules() -> list[dict[str, object]]:
    rules: list[dict[str, object]] = []
    for code, rule in all_rules().items():
        advice = _ADVICE.get(code[:3], "") if code in RULES else _PROJECT_ADVICE
        text = f"{rule.summary}. {advice}"
        rules.append(
            {
                "id": code,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": text},
                "help": {
                    "text": f"{text} The README's table of diagnostic codes lists every code."
                    if code in RULES
                    else text,
                    "markdown": f"**{code}**: {rule.summary}.\n\n{advice}",
                },
                "defaultConfiguration": {"level": _level(rule.severity)},
            }
        )
    return rules


def _fingerprint(uri: str, code: str, message: str, ordinal: int) -> str:
    text = "\0".join((uri, code, message, str(ordinal)))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def to_sarif(diagnostics: list[Diagnostic], prefix: str = "") -> dict[str, object]:
    """The SARIF log as a JSON-ready mapping; ``prefix`` is the wiki's folder in its repository."""
    rules = _rules()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    seen: Counter[tuple[str, str, str]] = Counter()
    results = []
    for d in diagnostics:
        uri = quote(prefix + d.path, safe="/")
        # A message that mentions a line ("first on line 7") would move with it: not that.
        key = (uri, d.code, _LINE.sub("line", d.message))
        seen[key] += 1
        result: dict[str, object] = {
            "ruleId": d.code,
            "level": _level(d.severity),
            "message": {"text": d.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": d.line, "startColumn": d.col},
                    }
                }
            ],
            "partialFingerprints": {FINGERPRINT: _fingerprint(*key, seen[key])},
        }
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        results.append(result)
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "kbtool",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def format_sarif(report: Report) -> str:
    """The SARIF log, its URIs relative to the Git repository the wiki is in."""
    sarif = to_sarif(report.diagnostics, repository_prefix(report.root))
    return json.dumps(sarif, ensure_ascii=False, indent=2)
