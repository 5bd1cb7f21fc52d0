"""The engine's one rule: a value is made again only when something it read changed; early
cutoff, revisions, cycles, and random graphs whose incremental answers equal cold ones."""

from __future__ import annotations

import random

import pytest

from kbtool.engine import ABSENT, WHOLE, Cycle, Engine, Input, Query, Reads

TEXT: Input[str] = Input("text")
PAGES: Input[tuple[str, ...]] = Input("pages")


def _title(reads: Reads, path: str) -> str:
    text = reads.input(TEXT, path) or ""
    return text.splitlines()[0] if text else ""


TITLE = Query("title", _title)
TITLES = Query(
    "titles",
    lambda reads, _: tuple(reads.get(TITLE, p) for p in reads.input(PAGES, WHOLE) or ()),
)


def _wiki(texts: dict[str, str]) -> Engine:
    engine = Engine()
    engine.set(PAGES, WHOLE, tuple(texts), "|".join(texts))
    for path, text in texts.items():
        engine.set(TEXT, path, text, text)
    return engine


def test_a_value_is_made_once_while_nothing_it_read_changes() -> None:
    engine = _wiki({"a": "A\nbody", "b": "B\nbody"})
    assert engine.get(TITLES, WHOLE) == ("A", "B")
    assert engine.get(TITLES, WHOLE) == ("A", "B")
    assert engine.made == {"titles": 1, "title": 2}


def test_an_edit_that_keeps_the_title_makes_nothing_that_reads_titles() -> None:
    engine = _wiki({"a": "A\nbody", "b": "B\nbody"})
    engine.get(TITLES, WHOLE)
    engine.set(TEXT, "a", "A\nanother body", "A\nanother body")
    assert engine.get(TITLES, WHOLE) == ("A", "B")
    assert engine.made == {"titles": 1, "title": 3}  # a's title again, not the list


def test_a_new_title_makes_the_list_again() -> None:
    engine = _wiki({"a": "A\nbody", "b": "B\nbody"})
    engine.get(TITLES, WHOLE)
    engine.set(TEXT, "b", "Gamma Ray\n", "Gamma Ray\n")
    assert engine.get(TITLES, WHOLE) == ("A", "Gamma Ray")
    assert engine.made["titles"] == 2


def test_setting_every_key_at_once_starts_a_revision_only_for_a_changed_digest() -> None:
    engine = _wiki({"a": "A\nbody", "b": "B\nbody"})
    assert engine.get(TITLES, WHOLE) == ("A", "B")
    before = engine.revision
    engine.set_to(TEXT, {"a": "A\nbody", "b": "B\nbody"}, str)
    assert engine.revision == before  # the digests they were set with
    engine.set_to(TEXT, {"a": "A\nbody", "b": "Gamma\n"}, str)
    assert engine.revision == before + 1
    assert engine.get(TITLES, WHOLE) == ("A", "Gamma")
    assert engine.made == {"titles": 2, "title": 3}


def test_setting_an_input_to_a_mapping_digests_only_new_objects_and_unsets_the_rest() -> None:
    engine = _wiki({"a": "A\nbody", "b": "B\nbody"})
    assert engine.get(TITLES, WHOLE) == ("A", "B")
    texts = {path: "".join([title, "\nbody"]) for path, title in (("a", "A"), ("b", "B"))}
    digested: list[str] = []

    def digest(text: str) -> str:
        digested.append(text)
        return text

    engine.set_to(TEXT, texts, digest)  # new objects, equal digests: no revision
    before = engine.revision
    engine.set_to(TEXT, texts, digest)
    assert len(digested) == 2 and engine.revision == before
    engine.set_to(TEXT, {"a": texts["a"]}, digest)  # b's text unset
    assert len(digested) == 2 and engine.revision == before + 1
    assert engine.get(TITLE, "b") == "" and engine.get(TITLE, "a") == "A"


def test_a_change_walks_only_the_values_that_read_it() -> None:
    texts = {f"p{n}": f"T{n}\nbody" for n in range(50)}
    engine = _wiki(texts)
    assert len(engine.get(TITLES, WHOLE)) == 50
    engine.set(TEXT, "p7", "T7\nedited", "T7\nedited")
    assert [engine.get(TITLE, path) for path in texts][7] == "T7"
    assert engine.get(TITLES, WHOLE)[7] == "T7"
    # p7's title, made again (a walk found its text changed), and the list that read it
    # (walked: the title's digest is as it was); the 49 other titles not even walked
    assert engine.walked == {"title": 1, "titles": 1}
    assert engine.made == {"titles": 1, "title": 51}


def test_every_value_at_once_is_each_one_asked_for_alone() -> None:
    texts = {f"p{n}": f"T{n}\nbody" for n in range(20)}
    engine = _wiki(texts)
    engine.get_all(TITLE, texts)
    engine.set(TEXT, "p3", "New\n", "New\n")
    engine.unset(TEXT, ["p4"])
    walked, made = engine.walked["title"], engine.made["title"]
    found = engine.get_all(TITLE, [*texts, "p99"])
    cold = _wiki({**texts, "p3": "New\n"})
    cold.unset(TEXT, ["p4"])
    assert found == {path: cold.get(TITLE, path) for path in [*texts, "p99"]}
    assert found["p3"] == "New" and found["p4"] == ""
    # the two changed walked and made again, the new one made; the 18 others taken as held
    assert (engine.walked["title"] - walked, engine.made["title"] - made) == (2, 3)


def test_an_input_unset_reads_as_absent() -> None:
    engine = _wiki({"a": "A"})
    assert engine.get(TITLE, "a") == "A"
    engine.unset(TEXT, ["a"])
    assert engine.get(TITLE, "a") == ""
    assert engine.input_entry(TEXT, "a") == (ABSENT, None)


def test_a_lazy_input_is_loaded_only_when_read() -> None:
    engine = Engine()
    loaded: list[str] = []
    engine.set_lazy(TEXT, "a", "d1", lambda: loaded.append("a") or "A")
    engine.set_lazy(TEXT, "b", "d2", lambda: loaded.append("b") or "B")
    assert engine.get(TITLE, "a") == "A"
    assert loaded == ["a"]


def test_the_keys_to_set_are_those_whose_digest_differs() -> None:
    texts = {"a": "A\nbody", "b": "B\nbody", "c": "C\nbody"}
    engine = _wiki(texts)
    engine.get(TITLES, WHOLE)
    texts["b"], texts["d"] = "Beta\nbody", "D\nbody"
    assert engine.differing(TEXT, {path: text for path, text in texts.items()}) == ["b", "d"]
    engine.set(TEXT, "b", texts["b"], texts["b"])
    assert engine.differing(TEXT, texts) == ["d"]
    assert engine.get(TITLES, WHOLE) == ("A", "Beta", "C")  # d is no page yet
    assert engine.made == {"titles": 2, "title": 4}


def test_a_query_that_reads_itself_is_a_cycle() -> None:
    def embed(reads: Reads, key: str) -> str:
        return reads.get(LOOP, "b" if key == "a" else "a")

    LOOP: Query[str] = Query("loop", embed)
    with pytest.raises(Cycle) as raised:
        Engine().get(LOOP, "a")
    assert raised.value.ids == [("loop", "a"), ("loop", "b"), ("loop", "a")]


def test_a_setting_with_the_same_digest_starts_no_revision() -> None:
    engine = _wiki({"a": "A"})
    revision = engine.revision
    engine.set(TEXT, "a", "A", "A")
    assert engine.revision == revision


# --- random graphs: the incremental answers are the cold ones -------------------------------


def _graph(rng: random.Random, inputs: int, layers: int) -> list[Query[int]]:
    """Queries in layers, each reading a few inputs or queries of the layers below, some
    through a value that often stays the same (so early cutoff matters)."""
    made: list[Query[int]] = []
    numbers: Input[int] = Input("n")
    for layer in range(layers):
        for i in range(3):
            below = list(made)
            picks = rng.sample(range(inputs), 2)
            deps = rng.sample(below, min(len(below), 2))

            def compute(reads: Reads, key: str, picks=picks, deps=deps) -> int:
                total = sum(reads.input(numbers, str(p)) or 0 for p in picks)
                total += sum(reads.get(q, key) for q in deps)
                return total % 3 if total % 2 else total  # often the same value

            made.append(Query(f"q{layer}.{i}", compute))
    return made


@pytest.mark.parametrize("seed", range(20))
def test_random_graphs_answer_as_a_cold_engine(seed: int) -> None:
    rng = random.Random(seed)
    numbers: Input[int] = Input("n")
    queries = _graph(rng, inputs=6, layers=4)
    values = {str(i): rng.randint(0, 5) for i in range(6)}
    warm = Engine()
    for key, value in values.items():
        warm.set(numbers, key, value, str(value))
    for step in range(15):
        name = rng.choice(list(values))
        if rng.random() < 0.15:
            values.pop(name)
            warm.unset(numbers, [name])
        else:
            values[name] = rng.randint(0, 5)
            warm.set(numbers, name, values[name], str(values[name]))
        cold = Engine()
        for key, value in values.items():
            cold.set(numbers, key, value, str(value))
        for query in rng.sample(queries, 5):
            assert warm.get(query, "k") == cold.get(query, "k"), (seed, step, query.name)
