"""A convention's select box and the caption of its meaning, generated from the documented CONVENTION_INFO
(the explorer's sidebar and the run page's both draw them)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from metrics.conventions import (
    DEFAULT_TREC_EVAL,
    TREC_EVAL_BUILDS,
    ConventionInfo,
    Conventions,
    trec_eval_build,
    trec_eval_values,
)


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


def trec_eval_build_select(key: str, convention_key: str) -> None:
    """The "trec_eval build" select box: choosing a build sets the select boxes of the conventions on which the
    builds differ (keyed ``convention_key.format(name)``) to that build's values; they stay free to change after."""

    def apply() -> None:
        for name, value in trec_eval_values(st.session_state[key]).items():
            st.session_state[convention_key.format(name)] = value

    st.selectbox("trec_eval build", TREC_EVAL_BUILDS, index=TREC_EVAL_BUILDS.index(DEFAULT_TREC_EVAL), key=key,
                 on_change=apply,
                 help=f"Sets {', '.join(trec_eval_values(DEFAULT_TREC_EVAL))} to what that build does. The default, "
                      f"{DEFAULT_TREC_EVAL}, is the trec_eval inside pytrec_eval, ir_measures and PyTerrier.")


def trec_eval_readout(conventions: Conventions) -> str:
    """Which trec_eval build prints these numbers, in one line (the conventions on which builds differ decide)."""
    build = trec_eval_build(conventions)
    if build is None:
        mix = ", ".join(f"{name}={getattr(conventions, name)}" for name in trec_eval_values(DEFAULT_TREC_EVAL))
        return f"No trec_eval build gives these numbers ({mix})."
    return f"trec_eval {build}'s numbers" + (" (the default)." if build == DEFAULT_TREC_EVAL else ".")
