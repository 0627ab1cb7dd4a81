"""User text (doc ids, qids, file names, URL values) shown exactly as typed.

Every piece of user text that reaches a Markdown-rendering element (st.markdown, st.caption, st.subheader,
st.error, widget labels...) goes through :func:`literal`. Nothing else in ui/ builds Markdown from user text.
"""

from __future__ import annotations

import re

# CommonMark lets every ASCII punctuation character be backslash-escaped, and an escaped character is always
# literal: no emphasis, links, autolinks (the ':' of 'https:' and the '.' of 'www.' are escaped), images, HTML,
# LaTeX ($), colour directives (:red[...]) or emoji shortcodes (:smile:).
_ASCII_PUNCTUATION = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")
_LINE_BREAKS = re.compile(r"[\r\n\u0085\u2028\u2029]+")


def literal(text: object) -> str:
    """``text`` as Markdown that renders exactly as typed, on one line."""
    one_line = _LINE_BREAKS.sub(" ", str(text))
    return _ASCII_PUNCTUATION.sub(r"\\\1", one_line)


def escape_markdown(text: str) -> str:
    """Deprecated name of :func:`literal`."""
    return literal(text)
