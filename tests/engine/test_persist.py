"""A one-shot command is a session started from the store: the traces one process leaves,
the next verifies, making only what an edit touched."""

from __future__ import annotations

from pathlib import Path

from kbtool.engine import WHOLE, Engine, Input, Query, Reads, Stored
from kbtool.engine.persist import code_of, load, save
from kbtool.store.db import open_store

TEXT: Input[str] = Input("text")
PAGES: Input[tuple[str, ...]] = Input("pages")


def _words(reads: Reads, path: str) -> list[str]:
    return (reads.input(TEXT, path) or "").split()


WORDS = Query("words", _words, Stored(list, list))
COUNT = Query(
    "count",
    lambda reads, _: sum(len(reads.get(WORDS, p)) for p in reads.input(PAGES, WHOLE) or ()),
    Stored(int, int),
)
QUERIES = (WORDS, COUNT)


def _engine(texts: dict[str, str]) -> Engine:
    engine = Engine()
    engine.set(PAGES, WHOLE, tuple(texts), "|".join(texts))
    for path, text in texts.items():
        engine.set_lazy(TEXT, path, text, lambda text=text: text)
    return engine


def _process(tmp_path: Path, texts: dict[str, str]) -> Engine:
    """One process: load the traces, answer, save."""
    engine = _engine(texts)
    with open_store(tmp_path / ".kbtool") as store:
        load(engine, store, QUERIES)
        assert engine.get(COUNT, WHOLE) == sum(len(t.split()) for t in texts.values())
        for path in texts:
            assert engine.get(WORDS, path) == texts[path].split()
        save(engine, store)
    return engine


def test_a_second_process_makes_nothing(tmp_path: Path) -> None:
    texts = {"a": "one two", "b": "three"}
    assert _process(tmp_path, texts).made == {"words": 2, "count": 1}
    assert _process(tmp_path, texts).made == {}


def test_a_second_process_makes_what_the_edit_touched(tmp_path: Path) -> None:
    _process(tmp_path, {"a": "one two", "b": "three"})
    assert _process(tmp_path, {"a": "one two", "b": "three four"}).made == {"words": 1, "count": 1}


def test_an_edit_that_keeps_a_value_cuts_off(tmp_path: Path) -> None:
    _process(tmp_path, {"a": "one two", "b": "three"})
    again = _process(tmp_path, {"a": "one  two", "b": "three"})  # the same words
    assert again.made == {"words": 1}


def _damage(tmp_path: Path, trace: str | None, value: bytes | None) -> None:
    """Replace the stored row of ``words("a")``'s trace or value."""
    with open_store(tmp_path / ".kbtool") as store:
        [(key, was_trace, was_value)] = store.traces_of("words", code_of(WORDS))
        with store.transaction():
            store.put_traces(
                "words", code_of(WORDS), [(key, trace or was_trace, value or was_value)]
            )


def test_a_damaged_trace_is_made_again(tmp_path: Path) -> None:
    _process(tmp_path, {"a": "one two"})
    _damage(tmp_path, "[[1, 2", None)
    assert _process(tmp_path, {"a": "one two"}).made == {"words": 1}


def test_a_damaged_value_is_made_again(tmp_path: Path) -> None:
    _process(tmp_path, {"a": "one two"})
    _damage(tmp_path, None, b"{not json")
    assert _process(tmp_path, {"a": "one two"}).made == {"words": 1}
    assert _process(tmp_path, {"a": "one two"}).made == {}  # and stored again


def test_a_page_gone_leaves_no_row(tmp_path: Path) -> None:
    _process(tmp_path, {"a": "one two", "b": "three"})
    engine = _engine({"a": "one two"})
    with open_store(tmp_path / ".kbtool") as store:
        load(engine, store, QUERIES)
        engine.get(COUNT, WHOLE)
        engine.retain(WORDS, ["a"])
        save(engine, store)
        assert [key for key, _, _ in store.traces_of("words", code_of(WORDS))] == ["a"]


def test_a_value_not_stored_is_made_again_when_asked_for(tmp_path: Path) -> None:
    """Only its trace is kept: it verifies from the store, and its value is made when a
    process asks for it."""
    length = Query("length", lambda reads, key: len(reads.get(WORDS, key)))
    for made in ({"words": 1, "length": 1}, {"length": 1}):
        engine = _engine({"a": "one two"})
        with open_store(tmp_path / ".kbtool") as store:
            load(engine, store, (WORDS, length))
            assert engine.get(length, "a") == 2
            save(engine, store)
        assert engine.made == made


def test_a_query_not_kept_leaves_no_trace_in_the_store(tmp_path: Path) -> None:
    """Made again by each process from its inputs; what it reads is still kept."""
    length = Query("length", lambda reads, key: len(reads.get(WORDS, key)), kept=False)
    for made in ({"words": 1, "length": 1}, {"length": 1}):
        engine = _engine({"a": "one two", "b": "three"})
        with open_store(tmp_path / ".kbtool") as store:
            load(engine, store, (WORDS, length))
            assert engine.get(length, "a") == 2
            engine.retain(length, ["b"])  # a page gone: nothing to delete from the store
            save(engine, store)
            assert list(store.traces_of("length", code_of(length))) == []
        assert engine.made == made
