"""Emphasis that works in Chinese: ``由**「可供策略消费」**决定`` is bold around 「…」.

CommonMark decides whether a run of ``*``, ``_`` or ``~`` can open or close emphasis from the
characters on either side, and a run between a letter and punctuation cannot open (or close).
Chinese puts full-width punctuation (``「」（）《》``) right against words with no space, so
plain CommonMark opens and closes in the wrong places. The CJK-friendly rule (the
markdown-it-cjk-friendly plugin for JavaScript, after the CommonMark forum's discussion)
relaxes it: for ``*`` and ``~`` a run next to a CJK character is both left- and
right-flanking. ``_`` is unchanged, as are runs with no CJK character beside them, so English
emphasis parses exactly as CommonMark says.

Our tokenizers replace markdown-it's ``emphasis`` and ``strikethrough`` ones (the same code,
calling :func:`scan_delims` instead of ``StateInline.scanDelims``); pairing and the tokens
they make are markdown-it's own.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.rules_inline.state_inline import Delimiter, Scanned, StateInline

# Code points >= U+1100 with the Unicode property Emoji_Presentation (UTS #51), as (first,
# last), taken from the `regex` module's Unicode data (the standard library has no emoji
# properties). A wide emoji is not a CJK character: `**😀**` keeps CommonMark's rules.
_EMOJI = (
    (0x231A, 0x231B),
    (0x23E9, 0x23EC),
    (0x23F0, 0x23F0),
    (0x23F3, 0x23F3),
    (0x25FD, 0x25FE),
    (0x2614, 0x2615),
    (0x2648, 0x2653),
    (0x267F, 0x267F),
    (0x2693, 0x2693),
    (0x26A1, 0x26A1),
    (0x26AA, 0x26AB),
    (0x26BD, 0x26BE),
    (0x26C4, 0x26C5),
    (0x26CE, 0x26CE),
    (0x26D4, 0x26D4),
    (0x26EA, 0x26EA),
    (0x26F2, 0x26F3),
    (0x26F5, 0x26F5),
    (0x26FA, 0x26FA),
    (0x26FD, 0x26FD),
    (0x2705, 0x2705),
    (0x270A, 0x270B),
    (0x2728, 0x2728),
    (0x274C, 0x274C),
    (0x274E, 0x274E),
    (0x2753, 0x2755),
    (0x2757, 0x2757),
    (0x2795, 0x2797),
    (0x27B0, 0x27B0),
    (0x27BF, 0x27BF),
    (0x2B1B, 0x2B1C),
    (0x2B50, 0x2B50),
    (0x2B55, 0x2B55),
    (0x1F004, 0x1F004),
    (0x1F0CF, 0x1F0CF),
    (0x1F18E, 0x1F18E),
    (0x1F191, 0x1F19A),
    (0x1F1E6, 0x1F1FF),
    (0x1F201, 0x1F201),
    (0x1F21A, 0x1F21A),
    (0x1F22F, 0x1F22F),
    (0x1F232, 0x1F236),
    (0x1F238, 0x1F23A),
    (0x1F250, 0x1F251),
    (0x1F300, 0x1F320),
    (0x1F32D, 0x1F335),
    (0x1F337, 0x1F37C),
    (0x1F37E, 0x1F393),
    (0x1F3A0, 0x1F3CA),
    (0x1F3CF, 0x1F3D3),
    (0x1F3E0, 0x1F3F0),
    (0x1F3F4, 0x1F3F4),
    (0x1F3F8, 0x1F43E),
    (0x1F440, 0x1F440),
    (0x1F442, 0x1F4FC),
    (0x1F4FF, 0x1F53D),
    (0x1F54B, 0x1F54E),
    (0x1F550, 0x1F567),
    (0x1F57A, 0x1F57A),
    (0x1F595, 0x1F596),
    (0x1F5A4, 0x1F5A4),
    (0x1F5FB, 0x1F64F),
    (0x1F680, 0x1F6C5),
    (0x1F6CC, 0x1F6CC),
    (0x1F6D0, 0x1F6D2),
    (0x1F6D5, 0x1F6D8),
    (0x1F6DC, 0x1F6DF),
    (0x1F6EB, 0x1F6EC),
    (0x1F6F4, 0x1F6FC),
    (0x1F7E0, 0x1F7EB),
    (0x1F7F0, 0x1F7F0),
    (0x1F90C, 0x1F93A),
    (0x1F93C, 0x1F945),
    (0x1F947, 0x1F9FF),
    (0x1FA70, 0x1FA7C),
    (0x1FA80, 0x1FA8A),
    (0x1FA8E, 0x1FAC6),
    (0x1FAC8, 0x1FAC8),
    (0x1FACD, 0x1FADC),
    (0x1FADF, 0x1FAEA),
    (0x1FAEF, 0x1FAF8),
)
_EMOJI_STARTS = [first for first, _ in _EMOJI]
_IDEOGRAPHIC_VS = range(0xE0100, 0xE01F0)  # variation selectors that follow an ideograph
_QUOTES = frozenset("\u2018\u2019\u201c\u201d")  # take a full-width form after U+FE01


def _is_emoji(code: int) -> bool:
    index = bisect_right(_EMOJI_STARTS, code) - 1
    return index >= 0 and code <= _EMOJI[index][1]


def cjk_base(char: str) -> bool | None:
    """Whether ``char`` is a CJK character; None when its East Asian width is ambiguous.

    >>> cjk_base("字"), cjk_base("「"), cjk_base("a"), cjk_base("😀"), cjk_base("“")
    (True, True, False, False, None)
    """
    code = ord(char)
    if code < 0x1100:  # nothing below Hangul Jamo is CJK
        return False
    width = unicodedata.east_asian_width(char)
    if width in ("F", "H"):
        return True
    if width == "W":
        return not _is_emoji(code)
    if width == "A":
        return None
    if width == "N":  # Hangul jamo fillers and the like are N, and still Korean
        return unicodedata.name(char, "").startswith("HANGUL")
    return False


def _previous_is_cjk(last: str, before_last: str | None) -> bool:
    """The character before the run is CJK; ``before_last`` is set when ``last`` is a VS."""
    if before_last is not None:
        base = cjk_base(before_last)
        return base if base is not None else (last == "\ufe01" and before_last in _QUOTES)
    base = cjk_base(last)
    return base if base is not None else ord(last) in _IDEOGRAPHIC_VS


def _is_punct(char: str) -> bool:
    return isMdAsciiPunct(ord(char)) or isPunctChar(char)


def scan_delims(state: StateInline, start: int, can_split_word: bool) -> Scanned:
    """``StateInline.scanDelims`` with the CJK-friendly flanking rules.

    ``can_split_word`` is true for ``*`` and ``~``, false for ``_`` (which must not open or
    close inside a word, CJK or not).
    """
    src, maximum, marker = state.src, state.posMax, state.src[start]
    last = src[start - 1] if start > 0 else " "  # the line's start counts as a space
    last_main, before_last = last, None
    if "\ufe00" <= last <= "\ufe0e":  # a variation selector: look at the character it alters
        before_last = src[start - 2] if start > 1 else " "
        if unicodedata.category(before_last) != "Zs":
            last_main = before_last
    pos = start
    while pos < maximum and src[pos] == marker:
        pos += 1
    count = pos - start
    following = src[pos] if pos < maximum else " "  # so does the line's end

    last_space, next_space = isWhiteSpace(ord(last_main)), isWhiteSpace(ord(following))
    if last_space or next_space:  # beside a space, punctuation and CJK make no difference
        return Scanned(not next_space, not last_space, count)

    last_punct, next_punct = _is_punct(last_main), _is_punct(following)
    # For `_` these are CommonMark's answers once neither side is a space.
    can_open, can_close = last_punct, next_punct
    if can_split_word:
        either_cjk = bool(cjk_base(following)) or _previous_is_cjk(last, before_last)
        can_open = can_open or either_cjk or not next_punct
        can_close = can_close or either_cjk or not last_punct
    return Scanned(can_open, can_close, count)


def _emphasis(state: StateInline, silent: bool) -> bool:
    """markdown-it's ``*``/``_`` tokenizer, scanning with :func:`scan_delims`."""
    marker = state.src[state.pos]
    if silent or marker not in ("_", "*"):
        return False
    scanned = scan_delims(state, state.pos, marker == "*")
    for _ in range(scanned.length):
        state.push("text", "", 0).content = marker
        state.delimiters.append(
            Delimiter(
                ord(marker),
                scanned.length,
                len(state.tokens) - 1,
                -1,
                scanned.can_open,
                scanned.can_close,
            )
        )
    state.pos += scanned.length
    return True


def _strikethrough(state: StateInline, silent: bool) -> bool:
    """markdown-it's ``~~`` tokenizer (pairs of tildes only), scanning with scan_delims."""
    if silent or state.src[state.pos] != "~":
        return False
    scanned = scan_delims(state, state.pos, True)
    length = scanned.length
    if length < 2:
        return False
    if length % 2:
        state.push("text", "", 0).content = "~"
        length -= 1
    for _ in range(0, length, 2):
        state.push("text", "", 0).content = "~~"
        state.delimiters.append(
            # length 0: strikethrough has no "rule of 3"
            Delimiter(0x7E, 0, len(state.tokens) - 1, -1, scanned.can_open, scanned.can_close)
        )
    state.pos += scanned.length
    return True


def cjk_emphasis_plugin(md: MarkdownIt) -> None:
    """Swap markdown-it's emphasis and strikethrough tokenizers for the CJK-friendly ones."""
    md.inline.ruler.at("emphasis", _emphasis)
    md.inline.ruler.at("strikethrough", _strikethrough)
