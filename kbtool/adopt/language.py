"""The site's language, from the notes' own text: Chinese where Chinese characters make a
good share of the letters, else English (the two languages the site's strings come in)."""

from __future__ import annotations

import re

from kbtool.stages.scan import Snapshot
from kbtool.wiki import Wiki

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
#: A Chinese character says about as much as a few Latin letters: a page that is a quarter
#: Chinese characters by count reads as a Chinese page with English terms in it.
CJK_SHARE = 0.25
#: Bytes read of each page: enough to tell, and a vault of thousands stays quick.
SAMPLE = 4096


def propose_language(wiki: Wiki, snapshot: Snapshot) -> tuple[str, str] | None:
    """("zh" or "en", the reason), or None when the pages hold no letters."""
    cjk = latin = 0
    for found, _ in snapshot.files:
        if found.path not in wiki.pages:
            continue
        text = snapshot.data(found.path)[:SAMPLE].decode("utf-8", errors="ignore")
        cjk += len(_CJK.findall(text))
        latin += len(_LATIN.findall(text))
    if not cjk + latin:
        return None
    share = cjk / (cjk + latin)
    language = "zh" if share >= CJK_SHARE else "en"
    name = "Chinese" if language == "zh" else "English"
    reason = (
        f'language = "{language}": the site\'s strings in {name}; Chinese characters are '
        f"{share:.0%} of the letters of the notes"
    )
    return language, reason
