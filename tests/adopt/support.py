"""A wiki shaped like the reference one, for ``kbtool init``: written by the tests, not copied.

What it has, as the real wiki does: page types beyond kbtool's defaults, one-way `related`
lists everywhere, `related` entries into a `roadmap/` folder beside `wiki/`, python blocks that
are mostly illustrations (pseudo-code, modules not installed), and source pages without
frontmatter that record `- **入库日期：** YYYY-MM-DD`. And four real problems, which must still
be reported after `kbtool init --yes`: a misspelt type, a broken body link, a page older than
a source it cites, and a source date that is not a date.
"""

from __future__ import annotations

from pathlib import Path

#: (folder, type, count)
GROUPS = [("concepts", "concept", 8), ("methods", "method", 6), ("entities", "entity", 4)]
GROUPS += [("formalizations", "formalization", 3)]

REAL_PROBLEMS = {"KB110", "KB207", "KB304", "KB305"}

_BLOCKS = [
    "```python\nimport isaacgym\nenv = isaacgym.make('Humanoid')\n```\n",
    "```python\nfor t in range(T):\n    a_t = π(o_t)  # 伪代码\n    o_t = env.step(a_t)\n```\n",
    "```python\nfrom isaacgym import gymapi\n```\n",
    "```python\ndef policy(obs):\n    ...\n```\n",
    "```python\nloss = E[(Q(s,a) - y)^2]\n```\n",
    "```python\nx = sum(range(10))\nassert x == 45\n```\n",
]


def _page(
    kind: str, title: str, related: list[str], sources: list[str], body: str, updated: str
) -> str:
    lines = ["---", f"type: {kind}", "tags: [robotics, transformer]", "status: complete"]
    lines.append(f"updated: {updated}")
    lines.append(f'summary: "{title} 是具身智能里常见的一个概念，这里用一句话概括它。"')
    if related:
        lines += ["related:", *(f"  - {r}" for r in related)]
    if sources:
        lines += ["sources:", *(f"  - {s}" for s in sources)]
    lines += ["---", f"# {title}", "", "## 一句话定义", "", f"**{title}**：把观测映射为动作。", ""]
    lines += ["| 缩写 | 英文全称 |", "|------|----------|", "| BC | Behavior Cloning |", ""]
    lines += ["$$\\mathcal{L} = \\sum_t \\|a_t - \\hat a_t\\|^2$$", "", body]
    return "\n".join(lines) + "\n"


def _source(title: str, when: str | None) -> str:
    lines = [f"# {title}", "", "> 来源归档", "", f"- **标题：** {title}", "- **类型：** paper"]
    if when is not None:
        lines.append(f"- **入库日期：** {when}")
    lines += ["- **一句话说明：** 一篇论文。", "", "## 为什么值得保留", "", "- 经典。"]
    return "\n".join(lines) + "\n"


def write_real_like_wiki(root: Path) -> Path:
    pages = [(f, t, f"{t}-{i}") for f, t, n in GROUPS for i in range(n)]
    files: dict[str, str] = {}
    sources = [f"paper_{i}" for i in range(8)]
    for i, (folder, kind, name) in enumerate(pages):
        nxt_folder, _, nxt = pages[(i + 1) % len(pages)]
        related = [f"../{nxt_folder}/{nxt}.md"]  # a ring: every `related` is one-way
        if i % 7 == 0:
            related.append(f"../../roadmap/plan-{i % 2}.md")
        cited = [f"../../sources/papers/{sources[i % len(sources)]}.md"]
        body = _BLOCKS[i % len(_BLOCKS)] if i < 12 else "没有代码。\n"
        updated = "2026-09-01"
        if i == 3:
            kind = "conept"  # a real problem: a misspelt type
        if i == 5:
            body += "\n见 [缺失页](../methods/missing-page.md)。\n"  # a real problem
        if i == 6:
            updated = "2026-05-01"  # older than its source: a real problem
            cited = [f"../../sources/papers/{sources[0]}.md"]
        files[f"wiki/{folder}/{name}.md"] = _page(kind, name, related, cited, body, updated)
    for i in range(2):
        back = [f"../wiki/{pages[i * 7][0]}/{pages[i * 7][2]}.md"]
        files[f"roadmap/plan-{i}.md"] = _page("roadmap", f"plan-{i}", back, [], "", "2026-09-01")
    dates: list[str | None] = ["2026-06-14", "2026-07-11", "2026-07-12", "2026-08-19"]
    dates += ["2026-04-01", "2026-03-03", "2026年8月", None]
    for name, when in zip(sources, dates, strict=True):
        files[f"sources/papers/{name}.md"] = _source(name, when)
    files["README.md"] = "# 知识库\n"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
