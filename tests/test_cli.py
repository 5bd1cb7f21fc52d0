"""``kbtool check`` and ``kbtool graph`` from the command line, run in-process."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from kbtool.diagnostics import Diagnostic, Summary
from kbtool.report import Report, format_report

SUMMARY = re.compile(r"^(\d+) errors?, (\d+) warnings?, (\d+) pages? checked in \d+\.\d\ds$")
LINE = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>KB\d{3}) (?P<sev>error|warning) "
)


@pytest.fixture
def repo(make_wiki, page) -> Path:
    """A wiki with errors and warnings of several codes, in several folders.

    - wiki/a.md: related b.md (one way: KB302 warning at 6:5) and missing.md (KB201 at 7:5)
    - wiki/b.md: empty summary (KB111 warning at 3:1); links to a and sub/c
    - wiki/sub/c.md: body link to a missing page (KB207 error at 6:5), links back to a
    - sources/s.md: cited by a
    """
    return make_wiki(
        {
            "wiki/a.md": page(related=["b.md", "missing.md"], sources=["../sources/s.md"]),
            "wiki/b.md": page("[a](a.md) [c](sub/c.md)\n", summary='""'),
            "wiki/sub/c.md": page("[x](nowhere.md) [a](../a.md)\n"),
            "sources/s.md": "# S\n",
        }
    )


def parse_text(out: str) -> tuple[list[tuple[str, int, int, str, str]], tuple[int, int, int]]:
    *lines, last = out.splitlines()
    summary = SUMMARY.match(last)
    assert summary, f"the last line is not the summary: {last!r}"
    rows = []
    for line in lines:
        match = LINE.match(line)
        assert match, line
        rows.append(
            (match["path"], int(match["line"]), int(match["col"]), match["code"], match["sev"])
        )
    errors, warnings, pages = (int(n) for n in summary.groups())
    return rows, (errors, warnings, pages)


# --- text ---------------------------------------------------------------------------------


def test_text_output_sorted_with_the_summary_last(repo: Path, run_kbtool) -> None:
    result = run_kbtool("-C", repo, "check")
    rows, summary = parse_text(result.out)
    assert [row[:4] for row in rows] == [
        ("wiki/a.md", 6, 5, "KB302"),
        ("wiki/a.md", 7, 5, "KB201"),
        ("wiki/b.md", 3, 1, "KB111"),
        ("wiki/sub/c.md", 6, 5, "KB207"),
    ]
    assert rows == sorted(rows)
    assert summary == (2, 2, 4)
    assert result.code == 1
    assert result.err == ""


def test_the_compiler_style_line(repo: Path, run_kbtool) -> None:
    lines = run_kbtool("-C", repo, "check").lines
    assert "wiki/a.md:7:5: KB201 error related page 'missing.md' does not exist" in lines


def test_clean_and_warnings_only_exit_0(make_wiki, page, run_kbtool) -> None:
    root = make_wiki({"wiki/a.md": page(related=["b.md"]), "wiki/b.md": page(related=["a.md"])})
    result = run_kbtool("-C", root, "check")
    assert result.code == 0
    assert SUMMARY.match(result.out.strip()) and result.out.startswith(
        "0 errors, 0 warnings, 2 pages"
    )
    (root / "wiki/c.md").write_text(page(), encoding="utf-8")  # an orphan: a warning
    result = run_kbtool("-C", root, "check")
    assert result.code == 0
    assert parse_text(result.out) == ([("wiki/c.md", 1, 1, "KB301", "warning")], (0, 1, 3))


def test_root_found_from_the_working_directory(repo: Path, run_kbtool, monkeypatch) -> None:
    (repo / "pyproject.toml").write_text("[tool.kbtool]\n", encoding="utf-8")
    monkeypatch.chdir(repo / "wiki" / "sub")
    rows, _ = parse_text(run_kbtool("check").out)
    assert len(rows) == 4


# --- json and github ------------------------------------------------------------------------


def test_json_output(repo: Path, run_kbtool) -> None:
    text_rows, text_summary = parse_text(run_kbtool("-C", repo, "check").out)
    result = run_kbtool("-C", repo, "check", "--format", "json")
    assert result.code == 1
    data = json.loads(result.out)
    rows = [(d["path"], d["line"], d["col"], d["code"], d["severity"]) for d in data["diagnostics"]]
    assert rows == text_rows
    assert all(
        {"path", "line", "col", "code", "severity", "message"} <= set(d)
        for d in data["diagnostics"]
    )
    assert (
        data["summary"]["errors"],
        data["summary"]["warnings"],
        data["summary"]["pages"],
    ) == text_summary
    assert isinstance(data["summary"]["seconds"], float)


def test_json_keeps_cjk_readable(make_wiki, page, run_kbtool) -> None:
    root = make_wiki({"wiki/页.md": page("[x](缺.md)\n")})
    result = run_kbtool("-C", root, "check", "--format", "json", "--select", "KB207")
    assert "缺.md" in result.out
    assert json.loads(result.out)["diagnostics"][0]["path"] == "wiki/页.md"


GITHUB = re.compile(r"^::(error|warning) file=([^,]+),line=(\d+),col=(\d+),title=(KB\d{3})::(.+)$")


def test_github_output(repo: Path, run_kbtool) -> None:
    result = run_kbtool("-C", repo, "check", "--format", "github")
    *lines, last = result.out.splitlines()
    assert SUMMARY.match(last)
    parsed = [GITHUB.match(line) for line in lines]
    assert all(parsed), lines
    assert [(m[1], m[2], m[3], m[4], m[5]) for m in parsed if m] == [
        ("warning", "wiki/a.md", "6", "5", "KB302"),
        ("error", "wiki/a.md", "7", "5", "KB201"),
        ("warning", "wiki/b.md", "3", "1", "KB111"),
        ("error", "wiki/sub/c.md", "6", "5", "KB207"),
    ]
    assert result.code == 1


def test_github_escapes_properties_and_data() -> None:
    # Workflow commands: '%', CR and LF escaped everywhere; ':' and ',' also in properties.
    d = Diagnostic("wiki/a,b:c.md", 1, 2, "KB207", "error", "100% broken\nsecond line")
    report = Report([d], Summary(1, 0, 1, 0.0), Path("."))
    line = format_report("github", report).splitlines()[0]
    assert (
        line
        == "::error file=wiki/a%2Cb%3Ac.md,line=1,col=2,title=KB207::100%25 broken%0Asecond line"
    )


# --- select / ignore ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "codes"),
    [
        (["--select", "KB2"], ["KB201", "KB207"]),
        (["--select", "KB201"], ["KB201"]),
        (["--select", "kb111,KB302"], ["KB302", "KB111"]),
        (["--select", "KB111", "--select", "KB207"], ["KB111", "KB207"]),
        (["--ignore", "KB3"], ["KB201", "KB111", "KB207"]),
        (["--ignore", "KB201,KB1"], ["KB302", "KB207"]),
        (["--select", "KB2", "--ignore", "KB207"], ["KB201"]),
        (["--select", "KB1", "--ignore", "KB111"], []),
    ],
)
def test_select_and_ignore(repo: Path, run_kbtool, args: list[str], codes: list[str]) -> None:
    result = run_kbtool("-C", repo, "check", *args)
    rows, (errors, warnings, _) = parse_text(result.out)
    assert [row[3] for row in rows] == codes
    assert errors == sum(row[4] == "error" for row in rows) and warnings == len(rows) - errors
    assert result.code == (1 if errors else 0)


def test_ignore_from_the_configuration(repo: Path, run_kbtool) -> None:
    (repo / "pyproject.toml").write_text('[tool.kbtool]\nignore = ["KB2", "KB302"]\n')
    rows, _ = parse_text(run_kbtool("-C", repo, "check").out)
    assert [row[3] for row in rows] == ["KB111"]


# --- severity ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "expected", "code"),
    [
        # A warning made an error fails the run; an error made a warning does not count as one.
        ('KB111 = "error"', {"KB111": "error"}, 1),
        ('KB201 = "warning"\nKB207 = "warning"', {"KB201": "warning", "KB207": "warning"}, 0),
        ('KB2 = "warning"', {"KB201": "warning", "KB207": "warning"}, 0),
        ('KB2 = "warning"\nKB207 = "error"', {"KB201": "warning", "KB207": "error"}, 1),
        ('KB = "warning"', {"KB201": "warning", "KB207": "warning"}, 0),
        ('KB3 = "error"', {"KB302": "error"}, 1),
        ('KB201 = "off"\nKB207 = "off"', {"KB201": None, "KB207": None}, 0),
    ],
)
def test_configured_severity(repo: Path, run_kbtool, table: str, expected: dict, code: int) -> None:
    (repo / "pyproject.toml").write_text(f"[tool.kbtool.severity]\n{table}\n", encoding="utf-8")
    result = run_kbtool("-C", repo, "check")
    rows, (errors, _, _) = parse_text(result.out)
    severity = {row[3]: row[4] for row in rows}
    for rule, level in expected.items():
        assert severity.get(rule) == level, (rule, result.out)
    assert errors == sum(level == "error" for level in severity.values())
    assert result.code == code


# --- paths ------------------------------------------------------------------------------------


def test_paths_restrict_the_report(repo: Path, run_kbtool, monkeypatch) -> None:
    rows, (_, _, pages) = parse_text(run_kbtool("-C", repo, "check", repo / "wiki/sub").out)
    assert [(row[0], row[3]) for row in rows] == [("wiki/sub/c.md", "KB207")]
    assert pages == 1
    rows, (_, _, pages) = parse_text(
        run_kbtool("-C", repo, "check", repo / "wiki/b.md", repo / "wiki/sub").out
    )
    assert [row[0] for row in rows] == ["wiki/b.md", "wiki/sub/c.md"] and pages == 2
    # Relative paths are relative to the working directory: the one -C names.
    (repo / "pyproject.toml").write_text("[tool.kbtool]\n")
    monkeypatch.chdir(repo / "wiki" / "sub")
    rows, _ = parse_text(run_kbtool("-C", repo / "wiki", "check", "a.md").out)
    assert [row[0] for row in rows] == ["wiki/a.md", "wiki/a.md"]
    # The whole repository, named as a path, is everything.
    rows, (_, _, pages) = parse_text(run_kbtool("-C", repo, "check", repo).out)
    assert len(rows) == 4 and pages == 4


def test_a_path_restricted_check_still_sees_the_whole_graph(repo: Path, run_kbtool) -> None:
    # wiki/a.md is linked only from b.md: checking a.md alone must not call it an orphan.
    rows, _ = parse_text(run_kbtool("-C", repo, "check", repo / "wiki/a.md").out)
    assert "KB301" not in [row[3] for row in rows]


@pytest.mark.parametrize("path", ["/", "no-such-folder"])
def test_bad_paths_are_usage_errors(repo: Path, run_kbtool, path: str) -> None:
    target = path if path == "/" else repo / path
    result = run_kbtool("-C", repo, "check", target)
    assert result.code == 2
    assert result.out == "" and str(target) in result.err


# --- usage and configuration errors -------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--format", "xml"],
        ["check", "--bogus"],
        ["nonsense"],
        [],
        # A code that matches nothing would report nothing and pass: a typo must not.
        ["check", "--select", "KB2O1"],
        ["check", "--ignore", "KB9"],
    ],
)
def test_usage_errors_exit_2(repo: Path, run_kbtool, args: list[str]) -> None:
    result = run_kbtool("-C", repo, *args)
    assert result.code == 2
    assert "Traceback" not in result.err


@pytest.mark.parametrize(
    ("toml", "named"),
    [
        ("[tool.kbtool]\nwikki = 'wiki'\n", "'wikki'"),
        ("[tool.kbtool]\ncache_dir = '.c'\n", "did you mean 'cache-dir'"),
        ("[tool.kbtool]\ntypes = 'concept'\n", "'types'"),
        ("[tool.kbtool]\njobs = -1\n", "'jobs'"),
        ("[tool.kbtool]\nwiki = '../elsewhere'\n", "'wiki'"),
        ("[tool.kbtool.severity]\nKB201 = 'fatal'\n", "'severity'"),
        ("[tool.kbtool.severity]\nKB999 = 'off'\n", "'KB999'"),
        ("[tool.kbtool]\nignore = ['kb201']\n", "ignore: no diagnostic code matches 'kb201'"),
        ("[tool.kbtool\n", "cannot read"),
    ],
)
def test_configuration_errors_exit_2_naming_the_key(
    repo: Path, run_kbtool, toml: str, named: str
) -> None:
    (repo / "pyproject.toml").write_text(toml, encoding="utf-8")
    for command in (["check"], ["graph"]):
        result = run_kbtool("-C", repo, *command)
        assert result.code == 2
        assert result.out == ""
        assert "configuration error" in result.err and named in result.err


def test_every_configuration_error_at_once(repo: Path, run_kbtool) -> None:
    (repo / "pyproject.toml").write_text("[tool.kbtool]\nfoo = 1\nbar = 2\njobs = 'x'\n")
    err = run_kbtool("-C", repo, "check").err
    assert "'foo'" in err and "'bar'" in err and "'jobs'" in err


def test_missing_root_or_wiki_folder_exit_2(tmp_path: Path, run_kbtool) -> None:
    assert run_kbtool("-C", tmp_path / "nowhere", "check").code == 2
    result = run_kbtool("-C", tmp_path, "check")  # exists, but has no wiki/ folder
    assert result.code == 2 and "wiki folder 'wiki'" in result.err


def test_python_dash_m_kbtool(repo: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kbtool", "-C", str(repo), "check", "--select", "KB201"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout.startswith("wiki/a.md:7:5: KB201 error")


# --- graph --------------------------------------------------------------------------------------


def test_graph_json(repo: Path, run_kbtool) -> None:
    result = run_kbtool("-C", repo, "graph", "--format", "json")
    assert result.code == 0
    data = json.loads(result.out)
    nodes = {n["id"]: n for n in data["nodes"]}
    assert set(nodes) == {"wiki/a.md", "wiki/b.md", "wiki/sub/c.md", "sources/s.md"}
    assert {"path", "type", "title", "tags"} <= set(nodes["wiki/a.md"])
    assert nodes["sources/s.md"]["title"] == "S"
    edges = sorted((e["source"], e["target"], e["kind"]) for e in data["edges"])
    assert edges == [
        ("wiki/a.md", "sources/s.md", "source"),
        ("wiki/a.md", "wiki/b.md", "related"),
        ("wiki/b.md", "wiki/a.md", "link"),
        ("wiki/b.md", "wiki/sub/c.md", "link"),
        ("wiki/sub/c.md", "wiki/a.md", "link"),
    ]
    assert json.loads(run_kbtool("-C", repo, "graph").out) == data  # json is the default


def test_graph_graphml(repo: Path, run_kbtool, tmp_path: Path) -> None:
    out = tmp_path / "graph.graphml"
    assert run_kbtool("-C", repo, "graph", "--format", "graphml", "-o", out).code == 0
    graph = nx.read_graphml(out)
    assert set(graph.nodes) == {"wiki/a.md", "wiki/b.md", "wiki/sub/c.md", "sources/s.md"}
    assert graph.nodes["wiki/a.md"]["type"] == "concept"
    kinds = sorted(attrs["kind"] for _, _, attrs in graph.edges(data=True))
    assert kinds == ["link", "link", "link", "related", "source"]


def test_graph_dot(repo: Path, run_kbtool) -> None:
    lines = run_kbtool("-C", repo, "graph", "--format", "dot").lines
    assert lines[0] == "digraph wiki {" and lines[-1] == "}"
    edges = [line.strip() for line in lines if "->" in line]
    assert '"wiki/a.md" -> "wiki/b.md" [kind=related, style=solid];' in edges
    assert '"wiki/a.md" -> "sources/s.md" [kind=source, style=dashed];' in edges
    assert len(edges) == 5
    assert sum(1 for line in lines if "[label=" in line) == 4


def test_graph_stats(repo: Path, run_kbtool) -> None:
    text = run_kbtool("-C", repo, "graph", "--stats").out
    assert text.startswith("4 pages, 5 edges, 1 components")
    for heading in ("pages by type:", "edges by kind:", "most linked:", "orphans (0):"):
        assert heading in text
    assert re.search(r"^\s+2\s+wiki/a\.md$", text, re.M)  # a is linked from b and c
    data = json.loads(run_kbtool("-C", repo, "graph", "--stats", "--format", "json").out)
    assert data["pages_by_type"] == {"concept": 3, "source": 1}
    assert data["edges_by_kind"] == {"link": 3, "related": 1, "source": 1}
    assert data["components"] == 1 and data["orphans"] == []
    assert data["most_linked"][0] == {"path": "wiki/a.md", "backlinks": 2}


def test_the_bundled_wiki_has_no_errors(run_kbtool) -> None:
    # The repository's own wiki/ and sources/ must pass `kbtool check` (exit 0).
    root = Path(__file__).parent.parent
    result = run_kbtool("-C", root, "check", "--format", "json")
    errors = [d for d in json.loads(result.out)["diagnostics"] if d["severity"] == "error"]
    assert errors == [] and result.code == 0


# --- -C DIR, as git has it ------------------------------------------------------------------


def test_paths_after_dash_c_are_relative_to_its_folder(
    repo: Path, run_kbtool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    rows, _ = parse_text(run_kbtool("-C", repo, "check", "wiki/sub/c.md").out)
    assert {row[0] for row in rows} == {"wiki/sub/c.md"}
    # From a folder inside the repository, the repository is found above it.
    (repo / "pyproject.toml").write_text("[tool.kbtool]\n")
    rows, _ = parse_text(run_kbtool("-C", repo / "wiki", "check", "sub/c.md").out)
    assert {row[0] for row in rows} == {"wiki/sub/c.md"}
    assert Path.cwd() == elsewhere  # the caller's folder is given back


def test_dash_c_a_missing_folder_is_a_usage_error(run_kbtool, tmp_path: Path) -> None:
    result = run_kbtool("-C", tmp_path / "nope", "check")
    assert result.code == 2
    assert f"-C {tmp_path / 'nope'}: No such file or directory" in result.err
