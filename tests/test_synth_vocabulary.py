"""The synthetic wiki's two vocabularies and the corpus statistics that compare them with a
real wiki's (benchmarks/synth_vocab.py, benchmarks/corpus_stats.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import corpus_stats  # noqa: E402
import synth  # noqa: E402


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    roots = {}
    for vocabulary in synth.VOCABULARIES:
        roots[vocabulary] = tmp_path_factory.mktemp(vocabulary)
        synth.generate(roots[vocabulary], 400, vocabulary=vocabulary)
    return roots


def test_corpus_statistics_count_bigrams_words_sizes_and_links(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# 注意力机制\n\nThe [LoRA](b.md) 与 lora-2 和x\n", "utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.md").write_text("注意 [a](../a.md) [c](https://x.org/The)", "utf-8")
    stats = corpus_stats.corpus_stats(tmp_path)
    # 注意 意力 力机 机制 (注意 again in b.md); 与 and 和 are runs of one character
    assert stats["distinct CJK bigrams"] == 4
    # the, lora, lora-2, b, md, x (of 和x), a, c, https, org: case folded
    assert stats["distinct Latin words"] == 10
    assert stats["links per page"] == 1.5
    sizes = sorted(len(p.read_bytes()) / 1000 for p in tmp_path.rglob("*.md"))
    assert stats["largest page KB"] == sizes[-1]
    assert corpus_stats.within(stats["pages"], 2.4) and not corpus_stats.within(2, 3)


def test_the_real_vocabulary_has_far_more_bigrams_and_the_same_shape(
    both: dict[str, Path],
) -> None:
    small = corpus_stats.corpus_stats(both["small"])
    real = corpus_stats.corpus_stats(both["real"])
    assert small["distinct CJK bigrams"] < 1800
    assert real["distinct CJK bigrams"] > 15 * small["distinct CJK bigrams"]
    assert sorted(p.relative_to(both["real"]) for p in both["real"].rglob("*.md")) == sorted(
        p.relative_to(both["small"]) for p in both["small"].rglob("*.md")
    )
    assert real["links per page"] < 0.8 * small["links per page"]  # 12 a page, not 21
    assert real["largest page KB"] > 3 * small["largest page KB"]  # a hub page is long


def test_a_hub_page_is_linked_from_many_pages(both: dict[str, Path]) -> None:
    hub = "concepts/" + next((both["real"] / "wiki/concepts").glob("*-00000.md")).name
    texts = [p.read_text("utf-8") for p in both["real"].rglob("*.md")]
    citing = sum(hub in re.sub(r"\.\./", "", t) or hub.split("/")[1] in t for t in texts)
    assert citing > 40  # of 400 pages; an ordinary page is linked from a handful


def test_some_sources_share_their_wiki_pages_title(both: dict[str, Path]) -> None:
    def titles(root: Path, folder: str) -> set[str]:
        found = set()
        for path in (root / folder).rglob("*.md"):
            title = re.search(r"^# (.+)$", path.read_text("utf-8"), flags=re.M)
            assert title, path
            found.add(title.group(1))
        return found

    assert titles(both["real"], "wiki") & titles(both["real"], "sources")
    assert not titles(both["small"], "wiki") & titles(both["small"], "sources")


def test_an_unknown_vocabulary_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="expected one of real, small"):
        synth.generate(tmp_path, 10, vocabulary="large")
    assert not list(tmp_path.iterdir())
