"""The run page's "Check a reported score" tab: the conventions behind a reported value, whether a value is
possible at all, and whether one setting explains a table of reported values."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import InputError, reading_note
from metrics.measures.display import TABLE_FORMAT
from ui.common import tables
from ui.common.text import literal

from . import checks, data

#: The tab's widgets (ui.common.state.keep_values keeps what they hold while another tab is open); its file
#: uploaders cannot be kept this way (Streamlit lets no code set one).
WIDGETS = ("check_run", "check_measure", "check_value", *checks.GRIM_WIDGETS)


def check_tab(collection: data.Collection, conventions) -> None:
    finder(collection, conventions)
    st.divider()
    checks.possible_at_all()
    st.divider()
    checks.table_check(collection, conventions)


def finder(collection: data.Collection, conventions) -> None:
    st.markdown("Type a score you read somewhere. Every applicable combination of conventions is tried on these "
                "files; the ones that round to the digits you typed are listed, most common first.")
    names = list(collection.runs)
    left, middle, right = st.columns([2, 2, 2], vertical_alignment="bottom")
    name = left.selectbox("Run", names, key="check_run")
    measure = middle.text_input("Measure", value="nDCG@10", key="check_measure",
                                help="trec_eval (ndcg_cut.10) or ir_measures (nDCG@10) notation")
    value = right.text_input("Reported value", key="check_value", placeholder="e.g. 0.412 or 41.2%")
    if note := reading_note(measure):  # a name from another tool: say how it was read
        st.caption(literal(note))
    if not value.strip():
        return
    try:
        with st.spinner("Trying every combination of conventions…"):
            finding = data.find(collection, name, measure, value, conventions.depth)
    except (InputError, ValueError) as error:
        st.error(literal(error))
        return
    if finding.reported.note:
        st.info(literal(finding.reported.note))
    rows = finding.matches or finding.nearest()
    if finding.matches:
        st.success(f"{len(finding.matches)} combination(s) reproduce {literal(value.strip())} "
                   f"({finding.combinations} tried on {finding.num_queries} queries).")
    else:
        st.warning(f"No combination of conventions gives {literal(value.strip())}. The nearest values:")
        depth_notes(data.shortfalls(collection, name, measure, value, conventions.depth))
    checks.variants(collection, name, measure, value, conventions.depth, matched=bool(finding.matches))
    tables.table(pd.DataFrame({
        "value": [c.value for c in rows],
        "conventions": [c.description for c in rows],
        "used by": [", ".join(c.credits) or "—" for c in rows],
    }), hide_index=True, width="stretch", column_config={"value": st.column_config.NumberColumn(format=TABLE_FORMAT)})
    differences(rows)
    not_named(rows)
    st.caption("Searched: " + "; ".join(f"{n} ∈ {{{', '.join(map(str, v))}}}" for n, v in finding.searched.items()))


def depth_notes(shortfalls) -> None:
    """Where the run stops, and the judged relevant documents per query beyond it (a deeper run is needed)."""
    if not shortfalls:
        return
    first = shortfalls[0].headline()
    st.info(literal(first[0].upper() + first[1:] + " " + " ".join(
        shortfall.counts()[0].upper() + shortfall.counts()[1:] for shortfall in shortfalls)))
    tables.table(pd.DataFrame({"query": sorted(shortfalls[0].beyond), **{
        f"relevant beyond (grade >= {shortfall.relevant_grade})": [shortfall.beyond[qid]
                                                                     for qid in sorted(shortfalls[0].beyond)]
        for shortfall in shortfalls}}), hide_index=True, key="check_depth_table", height=200)


def not_named(rows) -> None:
    """One line per tool whose conventions give a listed value but which is not named, and the condition that
    fails on these files (metrics.check.finder: Candidate.excluded)."""
    lines = list(dict.fromkeys(line for c in rows for line in c.excluded))
    if lines:
        st.markdown("**Tools not named, and why**")
        st.markdown("\n".join(f"- {literal(line)}" for line in lines))


#: Explanations shown at once under the finder's table; the rest wait in an expander.
SHOWN_EXPLANATIONS = 3


def differences(rows) -> None:
    """How each listed combination differs from trec_eval, as text that wraps (a table cell would cut it off)."""
    st.markdown("**How each differs from trec_eval**")
    items = [f"- **{literal(c.description)}** ({c.value:.4f}): "
             + (literal(" ".join(c.explanation)) if c.explanation else "trec_eval's own result.") for c in rows]
    st.markdown("\n".join(items[:SHOWN_EXPLANATIONS]))
    if len(items) > SHOWN_EXPLANATIONS:
        with st.expander(f"{len(items) - SHOWN_EXPLANATIONS} more"):
            st.markdown("\n".join(items[SHOWN_EXPLANATIONS:]))
