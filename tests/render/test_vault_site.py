"""The site of an Obsidian vault (render/vault.py, render/folders.py, render/indexes.py): its
home note is the front page, its folders have pages, its navigation offers what its notes use,
and the notes its links name that do not exist are listed on a page of their own."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape
from pathlib import Path

from kbtool.config import load_config
from kbtool.render.card import PageCard, Ref
from kbtool.render.site import Listing
from kbtool.render.vault import missing_note
from kbtool.stages.site import build_site

VAULT_TOML = """wiki = "."
flavor = "obsidian"
types = []
required = []
language = "en"
search = false

[severity]
KB101 = "off"
KB207 = "warning"
KB209 = "warning"
"""

Maker = Callable[[dict[str, str | bytes]], Path]


def _vault(make_wiki: Maker, files: dict[str, str | bytes], toml: str = VAULT_TOML) -> Path:
    root = make_wiki({"kbtool.toml": toml, ".obsidian/app.json": "{}", **files})
    report = build_site(load_config(root))
    assert report.ok, report
    return root / "site"


def _nav(html: str) -> list[str]:
    nav = re.search(r'<nav class="site-nav".*?</nav>', html, re.S)
    assert nav is not None
    return re.findall(r'<a href="([^"]+)">', nav.group(0))


def _main(html: str) -> str:
    found = re.search(r"<main.*?</main>", html, re.S)
    assert found is not None
    return found.group(0)


def test_the_home_note_is_the_front_page(make_wiki: Maker) -> None:
    site = _vault(make_wiki, {"Home.md": "# Home\n\nStart at [[Idea]].\n", "Idea.md": "An idea.\n"})
    front = (site / "index.html").read_text()
    assert front == (site / "Home.html").read_text()
    assert 'href="Idea.html"' in _main(front)
    assert "home-types" not in front  # not the list of page types a wiki's front page shows


def test_a_vault_without_a_home_note_has_a_front_page_of_its_folders(make_wiki: Maker) -> None:
    site = _vault(make_wiki, {"Notes/Idea.md": "An idea.\n", "Top.md": "Top.\n"})
    front = _main((site / "index.html").read_text())
    assert "A vault of 2 notes." in front
    assert 'href="folders/Notes/index.html">Notes</a> <span class="count">1' in front
    # no types, no sources, no dates: none of those lists
    assert "home-types" not in front and "home-recent" not in front


def test_the_home_setting_names_a_note_in_a_folder(make_wiki: Maker) -> None:
    toml = VAULT_TOML.replace("search = false\n", 'search = false\nhome = "Start/Here.md"\n')
    site = _vault(make_wiki, {"Start/Here.md": "Hello.\n", "Home.md": "Not this one.\n"}, toml)
    front = (site / "index.html").read_text()
    assert 'http-equiv="refresh" content="0; url=Start/Here.html"' in front
    assert "Not this one" not in front


def test_each_folder_has_a_page_of_its_notes_and_the_root_shows_the_tree(
    make_wiki: Maker,
) -> None:
    site = _vault(
        make_wiki,
        {
            "Top.md": "Top.\n",
            "Notes/A.md": "A.\n",
            "Notes/Deep/B.md": "B.\n",
            "Projects/C.md": "C.\n",
        },
    )
    root = _main((site / "folders/index.html").read_text())
    tree = re.findall(r'<a href="([^"]+)">([^<]+)</a> <span class="count">(\d+)', root)
    assert tree == [
        ("Notes/index.html", "Notes", "2"),
        ("Notes/Deep/index.html", "Deep", "1"),
        ("Projects/index.html", "Projects", "1"),
    ]
    assert 'href="../Top.html"' in root
    notes = _main((site / "folders/Notes/index.html").read_text())
    assert 'href="../../Notes/A.html"' in notes and "Deep/B.html" not in notes
    assert 'href="Deep/index.html"' in notes  # its sub-folder
    page = (site / "Notes/Deep/B.html").read_text()
    trail = re.search(r'<nav class="breadcrumbs".*?</nav>', page, re.S)
    assert trail is not None
    assert re.findall(r'href="([^"]+)"', trail.group(0)) == [
        "../../folders/index.html",
        "../../folders/Notes/index.html",
        "../../folders/Notes/Deep/index.html",
    ]


def test_the_navigation_offers_folders_and_only_the_types_the_notes_use(
    make_wiki: Maker,
) -> None:
    toml = VAULT_TOML.replace("types = []", 'types = ["concept", "recipe"]')
    site = _vault(make_wiki, {"A.md": "A.\n", "B.md": "---\ntype: recipe\n---\nB.\n"}, toml)
    links = _nav((site / "A.html").read_text())
    assert links == [
        "index.html",
        "types/recipe.html",
        "folders/index.html",
        "graph.html",
        "unresolved.html",
        "types/recipe.html",  # the menu holds every type
    ]
    assert not (site / "types/concept.html").exists()
    assert '<html lang="en">' in (site / "A.html").read_text()


def test_the_notes_not_created_yet_have_a_page_with_the_notes_that_link_them(
    make_wiki: Maker,
) -> None:
    site = _vault(
        make_wiki,
        {
            "A.md": "[[Someday]] [[someday|later]] ![[gone.png]] [x](Not%20yet.md)\n",
            "B.md": "[[Someday]] [[Folder/Plan]]\n",
        },
    )
    html = _main((site / "unresolved.html").read_text())
    listed = re.findall(r'<span class="unresolved-note">([^<]+)</span>(.*?)</li>', html, re.S)
    by_name = {name: re.findall(r">([^<]+)</a>", rest) for name, rest in listed}
    assert by_name == {"Folder/Plan": ["B"], "Not yet": ["A"], "Someday": ["A", "B"]}


def test_tags_and_aliases_as_a_string_are_read_as_one(make_wiki: Maker) -> None:
    site = _vault(make_wiki, {"A.md": "---\ntags: reading\naliases: Start\n---\nA.\n"})
    assert 'href="../A.html"' in (site / "tags/reading.html").read_text()


def test_a_nested_tags_note_is_on_each_tag_above_it(make_wiki: Maker) -> None:
    site = _vault(
        make_wiki,
        {"A.md": "---\ntags: [area/home]\n---\nA.\n", "B.md": "---\ntags: area\n---\nB.\n"},
    )
    pages = {path.name: path.read_text() for path in (site / "tags").iterdir()}
    (nested,) = (text for name, text in pages.items() if name.startswith("areahome"))
    assert "A.html" in nested and "B.html" not in nested
    assert "A.html" in pages["area.html"] and "B.html" in pages["area.html"]


def test_a_wiki_that_is_no_vault_keeps_its_navigation(
    make_wiki: Maker, page: Callable[..., str]
) -> None:
    root = make_wiki(
        {
            "pyproject.toml": '[tool.kbtool]\nlanguage = "en"\nsearch = false\n',
            "wiki/README.md": page("# Read me\n"),
            "wiki/a.md": page("# A\n\n[[README]]\n"),
        }
    )
    assert build_site(load_config(root)).ok
    html = (root / "site/wiki/a.html").read_text()
    assert "../sources.html" in _nav(html) and "../folders/index.html" not in _nav(html)
    assert "breadcrumbs" not in html
    assert not (root / "site/folders").exists() and not (root / "site/unresolved.html").exists()
    assert "home-types" in (root / "site/index.html").read_text()


def test_a_listing_keeps_its_missing_notes_through_its_record() -> None:
    card = PageCard(Ref("A.md", "A.html", "A", ""), "", ())
    listing = Listing(card, "", (), "digest", ("Someday",))
    assert Listing.from_record(card.ref, listing.record()) == listing
    plain = Listing(card, "", (), "digest")
    assert len(plain.record()) == 5  # a wiki's records as they were
    assert Listing.from_record(card.ref, plain.record()) == plain


def test_a_missing_note_is_named_as_obsidian_would_create_it() -> None:
    assert missing_note("Folder/Some%20day.md#Part") == "Folder/Some day"
    assert missing_note("picture.png") is None
    assert missing_note("https://example.com/x") is None


def test_a_note_is_titled_by_its_file_name_and_keeps_a_heading_that_says_more(
    make_wiki: Maker,
) -> None:
    site = _vault(
        make_wiki,
        {
            "Projects/Plan.md": "# This year's plan\n\nText.\n",
            "Archive/Plan.md": "# Plan\n\nOld.\n",
            "Named.md": "---\ntitle: A title of its own\n---\n# Heading\n",
            "Links.md": "[[Projects/Plan]] [[Named]]\n",
        },
    )
    plan = _main((site / "Projects/Plan.html").read_text())
    headings = [unescape(h) for h in re.findall(r"<h1[^>]*>([^<]*)</h1>", plan)]
    assert headings == ["Plan", "This year's plan"]
    archived = _main((site / "Archive/Plan.html").read_text())
    assert re.findall(r"<h1[^>]*>([^<]*)</h1>", archived) == ["Plan"]  # shown once
    links = _main((site / "Links.html").read_text())
    # as Obsidian shows a link without a label: as written
    assert ">Projects/Plan</a>" in links and ">Named</a>" in links


def test_a_tag_in_a_notes_text_puts_it_on_that_tags_page(make_wiki: Maker) -> None:
    site = _vault(make_wiki, {"Notes/A.md": "Soil notes #garden/soil for later.\n"})
    page = _main((site / "Notes/A.html").read_text())
    assert '<span class="tag inline-tag">#garden/soil</span>' in page
    tags = {path.name: path.read_text() for path in (site / "tags").iterdir()}
    assert 'href="../Notes/A.html"' in tags["garden.html"]  # under the tag above it too
    assert any(n.startswith("gardensoil") and "Notes/A.html" in t for n, t in tags.items())


def test_the_graph_of_a_vault_without_types_is_coloured_by_community(make_wiki: Maker) -> None:
    site = _vault(make_wiki, {"A.md": "[[B]]\n", "B.md": "B.\n"})
    assert '<option value="community" selected>' in (site / "graph.html").read_text()
    toml = VAULT_TOML.replace("types = []", 'types = ["recipe"]')
    typed = _vault(make_wiki, {"C.md": "---\ntype: recipe\n---\nC.\n"}, toml)
    assert '<option value="community">' in (typed / "graph.html").read_text()


def test_a_note_named_as_a_page_of_the_site_is_published_and_that_page_left_out(
    make_wiki: Maker,
) -> None:
    files: dict[str, str | bytes] = {
        "Home.md": "# Home\n\nSee [[graph]] and [[python]].\n",
        "graph.md": "# Graph theory\n\nA note of the vault's own.\n",
        "tags/python.md": "# Python\n\nA note in a folder named tags. #python\n",
    }
    root = make_wiki({"kbtool.toml": VAULT_TOML, ".obsidian/app.json": "{}", **files})
    report = build_site(load_config(root))
    assert report.ok, report
    site = root / "site"
    for note, output in (("graph.md", "graph.html"), ("tags/python.md", "tags/python.html")):
        assert "A note" in _main((site / output).read_text())  # the note, whatever came first
        found = [d for d in report.diagnostics if d.code == "KB504"]
        assert any(d.path == note and output in d.message for d in found), found
    assert len([d for d in report.diagnostics if d.code == "KB504"]) == 2
    # Renamed, the note leaves the file to the site's own page again.
    (root / "graph.md").rename(root / "Graph theory.md")
    again = build_site(load_config(root))
    assert "A note" not in _main((site / "graph.html").read_text())
    assert [d.path for d in again.diagnostics if d.code == "KB504"] == ["tags/python.md"]
