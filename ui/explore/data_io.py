"""Data in (upload or paste qrels and a run, pick a query) and data out (TREC, JSON, CSV, a pytrec_eval snippet)."""

from __future__ import annotations

import hashlib

import pyarrow.compute as pc
import streamlit as st

from metrics import InputError
from metrics.io.trec import QrelsTable, RunTable
from ui.common import state
from ui.common.query_state import QueryState
from ui.common.text import literal
from ui.common.uploads import CAP_TEXT, Kind, pasted_table, uploaded_table, uploader

from .exports import query_exports


def _read(kind: Kind, upload, pasted: str) -> QrelsTable | RunTable | None:
    """The upload (or else the pasted text) as a table, read once (ui.common.uploads)."""
    if upload is not None:
        return uploaded_table(kind, upload)
    if pasted.strip():
        return pasted_table(kind, pasted)
    return None


def _sizes(table: QrelsTable | RunTable | None) -> dict[str, int]:
    """``{qid: number of lines}`` of a table (none for a missing one)."""
    if table is None:
        return {}
    counts = pc.value_counts(table.qid)
    return dict(zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist()))


#: The download expander's state (open or closed).
DOWNLOADS = "downloads_open"


def data_in() -> None:
    with st.expander(":material/upload_file: Load your own data: TREC qrels and run files, or JSON"):
        st.caption(
            "TREC qrels (`qid 0 doc grade`) and runs (`qid Q0 doc rank score tag`), plain or .gz, or JSON in "
            f"pytrec_eval's shape `{{qid: {{doc: value}}}}`. Each file {CAP_TEXT}; "
            "whole runs go to the 'Evaluate a run' page or the command line."
        )
        left, right = st.columns(2)
        with left:
            qrels_file = uploader("qrels", key="upload_qrels", type=None)
            qrels_text = st.text_area("…or paste qrels", key="paste_qrels", height=100,
                                      placeholder="q1 0 donut 1\nq1 0 muffin 1")
        with right:
            run_file = uploader("run", key="upload_run", type=None)
            run_text = st.text_area("…or paste a run", key="paste_run", height=100,
                                    placeholder="q1 Q0 donut 1 0.95 mine\nq1 Q0 bagel 2 0.9 mine")
        try:
            qrels = _read("qrels", qrels_file, qrels_text)
            run = _read("run", run_file, run_text)
        except InputError as error:
            st.error(literal(error))
            return
        if qrels is None and run is None:
            return
        judged, retrieved = _sizes(qrels), _sizes(run)
        qids = sorted(set(judged) | set(retrieved))
        if not qids:
            st.warning("No queries found.")
            return
        st.caption(f"{len(judged)} judged queries, {len(retrieved)} queries in the run.")
        # The counts are part of each option, so the box changes whenever the files do (never a stale label).
        options = {f"{q} ({retrieved.get(q, 0)} retrieved, {judged.get(q, 0)} judged)": q for q in qids}
        if st.session_state.get("pick_query") not in options:
            st.session_state["pick_query"] = next(iter(options))
        qid = options[st.selectbox("Query", list(options), key="pick_query")]
        if st.button("Open this query in the editor", key="open_query", type="primary"):
            _open(qid, qrels.query(qid) if qrels is not None else {}, run.query(qid) if run is not None else {})


#: Set when a query was just opened: the next run brings the page's top (its title, the query's cards and the
#: list's heading) into view; the upload section sits thousands of pixels below, where the page would stay.
SCROLL_TO_TOP = "scroll_to_top"
#: Key of the container that holds the page's title (its CSS class is ``st-key-`` + the key).
TOP_ANCHOR = "explore_top"


def _open(qid: str, judgments: dict[str, int], scores: dict[str, float]) -> None:
    state.open_query(qid, judgments, scores)
    st.session_state[SCROLL_TO_TOP] = True
    st.rerun()


def scroll_to_top_once() -> None:
    """Once after a query was opened: scroll the page back to its title. The script is the page's own text (no
    user text in it)."""
    if st.session_state.pop(SCROLL_TO_TOP, False):
        st.html(f"<script>document.querySelector('.st-key-{TOP_ANCHOR}')?.scrollIntoView({{block: 'start'}});"
                "</script>", unsafe_allow_javascript=True, width="content")


def data_out(query: QueryState, rows: list[tuple[str, str, float]]) -> None:
    """Downloads that reproduce the page; ``rows`` are the page's (label, measure, value) triples. Built only while
    the expander is open: each download button sends its file to the browser on every rerun."""
    downloads = st.expander(":material/download: Download this query: TREC files, JSON, metrics CSV, Python snippet",
                            key=DOWNLOADS, on_change="rerun")
    if not downloads.open:
        return
    with downloads:
        files = query_exports(query, rows)
        digest = hashlib.sha1(files.snippet.encode()).hexdigest()[:6]
        for note in files.notes:
            st.caption(literal(note))
        cols = st.columns(5)
        buttons = [("qrels (TREC)", files.qrels_trec, f"{files.name}.qrels", "text/plain", "dl_qrels"),
                   ("run (TREC)", files.run_trec, f"{files.name}.run", "text/plain", "dl_run"),
                   ("JSON", files.json, f"{files.name}.json", "application/json", "dl_json"),
                   ("metrics (CSV)", files.csv, f"{files.name}-metrics.csv", "text/csv", "dl_csv"),
                   (f"Python ({files.tool})", files.snippet, f"{files.name}-{digest}.py", "text/x-python", "dl_python")]
        for column, (label, text, file_name, mime, key) in zip(cols, buttons):
            # The file itself, not a callable: Streamlit names a file by a hash of its content and keeps one that a
            # rerun replaced until the end of the run after it, so the link a browser still holds while a rerun
            # starts keeps working (a callable's id is new on every run and forgotten when that run ends). A click
            # does not rerun the page: nothing on it depends on a download.
            column.download_button(label, text, file_name, mime, key=key, on_click="ignore")
        st.code(files.snippet, language="python")
