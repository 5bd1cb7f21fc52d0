"""``[tool.kbtool]`` -> Config: defaults, every key, and every kind of wrong value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kbtool.codes import RULES
from kbtool.config import SCHEMA, Config, config_from_table, find_root, load_config
from kbtool.errors import ConfigError

#: A valid value for every key, different from its default.
VALID: dict[str, Any] = {
    "wiki": "pages",
    "sources": "archive",
    "exclude": ["wiki/drafts/*"],
    "types": ["note", "concept"],
    "type-labels": {"concept": "概念", "note": "笔记"},
    "required": ["type"],
    "severity": {"KB302": "off", "KB2": "warning"},
    "ignore": ["KB303"],
    "cache-dir": ".cache/kb",
    "jobs": 3,
    "execute": "opt-in",
    "cell-timeout": 2.5,
    "memory-limit-mb": 512,
    "output-limit-kb": 64,
    "allow-network": True,
    "sandbox": "required",
    "cell-env": ["HF_HOME"],
    "preload": ["numpy"],
    "site-dir": "public",
    "site-title": "我的 Wiki",
    "language": "en",
    "flavor": "obsidian",
    "base-url": "https://example.com/wiki/",
    "search": False,
    "source-date": {"label": "入库日期"},
    "duplicate-threshold": 0.9,
    "rules": ["wiki_rules.py", "tools/more_rules.py"],
    "rule-timeout": 0.5,
    "home": "Start/Home.md",
}

#: A wrong value for every key.
WRONG: dict[str, Any] = {
    "wiki": "",
    "sources": 3,
    "exclude": "wiki/drafts/*",
    "types": [1, 2],
    "type-labels": {"concept": ""},
    "required": "type",
    "severity": {"KB201": "fatal"},
    "ignore": [201],
    "cache-dir": ["x"],
    "jobs": -1,
    "execute": "sometimes",
    "cell-timeout": 0,
    "memory-limit-mb": 1.5,
    "output-limit-kb": True,
    "allow-network": "yes",
    "sandbox": "strict",
    "cell-env": "HF_HOME",
    "preload": "numpy",
    "site-dir": 1,
    "site-title": "  ",
    "language": "fr",
    "flavor": "commonmark",
    "base-url": 5,
    "search": "no",
    "source-date": {"column": "ingested"},
    "duplicate-threshold": 1.5,
    "rules": ["../outside.py"],
    "rule-timeout": -1,
    "home": "../Home.md",
}


def test_the_tables_cover_every_key() -> None:
    assert set(VALID) == set(SCHEMA) == set(WRONG)


def test_defaults_without_a_pyproject(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == Config(root=tmp_path.resolve())
    assert (config.wiki, config.sources, config.cache_path) == (
        "wiki",
        "sources",
        tmp_path.resolve() / ".kbtool",
    )
    assert config.required == ("type", "summary", "updated")
    assert "concept" in config.types


def test_defaults_with_a_pyproject_without_the_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert load_config(tmp_path) == Config(root=tmp_path.resolve())


@pytest.mark.parametrize("key", sorted(VALID))
def test_every_key_accepts_a_valid_value(tmp_path: Path, key: str) -> None:
    config = config_from_table(tmp_path, {key: VALID[key]})
    field = SCHEMA[key][0]
    assert getattr(config, field) != getattr(Config(root=tmp_path), field)


@pytest.mark.parametrize("key", sorted(WRONG))
def test_every_key_refuses_a_wrong_value_and_names_it(tmp_path: Path, key: str) -> None:
    with pytest.raises(ConfigError) as error:
        config_from_table(tmp_path, {key: WRONG[key]})
    (problem,) = error.value.problems
    assert f"'{key}'" in problem
    assert error.value.exit_code == 2


def test_unknown_keys_are_named_with_a_hint(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as error:
        config_from_table(tmp_path, {"cell_timeout": 3, "colour": "blue"})
    assert sorted(error.value.problems) == [
        "[tool.kbtool]: unknown key 'cell_timeout' (did you mean 'cell-timeout'?)",
        "[tool.kbtool]: unknown key 'colour'",
    ]


def test_all_problems_are_reported_together(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as error:
        config_from_table(tmp_path, {"jobs": "x", "language": "fr", "nope": 1})
    assert len(error.value.problems) == 3


def test_read_from_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.kbtool]\nwiki = "pages"\njobs = 2\n\n[tool.kbtool.severity]\nKB302 = "off"\n',
        encoding="utf-8",
    )
    config = load_config(tmp_path)
    assert (config.wiki, config.jobs, config.severity) == ("pages", 2, {"KB302": "off"})


@pytest.mark.parametrize(
    "text", ["[tool.kbtool\n", "[tool]\nkbtool = 3\n", "tool = 'x'\n", b"\xff\xfe[tool]"]
)
def test_unreadable_pyproject_or_table(tmp_path: Path, text: str | bytes) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    if text == "tool = 'x'\n":  # no [tool.kbtool] table at all: defaults
        assert load_config(tmp_path) == Config(root=tmp_path.resolve())
        return
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path)
    assert "pyproject.toml" in error.value.problems[0]


def test_a_missing_root_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such folder"):
        load_config(tmp_path / "nowhere")


# --- folders ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "normalised"),
    [("./pages/", "pages"), ("docs/wiki", "docs/wiki"), ("a/../pages", "pages"), ("a\\b", "a/b")],
)
def test_folders_are_normalised(tmp_path: Path, value: str, normalised: str) -> None:
    assert config_from_table(tmp_path, {"wiki": value}).wiki == normalised


@pytest.mark.parametrize(
    "value", ["/srv/wiki", "../wiki", "a/../../wiki", "C:/wiki", "C:wiki", ["a", "."]]
)
def test_folders_must_stay_inside_the_repository(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match="'wiki' must be a folder in the repository"):
        config_from_table(tmp_path, {"wiki": value})


@pytest.mark.parametrize("value", [".", "./", ["."]])
def test_the_wiki_may_be_the_whole_repository(tmp_path: Path, value: str) -> None:
    config = config_from_table(tmp_path, {"wiki": value, "sources": "sources"})
    assert config.wiki_folders == (".",)


def test_the_sources_may_not_be_the_whole_repository(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="'sources' must be a folder in the repository"):
        config_from_table(tmp_path, {"sources": "."})


def test_kbtool_toml_holds_top_level_keys(tmp_path: Path) -> None:
    (tmp_path / "kbtool.toml").write_text(
        'wiki = "."\nlanguage = "en"\n[severity]\nKB209 = "warning"\n', encoding="utf-8"
    )
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    config = load_config(tmp_path)
    assert (config.wiki, config.language, config.level("KB209")) == (".", "en", "warning")
    assert find_root(tmp_path / "deeper") == tmp_path


def test_kbtool_toml_names_itself_in_its_problems(tmp_path: Path) -> None:
    (tmp_path / "kbtool.toml").write_text("wikis = 'x'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="kbtool.toml: unknown key 'wikis'"):
        load_config(tmp_path)


def test_kbtool_toml_beside_a_kbtool_table_is_refused(tmp_path: Path) -> None:
    (tmp_path / "kbtool.toml").write_text('wiki = "."\n', encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.kbtool]\nwiki = "w"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="keep one of them"):
        load_config(tmp_path)


@pytest.mark.parametrize(
    ("wiki", "sources"), [("wiki", "wiki"), ("wiki", "wiki/sources"), ("docs", "docs/../docs")]
)
def test_wiki_and_sources_must_not_overlap(tmp_path: Path, wiki: str, sources: str) -> None:
    with pytest.raises(ConfigError, match="must not overlap"):
        config_from_table(tmp_path, {"wiki": wiki, "sources": sources})


def test_folders_may_share_a_prefix_without_overlapping(tmp_path: Path) -> None:
    config = config_from_table(tmp_path, {"wiki": "wiki", "sources": "wiki-sources"})
    assert (config.wiki, config.sources) == ("wiki", "wiki-sources")


# --- severity -----------------------------------------------------------------------------


def test_level_exact_code_then_longest_prefix_then_default(tmp_path: Path) -> None:
    config = config_from_table(
        tmp_path, {"severity": {"KB": "warning", "KB2": "error", "KB20": "off", "KB207": "error"}}
    )
    assert config.level("KB207") == "error"  # the code itself
    assert config.level("KB201") == "off"  # KB20
    assert config.level("KB210") == "error"  # KB2
    assert config.level("KB101") == "warning"  # KB
    assert config_from_table(tmp_path, {}).level("KB301") == RULES["KB301"].severity


@pytest.mark.parametrize("code", ["KB999", "XX1", "kb201"])
def test_severity_or_ignore_for_no_code_is_an_error(tmp_path: Path, code: str) -> None:
    with pytest.raises(ConfigError, match=f"severity: no diagnostic code matches '{code}'"):
        config_from_table(tmp_path, {"severity": {code: "off"}})
    with pytest.raises(ConfigError, match=f"ignore: no diagnostic code matches '{code}'"):
        config_from_table(tmp_path, {"ignore": ["KB2", code]})


# --- root and fingerprint -------------------------------------------------------------------


def test_find_root(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    deep = tmp_path / "wiki" / "concepts"
    deep.mkdir(parents=True)
    assert find_root(deep) == tmp_path.resolve()
    alone = tmp_path.parent / (tmp_path.name + "-alone")
    alone.mkdir()
    assert find_root(alone) in (alone.resolve(), *alone.resolve().parents)


def test_fingerprint_follows_every_setting_but_not_the_root(tmp_path: Path) -> None:
    base = config_from_table(tmp_path, {})
    assert base.fingerprint() == config_from_table(tmp_path / "elsewhere", {}).fingerprint()
    prints = {
        config_from_table(tmp_path, {key: value}).fingerprint() for key, value in VALID.items()
    }
    assert base.fingerprint() not in prints
    assert len(prints) == len(VALID)


def test_wiki_may_be_a_list_of_folders(tmp_path: Path) -> None:
    config = config_from_table(tmp_path, {"wiki": ["wiki", "./roadmap/"]})
    assert (config.wiki, config.wiki_more, config.wiki_folders) == (
        "wiki",
        ("roadmap",),
        ("wiki", "roadmap"),
    )
    assert config_from_table(tmp_path, {"wiki": "pages"}).wiki_folders == ("pages",)


@pytest.mark.parametrize("value", [[], ["wiki", "wiki"], ["wiki", "../x"], ["wiki", 3]])
def test_a_wrong_list_of_wiki_folders_is_refused(tmp_path: Path, value: Any) -> None:
    with pytest.raises(ConfigError, match="'wiki' must be a folder in the repository"):
        config_from_table(tmp_path, {"wiki": value})


def test_wiki_folders_must_not_overlap_each_other_or_sources(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as error:
        config_from_table(tmp_path, {"wiki": ["wiki", "wiki/roadmap", "sources/x"]})
    assert len(error.value.problems) == 2


@pytest.mark.parametrize(
    ("value", "parsed"),
    [({"key": "ingested"}, ("key", "ingested")), ({"label": " 入库日期 "}, ("label", "入库日期"))],
)
def test_source_date_from_a_key_or_a_label(tmp_path: Path, value: Any, parsed: Any) -> None:
    assert config_from_table(tmp_path, {"source-date": value}).source_date == parsed


@pytest.mark.parametrize(
    "value", ["ingested", {"key": ""}, {"key": "a", "label": "b"}, {"label": 3}]
)
def test_a_wrong_source_date_is_refused(tmp_path: Path, value: Any) -> None:
    with pytest.raises(ConfigError, match="'source-date' must be"):
        config_from_table(tmp_path, {"source-date": value})
