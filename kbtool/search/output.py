"""The index's files as written: a writer that counts them, the tables that both a full
write (:mod:`kbtool.search.writer`) and an update (:mod:`kbtool.search.update`) spell the
same way, and the update segment's shards. (A full write's shards are written by
:mod:`kbtool.search.page_terms`.)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from kbtool.search import layout, tables
from kbtool.search.codec import script, shard_of
from kbtool.search.pagefiles import encode_starts
from kbtool.search.postings import SEPARATOR, doc_terms
from kbtool.search.text import SearchDoc
from kbtool.search.tokens import is_word


@dataclass
class SearchStats:
    pages: int = 0
    files: int = 0
    bytes: int = 0
    written: int = 0
    kept: int = 0
    changed_pages: int = 0
    incremental: bool = False
    seconds: float = 0.0
    #: path -> page id in the index written (not part of the figures)
    ids: dict[str, int] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "ids"}


def doc_digest(doc: SearchDoc) -> str:
    card = doc.card
    fields = [card.path, card.url, card.title, card.type, card.summary, *card.tags, "\0"]
    fields += doc.headings
    data = "\0".join([*fields, "\0", doc.body]).encode("utf-8", errors="surrogatepass")
    return hashlib.blake2b(data, digest_size=12).hexdigest()


#: The folders of the main part, which only a write from scratch changes.
MAIN_FOLDERS = ("s", "t", "p", "w")


def is_main(name: str) -> bool:
    """Whether the file ``name`` belongs to the main part."""
    return name == layout.MAIN_TABLE or ("/" in name and name.partition("/")[0] in MAIN_FOLDERS)


class Writer:
    """Writes files under the new index folder, counting them and noting their sizes (so that
    nothing lists or reads the folder again to say what it holds). ``replace``: the folder
    holds a former index, whose files may be hard links into the live site's: each is
    removed before a file takes its name, never written through."""

    def __init__(self, folder: Path, stats: SearchStats, replace: bool = False) -> None:
        self.folder = folder
        self.stats = stats
        self.replace = replace
        self.names: set[str] = set()
        #: name -> bytes of each file written or kept whose size is known
        self.sizes: dict[str, int] = {}
        #: the names of the files written (not kept)
        self.wrote: set[str] = set()
        self._folders: set[str] = set()

    def _path(self, name: str) -> str:
        """The file's path (plain strings: an index has thousands), its folder made once."""
        folder, _, _ = name.rpartition("/")
        if folder not in self._folders:
            os.makedirs(os.path.join(self.folder, folder), exist_ok=True)
            self._folders.add(folder)
        return os.path.join(self.folder, name)

    def write(self, name: str, data: bytes) -> None:
        path = self._path(name)
        if self.replace:
            _unlink(path)
        with open(path, "wb") as f:
            f.write(data)
        self.names.add(name)
        self.wrote.add(name)
        self.sizes[name] = len(data)
        self.stats.written += 1

    def wrote_elsewhere(self, name: str, size: int) -> None:
        """Note a file of ``size`` bytes that another process wrote under the folder."""
        self.names.add(name)
        self.wrote.add(name)
        self.sizes[name] = size
        self.stats.written += 1

    def keep(self, old: Path, name: str, size: int | None = None) -> None:
        """Link ``old/name`` in (copied where there are no hard links), of ``size`` bytes."""
        target = self._path(name)
        source = os.path.join(old, name)
        if self.replace:
            _unlink(target)
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)
        self.names.add(name)
        if size is not None:
            self.sizes[name] = size
        self.stats.kept += 1

    def take(self, name: str, size: int) -> None:
        """A former index's file, left in place: it is the one the new index holds."""
        self.names.add(name)
        self.sizes[name] = size

    def remove(self, name: str) -> None:
        """Remove a former index's file that the new one does not hold."""
        _unlink(os.path.join(self.folder, name))


def _unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def main_digest(table: dict[str, list[Any]], shards: int, vocab: int) -> str:
    """What the main part's files are made of: two main parts of equal digests hold the same
    files, byte for byte (an update of one may start from the other's folder)."""
    data = json.dumps([layout.VERSION, shards, vocab, table], sort_keys=True).encode()
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def write_tables(out: Writer, data: dict[str, Any], pages: int) -> None:
    """The page table (``pages.json``) and ``meta.js``, what the client needs of it: page
    count, shard counts, type labels, and the state of the update segment if there is one:
    the dead ids, and the order keys of the pages added since the main part was written.
    Written last: the table lists the sizes of the index's other files (``files``) but the
    main part's, of which it has the count and bytes (``main_files``), and which of them
    were written now, not kept from the index before (``written``); ``stats`` gets the
    index's files and bytes from them."""
    meta: dict[str, Any] = {"version": layout.VERSION, "pages": pages}
    meta |= {"shards": data["shards"], "vocab": data["vocab"], "labels": data["labels"]}
    meta["chunks"] = encode_starts(data["chunks"])
    if "delta" in data:
        meta["delta"] = {"shards": data["delta_shards"], "dead": sorted(data["dead"])}
        meta["delta"]["keys"] = data["keys"]
    out.write(layout.META, script("meta", meta))
    files = {name: size for name, size in sorted(out.sizes.items()) if not is_main(name)}
    wrote = sorted(name for name in out.wrote if not is_main(name))
    table = {"version": layout.VERSION, **data, "files": files, "written": wrote}
    # Which index this is, by what its table holds: an update names the one it was made from
    # (``from``), so the next can tell whether a former index is that one.
    # ``json.dumps`` of the table with its id added last, without encoding it all again.
    text = json.dumps(table)
    table["id"] = hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
    encoded = (text[:-1] + ", " + json.dumps("id") + ": " + json.dumps(table["id"]) + "}").encode()
    out.write(layout.TABLE, encoded)
    tables.written(out.folder / layout.TABLE, table)
    count, size = data["main_files"]
    out.stats.files = count + len(files) + 1
    out.stats.bytes = size + sum(files.values()) + len(encoded)


def write_segment(
    out: Writer, lists: dict[str, tuple[str, str]], counts: dict[str, int], shards: int
) -> dict[str, int]:
    """Write the update segment's posting lists (term -> heads, places) as shards
    ``x/<hex>.js``; return its words' page counts (``counts``: each term's)."""
    by_shard: dict[str, dict[str, str]] = {}
    for term, (heads, places) in lists.items():
        by_shard.setdefault(shard_of(term, shards), {})[term] = heads + SEPARATOR + places
    for number in range(shards):  # every shard, empty or not: a missing file is a 404
        name = f"{number:x}"
        out.write(f"x/{name}.js", script(f"x/{name}", by_shard.get(name, {})))
    return {term: counts[term] for term in lists if is_word(term)}


def page_words(doc: SearchDoc) -> list[str]:
    """The words of ``doc`` that a prefix may expand to."""
    return sorted(term for term in doc_terms(doc) if is_word(term))
