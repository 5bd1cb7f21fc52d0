"""The former site a one-shot build keeps for the next one, in the cache folder.

``kbtool serve`` keeps its former site in memory (``spare.py``); a one-shot ``kbtool build``
would otherwise link every file of the site into a new staging folder and remove the former
site, both in proportion to the site, whatever the edit. Instead, after the swap, the former
site is brought level with the live one (the files of the outputs that changed are removed,
as :func:`~kbtool.stages.publish.spare.clear_changed` does for serve; its search index is
kept, for the next build's search stage to update in place) and moved into
``.kbtool/spare-site``, with a record naming the outputs it lacks. The next build takes it
back as its staging folder and links or renders only those.

The record's key holds the identities (device, inode) of the live site folder and of the
spare: another build or a serve that swapped a site in, a site folder made again, or a spare
replaced by hand each change one, and the spare is then removed, never trusted.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from kbtool.stages.publish.published import Published, Spare
from kbtool.stages.publish.spare import clear_changed, identity
from kbtool.stages.publish.staging import Staging, make_staging, remove_folder
from kbtool.store.db import Store
from kbtool.store.records import SPARE_SITE

FOLDER = "spare-site"
_NAME = "site"


def _key(site_dir: Path, site: tuple[int, int] | None, spare: tuple[int, int] | None) -> str:
    return SPARE_SITE.key(str(site_dir), repr(site), repr(spare))


def store_spare(
    store: Store,
    cache_dir: Path,
    site_dir: Path,
    old: Path,
    former: dict[str, Published],
    now: dict[str, Published],
) -> bool:
    """Keep ``old``, which holds the former site (``former``, its record), for the next
    build; ``now`` is the record of the live site. False if it cannot be kept (the caller
    removes it)."""
    if not former or not now or not old.is_dir():
        return False
    staging = Staging(old, former)
    clear_changed(staging, now, set(now), search=True)  # the next build's search starts from it
    lacking = sorted(set(now) - set(staging.held))
    target = cache_dir / FOLDER
    with store.transaction():
        store.clear(SPARE_SITE)
    remove_folder(site_dir, target)
    try:
        os.rename(old, target)
    except OSError:  # another filesystem: the next build links every file, as before
        return False
    key = _key(site_dir, identity(site_dir), identity(target))
    with store.transaction():
        store.put(SPARE_SITE, [(_NAME, key, json.dumps(lacking).encode())])
    return True


def take_stored_spare(
    store: Store, cache_dir: Path, site_dir: Path, published: dict[str, Published]
) -> Spare | None:
    """The spare a former build kept, moved beside the site as a staging folder, if it is
    still what it was kept as and ``published`` (the live site's record) is known."""
    folder = cache_dir / FOLDER
    if not folder.is_dir():
        return None
    value = store.get(SPARE_SITE, _NAME, _key(site_dir, identity(site_dir), identity(folder)))
    with store.transaction():
        store.clear(SPARE_SITE)  # taken: a crash from here on leaves nothing to trust
    lacking: list[str] | None = None
    if value is not None and published:
        with contextlib.suppress(ValueError):
            read = json.loads(value)
            if isinstance(read, list) and all(isinstance(name, str) for name in read):
                lacking = read
    if lacking is None:
        remove_folder(site_dir, folder)
        return None
    staging = make_staging(site_dir)
    try:
        os.rename(folder, staging)  # onto the new empty folder: same name rules as a build's
    except OSError:
        os.rmdir(staging)
        remove_folder(site_dir, folder)
        return None
    missing = set(lacking)
    held = {name: record for name, record in published.items() if name not in missing}
    return Spare(staging, held, identity(site_dir))
