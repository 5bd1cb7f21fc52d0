"""A heading added to a much-linked page has its linkers' anchors checked again, and remakes
what the site shows only of the page and the pages joined to it: a linker whose links reach
what they reached is shown as it was, and so are its other neighbours."""

from __future__ import annotations

from pathlib import Path

import pytest

import kbtool.stages.siteinfo as siteinfo
from tests.stages.test_build import build, page, write


@pytest.fixture
def remade(monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    calls: list[set[str]] = []
    real = siteinfo.collect_pages

    def recording(wiki, paths, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(set(paths))
        return real(wiki, paths, *args, **kwargs)

    monkeypatch.setattr(siteinfo, "collect_pages", recording)
    return calls


def test_a_heading_edit_remakes_the_site_facts_of_the_page_and_its_neighbours_only(
    tmp_path: Path, remade: list[set[str]]
) -> None:
    root = tmp_path / "repo"
    files = {"wiki/hub.md": page("# Hub\n\n## First\n\nText.\n")}
    for i in range(4):  # linkers of the hub's anchor, each with a neighbour of its own
        files[f"wiki/l{i}.md"] = page(f"# L{i}\n\n[the hub](hub.md#first) [N{i}](n{i}.md)\n")
        files[f"wiki/n{i}.md"] = page(f"# N{i}\n\n[L{i}](l{i}.md)\n")
    for i in range(10):  # enough pages that the edit is not most of the wiki
        files[f"wiki/other{i}.md"] = page(f"# Other {i}\n")
    write(root, files)
    assert build(root).ok
    hub = root / "wiki/hub.md"
    hub.write_text(hub.read_text() + "\n## Second\n\nMore.\n")
    remade.clear()
    report = build(root)
    assert report.ok
    made = set().union(*remade)
    assert "wiki/hub.md" in made
    assert not made & {f"wiki/n{i}.md" for i in range(4)}, made
    # and the linkers still see the anchor checked: one that breaks is reported
    (root / "wiki/l0.md").write_text(page("# L0\n\n[the hub](hub.md#none) [N0](n0.md)\n"))
    assert any(d.code == "KB208" for d in build(root).diagnostics)


def _hub_and_linkers(root: Path) -> None:
    files = {"wiki/hub.md": page("# Hub\n\nText.\n")}
    for i in range(4):
        files[f"wiki/l{i}.md"] = page(f"# L{i}\n\n[the hub](hub.md)\n")
    for i in range(10):  # enough pages that the edit is not most of the wiki
        files[f"wiki/other{i}.md"] = page(f"# Other {i}\n")
    write(root, files)
    assert build(root).ok


def test_a_text_edit_remakes_the_site_facts_of_the_page_alone(
    tmp_path: Path, remade: list[set[str]]
) -> None:
    root = tmp_path / "repo"
    _hub_and_linkers(root)
    hub = root / "wiki/hub.md"
    hub.write_text(hub.read_text() + "\nA sentence more, and no link.\n")
    remade.clear()
    assert build(root).ok
    assert set().union(*remade) == {"wiki/hub.md"}


def test_a_title_edit_remakes_the_site_facts_of_the_pages_that_show_it(
    tmp_path: Path, remade: list[set[str]]
) -> None:
    root = tmp_path / "repo"
    _hub_and_linkers(root)
    (root / "wiki/hub.md").write_text(page("# Renamed hub\n\nText.\n"))
    remade.clear()
    assert build(root).ok
    made = set().union(*remade)
    assert {"wiki/hub.md", *(f"wiki/l{i}.md" for i in range(4))} <= made
    assert "Renamed hub" in (root / "site/wiki/l0.html").read_text()
