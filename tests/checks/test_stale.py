"""KB304-KB305: pages older than a source they cite; source dates that are not dates.

Also KB202's words for a related page that lies outside the wiki folders, and those folders
given as a list.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SOURCE = """# Paper

> 来源归档

- **标题：** A paper
- **入库日期：** {when}
- **一句话说明：** something
"""


def _repo(make_wiki, page, *, config: str, updated: str, when: str, frontmatter: bool) -> Path:
    if frontmatter:
        source = f"---\ntitle: A paper\ningested: {when}\n---\n# Paper\n"
    else:
        source = SOURCE.format(when=when)
    return make_wiki(
        {
            "pyproject.toml": f"[tool.kbtool]\n{config}\n",
            "wiki/concepts/a.md": page(updated=updated, sources=["../../sources/papers/p.md"]),
            "sources/papers/p.md": source,
        }
    )


LABEL = 'source-date = { label = "入库日期" }'
KEY = 'source-date = { key = "ingested" }'


@pytest.mark.parametrize(("config", "frontmatter"), [(LABEL, False), (KEY, True)])
def test_kb304_a_page_older_than_its_source(
    make_wiki, page, check_wiki, config: str, frontmatter: bool
) -> None:
    root = _repo(
        make_wiki,
        page,
        config=config,
        updated="2026-05-01",
        when="2026-06-14",
        frontmatter=frontmatter,
    )
    (d,) = check_wiki(root, select=["KB304", "KB305"])
    assert (d.path, d.line, d.col, d.code, d.severity) == (
        "wiki/concepts/a.md",
        6,
        5,
        "KB304",
        "warning",
    )
    assert "2026-05-01" in d.message and "2026-06-14" in d.message
    assert "'../../sources/papers/p.md'" in d.message


@pytest.mark.parametrize(("config", "frontmatter"), [(LABEL, False), (KEY, True)])
@pytest.mark.parametrize("updated", ["2026-06-14", "2026-07-01"])
def test_kb304_silent_when_the_page_is_as_new_as_its_source(
    make_wiki, page, check_wiki, config: str, frontmatter: bool, updated: str
) -> None:
    root = _repo(
        make_wiki,
        page,
        config=config,
        updated=updated,
        when="2026-06-14",
        frontmatter=frontmatter,
    )
    assert check_wiki(root, select=["KB304", "KB305"]) == []


def test_kb304_off_without_source_date(make_wiki, page, check_wiki) -> None:
    root = _repo(
        make_wiki, page, config="", updated="2020-01-01", when="2026-06-14", frontmatter=False
    )
    assert check_wiki(root, select=["KB304", "KB305"]) == []


@pytest.mark.parametrize(
    ("config", "frontmatter", "when", "line", "col"),
    [
        (LABEL, False, "2026年6月14日", 6, 13),
        (LABEL, False, "2026-13-01", 6, 13),
        (KEY, True, "soon", 3, 1),
        (KEY, True, "[2026, 6]", 3, 1),
    ],
)
def test_kb305_a_source_date_that_is_not_a_date(
    make_wiki, page, check_wiki, config: str, frontmatter: bool, when: str, line: int, col: int
) -> None:
    root = _repo(
        make_wiki, page, config=config, updated="2020-01-01", when=when, frontmatter=frontmatter
    )
    (d,) = check_wiki(root, select=["KB304", "KB305"])
    assert (d.path, d.line, d.col, d.code, d.severity) == (
        "sources/papers/p.md",
        line,
        col,
        "KB305",
        "warning",
    )
    assert "not a date" in d.message


def test_a_source_without_the_field_is_not_reported(make_wiki, page, check_wiki) -> None:
    root = make_wiki(
        {
            "pyproject.toml": f"[tool.kbtool]\n{LABEL}\n",
            "wiki/a.md": page(sources=["../sources/p.md"]),
            "sources/p.md": "# Paper\n\n- **标题：** no date here\n",
        }
    )
    assert check_wiki(root, select=["KB304", "KB305"]) == []


def test_select_kb304_lists_the_stale_pages(make_wiki, page, run_kbtool) -> None:
    root = make_wiki(
        {
            "pyproject.toml": f"[tool.kbtool]\n{LABEL}\n",
            "wiki/old.md": page(updated="2026-01-01", sources=["../sources/p.md"]),
            "wiki/new.md": page(updated="2026-09-01", sources=["../sources/p.md"]),
            "sources/p.md": SOURCE.format(when="2026-08-19"),
        }
    )
    result = run_kbtool("-C", root, "check", "--select", "KB304")
    assert [line.split(":")[0] for line in result.lines[:-1]] == ["wiki/old.md"]
    assert result.code == 0


def test_kb202_names_a_markdown_page_outside_the_wiki_folder(make_wiki, page, check_wiki) -> None:
    root = make_wiki(
        {
            "wiki/concepts/a.md": page(related=["../../roadmap/depth-wam.md"]),
            "roadmap/depth-wam.md": page(),
        }
    )
    (d,) = check_wiki(root, select=["KB202"])
    assert "is a Markdown page outside the wiki folder 'wiki'" in d.message
    assert "add 'roadmap' to `wiki`" in d.message
    assert "not a Markdown page" not in d.message


def test_a_list_of_wiki_folders_makes_those_pages_wiki_pages(make_wiki, page, check_wiki) -> None:
    root = make_wiki(
        {
            "pyproject.toml": '[tool.kbtool]\nwiki = ["wiki", "roadmap"]\n',
            "wiki/concepts/a.md": page(related=["../../roadmap/depth-wam.md"]),
            "roadmap/depth-wam.md": page(related=["../wiki/concepts/a.md"]),
        }
    )
    assert check_wiki(root, select=["KB2", "KB301", "KB302"]) == []


def test_a_missing_extra_wiki_folder_is_a_configuration_error(make_wiki, page, run_kbtool) -> None:
    root = make_wiki(
        {"pyproject.toml": '[tool.kbtool]\nwiki = ["wiki", "roadmap"]\n', "wiki/a.md": page()}
    )
    result = run_kbtool("-C", root, "check")
    assert result.code == 2 and "wiki folder 'roadmap' does not exist" in result.err


def test_hostile_source_text_is_read_in_linear_time(make_wiki, page, check_wiki) -> None:
    """Long runs of blanks around a label must not make the field pattern backtrack."""
    blanks = " " * 200_000
    source = (
        f"# Paper\n{blanks}\n- **入库日期{blanks}x\n- **入库日期：**{blanks}x{blanks}\n"
        f"- {blanks}**\n"
    )
    root = make_wiki(
        {
            "pyproject.toml": f"[tool.kbtool]\n{LABEL}\n",
            "wiki/a.md": page(sources=["../sources/p.md"]),
            "sources/p.md": source,
        }
    )
    (d,) = check_wiki(root, select=["KB305"])
    assert (d.line, d.code) == (4, "KB305") and "'x'" in d.message


def test_kb202_for_an_excluded_page_in_the_wiki_folder(make_wiki, page, check_wiki) -> None:
    root = make_wiki(
        {
            "pyproject.toml": '[tool.kbtool]\nexclude = ["wiki/drafts/*"]\n',
            "wiki/a.md": page(related=["drafts/d.md"]),
            "wiki/drafts/d.md": page(),
        }
    )
    (d,) = check_wiki(root, select=["KB202"])
    assert "not read as a page (matched by `exclude`" in d.message
