"""A convention's select box and the caption of its meaning, generated from the documented CONVENTION_INFO
(the explorer's sidebar and the run page's both draw them)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from metrics.conventions import ConventionInfo


def convention_select(info: ConventionInfo) -> dict[str, Any]:
    """Label, options and help of a convention's select box, from its documentation. The options are the short
    names, which fit a sidebar; the help says what each means and who uses it, and :func:`convention_meaning`
    writes the chosen one's meaning under the box."""
    return dict(
        label=info.label, options=[choice.value for choice in info.choices],
        help="\n".join(f"- `{c.value}`: {c.meaning}. Used by {', '.join(c.used_by) or '—'}." for c in info.choices),
    )


def convention_meaning(info: ConventionInfo, value: Any) -> None:
    """The chosen option's meaning, as a caption that wraps (an option text would be cut off in the sidebar)."""
    meaning = next((choice.meaning for choice in info.choices if choice.value == value), None)
    if meaning:
        st.caption(meaning)
