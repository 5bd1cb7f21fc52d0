"""The site context a build shares among its outputs: a copy with other bodies or embeds
keeps what it made of the settings and the listings, rather than a pass over every page
again."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.render.context import SiteContext
from kbtool.wiki import Wiki


def _site(root: Path) -> SiteContext:
    (root / "kbtool.toml").write_text('wiki = "."\nflavor = "obsidian"\n')
    (root / ".obsidian").mkdir()
    config = load_config(root)
    return SiteContext(config, Wiki(config, {}, []), {}, {}, {})


def test_a_copy_with_other_embeds_keeps_what_was_made_of_the_settings(tmp_path: Path) -> None:
    site = _site(tmp_path)
    key, inline = site.common_key_bytes, site.nav_inline
    copy = site.but(embeds={"a.md": ("digest", ("b.md",))})
    assert copy.embeds == {"a.md": ("digest", ("b.md",))} and site.embeds == {}
    assert copy.common_key_bytes is key and copy.nav_inline is inline  # not made again
    assert copy.vault and copy.common_key_bytes == site.but().common_key_bytes


def test_a_copy_of_other_settings_is_refused(tmp_path: Path) -> None:
    site = _site(tmp_path)
    with pytest.raises(ValueError):
        site.but(config=site.config)
