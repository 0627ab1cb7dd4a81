"""The ranked-list and judgments editor.

Streamlit's data_editor keeps its own deltas relative to the frame it was given; feeding the edited frame back
as the next input loses edits. So the frame is always built from the state we own, edits are applied in an
``on_change`` callback, and the editor's key changes after each edit made in it (``state.grid_key``).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui.common import panels, state, tables
from ui.common.numbers import number_box
from ui.common.query_state import (
    NO_RANK,
    UNJUDGED_TEXT,
    QueryState,
    apply_judgment_edits,
    apply_ranking_edits,
    format_score,
    move,
    unretrieved_judgments,
)

from .holes import JUDGED_MARK, UNJUDGED_MARK

#: The ranked list's columns, in the grid's order.
RANKING_COLUMNS = ("rank", "doc", "score", "grade", "judged", "removed")


def ranking_rows(query: QueryState) -> tuple[tuple, ...]:
    """The editor's rows (RANKING_COLUMNS): the active list with its ranks, then removed documents (no rank) apart at
    the end. Rank, score and grade are text, so what a person types reaches the parser as typed: a value that is
    not a number, not whole or out of range is refused with a message instead of being rounded or clamped."""
    items = [query.items[i] for i in query.table_order]
    active = len(query.ranking)
    grade = {doc: str(g) for doc, g in query.judgments.items()}
    return tuple(
        (str(rank) if rank <= active else NO_RANK, item.doc, "" if item.score is None else format_score(item.score),
         grade.get(item.doc, UNJUDGED_TEXT), JUDGED_MARK if query.judgments.get(item.doc, -1) >= 0 else UNJUDGED_MARK,
         item.removed)
        for rank, item in enumerate(items, start=1)
    )


def ranking_frame(query: QueryState) -> pd.DataFrame:
    """:func:`ranking_rows` as the editor's frame."""
    return _ranking_frame(ranking_rows(query))


def _ranking_frame(rows: tuple[tuple, ...]) -> pd.DataFrame:
    columns = list(zip(*rows)) or [()] * len(RANKING_COLUMNS)
    return pd.DataFrame({name: pd.array(list(values), dtype="boolean" if name == "removed" else "string")
                         for name, values in zip(RANKING_COLUMNS, columns)})


def _typed(rows: tuple[tuple, ...], edited_rows: dict) -> tuple[tuple, ...] | None:
    """``rows`` as a grid given them shows them after the cell edits ``edited_rows`` (row -> column -> value), or
    None when an edit names a row or column the rows do not have."""
    shown = [list(row) for row in rows]
    for row, cells in edited_rows.items():
        position = int(row)
        if not 0 <= position < len(shown):
            return None
        for column, value in cells.items():
            if column not in RANKING_COLUMNS:
                return None
            shown[position][RANKING_COLUMNS.index(column)] = value
    return tuple(tuple(row) for row in shown)


def _refused(change, *args) -> None:
    if not state.try_commit(change, *args):
        kind, text = st.session_state[state.MESSAGE]
        st.session_state[state.MESSAGE] = (kind, f"Edit refused, the last good value is kept: {text}")


RANKING_EDITOR = "ranking_editor"
JUDGMENTS_EDITOR = "judgments_editor"


#: The panel that draws the ranked list (ui.explore), and the session key of the rows its grid was given.
RANKING_PANEL = "explore_list"
RANKING_GIVEN = "ranking_editor_given"


@panels.follow
def _on_ranking_change(key: str) -> None:
    """Apply the edits typed in the grid. The grid shows what was typed: when the list's rows are exactly that after
    the edit (a grade or a checkbox, accepted), the panel is not drawn again and the grid stays as it is; a refused
    edit, a new order or a row added or deleted draws it again, from the state."""
    changes = st.session_state[key]
    edited, added, deleted = (changes.get("edited_rows", {}), changes.get("added_rows", []),
                              changes.get("deleted_rows", []))
    _refused(apply_ranking_edits, edited, added, deleted)
    state.refresh_grid(RANKING_EDITOR)  # the grid holds these edits: the next one drawn starts from none
    given, view = st.session_state.get(RANKING_GIVEN), panels.drawn(RANKING_PANEL)
    shown = _typed(given, edited) if given is not None and view is not None and not (added or deleted) else None
    panels.now_shows(RANKING_PANEL, None if shown is None else (shown, *view[1:]))


@panels.follow
def _on_judgments_change(key: str, rows: list[str]) -> None:
    changes = st.session_state[key]
    _refused(apply_judgment_edits, rows, changes.get("edited_rows", {}), changes.get("added_rows", []),
             changes.get("deleted_rows", []))
    state.refresh_grid(JUDGMENTS_EDITOR)


def ranking_editor(query: QueryState, *, judged_column: bool = True) -> None:
    """The ranked list; ``judged_column=False`` leaves out the column that marks unjudged documents (classroom mode
    hides the judgment holes it points to)."""
    key = state.grid_key(RANKING_EDITOR)
    rows = ranking_rows(query)
    frame = _ranking_frame(rows)
    st.session_state[RANKING_GIVEN] = rows
    tables.editor(
        frame,
        key=key,
        column_order=None if judged_column else [name for name in frame.columns if name != "judged"],
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        on_change=_on_ranking_change,
        args=(key,),
        # The widths add up to the list's column at 1280 px (the narrowest width tried): no column needs a scroll.
        column_config={
            "rank": st.column_config.TextColumn(
                "rank", help="Type a new rank to move the document; removed documents have none", width=60),
            "doc": st.column_config.TextColumn("document", help="Document id (no spaces)", required=True, max_chars=200,
                                               width=110),
            "score": st.column_config.TextColumn("score", help="Optional retrieval score; trec_eval orders by it",
                                                 width=65),
            "grade": st.column_config.TextColumn("grade", help="Relevance grade, a whole number; 'unjudged' or empty = "
                                                 "unjudged, negative = unjudged in the pool", width=75),
            "judged": st.column_config.TextColumn(
                "judged", disabled=True, width=55,
                help=f"{JUDGED_MARK} judged, {UNJUDGED_MARK} unjudged: no grade >= 0 (outside the judgments, or a "
                     "negative grade). trec_eval counts it non-relevant; each metric's bracket says how far judging "
                     "it could move the value"),
            "removed": st.column_config.CheckboxColumn("removed", help="Try the list without this document", width=85),
        },
    )


#: The toggle that adds the judged documents below the relevance threshold to the "judged but not retrieved" table.
SHOW_NOT_RELEVANT = "show_unretrieved_not_relevant"


def judgments_rows(query: QueryState) -> tuple[tuple, tuple]:
    """The judged documents the list did not retrieve: those that count as relevant, and the others."""
    return tuple(unretrieved_judgments(query, relevant=True)), tuple(unretrieved_judgments(query, relevant=False))


def judgments_editor(query: QueryState, note: str = "") -> None:
    """The relevant documents the list missed, and behind a toggle the other judged documents it did not retrieve
    (a real query has hundreds judged 0); ``note``: what the missed ones count for, said in the same caption as
    their number."""
    level = query.conventions.relevance_level
    relevant = unretrieved_judgments(query, relevant=True)
    others = unretrieved_judgments(query, relevant=False)
    st.caption((f"{note}\n\n" if note else "") + f"{len(relevant):,} relevant (grade ≥ {level}) not retrieved.")
    show_all = others and st.toggle(
        f"Also show the {len(others):,} judged below the threshold (grade < {level})", key=SHOW_NOT_RELEVANT,
        help="Judged non-relevant at this threshold, or a negative grade (unjudged in the pool). nDCG still uses a "
             "positive grade below the threshold in its ideal DCG.")
    rows = unretrieved_judgments(query) if show_all else relevant
    key = state.grid_key(JUDGMENTS_EDITOR)
    frame = pd.DataFrame(
        {"doc": pd.array([doc for doc, _ in rows], dtype="string"),
         "grade": pd.array([str(grade) for _, grade in rows], dtype="string")}
    )
    tables.editor(
        frame,
        key=key,
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        on_change=_on_judgments_change,
        args=(key, [doc for doc, _ in rows]),
        column_config={
            "doc": st.column_config.TextColumn("document", required=True, max_chars=200),
            "grade": st.column_config.TextColumn("grade", help="A whole number; negative = unjudged in the pool",
                                                 required=True),
        },
    )


def _rank_labels(docs: list[str]) -> list[str]:
    # Labels carry the rank, so a select box over them changes whenever the list does (never a stale label).
    return [f"{rank}. {doc}" for rank, doc in enumerate(docs, start=1)]


@panels.follow
def _move(index: int, rank_key: str | None = None, offset: int | None = None) -> None:
    query = state.current()
    if offset is not None:
        new_rank = index + 1 + offset if offset != 0 else 1
    else:
        new_rank = int(st.session_state[rank_key])
    new_rank = max(1, min(new_rank, len(query.ranking)))
    if state.try_commit(move, index, new_rank):
        # The selection follows the document it moved; set where the box is drawn (a value a callback writes into
        # a widget is not sent to the browser when only some panels rerun: ui.common.panels).
        st.session_state[MOVED] = _rank_labels(state.current().ranking)[new_rank - 1]


#: Session key: the label the move box shows next (the document just moved).
MOVED = "move_doc_follows"


#: Width of the move controls' "to rank" box, in CSS pixels.
MOVE_RANK_WIDTH = 110


def move_controls(query: QueryState) -> None:
    """Move a document up, down, to the top or to any rank of the active list (removed documents have no rank):
    reliable in every browser, unlike drag and drop."""
    if not query.ranking:
        return
    labels = _rank_labels(query.ranking)
    moved = st.session_state.pop(MOVED, None)
    if moved in labels:
        st.session_state["move_doc"] = moved
    elif st.session_state.get("move_doc") not in labels:
        st.session_state["move_doc"] = labels[0]
    # One row (the box takes what the buttons leave): one element where columns took seven.
    with st.container(horizontal=True, vertical_alignment="bottom"):
        index = labels.index(st.selectbox("Move document", labels, key="move_doc"))
        last = len(labels) - 1
        st.button("", icon=":material/arrow_upward:", help="Move up one rank", key="move_up", on_click=_move,
                  args=(index,), kwargs={"offset": -1}, disabled=index == 0)
        st.button("", icon=":material/arrow_downward:", help="Move down one rank", key="move_down", on_click=_move,
                  args=(index,), kwargs={"offset": 1}, disabled=index == last)
        st.button("", icon=":material/vertical_align_top:", help="Move to the top", key="move_top", on_click=_move,
                  args=(index,), kwargs={"offset": 0}, disabled=index == 0)
        rank_key = f"move_rank_{index}_{len(labels)}"
        number_box("to rank", key=rank_key, min_value=1, max_value=len(labels), name="the rank", value=index + 1,
                   step=1, width=MOVE_RANK_WIDTH)
        st.button("Move", key="move_to", on_click=_move, args=(index, rank_key))
