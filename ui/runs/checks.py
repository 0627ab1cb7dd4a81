"""The run page's checks beyond one score: is a number possible at all, and does one setting explain a table."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import InputError
from metrics.check.granularity import check_granularity
from metrics.check.table import check_table, read_table, utf8_text
from metrics.check.variants import read_query_subset
from ui.common import tables
from ui.common.numbers import number_box
from ui.common.text import literal

from . import data

#: The GRIM test's widgets (kept while their section is closed, see ui.common.state.keep_values).
GRIM_WIDGETS = ("grim_measure", "grim_value", "grim_queries")
MAX_TABLE_BYTES = 1024 * 1024
MAX_SUBSET_BYTES = 1024 * 1024


def variants(collection: data.Collection, run_name: str, measure: str, value: str, depth: int | None, *,
             matched: bool) -> None:
    """What papers vary besides conventions (BEIR's identical ids, dropped queries, neighbouring cut-offs, cut or
    uncut, a query subset): the variants that reproduce the value, each with its most common conventions. Tried
    when no convention matches, or when a query subset is given."""
    with st.expander("Means over a subset of the queries", expanded=not matched):
        upload = st.file_uploader("Query subset (one query id per line)", key="check_subset",
                                  help="Also try the mean over these queries only, as some papers report.")
    if matched and upload is None:
        return
    try:
        subset = None
        if upload is not None:
            if upload.size > MAX_SUBSET_BYTES:
                raise InputError(f"{upload.name} is {upload.size / 2**20:.1f} MiB; a query list is at most 1 MiB")
            subset = tuple(read_query_subset(utf8_text(upload.getvalue(), upload.name, "query subset")))
        with st.spinner("Trying what papers vary besides conventions…"):
            found = data.variants(collection, run_name, measure, value, depth, subset)
    except (InputError, ValueError, UnicodeDecodeError) as error:
        st.error(literal(error))
        return
    if not found:
        st.caption("Nor do the variants papers use: identical query and document ids removed, queries without a "
                   "relevant document dropped, the neighbouring cut-offs, the cut or uncut measure"
                   + (", the query subset" if subset is not None else "") + ".")
        return
    st.success("Reproduced with a change papers make besides conventions: "
               + "; ".join(f"{variant.label} ({variant.finding.matches[0].description}, "
                           f"{variant.finding.matches[0].value:.4f})" for variant in found))


def possible_at_all() -> None:
    """A GRIM test: needs only the measure, the value as printed and the number of queries."""
    st.markdown("**Is the number possible at all?** A mean of P@10 over 43 queries is a multiple of 1/430; most "
                "four-digit values are not. No files needed.")
    cols = st.columns(3, vertical_alignment="bottom")
    measure = cols[0].text_input("Measure", value="P@10", key="grim_measure", max_chars=100)
    value = cols[1].text_input("Reported value", key="grim_value", placeholder="e.g. 0.4123", max_chars=40)
    queries = number_box("Number of queries", key="grim_queries", min_value=1, max_value=1_000_000,
                         name="the number of queries", target=cols[2], value=43, step=1)
    if not value.strip():
        return
    try:
        verdict = check_granularity(measure, value, int(queries))
    except (InputError, ValueError) as error:
        st.error(literal(error))
        return
    show = {True: st.success, False: st.error, None: st.info}[verdict.possible]
    label = {True: "Possible", False: "Impossible", None: "Not decided"}[verdict.possible]
    show(f"{label}: {literal(verdict.explanation)}")


def table_check(collection: data.Collection, conventions) -> None:
    """A CSV (run, measure, value) whose runs are the uploaded ones: one setting for every row, or the rows left."""
    st.markdown("**Check a whole table.** A CSV with the columns run, measure and value (run = one of the uploaded "
                "runs' names): one set of conventions that explains every row, or the rows no setting explains.")
    upload = st.file_uploader("Table (CSV)", type=["csv", "txt"], key="table_check_csv")
    if upload is None:
        return
    try:
        if upload.size > MAX_TABLE_BYTES:
            raise InputError(f"{upload.name} is {upload.size / 2**20:.1f} MiB; a table of scores is at most 1 MiB")
        rows = read_table(utf8_text(upload.getvalue(), upload.name, "table of scores"), name=upload.name)
        qrels = collection.as_dicts(next(iter(collection.runs)))[0]
        runs = {}
        for row in rows:
            if row.run not in collection.runs:
                raise InputError(f"{upload.name} line {row.line}: no uploaded run is called {row.run!r}")
            runs[row.run] = collection.as_dicts(row.run)[1]
        with st.spinner("Trying every combination of conventions on every row…"):
            check = check_table(qrels, runs, rows, base=conventions.__class__(depth=conventions.depth))
    except (InputError, ValueError, UnicodeDecodeError) as error:
        st.error(literal(error))
        return
    if check.explained:
        st.success(f"Every row is explained by: {literal(check.describe(check.settings[0]))}")
    else:
        st.warning(f"No single setting explains every row. The most common setting that explains the most rows "
                   f"({len(check.rows) - len(check.unexplained)} of {len(check.rows)}): "
                   f"{literal(check.describe(check.best_partial or {}))}")
    unexplained = {row.line for row in check.unexplained}
    tables.table(pd.DataFrame([{"line": row.line, "run": row.run, "measure": row.measure, "reported": row.value,
                                "explained": row.line not in unexplained} for row in check.rows]),
                 hide_index=True, width="stretch", key="table_check_rows")
