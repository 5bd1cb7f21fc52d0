"""The record of the published site: every output's key, files, copies and diagnostics, as
the store keeps them."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from kbtool.diagnostics import Diagnostic
from kbtool.stages.publish.published import Published, load_published, save_published
from kbtool.store.db import memory_store
from kbtool.store.records import OUTPUT

_names = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=["Cs"]))
#: a file's name: never empty, never with a NUL
_files = _names.filter(bool)
_diagnostics = st.builds(
    Diagnostic,
    _names,
    st.integers(1, 9),
    st.integers(1, 9),
    st.sampled_from(["KB501", "KB503"]),
    st.sampled_from(["error", "warning"]),
    _names,
)
_records = st.builds(
    Published,
    st.text("0123456789abcdef", min_size=1),
    st.lists(_files, max_size=3).map(tuple),
    st.dictionaries(_files, _names, max_size=2),
    st.lists(_diagnostics, max_size=2).map(tuple),
)


@given(st.dictionaries(_names, _records, max_size=5))
def test_the_record_read_back_is_the_one_saved(records: dict[str, Published]) -> None:
    site = Path(__file__).parent  # a folder that exists: the record names it
    with memory_store() as store:
        save_published(store, site, records, {})
        assert load_published(store, site) == records


def test_an_output_that_copied_nothing_and_said_nothing_is_kept_as_its_files() -> None:
    """Most outputs: read without a pickle at every build of a new process."""
    site = Path(__file__).parent
    plain = Published("k1", ("wiki/a/index.html", "wiki/a/x.json"))
    copied = Published("k2", ("img/a.png",), {"img/a.png": "3:4"})
    with memory_store() as store:
        save_published(store, site, {"page:a": plain, "copy:a": copied}, {})
        stored = {name: value for name, (_, value) in store.all(OUTPUT).items()}
        assert stored["page:a"] == b"wiki/a/index.html\x00wiki/a/x.json"
        assert stored["copy:a"].startswith(b"\x80")  # a pickle


def test_a_damaged_record_renders_everything_again() -> None:
    site = Path(__file__).parent
    with memory_store() as store:
        save_published(store, site, {"page:a": Published("k", ("a.html",))}, {})
        with store.transaction():
            store.put(OUTPUT, [("page:b", "k", b"\xff\xfe")])
        assert load_published(store, site) == {}
