"""GitHub-style slugs: the one slug function every stage shares."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbtool.parse.slugs import slugify, unique_slugs


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Hello World", "hello-world"),
        ("  padded  ", "padded"),
        ("Scaled Dot-Product Attention", "scaled-dot-product-attention"),
        # CJK kept; full-width parentheses, colon, comma, enumeration comma dropped.
        ("注意力（Scaled Dot-Product Attention）", "注意力scaled-dot-product-attention"),
        ("位置编码：正弦、余弦，以及《RoPE》", "位置编码正弦余弦以及rope"),
        ("日本語のテキスト", "日本語のテキスト"),
        ("한국어 제목", "한국어-제목"),
        # Each space becomes a dash, so dropped punctuation between spaces leaves two.
        ("C++ & Python", "c--python"),
        ("What's new?", "whats-new"),
        ("snake_case stays", "snake_case-stays"),
        ("v1.2.3", "v123"),
        ("🚀 Launch", "-launch"),
        ("", ""),
    ],
)
def test_slugify(text: str, slug: str) -> None:
    assert slugify(text) == slug


def test_repeats_get_numbered_like_github() -> None:
    texts = ["Notes", "Notes", "Notes", "Notes 1", "注意力", "注意力"]
    assert list(unique_slugs(texts)) == [
        "notes",
        "notes-1",
        "notes-2",
        "notes-1-1",
        "注意力",
        "注意力-1",
    ]


@given(st.text())
def test_slugify_is_idempotent(text: str) -> None:
    once = slugify(text)
    assert slugify(once) == once


@given(st.text())
def test_a_slug_has_no_spaces_and_no_upper_case(text: str) -> None:
    slug = slugify(text)
    assert " " not in slug
    assert slug == slug.lower()


@given(st.lists(st.text(max_size=8), max_size=12))
def test_unique_slugs_are_unique_and_one_per_heading(texts: list[str]) -> None:
    slugs = list(unique_slugs(texts))
    assert len(slugs) == len(texts)
    assert len(set(slugs)) == len(slugs)
    for text, slug in zip(texts, slugs, strict=True):
        assert slug.startswith(slugify(text))
