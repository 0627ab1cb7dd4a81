"""The run page's preflight lint (metrics.check.lint): for each run, every check of what can silently move a score,
with its count, the queries concerned and the engine's means with and without the quirk. Computed only while its
expander is open, once per files, measures and conventions."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import InputError
from metrics.check.lint import RunLines, lint_runs, read_run_lines
from metrics.conventions import Conventions
from ui.common import tables
from ui.common.text import literal

from . import data

EXPANDER = "runs_lint_open"


def lint_panel(collection: data.Collection, measures: list[str], conventions: Conventions) -> None:
    panel = st.expander("Preflight lint: what can silently move these scores", key=EXPANDER, on_change="rerun")
    if not panel.open:
        return
    with panel:
        st.caption("Each check per run, with what it found and the mean of each measure with and without the quirk "
                   "(computed, not guessed). Runs are read line by line as written.")
        try:
            with st.spinner("Linting the runs…"):
                lints = _lints(collection, measures, conventions)
        except InputError as error:
            st.error(literal(error))
            return
        for lint in lints:
            st.markdown(f"**{literal(lint.run)}**: {len(lint.found)} of {len(lint.checks)} checks found something.")
            tables.table(pd.DataFrame([{
                "check": check.title, "found": check.count_text(), "queries": check.queries_text(),
                "effect (mean with vs without)": "; ".join(effect.text() for effect in check.effects),
                "what it means": check.note,
            } for check in lint.checks]), hide_index=True, width="stretch", key=f"runs_lint_{lint.run}")


def _lints(collection: data.Collection, measures: list[str], conventions: Conventions):
    kept = st.session_state.get("runs_lint_result")
    key = (collection.key, tuple(measures), conventions)
    if kept is None or kept[0] != key:
        qrels = collection.as_dicts(next(iter(collection.runs)))[0]
        runs = []
        for name in collection.runs:
            text = collection.run_texts.get(name)  # the file as written; the built-in samples have none
            runs.append(read_run_lines(text(), name=name) if text is not None
                        else RunLines.from_mapping(name, collection.as_dicts(name)[1]))
        kept = (key, lint_runs(qrels, runs, measures, conventions))
        st.session_state["runs_lint_result"] = kept
    return kept[1]
