"""The ranked-list and judgments editor.

Streamlit's data_editor keeps its own deltas relative to the frame it was given; feeding the edited frame back
as the next input loses edits. So the frame is always built from the state we own, edits are applied in an
``on_change`` callback, and the editor's key changes after each applied edit (see ``state.commit``).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from . import state
from .query_state import (
    QueryState,
    apply_judgment_edits,
    apply_ranking_edits,
    move,
    unretrieved_judgments,
)


def ranking_frame(query: QueryState) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "rank": pd.array(range(1, len(query.items) + 1), dtype="Int64"),
            "doc": pd.array([item.doc for item in query.items], dtype="string"),
            "score": pd.array([item.score for item in query.items], dtype="Float64"),
            "grade": pd.array([query.judgments.get(item.doc) for item in query.items], dtype="Int64"),
            "removed": pd.array([item.removed for item in query.items], dtype="boolean"),
        }
    )


def _on_ranking_change(key: str) -> None:
    changes = st.session_state[key]
    state.try_commit(
        apply_ranking_edits, changes.get("edited_rows", {}), changes.get("added_rows", []),
        changes.get("deleted_rows", []),
    )


def _on_judgments_change(key: str, rows: list[str]) -> None:
    changes = st.session_state[key]
    state.try_commit(
        apply_judgment_edits, rows, changes.get("edited_rows", {}), changes.get("added_rows", []),
        changes.get("deleted_rows", []),
    )


def ranking_editor(query: QueryState) -> None:
    key = state.editor_key("ranking_editor")
    st.data_editor(
        ranking_frame(query),
        key=key,
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        on_change=_on_ranking_change,
        args=(key,),
        column_config={
            "rank": st.column_config.NumberColumn("rank", help="Type a new rank to move the document", min_value=1, step=1,
                                                 width=60),
            "doc": st.column_config.TextColumn("document", help="Document id (no spaces)", required=True, max_chars=200,
                                               width="medium"),
            "score": st.column_config.NumberColumn("score", help="Optional retrieval score; trec_eval orders by it",
                                                   format="%.4g", width=80),
            "grade": st.column_config.NumberColumn("grade", help="Relevance grade; empty = unjudged, negative = unjudged in pool", step=1, min_value=-1000, max_value=1000, width=70),
            "removed": st.column_config.CheckboxColumn("removed", help="Try the list without this document", width=80),
        },
    )


def judgments_editor(query: QueryState) -> None:
    rows = unretrieved_judgments(query)
    key = state.editor_key("judgments_editor")
    frame = pd.DataFrame(
        {"doc": pd.array([doc for doc, _ in rows], dtype="string"), "grade": pd.array([grade for _, grade in rows], dtype="Int64")}
    )
    st.data_editor(
        frame,
        key=key,
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        on_change=_on_judgments_change,
        args=(key, [doc for doc, _ in rows]),
        column_config={
            "doc": st.column_config.TextColumn("document", required=True, max_chars=200),
            "grade": st.column_config.NumberColumn("grade", step=1, min_value=-1000, max_value=1000, required=True),
        },
    )


def _rank_labels(docs: list[str]) -> list[str]:
    # Labels carry the rank, so a select box over them changes whenever the list does (never a stale label).
    return [f"{rank}. {doc}" for rank, doc in enumerate(docs, start=1)]


def _move(index: int, rank_key: str | None = None, offset: int | None = None) -> None:
    query = state.current()
    if offset is not None:
        new_rank = index + 1 + offset if offset != 0 else 1
    else:
        new_rank = int(st.session_state[rank_key])
    new_rank = max(1, min(new_rank, len(query.items)))
    if state.try_commit(move, index, new_rank):
        # The selection follows the document it moved.
        st.session_state["move_doc"] = _rank_labels(state.current().docs)[new_rank - 1]


def move_controls(query: QueryState) -> None:
    """Move a document up, down, to the top or to any rank: reliable in every browser, unlike drag and drop."""
    if not query.items:
        return
    labels = _rank_labels(query.docs)
    cols = st.columns([4, 1, 1, 1, 2, 2], vertical_alignment="bottom")
    if st.session_state.get("move_doc") not in labels:
        st.session_state["move_doc"] = labels[0]
    index = labels.index(cols[0].selectbox("Move document", labels, key="move_doc"))
    last = len(labels) - 1
    cols[1].button("", icon=":material/arrow_upward:", help="Move up one rank", key="move_up", on_click=_move,
                   args=(index,), kwargs={"offset": -1}, disabled=index == 0, width="stretch")
    cols[2].button("", icon=":material/arrow_downward:", help="Move down one rank", key="move_down", on_click=_move,
                   args=(index,), kwargs={"offset": 1}, disabled=index == last, width="stretch")
    cols[3].button("", icon=":material/vertical_align_top:", help="Move to the top", key="move_top", on_click=_move,
                   args=(index,), kwargs={"offset": 0}, disabled=index == 0, width="stretch")
    rank_key = f"move_rank_{index}_{len(labels)}"
    cols[4].number_input("to rank", min_value=1, max_value=len(labels), value=index + 1, step=1, key=rank_key)
    cols[5].button("Move", key="move_to", on_click=_move, args=(index, rank_key), width="stretch")
