"""A deterministic synthetic Obsidian vault for benchmarks, at a real vault's density.

``generate(root, n)`` writes ``n`` notes (``Home.md`` among them) in folders three levels
deep, a ``.obsidian/`` folder (``app.json`` with the attachment folder, ``templates.json``
naming ``Templates/``, which holds a few templates) and one attachment per ten notes (small
PNG, SVG and PDF files, two in three in ``attachments/``, the others beside their note).
The notes' prose is ``synth_text``'s (Chinese with English terms, in the words of
``synth_vocab``), with what Obsidian's syntax adds to a vault:

- wikilinks by name, by path suffix (``[[Folder/Note]]``), with ``|label``, to a heading
  (``#Heading``, ``#A#B``), to a block (``#^id``) and to a heading of the same note
  (``[[#Heading]]``); Markdown links with ``%20`` or ``<…>``; about 1% to notes not
  created yet;
- embeds of a note (``![[Note]]``: short "snippet" notes), of a heading's section and of a
  block (``![[Hub#Heading]]``, ``![[Hub#^id]]``: one note in 100 is a hub whose sections
  others embed) and of images at a size (``![[Pasted image ….png|300]]``), PDFs too;
- about two callouts a note, of many types, some foldable (``-``/``+``), some with a title,
  some nested; ``==highlights==``, ``%%comments%%`` inline and over lines, ``^block`` ids,
  inline ``#tags`` (nested too), ``tags``/``aliases`` in frontmatter as a string or a list
  (a note in four has no frontmatter, a note in two no leading ``# title``).

Embeds go one level deep: hubs and snippets embed nothing, so the notes that show a hub's
section are exactly those that embed it (:attr:`Vault.section`). The same ``n`` and
``seed`` always give the same bytes.

    python benchmarks/synth_vault.py DIR [-n 5000] [--seed 0] [--vocabulary real]
"""

from __future__ import annotations

import argparse
import hashlib
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import synth_text as text
import synth_vocab
from synth import VOCABULARIES
from synth_text import SECTIONS, PageRandom

TOP = ("Projects", "Areas", "Resources", "Archive", "Inbox", "Journal")
SUBFOLDERS, SUBSUBFOLDERS = 4, 3
HUB_EVERY, SNIPPET_EVERY, ATTACHMENT_EVERY = 100, 25, 10
EMBEDDED_HEADINGS = 2  # a hub's sections that other notes embed
MISSING_SHARE = 0.01  # links to notes not created yet
LINKED_SHARE = 0.45  # of mentions written as a link (the rest name the note in plain text)
CALLOUTS = ("note", "abstract", "summary", "info", "todo", "tip", "hint", "important")
CALLOUTS += ("success", "question", "faq", "warning", "caution", "failure", "danger")
CALLOUTS += ("error", "bug", "example", "quote", "cite")
TAGS = ("robotics", "ml/rl", "ml/vision", "reading", "project/active", "idea", "机器人/感知")
TAGS += ("review", "论文", "todo")
TEMPLATES = {
    "Daily note.md": "# {{date}}\n\n## 今天\n\n- [ ] \n\n## 链接\n\n[[{{title}}]]\n",
    "Paper.md": "---\ntags: [论文]\naliases: []\n---\n# {{title}}\n\n> [!abstract] 摘要\n> \n",
    "Meeting.md": "# {{date}} 会议\n\n%% 参会人 %%\n\n> [!todo]- 待办\n> - [ ] \n",
}


@dataclass(frozen=True)
class Note:
    """What other notes may link to in a note, decided before any note is written."""

    path: str  # from the vault's root
    name: str  # the file name without .md: how a wikilink names it
    headings: tuple[str, ...]  # its ## headings
    subs: dict[str, str]  # ## heading -> the ### heading under it
    blocks: tuple[str, ...]  # its block ids, without ^
    kind: str  # "hub", "snippet" or "note"


@dataclass(frozen=True)
class Section:
    """A hub's section that other notes embed: editing it must change them all."""

    note: Path
    heading: str
    marker: str  # a word written in the section, shown wherever it is embedded
    embedders: tuple[Path, ...]


@dataclass(frozen=True)
class Vault:
    root: Path
    notes: list[Path]
    attachments: list[Path]
    section: Section

    @property
    def note_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.notes)

    @property
    def attachment_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.attachments)


def _block_id(seed: int, index: int, k: int) -> str:
    return hashlib.blake2b(f"{seed}:{index}:{k}".encode(), digest_size=3).hexdigest()


def _folders() -> list[str]:
    """Every folder notes go in: six at the top, four under each, three under those."""
    folders = list(TOP)
    for top in TOP:
        subs = [
            f"{top}/{text.TERMS[(len(folders) + k) % len(text.TERMS)].title()}"
            for k in range(SUBFOLDERS)
        ]
        folders += subs
        folders += [
            f"{sub}/{k + 1:02d} {text.WORDS[(len(folders) + k) % len(text.WORDS)]}"
            for sub in subs
            for k in range(SUBSUBFOLDERS)
        ]
    return folders


class _Plan:
    def __init__(self, n: int, seed: int, vocabulary: str) -> None:
        self.seed, self.real = seed, vocabulary == "real"
        folders = _folders()
        self.notes: list[Note] = []
        taken: set[str] = {"home"}
        for i in range(max(1, n - 1)):
            rng = self.random(f"plan:{i}", i)
            kind = "hub" if i % HUB_EVERY == 0 else "snippet" if i % SNIPPET_EVERY == 7 else "note"
            name = f"{rng.term()} {rng.word()}" if i % 2 else f"{rng.word()}与{rng.word()}"
            name = name.replace("/", " ")
            if name.lower() in taken:
                name = f"{name} {i}"
            taken.add(name.lower())
            count = (
                0
                if kind == "snippet"
                else rng.randint(4, 6)
                if kind == "hub"
                else rng.randint(2, 4)
            )
            headings = tuple(rng.sample(SECTIONS, count))
            subs = {
                h: f"{k + 1}. {rng.word()}（{rng.term()}）"
                for k, h in enumerate(headings)
                if rng.random() < 0.4
            }
            blocks = tuple(
                _block_id(seed, i, k) for k in range(3 if kind == "hub" else rng.randint(0, 2))
            )
            self.notes.append(
                Note(f"{folders[i % len(folders)]}/{name}.md", name, headings, subs, blocks, kind)
            )
        self.hubs = [note for note in self.notes if note.kind == "hub"]
        self.snippets = [note for note in self.notes if note.kind == "snippet"]
        self.attachments = [
            self._attachment(i) for i in range(0, len(self.notes), ATTACHMENT_EVERY)
        ]

    def _attachment(self, i: int) -> str:
        """The attachment of note ``i``: where Obsidian puts it, or beside the note."""
        kind = ("png", "png", "png", "svg", "pdf")[(i // ATTACHMENT_EVERY) % 5]
        name = (
            f"Pasted image 2025{(i % 12) + 1:02d}{(i % 28) + 1:02d}{i:06d}.png"
            if kind == "png"
            else f"figure {i:04d}.{kind}"
        )
        if (i // ATTACHMENT_EVERY) % 3 == 2:
            return f"{self.notes[i].path.rsplit('/', 1)[0]}/{name}"
        return f"attachments/{name}"

    def random(self, key: str, index: int) -> PageRandom:
        seed = f"{self.seed}:vault:{key}"
        if not self.real:
            return PageRandom(seed)
        return synth_vocab.RealRandom(seed, synth_vocab.topic(index // synth_vocab.TOPIC_PAGES))


def section_marker(hub: Note, heading: str) -> str:
    return f"embedded{hashlib.blake2b(f'{hub.path}#{heading}'.encode(), digest_size=4).hexdigest()}"


def _linker(note: Note, index: int, plan: _Plan, rng: PageRandom) -> Callable[[], str]:
    """Wikilinks and Markdown links from ``note``, in the forms a vault mixes."""
    notes = plan.notes

    def link() -> str:
        target = (
            notes[(index + rng.randint(1, 8)) % len(notes)]
            if rng.random() < 0.4
            else rng.choice(notes)
        )
        if target is note:  # a note that links to itself is a finding of its own
            target = notes[(index + 1) % len(notes)]
        if rng.random() > LINKED_SHARE:
            return target.name  # named, not linked
        if rng.random() < MISSING_SHARE:
            return f"[[{rng.term()} {rng.word()} (to write)]]"
        roll = rng.random()
        if roll < 0.35:
            return f"[[{target.name}]]"
        if roll < 0.5:
            return f"[[{target.name}|{rng.word()}]]"
        if roll < 0.6:
            return f"[[{target.path.rsplit('/', 2)[-2]}/{target.name}]]"
        if roll < 0.72 and target.headings:
            return f"[[{target.name}#{rng.choice(target.headings)}]]"
        if roll < 0.76 and target.subs:
            heading, sub = rng.choice(sorted(target.subs.items()))
            return f"[[{target.name}#{heading}#{sub}]]"
        if roll < 0.84 and target.blocks:
            return f"[[{target.name}#^{rng.choice(target.blocks)}|{rng.word()}]]"
        if roll < 0.88 and note.headings:
            return f"[[#{rng.choice(note.headings)}]]"
        if roll < 0.94:
            anchor = (
                f"#{quote(rng.choice(target.headings))}"
                if target.headings and rng.random() < 0.3
                else ""
            )
            return f"[{rng.word()}]({quote(target.path)}{anchor})"
        return f"[{rng.word()}](<{target.path}>)"

    return link


def _decorated(rng: PageRandom, paragraph: str, block: str | None) -> str:
    """A paragraph with what a vault's notes add to prose: a highlight, a comment, a tag,
    and its block id last."""
    roll = rng.random()
    if roll < 0.25:
        paragraph += f"==要记住的是{rng.word()}与{rng.word()}=="
    elif roll < 0.4:
        paragraph += f"%%待核对：{rng.word()}的出处%%"
    if rng.random() < 0.2:
        paragraph += f" #{rng.choice(TAGS)}"
    return paragraph + (f" ^{block}" if block else "")


def _callout(rng: PageRandom, link: Callable[[], str], nested: bool = False) -> list[str]:
    fold = rng.choice(("", "", "", "-", "+"))
    title = f" {rng.word()}与{rng.term()}" if rng.random() < 0.6 else ""
    lines = [f"> [!{rng.choice(CALLOUTS)}]{fold}{title}", "> " + text.sentence(rng, link, (1, 3))]
    if rng.random() < 0.3:
        lines += ["> " + item for item in text.bullets(rng, link, rng.randint(2, 3))]
    if not nested and rng.random() < 0.12:
        lines += [">", *("> " + line for line in _callout(rng, link, nested=True))]
    return lines


def _frontmatter(rng: PageRandom, note: Note) -> list[str]:
    if rng.random() < 0.25:
        return []
    tags = rng.sample(TAGS, rng.randint(1, 3))
    lines = ["---", f"tags: {tags[0]}" if rng.random() < 0.3 else f"tags: [{', '.join(tags)}]"]
    roll = rng.random()
    if roll < 0.25:
        lines.append(f"aliases: {rng.word()}{rng.term()}")
    elif roll < 0.5:
        lines += ["aliases:", f"  - {rng.word()}", f"  - {note.name.lower()}"]
    lines.append(f"created: 2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
    return [*lines, "---", ""]


def _embeds(rng: PageRandom, plan: _Plan, index: int) -> list[str]:
    """The embeds of an ordinary note's section: a hub's section or block, a snippet, an
    image or a PDF."""
    lines = []
    if plan.hubs and rng.random() < 0.2:
        hub = rng.choice(plan.hubs)
        lines.append(f"![[{hub.name}#{rng.choice(hub.headings[:EMBEDDED_HEADINGS])}]]")
    if plan.hubs and rng.random() < 0.1:
        hub = rng.choice(plan.hubs)
        lines.append(f"![[{hub.name}#^{rng.choice(hub.blocks)}]]")
    if plan.snippets and rng.random() < 0.06:
        lines.append(f"![[{rng.choice(plan.snippets).name}]]")
    if rng.random() < 0.3:
        file = plan.attachments[
            (index // ATTACHMENT_EVERY + rng.randint(0, 3)) % len(plan.attachments)
        ]
        name = file.rsplit("/", 1)[-1]
        size = rng.choice(("|300", "|400x200", "", "|640"))
        lines.append(f"![[{name}{size if not name.endswith('.pdf') else ''}]]")
    return [line for embed in lines for line in (embed, "")]


def _note(index: int, note: Note, plan: _Plan, rng: PageRandom) -> str:
    link = _linker(note, index, plan, rng)
    lines = _frontmatter(rng, note)
    if rng.random() < 0.5:
        lines += [f"# {note.name}", ""]
    blocks = list(note.blocks)
    lines += [_decorated(rng, text.paragraph(rng, link, (1, 2)), None), ""]
    if rng.random() < 0.6:
        lines += [*_callout(rng, link), ""]
    for at, heading in enumerate(note.headings):
        lines += [f"## {heading}", ""]
        if note.kind == "hub" and at < EMBEDDED_HEADINGS:
            lines += [f"本节要点 {section_marker(note, heading)}。", ""]
        block = blocks.pop() if blocks and rng.random() < 0.6 else None
        lines += [_decorated(rng, text.paragraph(rng, link, (1, 3)), block), ""]
        if rng.random() < 0.5:
            lines += [*_callout(rng, link), ""]
        if heading in note.subs:
            lines += [
                f"### {note.subs[heading]}",
                "",
                _decorated(rng, text.paragraph(rng, link, (1, 2)), None),
                "",
            ]
        if rng.random() < 0.4:
            items = text.bullets(rng, link, rng.randint(2, 5))
            if blocks and rng.random() < 0.5:
                items[-1] += f" ^{blocks.pop()}"
            lines += [*items, ""]
        if rng.random() < 0.15:
            # in a table a wikilink's label bar is escaped, as Obsidian writes it there
            lines += [*text.comparison_table(rng, lambda: link().replace("|", "\\|")), ""]
        if rng.random() < 0.1:
            lines += ["%%", f"草稿：{text.sentence(rng, link)}", "%%", ""]
        if note.kind == "note":
            lines += _embeds(rng, plan, index)
    for block in blocks:  # ids not placed yet close the note
        lines += [_decorated(rng, text.sentence(rng, link), block), ""]
    if note.kind == "note" and rng.random() < 0.3:
        lines += _embeds(rng, plan, index)
    return "\n".join(lines)


def _home(plan: _Plan) -> str:
    hub = plan.hubs[0] if plan.hubs else plan.notes[0]
    lines = [
        "---",
        "aliases: [首页, Start]",
        "---",
        "# Home",
        "",
        "> [!tip] 从这里开始",
        "> 每个文件夹的第一篇笔记。",
        "",
    ]
    firsts: dict[str, Note] = {}
    for note in plan.notes:
        firsts.setdefault(note.path.rsplit("/", 1)[0], note)
    lines += [f"- [[{note.name}]] ({folder})" for folder, note in sorted(firsts.items())]
    if hub.headings:
        lines += ["", f"![[{hub.name}#{hub.headings[0]}]]"]
    return "\n".join(lines) + "\n"


def _png(seed: int) -> bytes:
    """A small valid PNG whose pixels depend on ``seed``."""
    width, height = 24, 16
    colour = bytes(((seed * 37) % 256, (seed * 91) % 256, (seed * 53) % 256))
    rows = b"".join(b"\x00" + colour * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _svg(seed: int) -> bytes:
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="{seed % 40}" height="20" fill="#4a8"/></svg>\n'.encode()


def _pdf(seed: int) -> bytes:
    stream = f"BT /F1 12 Tf 20 50 Td (figure {seed}) Tj ET".encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"]
    objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >>")
    objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    return out + b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )


def _write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


def generate(root: Path, n: int = 5000, seed: int = 0, vocabulary: str = "real") -> Vault:
    """Write a vault of ``n`` notes under ``root``; ``vocabulary`` as in ``synth.py``."""
    if vocabulary not in VOCABULARIES:
        raise ValueError(f"vocabulary {vocabulary!r}: expected one of {', '.join(VOCABULARIES)}")
    plan = _Plan(n, seed, vocabulary)
    _write(
        root / ".obsidian" / "app.json",
        '{\n  "attachmentFolderPath": "attachments",\n  "alwaysUpdateLinks": true\n}\n',
    )
    _write(root / ".obsidian" / "templates.json", '{\n  "folder": "Templates"\n}\n')
    for name, template in TEMPLATES.items():
        _write(root / "Templates" / name, template)
    notes = [_write(root / "Home.md", _home(plan))]
    notes += [
        _write(root / note.path, _note(i, note, plan, plan.random(note.path, i)))
        for i, note in enumerate(plan.notes)
    ]
    makers = {"png": _png, "svg": _svg, "pdf": _pdf}
    attachments = [
        _write(root / path, makers[path.rsplit(".", 1)[-1]](i))
        for i, path in enumerate(plan.attachments)
    ]
    return Vault(root, notes, attachments, _section(root, plan))


def _section(root: Path, plan: _Plan) -> Section:
    """The first hub's first embedded section, with the notes that embed it."""
    hub = plan.hubs[0]
    heading = hub.headings[0]
    embed = f"![[{hub.name}#{heading}]]"
    embedders = [
        p
        for p in [root / "Home.md", *(root / note.path for note in plan.notes)]
        if embed in p.read_text(encoding="utf-8")
    ]
    return Section(root / hub.path, heading, section_marker(hub, heading), tuple(embedders))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("root", type=Path)
    parser.add_argument("-n", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--vocabulary", choices=VOCABULARIES, default="real")
    args = parser.parse_args()
    vault = generate(args.root, args.n, args.seed, args.vocabulary)
    print(
        f"wrote {len(vault.notes)} notes ({vault.note_bytes / 1e6:.1f} MB) and {len(vault.attachments)} attachments under {args.root}"
    )
    print(
        f"section embedded by {len(vault.section.embedders)} notes: {vault.section.note.relative_to(args.root)}#{vault.section.heading}"
    )
