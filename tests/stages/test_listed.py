"""The digest of every listing, made again in part: equal to one made from scratch."""

from __future__ import annotations

from dataclasses import replace

from kbtool.render.card import PageCard, Ref
from kbtool.render.site import Listing
from kbtool.reuse.values import Reuse
from kbtool.stages.listed import listings_digest


def _listing(n: int, summary: str = "") -> Listing:
    ref = Ref(f"wiki/p{n}.md", f"wiki/p{n}.html", f"Page {n}", "concept")
    return Listing(PageCard(ref, summary, ("tag",)), "2026-01-01", (f"wiki/p{n + 1}.md",), "d")


def test_a_listing_changed_gives_the_digest_a_new_session_would_make() -> None:
    listings = {f"wiki/p{n}.md": _listing(n) for n in range(50)}
    held = Reuse()
    first = listings_digest(held, listings)
    assert first == listings_digest(Reuse(), dict(listings))
    changed = listings | {"wiki/p7.md": _listing(7, "A new summary.")}
    again = listings_digest(held, changed)
    assert again != first
    assert again == listings_digest(Reuse(), dict(changed))
    # Another object that shows the same: the same digest.
    same = changed | {"wiki/p9.md": replace(changed["wiki/p9.md"], missing=("New note",))}
    assert listings_digest(held, same) == again
    # A page gone, and one added.
    moved = {p: item for p, item in same.items() if p != "wiki/p3.md"}
    moved["wiki/p99.md"] = _listing(99)
    assert listings_digest(held, moved) == listings_digest(Reuse(), dict(moved))
