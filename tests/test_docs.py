"""The documentation is kept true by the code it describes.

Every diagnostic code of ``kbtool/codes.py`` has its row in docs/codes.md; every key of the
configuration schema has its row, with kbtool's own default, in docs/configuration.md; every
command of the CLI's parser (so a command added later fails here until it is documented) has
its section in docs/commands.md naming each of its options, and its row in the README; and
every relative link of the README and docs/ leads to a file, and to a heading when it has an
anchor.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from kbtool.cli import build_parser
from kbtool.codes import RULES
from kbtool.config import SCHEMA, Config
from kbtool.parse.slugs import slugify

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the CLI has no commands")


COMMANDS = sorted(_subcommands(build_parser()))


def _section(text: str, heading: str) -> str:
    """The text under ``## heading`` up to the next heading of that level."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert match, f"no section '## {heading}'"
    return match.group(1)


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


# Codes


def test_every_code_has_a_row_with_its_default_severity_and_meaning() -> None:
    rows = re.findall(r"^\| (KB\d{3}) \| (\w+) \| (.+) \|$", _read(DOCS / "codes.md"), flags=re.M)
    assert [code for code, _, _ in rows] == list(RULES), "one row per code, in the table's order"
    for code, severity, meaning in rows:
        assert (severity, meaning) == (RULES[code].severity, RULES[code].summary), code


# Configuration


def _toml(value: Any) -> str:
    """A default as the configuration page writes it."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return str(value)


def _defaults() -> dict[str, Any]:
    fields = {f.name: f for f in dataclasses.fields(Config)}
    defaults = {}
    for key, (name, *_) in SCHEMA.items():
        spec = fields[name]
        if spec.default_factory is not dataclasses.MISSING:
            defaults[key] = spec.default_factory()
        else:
            defaults[key] = spec.default
    return defaults


def test_every_configuration_key_is_documented_with_its_default() -> None:
    text = _read(DOCS / "configuration.md")
    rows = dict(re.findall(r"^\| `([a-z-]+)` \| `?([^|]*?)`? \| ", text, flags=re.M))
    assert set(SCHEMA) <= set(rows), f"undocumented keys: {set(SCHEMA) - set(rows)}"
    assert set(rows) <= set(SCHEMA), f"documented keys kbtool lacks: {set(rows) - set(SCHEMA)}"
    for key, default in _defaults().items():
        assert rows[key] == _toml(default), key


# Commands


def _options(name: str) -> list[argparse.Action]:
    parser = _subcommands(build_parser(name))[name]
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_of_every_command_is_in_the_commands_page(name: str) -> None:
    section = _section(_read(DOCS / "commands.md"), f"`kbtool {name}`")
    missing = []
    for action in _options(name):
        words = list(action.option_strings) or [str(action.metavar or action.dest).upper()]
        words += [str(choice) for choice in action.choices or ()]
        missing += [word for word in words if not _mentions(section, word)]
    assert not missing, f"kbtool {name}: not described in docs/commands.md: {missing}"


def test_the_global_options_are_in_the_commands_page() -> None:
    text = _read(DOCS / "commands.md").split("\n## ")[0]
    for action in build_parser()._actions:
        for option in action.option_strings:
            assert _mentions(text, option), option


def test_the_readme_lists_every_command_and_stays_short() -> None:
    text = _read(README)
    listed = set(re.findall(r"^\| `kbtool (\w+)", text, flags=re.M))
    assert listed == set(COMMANDS)
    assert len(text.splitlines()) <= 200


def test_the_readme_leaves_the_reference_to_docs() -> None:
    headings = re.findall(r"^#+ (.+)$", _read(README), flags=re.M)
    assert "Search" not in headings and "Beyond CommonMark" not in headings
    assert headings.index("Install") < headings.index("Commands")


# Links


def _documents() -> list[Path]:
    return [README, ROOT / "benchmarks" / "README.md", *sorted(DOCS.glob("*.md"))]


def _prose(text: str) -> str:
    """Text without code blocks and code spans: links shown as examples are not links."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S))


def _anchors(path: Path) -> set[str]:
    """GitHub's heading ids, which are the slugs kbtool itself gives headings."""
    text = re.sub(r"^```.*?^```", "", _read(path), flags=re.M | re.S)
    return {slugify(heading) for heading in re.findall(r"^#+ (.+)$", text, flags=re.M)}


@pytest.mark.parametrize("document", _documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(document: Path) -> None:
    text = _prose(_read(document))
    targets = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'src="([^"]+)"', text)
    broken = []
    for target in targets:
        if re.match(r"[a-z]+:", target):
            continue
        path_part, _, anchor = target.partition("#")
        path = (document.parent / path_part).resolve() if path_part else document
        if not path.exists() or (anchor and anchor not in _anchors(path)):
            broken.append(target)
    assert not broken, f"{document.relative_to(ROOT)}: {broken}"
