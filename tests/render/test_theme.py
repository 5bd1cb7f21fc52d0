"""The colours of the two themes: style.css and the highlighting colours (highlight.py) each
apply dark when the reader chose it (``data-theme="dark"``) or chose nothing on a dark system.
The switch itself is tested in Chromium (test_browser_theme.py)."""

from __future__ import annotations

import re

from kbtool.render.highlight import stylesheet
from kbtool.render.templates import ASSETS_DIR


def _block(css: str, opening: str) -> list[str]:
    """The declarations of the rule that starts with ``opening``, stripped, in order."""
    start = css.index(opening) + len(opening)
    return [
        line.strip() for line in css[start : css.index("}", start)].splitlines() if line.strip()
    ]


def test_the_dark_colours_are_the_same_chosen_or_from_the_system() -> None:
    css = (ASSETS_DIR / "style.css").read_text(encoding="utf-8")
    chosen = _block(css, ':root[data-theme="dark"] {')
    system = _block(css, "@media (prefers-color-scheme: dark) {\n  :root:not([data-theme]) {")
    assert chosen == system
    assert "color-scheme: dark;" in chosen and "--bg: #0f1216;" in chosen
    assert "color-scheme: light;" in _block(css, ":root {")


def test_dark_highlighting_is_keyed_on_the_choice_and_on_the_system() -> None:
    css = stylesheet()
    at, media = css.index(':root[data-theme="dark"]'), css.index("@media (prefers-color-scheme")
    light, chosen, system = css[:at], css[at:media], css[media:]
    chosen_rules = [r for r in chosen.splitlines() if r.strip()]
    system_rules = [r.strip() for r in system.splitlines()[1:] if r.strip() not in ("", "}")]
    # Every dark rule is scoped: none reaches a page in the light theme.
    assert all(r.startswith(':root[data-theme="dark"] .highlight') for r in chosen_rules)
    assert all(r.startswith(":root:not([data-theme]) .highlight") for r in system_rules)
    assert len(chosen_rules) == len(system_rules) > 50
    keyword = re.compile(r"\.highlight \.k \{ (color: #\w+)")
    colours = [keyword.findall(part) for part in (light, chosen, system)]
    assert colours[1] == colours[2] != colours[0] and len(colours[0]) == 1
