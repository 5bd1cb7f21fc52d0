"""Pages' standings: in-link steps and the source bit, the factor they give, and
``priors.js`` by page id."""

from __future__ import annotations

from kbtool.search.codec import decode, unscript
from kbtool.search.priors import is_source, prior, priors_file, standing
from tests.search.support import doc


def test_standing_counts_in_links_in_log_steps_and_marks_sources() -> None:
    assert [standing(n, False) for n in (0, 1, 6, 250)] == [0, 6, 16, 44]
    assert standing(6, True) == 17 and is_source(17) and not is_source(16)
    assert standing(-3, False) == 0  # no such count: as none


def test_the_prior_is_gentle_and_grows_with_in_links() -> None:
    factors = [prior(standing(n, False)) for n in (0, 6, 250, 10_000)]
    assert factors == sorted(factors) and factors[0] == 1.0
    assert 1.5 < factors[2] < 1.6 and factors[3] < 2.0  # a hub never doubles its score
    assert prior(standing(6, True)) == prior(standing(6, False))  # sources: same prior


def test_priors_file_holds_one_standing_per_page_id() -> None:
    docs = {
        "wiki/a.md": doc("wiki/a.md", "a"),
        "sources/b.md": doc("sources/b.md", "b", type="source"),
    }
    sources = {path for path, page in docs.items() if page.card.type == "source"}
    name, data = priors_file({"wiki/a.md": 0, "sources/b.md": 2}, sources, {"wiki/a.md": 6})
    assert name == "priors.js"
    assert decode(unscript(data)) == [16, 0, 1]  # id 1: no page (removed), 0
