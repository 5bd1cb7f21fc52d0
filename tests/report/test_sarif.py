"""``--format sarif``: valid SARIF 2.1.0, with the text output's places, rules and fingerprints."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest

from kbtool.codes import RULES
from kbtool.report.sarif import repository_prefix

SCHEMA = json.loads((Path(__file__).parent / "sarif" / "sarif-schema-2.1.0.json").read_text())


@pytest.fixture
def broken_wiki(make_wiki, page) -> Path:
    return make_wiki(
        {
            "wiki/concepts/注意力.md": page(
                "# 注意力\n\n见 [缺失](missing.md) 与 [锚点](#无此标题)。\n",
                related=["../entities/nope.md", "b.md"],
                tags="not-a-list",
            ),
            "wiki/concepts/b.md": page("# B\n"),
        }
    )


def _run(run_kbtool, root: Path, fmt: str) -> str:
    result = run_kbtool("-C", root, "check", "--no-cache", "--format", fmt)
    assert result.code == 1
    return result.out


def test_the_log_is_valid_sarif_2_1_0(run_kbtool, broken_wiki: Path) -> None:
    log = json.loads(_run(run_kbtool, broken_wiki, "sarif"))
    jsonschema.validate(log, SCHEMA)  # raises on the first violation
    (run,) = log["runs"]
    assert run["tool"]["driver"]["name"] == "kbtool"
    assert len(run["results"]) >= 4


def test_the_schema_rejects_a_broken_log(run_kbtool, broken_wiki: Path) -> None:
    """The schema check can fail: a result without a message is refused."""
    log = json.loads(_run(run_kbtool, broken_wiki, "sarif"))
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, SCHEMA)


def test_results_are_at_the_text_outputs_places(run_kbtool, broken_wiki: Path) -> None:
    text = _run(run_kbtool, broken_wiki, "text").splitlines()[:-1]
    log = json.loads(_run(run_kbtool, broken_wiki, "sarif"))
    from_sarif = []
    for result in log["runs"][0]["results"]:
        (location,) = result["locations"]
        where = location["physicalLocation"]
        region = where["region"]
        path = unquote(where["artifactLocation"]["uri"])
        level = result["level"]
        message = result["message"]["text"]
        from_sarif.append(
            f"{path}:{region['startLine']}:{region['startColumn']}: "
            f"{result['ruleId']} {level} {message}"
        )
    assert from_sarif == text


def test_rules_describe_every_code(run_kbtool, broken_wiki: Path) -> None:
    log = json.loads(_run(run_kbtool, broken_wiki, "sarif"))
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == list(RULES)
    for rule in rules:
        assert rule["shortDescription"]["text"] == RULES[rule["id"]].summary
        assert rule["help"]["text"]
        severity = RULES[rule["id"]].severity
        assert rule["defaultConfiguration"]["level"] == ("none" if severity == "off" else severity)
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_uris_are_relative_and_encoded(run_kbtool, broken_wiki: Path) -> None:
    log = json.loads(_run(run_kbtool, broken_wiki, "sarif"))
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    }
    assert "wiki/concepts/%E6%B3%A8%E6%84%8F%E5%8A%9B.md" in uris
    assert all(not uri.startswith(("/", "file:")) for uri in uris)


def test_fingerprints_survive_lines_added_above(run_kbtool, broken_wiki: Path) -> None:
    def fingerprints() -> dict[str, int]:
        log = json.loads(_run(run_kbtool, broken_wiki, "sarif"))
        return {
            r["partialFingerprints"]["kbtool/v1"]: r["locations"][0]["physicalLocation"]["region"][
                "startLine"
            ]
            for r in log["runs"][0]["results"]
        }

    before = fingerprints()
    assert len(before) == len(set(before))  # distinct problems, distinct fingerprints
    page = broken_wiki / "wiki/concepts/注意力.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("# 注意力\n", "# 注意力\n\n新的一段。\n"), encoding="utf-8")
    after = fingerprints()
    assert set(after) == set(before)
    assert any(after[key] != before[key] for key in before)  # some lines moved


def test_uris_are_relative_to_the_git_repository(tmp_path: Path) -> None:
    wiki_root = tmp_path / "docs" / "kb"
    wiki_root.mkdir(parents=True)
    assert repository_prefix(wiki_root) == ""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert repository_prefix(wiki_root) == "docs/kb/"
    assert repository_prefix(tmp_path) == ""


def test_build_writes_sarif_too(run_kbtool, broken_wiki: Path) -> None:
    result = run_kbtool("-C", broken_wiki, "build", "--format", "sarif")
    assert result.code == 1
    jsonschema.validate(json.loads(result.out), SCHEMA)
