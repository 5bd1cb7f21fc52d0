"""Which pages run, and how cell options become instructions (nothing is executed here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.config import Config
from kbtool.execute import should_run
from kbtool.execute.plan import not_run_reason, plan_page
from kbtool.model import Page
from kbtool.parse.page import parse_page

CELL = "```python\nx = 1\n```\n"


def page(text: str, kind: str = "wiki", path: str = "wiki/a.md") -> Page:
    return parse_page(path, text.encode(), kind)  # type: ignore[arg-type]


def config(**values: object) -> Config:
    return Config(root=Path("/repo"), **values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("execute", "frontmatter", "kind", "reason"),
    [
        ("all", "", "wiki", None),
        ("all", "execute: false\n", "wiki", "execute: false"),
        ("all", "", "source", "source page (add `execute: true` to run it)"),
        ("all", "execute: true\n", "source", None),
        ("opt-in", "", "wiki", 'not opted in (execute = "opt-in"; add `execute: true` to run it)'),
        ("opt-in", "execute: true\n", "wiki", None),
        ("opt-in", "execute: false\n", "wiki", "execute: false"),
    ],
)
def test_which_pages_run(execute: str, frontmatter: str, kind: str, reason: str | None) -> None:
    text = (f"---\n{frontmatter}---\n" if frontmatter else "") + CELL
    assert not_run_reason(config(execute=execute), page(text, kind)) == reason
    assert should_run(config(execute=execute), page(text, kind)) is (reason is None)


def test_a_page_without_python_cells_never_runs() -> None:
    text = "---\nexecute: true\n---\n```bash\nls\n```\n"
    assert not_run_reason(config(), page(text)) == "no python cells"


def test_cells_become_numbered_instructions_with_their_options() -> None:
    text = (
        "# A\n\n```bash\nls\n```\n\n"
        '```python tags=["skip-execution"]\nskipped()\n```\n\n'
        '```python tags=["raises-exception", "hide-output"] timeout=2.5\n1 / 0\n```\n\n'
        "```python\n>>> 1 + 1\n2\n```\n"
    )
    plan = plan_page(config(cell_timeout=7), page(text))
    assert plan.problems == ()
    assert [(c.index, c.number, c.line, c.mode, c.raises, c.timeout) for c in plan.cells] == [
        (1, 1, 8, "skip", False, 7.0),
        (2, 2, 12, "exec", True, 2.5),
        (3, 3, 16, "doctest", False, 7.0),
    ]


@pytest.mark.parametrize(
    ("fence", "code"),
    [
        ("```python timeout=0", "KB402"),
        ('```python timeout="5"', "KB402"),
        ("```python tags=[unclosed", "KB401"),
    ],
)
def test_unreadable_or_wrong_options_are_problems(fence: str, code: str) -> None:
    plan = plan_page(config(), page(f"# A\n\n{fence}\nx = 1\n```\n"))
    assert [(p.code, p.line) for p in plan.problems] == [(code, 3)]
    assert plan.problems[0].message.startswith("cell-1: ")


def test_network_permission() -> None:
    allowed = "---\nallow-network: true\n---\n" + CELL
    assert plan_page(config(), page(CELL)).network is False
    assert plan_page(config(), page(allowed)).network is True
    assert plan_page(config(allow_network=True), page(CELL)).network is True
    wrong = plan_page(config(), page("---\nallow-network: 1\n---\n" + CELL))
    assert [(p.code, p.line) for p in wrong.problems] == [("KB403", 2)]


def test_inputs_are_relative_to_the_page_and_stay_in_the_repository() -> None:
    text = "---\ninputs: [data.csv, ../shared/table.json]\n---\n" + CELL
    plan = plan_page(config(), page(text, path="wiki/concepts/a.md"))
    assert plan.inputs == ("wiki/concepts/data.csv", "wiki/shared/table.json")
    for bad in ("[/etc/passwd]", "[../../../outside]", "7"):
        plan = plan_page(
            config(), page(f"---\ninputs: {bad}\n---\n" + CELL, path="wiki/concepts/a.md")
        )
        assert [p.code for p in plan.problems] == ["KB403"]
