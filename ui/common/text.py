"""User text (doc ids, qids, file names, URL values) shown exactly as typed, and matched as typed.

Every piece of user text that reaches a Markdown-rendering element (st.markdown, st.caption, st.subheader,
st.error, widget labels...) goes through :func:`literal`. Nothing else in ui/ builds Markdown from user text.
User patterns never reach a regular-expression engine (a pattern such as ``^(a+)+$`` would hold the server for
seconds): :func:`matches_filter` is a substring or ``*``/``?`` wildcard match whose work is bounded by the lengths
of the pattern and the text.
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
    character). At most len(text) x len(pattern) steps, whatever the pattern."""
    text, pattern = text.casefold(), pattern.casefold()
    if "*" not in pattern and "?" not in pattern:
        return pattern in text
    position = at = 0
    star, star_position = -1, 0
    while position < len(text):
        if at < len(pattern) and pattern[at] in ("?", text[position]):
            position, at = position + 1, at + 1
        elif at < len(pattern) and pattern[at] == "*":
            star, star_position, at = at, position, at + 1
        elif star >= 0:  # let the last * swallow one more character and retry from there
            star_position += 1
            position, at = star_position, star + 1
        else:
            return False
    return all(ch == "*" for ch in pattern[at:])
