"""Plain records: read back as written, no class on either side, a planted one runs nothing."""

from __future__ import annotations

import json
import pickle
import sqlite3
from pathlib import Path

import pytest

from kbtool.cli import main
from kbtool.diagnostics import Diagnostic
from kbtool.store.codec import dump_plain, load_plain


class _Planted:
    """Unpickling this would call a function: a cache file planted in a cloned repository."""

    def __reduce__(self):  # noqa: ANN204
        return (Path.touch, (Path("PLANTED"),))


def test_plain_data_reads_back_as_written() -> None:
    value = {"rows": [("wiki/a.md", 3, 1, None), ["x", 1.5]], "tags": {"a", "b"}, "ok": True}
    assert load_plain(dump_plain(value)) == value
    assert type(load_plain(dump_plain(("a", "b")))) is tuple  # not made a list, as JSON would


def test_a_class_is_refused_when_written() -> None:
    with pytest.raises(TypeError, match="Diagnostic"):
        dump_plain([Diagnostic("wiki/a.md", 1, 1, "KB201", "error", "gone")])


def test_a_class_or_damage_reads_as_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_plain(pickle.dumps(_Planted())) is None
    assert not (tmp_path / "PLANTED").exists()
    assert load_plain(pickle.dumps(Diagnostic("a", 1, 1, "KB1", "error", "m"))) is None
    assert load_plain(b"not a pickle") is None


def test_a_check_over_planted_records_runs_no_code_and_reports_the_same(
    make_wiki, page, capsys, monkeypatch
) -> None:
    root = make_wiki(
        {
            "wiki/a.md": page("# A\n\n[x](missing.md)\n", related=["b.md"]),
            "wiki/b.md": page("# B\n\n[y](gone.md)\n", related=["a.md"]),
        }
    )
    monkeypatch.chdir(root)

    def check() -> list[object]:
        main(["check", "--format", "json"])
        return list(json.loads(capsys.readouterr().out)["diagnostics"])

    before = check()
    assert {d["code"] for d in before} >= {"KB207"}  # type: ignore[index]
    db = sqlite3.connect(root / ".kbtool" / "store.sqlite")
    planted = pickle.dumps(_Planted())
    db.execute("UPDATE records SET value = ? WHERE kind IN ('check', 'unchanged')", (planted,))
    db.commit()
    db.close()
    assert check() == before  # the unchanged record refused, then each page's check record
    assert not (root / "PLANTED").exists()
