"""``check``: the wiki's diagnostics, a page's, or a draft's (the wiki as it would be with a
text for a path, checked by the same check, nothing written), each with what to do about it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from kbtool.agent.errors import Refused
from kbtool.agent.models import CheckAnswer, DiagnosticOut
from kbtool.agent.paths import normal_path
from kbtool.agent.state import AgentWiki
from kbtool.diagnostics import Diagnostic

#: The most diagnostics one answer lists.
#: The most diagnostics one answer lists, errors first (the counts are of all of them; a path
#: narrows the answer).
MAX_DIAGNOSTICS = 200

#: What to do about a code, where the message alone does not say (it may say more: "did you
#: mean ...").
_ADVICE = {
    "KB101": "begin the page with frontmatter: type, summary, updated between '---' lines",
    "KB102": "close the frontmatter with a '---' line",
    "KB103": "make the frontmatter valid YAML (quote values with ':' or '#')",
    "KB104": "write the frontmatter as 'key: value' lines",
    "KB105": "give each frontmatter key once",
    "KB106": "add the required key (type, summary, updated unless configured otherwise)",
    "KB107": "give the key a value of the right type (a list for related, sources, tags)",
    "KB108": "write `updated` as YYYY-MM-DD",
    "KB109": "give `updated` today's date or an earlier one",
    "KB110": "use one of the configured page types",
    "KB201": "point the `related` entry at an existing wiki page (search finds it) or drop it",
    "KB202": "list only wiki pages in `related`; sources go in `sources`",
    "KB203": "point the `sources` entry at an existing page under the sources folder",
    "KB204": "list only pages of the sources folder in `sources`",
    "KB205": "list each entry once",
    "KB206": "link another page, or use '#anchor' alone for a heading of this one",
    "KB207": "link an existing file (search finds pages), or write the page first",
    "KB208": "use an anchor the target page has (read_page gives its outline)",
    "KB209": "name an existing page's file stem or title in the wikilink",
    "KB210": "link with a path relative to the page, inside the repository",
    "KB211": "name the page by its path to say which one",
}


def advice(d: Diagnostic) -> str | None:
    """What to do about ``d``: the rule's fix when it has one, else the code's advice."""
    if d.fix and not d.fix.lstrip().startswith(("{", "[")):
        return d.fix
    return _ADVICE.get(d.code)


def out(diagnostics: Iterable[Diagnostic]) -> list[DiagnosticOut]:
    return [DiagnosticOut.of(d, advice(d)) for d in diagnostics]


def _errors_first(d: Diagnostic) -> tuple[bool, Diagnostic]:
    return (d.severity != "error", d)


def _answer(
    diagnostics: list[Diagnostic], pages: int, added: list[Diagnostic] | None = None
) -> CheckAnswer:
    errors = sum(d.severity == "error" for d in diagnostics)
    return CheckAnswer(
        errors=errors,
        warnings=sum(d.severity == "warning" for d in diagnostics),
        pages=pages,
        diagnostics=out(sorted(diagnostics, key=_errors_first)[:MAX_DIAGNOSTICS]),
        added=out(added or []),
        truncated=len(diagnostics) > MAX_DIAGNOSTICS,
    )


def _errors(found: dict[str, list[Diagnostic]]) -> Counter[tuple[str, str, str]]:
    return Counter(
        (d.path, d.code, d.message) for ds in found.values() for d in ds if d.severity == "error"
    )


def added_errors(
    before: dict[str, list[Diagnostic]], after: dict[str, list[Diagnostic]]
) -> list[Diagnostic]:
    """The errors ``after`` has that ``before`` has not (lines aside: an edit moves them)."""
    new = _errors(after) - _errors(before)
    found = []
    for ds in after.values():
        for d in ds:
            key = (d.path, d.code, d.message)
            if d.severity == "error" and new[key] > 0:
                new[key] -= 1
                found.append(d)
    return sorted(found)


def check(wiki: AgentWiki, path: str | None = None, text: str | None = None) -> CheckAnswer:
    if text is not None:
        if path is None:
            raise Refused("a draft needs the path it would be written at: give path with text")
        return check_draft(wiki, path, text).answer
    found = wiki.diagnostics()
    if path is None:
        every = sorted(d for ds in found.values() for d in ds)
        return _answer(every, len(wiki.checked().disk.digests()))
    page = normal_path(wiki, path)
    prefix = page.rstrip("/") + "/"
    if page not in wiki.checked().disk.digests() and not any(
        p.startswith(prefix) for p in wiki.checked().disk.digests()
    ):
        raise Refused(f"{page} is no page or folder of this wiki; check a draft with text")
    chosen = sorted(d for p, ds in found.items() if p == page or p.startswith(prefix) for d in ds)
    return _answer(chosen, 1)


class Draft:
    """A draft checked: the page's diagnostics as written so, and the errors it adds."""

    def __init__(self, path: str, after: dict[str, list[Diagnostic]], added: list[Diagnostic]):
        self.path = path
        self.after = after
        self.own = after.get(path, [])
        self.added = added
        others = [d for d in added if d.path != path]
        self.answer = _answer(sorted([*self.own, *others]), 1, added)


def check_draft(wiki: AgentWiki, given: str, text: str) -> Draft:
    path = normal_path(wiki, given)
    if wiki.state.kind_of(path) is None:
        folders = ", ".join(f"{f}/" for f in wiki.config.wiki_folders)
        raise Refused(f"{path} is not a page path: a page is a .md file in {folders}")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(
            f"{path}: the text holds characters UTF-8 cannot write (lone surrogates)"
        ) from None
    most = wiki.permissions.max_bytes
    if len(data) > most:
        raise Refused(
            f"{path}: the text is {len(data):,} bytes, more than the {most:,} a page may have "
            "here: split it into several pages"
        )
    before = wiki.diagnostics()
    after = wiki.check_draft(path, data)
    return Draft(path, after, added_errors(before, after))
