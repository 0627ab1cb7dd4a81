"""Showing user-supplied text (doc ids, query ids) safely in Markdown elements."""

from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|>~<$])")


def escape_markdown(text: str) -> str:
    """Text that Markdown shows literally: no emphasis, links, HTML or LaTeX from a doc id."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)
