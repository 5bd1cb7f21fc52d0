"""The formula issue's targets, counted on a wiki folder (the held-out real wiki, say):

- pages showing TeX commands as text (outside code and formulas) in kbtool's HTML;
- pages where prose is taken for a formula (a formula holding ``**``, ``、``, ``/MTok`` or a
  run of four Chinese characters: what a formula swallowed between two prices holds);
- pages where kbtool's HTML has fewer of some element than GitHub's renderer (cmark-gfm, with
  the comparison of ``tests/render/test_github.py``);
- KB501 diagnostics (a formula not converted).

    python benchmarks/formula_targets.py DIR [--show 5]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests, as a package
import tests.render.test_github as github  # noqa: E402
from kbtool.config import Config  # noqa: E402
from kbtool.parse.markdown import markdown_parser  # noqa: E402
from kbtool.render.i18n import translator  # noqa: E402
from kbtool.stages.load import load_wiki  # noqa: E402
from tests.render.support import render_text  # noqa: E402

PROSE = re.compile(r"\*\*|[\u4e00-\u9fff]{4,}|/MTok|、")


def _prose_formulas(body: str) -> list[str]:
    found = []
    for token in markdown_parser().parse(body):
        for part in (token, *(token.children or ())):
            if part.type.startswith("math") and PROSE.search(part.content):
                found.append(part.content[:40])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--show", type=int, default=5, help="pages listed per target")
    args = parser.parse_args()
    root = args.root.resolve()
    wiki = load_wiki(Config(root=root), jobs=1, use_store=False)
    found: dict[str, list[str]] = {"tex": [], "prose": [], "fewer": []}
    kb501 = 0
    for path in sorted(wiki.pages):
        try:
            text = (root / path).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        body = render_text(wiki.pages[path], text, wiki, None, translator("zh"))
        kb501 += sum(d.code == "KB501" for d in body.diagnostics)
        ours = github._parsed(body.html)
        ours.found["h1"] += 1 if body.title_id else 0
        theirs = github.elements(github.github(github._body(text)))
        fewer = [kind for kind in github.KINDS if ours.found[kind] < theirs[kind]]
        for key, what in (
            ("tex", ours.tex[:3]),
            ("prose", _prose_formulas(github._body(text))[:2]),
            ("fewer", fewer),
        ):
            if what:
                found[key].append(f"{path}: {what}")
    pages = len(wiki.pages)
    print(f"{root}: {pages} pages")
    for key, label in (
        ("tex", "showing TeX commands as text"),
        ("prose", "where prose is taken for a formula"),
        ("fewer", "where kbtool shows less than GitHub's renderer"),
    ):
        share = len(found[key]) / pages if pages else 0.0
        print(f"  pages {label}: {len(found[key])} ({share:.1%})")
        for line in found[key][: args.show]:
            print(f"    {line}")
    print(f"  KB501 (formula not converted): {kb501}")


if __name__ == "__main__":
    main()
