"""Two lists side by side over the same judgments: list A and list B, each editable, every metric of the explorer
with its value on each list and the difference, and a tie (the same value on both lists) said in words.

The pair lives in session state under a prefix, so the explorer's section and the lessons each hold their own;
:func:`put_pair` replaces a pair and redraws its text boxes from it. The pure part (:class:`ListPair`,
:func:`compare`, the parsers) has no Streamlit in it, so the tests read it directly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import pandas as pd
import streamlit as st

from metrics import Conventions, InputError, evaluate_rankings
from metrics.explain import explorer_metrics

from . import tables
from .numbers import number_box
from .query_state import MAX_ITEMS, MAX_K, QueryState, check_state, parse_grade, parse_k, validate_doc
from .text import literal

#: The most characters one of the view's text boxes takes (a list of MAX_ITEMS ids is far shorter in practice).
MAX_TEXT_CHARS = 50_000
#: The explorer's section: the expander's key (open or closed) and the prefix of its pair in session state.
SECTION = "two_lists_open"
EXPLORER_PREFIX = "explore_pair"


@dataclass(frozen=True)
class ListPair:
    """Two ranked lists (doc ids in rank order) over one set of judgments, scored at ``k`` under ``conventions``."""

    list_a: tuple[str, ...]
    list_b: tuple[str, ...]
    judgments: Mapping[str, int] = field(hash=False)
    k: int = 10
    conventions: Conventions = field(default_factory=Conventions)
    names: tuple[str, str] = ("List A", "List B")


class Row(NamedTuple):
    """One metric on both lists: its label, the value on A and on B, and B - A."""

    label: str
    value_a: float
    value_b: float

    @property
    def difference(self) -> float:
        return self.value_b - self.value_a

    @property
    def tied(self) -> bool:
        return self.value_a == self.value_b


def compare(pair: ListPair) -> list[Row]:
    """The explorer's metrics at the pair's k on both lists, one batch of two rankings."""
    measures = explorer_metrics(pair.k)
    values = evaluate_rankings([list(pair.list_a), list(pair.list_b)], [dict(pair.judgments)] * 2,
                               [measure for _, measure in measures], pair.conventions)
    return [Row(label, float(values[measure.key][0]), float(values[measure.key][1])) for label, measure in measures]


def ties(rows: list[Row]) -> list[Row]:
    return [row for row in rows if row.tied]


def difference_text(row: Row) -> str:
    """B - A as the table shows it: a signed number, or "tie" when both lists score the same."""
    return "tie" if row.tied else f"{row.difference:+.4f}"


def tie_sentence(pair: ListPair, rows: list[Row]) -> str:
    """What the view says above its table: which metrics tie, with their value, or that none does."""
    tied = ties(rows)
    if not tied:
        return f"No metric ties: {pair.names[0]} and {pair.names[1]} differ on every one."
    listed = ", ".join(f"{row.label} ({row.value_a:.3f} on both)" for row in tied)
    return f"Tied: {listed}. The other metrics tell the two lists apart."


# ---- the text boxes: one doc id per line, judgments as doc:grade ---------------------------------------------


def _check_length(text: str, what: str) -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise InputError(f"{what} is {len(text):,} characters long; the box holds at most {MAX_TEXT_CHARS:,}")


def parse_docs(text: str, what: str) -> tuple[str, ...]:
    """Doc ids in rank order, separated by white space (one per line), or an InputError naming the first bad one."""
    _check_length(text, what)
    docs = tuple(validate_doc(token, where=f"{what}, item {position}")
                 for position, token in enumerate(text.split(), start=1))
    if len(docs) > MAX_ITEMS:
        raise InputError(f"{what} has {len(docs):,} documents; a list holds at most {MAX_ITEMS:,}")
    seen: dict[str, int] = {}
    for rank, doc in enumerate(docs, start=1):
        if doc in seen:
            raise InputError(f"{what}: document {doc!r} is at rank {seen[doc]} and again at rank {rank}")
        seen[doc] = rank
    return docs


def parse_judgments(text: str) -> dict[str, int]:
    """``doc:grade`` pairs separated by white space, or an InputError naming the first bad one."""
    _check_length(text, "The judgments")
    judgments: dict[str, int] = {}
    for position, token in enumerate(text.split(), start=1):
        where = f"judgment {position}"
        doc_text, colon, grade_text = token.rpartition(":")
        if not colon:
            raise InputError(f"{where}: {token!r} has no grade; write doc:grade, e.g. donut:1")
        doc = validate_doc(doc_text, where=where)
        if doc in judgments:
            raise InputError(f"{where}: document {doc!r} is judged twice")
        judgments[doc] = parse_grade(grade_text, where=f"{where} ({doc})")
    check_state((), judgments)
    return judgments


def docs_text(docs: tuple[str, ...]) -> str:
    return "\n".join(docs)


def judgments_text(judgments: Mapping[str, int]) -> str:
    return "\n".join(f"{doc}:{grade}" for doc, grade in judgments.items())


# ---- session state -----------------------------------------------------------------------------------------


def _keys(prefix: str) -> dict[str, str]:
    version = st.session_state.get(f"{prefix}_version", 0)
    return {name: f"{prefix}_{name}_{version}" for name in ("a", "b", "judgments", "k")}


def put_pair(prefix: str, pair: ListPair) -> None:
    """Make ``pair`` the one under ``prefix``; its text boxes are drawn anew from it (fresh keys)."""
    st.session_state[prefix] = pair
    st.session_state[f"{prefix}_version"] = st.session_state.get(f"{prefix}_version", 0) + 1
    st.session_state.pop(f"{prefix}_message", None)


def get_pair(prefix: str) -> ListPair | None:
    return st.session_state.get(prefix)


def pair_from_query(query: QueryState) -> ListPair:
    """The explorer's list as both A and B (B is the one to edit), with its judgments, k and conventions."""
    ranking = tuple(query.ranking)
    return ListPair(ranking, ranking, dict(query.judgments), query.k, query.conventions,
                    ("List A (the list above)", "List B"))


def _on_edit(prefix: str) -> None:
    """Read the four boxes; a value that cannot be read keeps the last good pair and leaves one message."""
    keys, pair = _keys(prefix), st.session_state[prefix]
    try:
        new_pair = ListPair(
            parse_docs(st.session_state[keys["a"]], pair.names[0]),
            parse_docs(st.session_state[keys["b"]], pair.names[1]),
            parse_judgments(st.session_state[keys["judgments"]]),
            parse_k(st.session_state[keys["k"]]),
            pair.conventions,
            pair.names,
        )
    except InputError as error:
        st.session_state[f"{prefix}_message"] = f"Edit refused, the last good lists are kept: {error}"
        return
    st.session_state[prefix] = new_pair
    st.session_state.pop(f"{prefix}_message", None)


# ---- the view ----------------------------------------------------------------------------------------------


def view(prefix: str, *, editable: bool = True) -> ListPair:
    """Draw the pair under ``prefix`` (which must be set, see :func:`put_pair`): the two lists and the judgments
    as text boxes, k, the tie sentence and the table of every metric on A and B with B - A. Returns the pair."""
    pair: ListPair = st.session_state[prefix]
    keys = _keys(prefix)
    message = st.session_state.get(f"{prefix}_message")
    if message:
        st.error(literal(message))
    left, right = st.columns(2)
    for column, name, docs, key in ((left, pair.names[0], pair.list_a, keys["a"]),
                                    (right, pair.names[1], pair.list_b, keys["b"])):
        column.text_area(f"{name}: one document id per line, in rank order", docs_text(docs), key=key,
                         height=220, max_chars=MAX_TEXT_CHARS, on_change=_on_edit, args=(prefix,),
                         disabled=not editable)
    judged, cut = st.columns([3, 1])
    judged.text_area("Judgments of both lists: doc:grade, one per line (grade 0 = judged not relevant)",
                     judgments_text(pair.judgments), key=keys["judgments"], height=110, max_chars=MAX_TEXT_CHARS,
                     on_change=_on_edit, args=(prefix,), disabled=not editable)
    number_box("k (cut-off)", key=keys["k"], min_value=1, max_value=MAX_K, name="k", target=cut, value=pair.k,
               step=1, on_change=_on_edit, args=(prefix,), disabled=not editable)
    rows = compare(pair)
    sentence = tie_sentence(pair, rows)
    (st.info if ties(rows) else st.caption)(sentence)
    table = pd.DataFrame({
        "metric": [row.label for row in rows],
        pair.names[0]: [f"{row.value_a:.4f}" for row in rows],
        pair.names[1]: [f"{row.value_b:.4f}" for row in rows],
        "B − A": [difference_text(row) for row in rows],
    })
    with st.container(key=f"{prefix}_table"):  # a handle for tests and the page's layout
        tables.table(table, hide_index=True)
    st.caption("Conventions: " + pair.conventions.describe())
    return pair


def section(query: QueryState) -> None:
    """The explorer's two-list view, built only while its expander is open; it starts from the list above."""
    expander = st.expander(":material/compare_arrows: Two lists side by side: the list above against another, "
                           "over the same judgments", key=SECTION, on_change="rerun")
    if not expander.open:
        return
    with expander:
        if get_pair(EXPLORER_PREFIX) is None:
            put_pair(EXPLORER_PREFIX, pair_from_query(query))
        st.caption("Edit list B (or A) to see which metrics move and which tie. Both lists share the judgments "
                   "below; the list above stays as it is.")
        st.button("Start again from the list above", key="two_lists_reset", icon=":material/restart_alt:",
                  on_click=lambda: put_pair(EXPLORER_PREFIX, pair_from_query(query)))
        view(EXPLORER_PREFIX)
