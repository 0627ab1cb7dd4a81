"""The run page's "Judge the holes" tab: the unjudged documents whose judgment would move a mean (or the difference
of two runs) the most, graded here; every number of the page then uses the qrels plus these judgments."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from metrics import InputError, parse_measures
from metrics.bulk import evaluate_tables
from metrics.engine import is_geometric
from metrics.judging import MAX_CANDIDATES, MAX_K, Holes, additions_to_trec, find_holes, merged_trec
from metrics.measures.display import card, card_delta
from ui.common import state, tables
from ui.common.numbers import number_box
from ui.common.text import MAX_FILTER_CHARS, literal, matches_filter

from . import data

#: Candidates shown (and gradable) at once.
MAX_SHOWN = 200
#: The merged qrels (original lines plus additions) is offered for download up to this size.
MAX_MERGED_BYTES = 64 * 2**20
#: The largest grade typed here (the explorer's limit too).
MAX_GRADE = 1000
ONE_RUN = "(one run)"
#: The tab's widgets (kept while another tab is open, see ui.common.state.keep_values); the grading table is not
#: kept (Streamlit lets no code set a data editor), its grades are applied as they are typed.
WIDGETS = ("judge_run", "judge_other", "judge_measure", "judge_k", "judge_filter", "judge_shown", "judge_pick",
           "judge_grade")


def added_banner(collection: data.Collection) -> None:
    """Above the tabs: how many judgments were added, and a button to discard them. The container is there even
    when empty, so the tabs below keep their place (and the open tab stays open) when the first judgment is added."""
    grades = data.added_judgments(collection)
    banner = st.container()
    if not grades:
        return
    left, right = banner.columns([5, 2], vertical_alignment="center")  # the button whole at 1280 px
    left.info(f"{len(grades)} judgment{'s' if len(grades) != 1 else ''} added on this page (tab \"Judge the holes\"): "
              f"every number below uses {literal(collection.original.qrels_name if collection.original else '')} "
              "plus them.", icon=":material/rate_review:")
    right.button("Discard added judgments", key="judge_discard", on_click=_discard, icon=":material/delete:",
                 width="stretch")


@st.fragment
def judge_tab(collection: data.Collection, results: dict, measures: list[str], conventions) -> None:
    """A change of the tab's own widgets (runs, measure, k, filter, documents shown) reruns the tab alone: the
    sidebar, the other panels and the hidden tabs' kept values are as they were. Adding or discarding a judgment
    changes every number of the page, so those callbacks rerun the whole page."""
    st.markdown("The unjudged documents of the top k, most influential first: the **influence** is how far the mean "
                "(or, for two runs, the mean difference B − A) moves if that one document is judged relevant at its "
                "query's highest grade instead of non-relevant, as trec_eval counts it. Grade them here: the whole "
                "page then uses your judgments.")
    names = list(collection.runs)
    by_key = {m.key: m for spec in measures for m in parse_measures(spec)}
    keys = [key for key in results[names[0]][1] if not key.startswith(("num_", "Num")) and not is_geometric(key)]
    if not keys:
        st.info("Pick a measure in the sidebar that averages over queries (not a count or a geometric mean).")
        return
    top = st.columns([3, 3, 2, 1])
    name_a = top[0].selectbox("Run (A)", names, key="judge_run")
    name_b = top[1].selectbox("Compared with (B)", [ONE_RUN] + [n for n in names if n != name_a], key="judge_other",
                              help="Two runs: the documents one retrieves in its top k and the other does not.")
    measure = by_key[top[2].selectbox("Measure", keys, key="judge_measure")]
    k = int(number_box("k", key="judge_k", min_value=1, max_value=MAX_K, target=top[3],
                           value=data.explorer_k(measures)))
    pattern = st.text_input("Only the queries matching (text, or a pattern with * and ?)", key="judge_filter",
                            max_chars=MAX_FILTER_CHARS, placeholder="all queries")
    run_names = (name_a,) if name_b == ONE_RUN else (name_a, name_b)
    change_so_far(collection, results, run_names, measure, conventions)
    try:
        holes = _holes(collection, run_names, measure, k, pattern, conventions)
    except InputError as error:
        st.error(literal(error))
        return
    if holes.message:
        (st.info if holes.searched == 0 else st.success)(holes.message)
    else:
        candidates(holes, pattern)
    added_panel(collection)


def change_so_far(collection: data.Collection, results: dict, run_names: tuple[str, ...], measure,
                  conventions) -> None:
    """The mean (or mean difference) now, and its change since the qrels as uploaded."""
    after = _means(results, run_names, measure.key)
    original = collection.original
    before = after if original is None else _means(_before(original, run_names, measure, conventions), run_names,
                                                   measure.key)
    label = (f"mean {measure.key} of {run_names[0]}" if len(run_names) == 1
             else f"mean {measure.key}: {run_names[1]} − {run_names[0]} (B − A)")
    columns = st.columns(3)
    columns[0].metric(literal(label), card_delta(after) if len(run_names) == 2 else card(after),
                      delta=None if original is None else card_delta(after - before), delta_color="off")
    if original is not None:
        columns[1].metric("before the added judgments", card_delta(before) if len(run_names) == 2 else card(before))
        columns[2].metric("judgments added", len(data.added_judgments(collection)))


def candidates(holes: Holes, pattern: str) -> None:
    queries = "the queries matching the filter" if pattern else f"the {holes.queries} queries"
    st.caption(f"{holes.found} unjudged document{'s' if holes.found != 1 else ''} "
               + ("in one run's top " if len(holes.runs) == 2 else "in the top ") + f"{holes.k} of {queries}"
               + (" and not in the other's" if len(holes.runs) == 2 else "")
               + f"; influence on the mean over {holes.queries} queries"
               + (" both runs answer." if len(holes.runs) == 2 else "."))
    if holes.capped:
        st.info(f"Influence is computed for the {len(holes.holes):,} highest-ranked of these {holes.found:,} "
                f"documents (the limit is {MAX_CANDIDATES:,}). Filter the queries or lower k to reach the others.")
    shown = int(number_box("Documents shown", key="judge_shown", min_value=1, max_value=MAX_SHOWN,
                               name="the number of documents shown", value=min(20, MAX_SHOWN)))
    rows = holes.holes[:shown]
    frame = pd.DataFrame({
        "query": [h.qid for h in rows],
        "document": [h.doc for h in rows],
        **{f"rank in {'AB'[i]}": pd.array([h.ranks[i] for h in rows], dtype="Int64") for i in range(len(holes.runs))},
        "in qrels": ["—" if h.grade is None else str(h.grade) for h in rows],
        "influence": [h.influence for h in rows],
        "if relevant": [h.relevant_grade for h in rows],
        "grade": pd.array([None] * len(rows), dtype="Int64"),
    })
    editor_key = f"judge_editor_{st.session_state.setdefault('judge_editor_generation', 0)}"
    with st.form("judge_form", border=False):
        # Missing values (your grade before one is typed, a rank in a run that does not retrieve the document)
        # show as empty cells, not as "None".
        tables.editor(frame, key=editor_key, hide_index=True, width="stretch", disabled=list(frame.columns[:-1]),
                      placeholder="", column_config={
                          **{f"rank in {run}": st.column_config.NumberColumn(help=(
                              f"The document's rank in run {run}; empty: run {run} does not retrieve it (or not "
                              "within the depth)")) for run in "AB"[:len(holes.runs)]},
                          "influence": st.column_config.NumberColumn(format="%+.5f", help=(
                              "Change of the mean (two runs: of B − A) if this document alone is judged relevant "
                              "at its query's highest grade")),
                          "if relevant": st.column_config.NumberColumn(help="The grade the influence assumes"),
                          "in qrels": st.column_config.TextColumn(
                              help="— not in the qrels; negative: pooled, unjudged"),
                          "grade": st.column_config.NumberColumn("your grade", min_value=0, max_value=MAX_GRADE,
                                                                 step=1, help="0 = not relevant; empty = not graded"),
                      })
        st.form_submit_button("Add the grades typed in the table", on_click=_add_from_editor,
                              args=(editor_key, [(h.qid, h.doc) for h in rows]), icon=":material/add:")
    st.markdown("Or grade one document:")
    pick, grade, add = st.columns([4, 1, 2], vertical_alignment="bottom")
    # Options are the documents themselves: once one is judged it leaves the list, and the box moves on.
    influence = {_label(h): h.influence for h in rows}
    # A new question (runs, measure, k, filter) starts at its most influential document: a document kept from the
    # previous question would sit in the box with an influence that no longer heads the table.
    question = (holes.runs, holes.measure, holes.k, pattern)
    if st.session_state.get("judge_pick_question") != question and rows:
        st.session_state["judge_pick_question"] = question
        st.session_state["judge_pick"] = _label(rows[0])
    pick.selectbox("Document", list(influence), key="judge_pick",
                   format_func=lambda label: f"{label} ({influence[label]:+.5f})")
    number_box("Grade", key="judge_grade", min_value=0, max_value=MAX_GRADE, name="the grade", target=grade,
               value=1, step=1)
    add.button("Add judgment", key="judge_add", on_click=_add_one, args=({_label(h): (h.qid, h.doc) for h in rows},),
               icon=":material/add:", width="stretch")


def _label(hole) -> str:
    return f"{hole.qid} · {hole.doc}"


def added_panel(collection: data.Collection) -> None:
    grades = data.added_judgments(collection)
    if not grades:
        return
    st.subheader(f"Added judgments ({len(grades)})")
    tables.table(pd.DataFrame({"query": [q for q, _ in grades], "document": [d for _, d in grades],
                               "grade": list(grades.values())}), hide_index=True, width="stretch",
                 key="judge_added_table")
    try:  # the writers refuse ids that TREC's spelling would merge, and grades for judged documents
        added, merged, refusal = additions_to_trec(grades), _merged_text(collection, grades), None
    except InputError as error:
        added, merged, refusal = None, None, error
    # One row of buttons as wide as their labels, wrapping when the page is narrow (three equal columns cut the
    # download labels at 1280 px).
    buttons = st.container(horizontal=True, key="judge_added_buttons")
    if added is not None:
        buttons.download_button("Download the added judgments (qrels)", added, "added.qrels", "text/plain",
                                key="judge_download_added", icon=":material/download:", on_click="ignore")
    if merged is not None:
        buttons.download_button("Download the qrels with them (qrels)", merged, "merged.qrels", "text/plain",
                                key="judge_download_merged", icon=":material/download:", on_click="ignore")
    buttons.button("Discard added judgments", key="judge_discard_panel", on_click=_discard, icon=":material/delete:")
    if refusal is not None:
        st.error(literal(refusal))
        return
    st.caption("Added lines carry `added` in the second (iteration) field, which trec_eval ignores. The qrels with "
               "them keeps every uploaded line as it was, except a pooled line (negative grade) you graded, which "
               "your line replaces in place; the others follow at the end."
               + ("" if merged is not None else f" The merged file is offered for qrels up to "
                  f"{MAX_MERGED_BYTES // 2**20} MiB; for larger ones, append the added judgments to your file."))


# ---- state -------------------------------------------------------------------------------------------------------


def _holes(collection: data.Collection, run_names: tuple[str, ...], measure, k: int, pattern: str,
           conventions) -> Holes:
    """find_holes on the qrels with the added judgments, kept for the session (one result)."""
    key = (collection.key, run_names, measure, k, pattern, conventions)
    kept = st.session_state.get("judge_holes")
    if kept is None or kept[0] != key:
        qids = None
        if pattern:
            evaluated = set().union(*(set(collection.runs[name].qids) for name in run_names))
            qids = [qid for qid in evaluated if matches_filter(str(qid), pattern)]
        with st.spinner("Scoring every unjudged document of the top k…"):
            holes = find_holes(collection.qrels, {name: collection.runs[name] for name in run_names}, measure, k,
                               qids=qids, conventions=conventions, limit=MAX_CANDIDATES)
        kept = st.session_state["judge_holes"] = (key, holes)
    return kept[1]


def _before(original: data.Collection, run_names: tuple[str, ...], measure, conventions) -> dict:
    key = (original.key, run_names, measure, conventions)
    kept = st.session_state.get("judge_before")
    if kept is None or kept[0] != key:
        kept = st.session_state["judge_before"] = (key, {
            name: evaluate_tables(original.qrels, original.runs[name], [measure], conventions) for name in run_names})
    return kept[1]


def _means(results: dict, run_names: tuple[str, ...], key: str) -> float:
    """The mean of one run, or the mean of B − A over the queries both runs are evaluated on."""
    if len(run_names) == 1:
        return float(results[run_names[0]][2][key])
    qids_a, values_a, _ = results[run_names[0]]
    qids_b, values_b, _ = results[run_names[1]]
    a = dict(zip(qids_a, values_a[key].tolist()))
    b = dict(zip(qids_b, values_b[key].tolist()))
    paired = sorted(set(a) & set(b))
    return float(np.mean([b[q] - a[q] for q in paired])) if paired else 0.0


def _merged_text(collection: data.Collection, grades: dict) -> bytes | None:
    source = collection.original if collection.original is not None else collection
    if source.qrels_text is None:
        return None
    key = (source.key, tuple(sorted(grades.items())))
    kept = st.session_state.get("judge_merged_text")
    if kept is None or kept[0] != key:
        original = source.qrels_text()
        text = None if len(original) > MAX_MERGED_BYTES else merged_trec(original, grades)
        kept = st.session_state["judge_merged_text"] = (key, text)
    return kept[1]


def _add(pair: tuple[str, str], grade: object) -> bool:
    """Add one judgment; refuse (with the page's message) a grade that is not a whole number from 0 to MAX_GRADE."""
    if grade is None or (isinstance(grade, float) and math.isnan(grade)):
        return False
    if not float(grade).is_integer() or not 0 <= grade <= MAX_GRADE:
        st.session_state[state.MESSAGE] = ("error", f"Grade {literal(grade)} for {literal(pair[1])} was not added: "
                                                    f"grades are whole numbers from 0 to {MAX_GRADE}.")
        return False
    st.session_state[data.ADDED]["grades"][pair] = int(grade)
    return True


def _add_from_editor(editor_key: str, pairs: list[tuple[str, str]]) -> None:
    changes = st.session_state.get(editor_key) or {}
    for row, change in changes.get("edited_rows", {}).items():
        if "grade" in change and int(row) < len(pairs):
            _add(pairs[int(row)], change["grade"])
    st.session_state["judge_editor_generation"] = st.session_state.get("judge_editor_generation", 0) + 1
    st.rerun()  # every number of the page uses the judgments: the whole page, not the tab's fragment


def _add_one(pairs: dict[str, tuple[str, str]]) -> None:
    choice = st.session_state.get("judge_pick")
    if choice in pairs:
        _add(pairs[choice], st.session_state.get("judge_grade"))
    st.rerun()  # every number of the page uses the judgments: the whole page, not the tab's fragment


def _discard() -> None:
    st.session_state[data.ADDED]["grades"] = {}
    st.rerun()  # from the tab's fragment too: every number of the page changes back
