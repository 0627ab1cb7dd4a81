"""User text (doc ids, qids, file names, URL values) shown exactly as typed, and matched as typed.

Every piece of user text that reaches a Markdown-rendering element (st.markdown, st.caption, st.subheader,
st.error, widget labels...) goes through :func:`literal`. Nothing else in ui/ builds Markdown from user text.
User patterns never reach a regular-expression engine (a pattern such as ``^(a+)+$`` would hold the server for
seconds): :func:`matches_filter` is a substring or ``*``/``?`` wildcard match in time linear in the lengths of the
pattern and the text.
"""

from __future__ import annotations

#: Every line break Markdown or Python knows, folded to one space: user text never starts a new block.
_LINE_BREAKS = {ord(ch): " " for ch in "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"}
#: Some rewrites run on the parsed text, where escapes are gone: GFM autolinks (https://x.y, www.x.y, a@b.c),
#: :streamlit: and emoji shortcodes, and Streamlit's arrows (-> <- <= >= -- ~=). An invisible WORD JOINER after
#: ':' and '@' (unless a space follows), inside 'www.' and inside those pairs breaks each pattern without changing
#: what the page shows.
WORD_JOINER = "\u2060"
_ARROWS = {"->", "<-", "--", "<=", ">=", "~="}
#: CommonMark lets every ASCII punctuation character be backslash-escaped, and an escaped character is always
#: literal to the parser: no emphasis, links, images, HTML, LaTeX ($) or colour directives (:red[...]).
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_ESCAPES = {ord(ch): "\\" + ch for ch in _PUNCTUATION}

MAX_FILTER_CHARS = 200


def literal(text: object) -> str:
    """``text`` as Markdown that renders exactly as typed, on one line (with invisible word joiners, see above)."""
    one_line = str(text).translate(_LINE_BREAKS)
    pieces = []
    for position, ch in enumerate(one_line):
        pieces.append(ch.translate(_ESCAPES))
        if _needs_joiner(one_line, position):
            pieces.append(WORD_JOINER)
    return "".join(pieces)


def _needs_joiner(text: str, position: int) -> bool:
    if text[position] in ":@":  # only where a scheme, shortcode or e-mail domain could follow
        return position + 1 < len(text) and not text[position + 1].isspace()
    pair = text[position:position + 2].lower()
    if pair == "w.":
        return text[max(0, position - 2):position + 1].lower() == "www"
    return pair in _ARROWS


def shown(markdown: str) -> str:
    """What a page shows for ``literal(text)``: ``text`` itself, escapes and joiners read (for tests)."""
    plain = markdown.replace(WORD_JOINER, "")
    pieces, position = [], 0
    while position < len(plain):
        if plain[position] == "\\" and position + 1 < len(plain) and plain[position + 1] in _PUNCTUATION:
            position += 1
        pieces.append(plain[position])
        position += 1
    return "".join(pieces)


def escape_markdown(text: str) -> str:
    """Deprecated name of :func:`literal`."""
    return literal(text)


def matches_filter(text: str, pattern: str) -> bool:
    """Whether ``text`` matches a filter typed by a person, ignoring case: without ``*`` or ``?`` the pattern is
    looked for anywhere in the text; with them, the whole text must match (``*`` any run of characters, ``?`` one
    character). Time linear in len(text) + len(pattern), whatever the pattern (see :func:`filter_match`)."""
    return filter_match(text, pattern)[0]


def filter_match(text: str, pattern: str) -> tuple[bool, int]:
    """:func:`matches_filter`'s answer and the characters it examined, at most about 2 (len(text) + len(pattern)).

    The pattern is cut at its stars into segments of literal characters and ``?``: the first must match the start
    of the text, the last its end, and each one between is placed at its leftmost fit after the previous one (the
    leftmost fit leaves the most room for the rest, so no placement is ever tried twice). A segment without ``?``
    is found by ``str.find``; one with ``?`` by the bit-parallel shift-and scan (one step per character).
    """
    text, pattern = text.casefold(), pattern.casefold()
    if "*" not in pattern and "?" not in pattern:
        return pattern in text, len(text) + len(pattern)
    segments = pattern.split("*")
    if len(segments) == 1:
        return len(text) == len(pattern) and _fits(text, 0, pattern), len(pattern)
    first, *middle, last = segments
    steps = len(first) + len(last)
    end = len(text) - len(last)
    if end < len(first) or not (_fits(text, 0, first) and _fits(text, end, last)):
        return False, steps
    position = len(first)
    for segment in middle:
        if not segment:  # "**" is one star
            continue
        if "?" in segment:
            found = _shift_and(text, segment, position, end)
        else:
            found = text.find(segment, position, end)
        steps += (end if found < 0 else found + len(segment)) - position + len(segment)
        if found < 0:
            return False, steps
        position = found + len(segment)
    return True, steps


def _fits(text: str, at: int, segment: str) -> bool:
    """Whether ``segment`` (literal characters and ``?``) matches ``text`` at ``at``."""
    return all(want in ("?", have) for want, have in zip(segment, text[at:at + len(segment)]))


def _shift_and(text: str, segment: str, start: int, end: int) -> int:
    """The leftmost i in [start, end - len(segment)] where ``segment`` fits ``text``, or -1. Bit j of ``state`` says
    that the first j + 1 characters of the segment match the text ending at the current character."""
    wild = 0
    for j, want in enumerate(segment):
        if want == "?":
            wild |= 1 << j
    masks: dict[str, int] = {}
    for j, want in enumerate(segment):
        if want != "?":
            masks[want] = masks.get(want, wild) | (1 << j)
    # No fit starts before the first occurrence of the segment's first literal run: skip there at C speed.
    offset = len(segment) - len(segment.lstrip("?"))
    literal_run = segment[offset:].split("?", 1)[0]
    if literal_run:
        seen = text.find(literal_run, start + offset, end)
        if seen < 0:
            return -1
        start = seen - offset
    done, state = 1 << (len(segment) - 1), 0
    for index in range(start, end):
        state = ((state << 1) | 1) & masks.get(text[index], wild)
        if state & done:
            return index - len(segment) + 1
    return -1
