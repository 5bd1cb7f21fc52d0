"""The former site that ``kbtool serve`` keeps after a swap: the next build's staging folder.

Linking every file of the site into a new staging folder costs time in proportion to the
site; a spare costs it in proportion to what changed. After a swap the folder holding the
former site is kept with the record of what it holds. The next build takes it as its staging
folder, removes the files of every output that differs from the live site's, and stages the
rest as usual: those outputs are linked from the live site or rendered. What ends up in the
folder is what a new staging folder would hold, and it is swapped in the same way.

Every file is written as a new inode renamed into place, so a file the spare shares with the
live site (a hard link) is never changed through it. Only the process that kept a spare
trusts it, while the site it was swapped out of is still live; another build removes it as a
stale staging folder, by renaming it away first, so it is whole or gone. A build that fails
or is stopped removes it, as any staging folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable
from itertools import chain
from pathlib import Path

from kbtool.search.layout import FOLDER as SEARCH_FOLDER
from kbtool.stages.publish.published import Published, Spare, same
from kbtool.stages.publish.staging import Staging, link_file, make_staging, remove_folder


def identity(folder: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def keep_spare(
    site_dir: Path,
    old: Path | None,
    outputs: dict[str, Published],
    live: dict[str, Published],
    rendered: Iterable[str],
) -> Spare | None:
    """The former site in ``old`` as a spare, ``outputs`` being what it holds; ``live``: the
    record of the site swapped in, whose outputs are the spare's very records but the ones
    ``rendered`` for it."""
    if old is None:
        return None
    if not outputs:  # what it holds is not known: no use
        remove_folder(site_dir, old)
        return None
    differs = frozenset(rendered) | (outputs.keys() - live.keys())
    return Spare(old, outputs, identity(site_dir), (live, differs))


def mostly_outdated(spare: Spare, published: dict[str, Published]) -> bool:
    """Whether ``spare`` holds less than half of the live site's outputs (``published``) as
    they are: the site before a build that rendered most of it, which the next build would
    empty file by file before linking nearly every file of the live site into it."""
    held = sum(same(record, published.get(name)) for name, record in spare.outputs.items())
    return 2 * held < len(published)


def linked_spare(site_dir: Path, outputs: dict[str, Published]) -> Spare | None:
    """A new staging folder holding every file of the live site, linked, as a spare: what a
    process that has not swapped a site in yet prepares ahead of its first rebuild (else that
    rebuild links every file). None if the site does not hold what ``outputs`` says."""
    site = identity(site_dir)
    if site is None or not outputs:
        return None
    folder = make_staging(site_dir)
    try:
        files = (f for r in outputs.values() for f in r.files)
        if all(link_file(str(site_dir), str(folder), f) for f in files):
            _link_search(site_dir / SEARCH_FOLDER, folder / SEARCH_FOLDER)
            return Spare(folder, dict(outputs), site, (outputs, frozenset()))
    except OSError:  # no hard links here: the first build stages as usual
        pass
    remove_folder(site_dir, folder)
    return None


def _link_search(index: Path, into: Path) -> None:
    """Link the live site's search index into a spare, which the next build's search stage
    brings up to date in place (an index is no output: ``outputs`` does not list it)."""
    if not index.is_dir():
        return
    for folder, _, names in os.walk(index):
        target = os.path.join(into, os.path.relpath(folder, index))
        os.makedirs(target, exist_ok=True)
        for name in names:
            os.link(os.path.join(folder, name), os.path.join(target, name))


def take_spare(site_dir: Path, spare: Spare | None) -> Staging | None:
    """``spare`` as a staging folder, if it is still what it was kept as."""
    if spare is None:
        return None
    site = identity(site_dir)
    if site is None or site != spare.site or not spare.folder.is_dir():
        remove_folder(site_dir, spare.folder)
        return None
    return Staging(spare.folder, spare.outputs)


def clear_changed(
    staging: Staging,
    published: dict[str, Published],
    fresh: set[str],
    search: bool = False,
    told: tuple[dict[str, Published], frozenset[str]] | None = None,
) -> int:
    """Remove from a spare the files of the outputs it holds that are not, as they are, in the
    live site and fresh (named in ``fresh``), and its search index unless ``search`` (the
    search stage then updates that one in place: it holds the index before the live one, and
    most of its files are the live index's); the outputs left in place. Afterwards the spare
    holds just the outputs it can keep. ``told``: the spare's :attr:`Spare.told`, which
    spares comparing every record while ``published`` is the record told of."""
    held = staging.held
    if told is not None and published == told[0]:  # the very records: compared at once
        keep = (fresh & held.keys()) - told[1]
    else:
        keep = {name for name in fresh if name in held and same(held[name], published.get(name))}
    dropped = held.keys() - keep
    # The dropped outputs' files but those a kept one shares (an image two pages show),
    # found without gathering every kept output's files: a save drops a few of 10,000.
    doomed = set(chain.from_iterable(held[name].files for name in dropped))
    for name in keep if doomed else ():
        if not doomed.isdisjoint(held[name].files):
            doomed.difference_update(held[name].files)
    for relative in doomed:
        _remove_file(staging.folder, relative)
    if not search:
        shutil.rmtree(staging.folder / SEARCH_FOLDER, ignore_errors=True)
    staging.held = dict(held)
    for name in dropped:
        del staging.held[name]
    return len(keep)


def _remove_file(root: Path, relative: str) -> None:
    target = root / relative
    with contextlib.suppress(FileNotFoundError):
        target.unlink()
    parent = target.parent
    while parent != root:  # a folder emptied now would not be in a new staging folder
        try:
            parent.rmdir()
        except OSError:
            return
        parent = parent.parent
