"""The run page's comparison of many runs: corrected tests, intervals, risk, and the report table to download."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import InputError
from metrics.compare import compare_values_many, report_table, risk_report
from metrics.compare.many import CORRECTION_NAMES, TEST_NAMES, ManyComparison
from metrics.compare.report import RISK_COLUMNS, risk_note, risk_rows, run_letter
from metrics.many_runs import missing_from
from metrics.measures.display import TABLE_DELTA_FORMAT, TABLE_FORMAT, UNBOUNDED_NOTE, statistic
from ui.common import tables
from ui.common.text import literal

SETTINGS = "significance_settings"
#: The sidebar's "Judged queries absent from the run" select box (ui.runs.data.settings): the button that offers
#: trec_eval's -c sets it, so the per-query tab and this table keep counting the same queries.
MISSING_QUERIES_KEY = "runs_convention_missing_queries"
#: The report's widgets (kept while another tab is open, see ui.common.state.keep_values).
WIDGETS = ("many_runs", "many_measures", "many_baseline", "many_test", "many_correction", "many_alpha",
           "many_risk_alpha")
RESAMPLES = 2_000


def significance_section(results: dict, conventions, qrels_name: str, missing: dict | None = None) -> None:
    """Every selected run on every selected measure: the report table, each pair, and risk against a baseline.
    ``missing``: per run, the judged queries it lacks (by default, those other runs' results have and its lack;
    needed with missing queries scored 0, where every run's results have every judged query)."""
    names = list(results)
    scores = [key for key in results[names[0]][1] if not key.startswith(("num_", "Num"))]
    st.markdown("**All runs at once**: a paired test for every pair (or every run against a baseline), corrected "
                "for the number of pairs, with bootstrap intervals.")
    top = st.columns([3, 3, 2])
    # The chips wrap onto more rows: in a column they would stay in one row and cut the last runs off.
    runs = top[0].multiselect("Runs", names, default=names, key="many_runs", wrap=True)
    measures = top[1].multiselect("Measures", scores, default=scores[:2], key="many_measures", wrap=True)
    baseline = top[2].selectbox("Baseline", ["(every pair)", *runs], key="many_baseline")
    bottom = st.columns([3, 3, 2])
    test = bottom[0].selectbox("Test", list(TEST_NAMES), format_func=TEST_NAMES.get, key="many_test")
    correction = bottom[1].selectbox("Correction", list(CORRECTION_NAMES), format_func=CORRECTION_NAMES.get,
                                     key="many_correction", disabled=test == "tukey",
                                     help="Tukey's HSD controls the family-wise error itself.")
    alpha = bottom[2].selectbox("alpha", [0.05, 0.01, 0.1], key="many_alpha")
    if len(runs) < 2 or not measures:
        st.info("Choose at least two runs and one measure.")
        return
    values = {measure: {run: dict(zip(results[run][0], results[run][1][measure].tolist())) for run in runs}
              for measure in measures}
    try:
        comparison = _compare(values, test, correction, alpha, None if baseline == "(every pair)" else baseline,
                              conventions, None if missing is None else {run: tuple(missing[run]) for run in runs})
    except InputError as error:
        st.error(literal(error))
        return
    coverage(comparison)
    if comparison.warning is not None:
        st.warning(comparison.warning)
    report(comparison, qrels_name)
    pairs_table(comparison)
    if comparison.baseline is not None:
        risk_table(comparison)


@st.cache_data(max_entries=8, show_spinner="Testing every pair and bootstrapping the intervals…")
def _compare(values, test, correction, alpha, baseline, _conventions, missing) -> ManyComparison:
    return compare_values_many(values, test=test, correction=correction, alpha=alpha, baseline=baseline,
                               resamples=RESAMPLES, conventions=_conventions, missing=missing)


def coverage(comparison: ManyComparison) -> None:
    """Which queries the means are over and what each run lacks, with the other choice one click away: leave the
    queries a run lacks out of every run (trec_eval's default) or score them 0 (trec_eval -c)."""
    if not comparison.incomplete_runs():
        return
    st.warning(" ".join(comparison.coverage(literal)))
    missing_queries_button(comparison.conventions.missing_queries == "zero", key="many")


def missing_queries_button(zero: bool, *, key: str) -> None:
    """The other choice for judged queries a run lacks, one click away (keys ``{key}_zero_missing`` and
    ``{key}_skip_missing``): it sets the sidebar's convention, so every tab counts the same queries."""
    if zero:
        st.button("Leave a query a run lacks out of every run instead (trec_eval's default)",
                  key=f"{key}_skip_missing", on_click=_set_missing_queries, args=("skip",),
                  icon=":material/filter_alt:")
    else:
        st.button("Score a query a run lacks as 0 instead (trec_eval -c)", key=f"{key}_zero_missing",
                  on_click=_set_missing_queries, args=("zero",), icon=":material/exposure_zero:",
                  help="Every judged query counts in every run's mean, as trec_eval -c counts it; sets the sidebar's "
                       "convention for judged queries absent from the run, so every tab agrees.")


def missing_queries(collection) -> dict[str, tuple[str, ...]]:
    """Per run of a :class:`ui.runs.data.Collection`, the judged queries it lacks (sorted)."""
    return {name: missing_from(collection.qrels, run.qids) for name, run in collection.runs.items()}


def _set_missing_queries(value: str) -> None:
    st.session_state[MISSING_QUERIES_KEY] = value


def report(comparison: ManyComparison, qrels_name: str) -> None:
    letters = {run: run_letter(i) for i, run in enumerate(comparison.runs)}
    incomplete = comparison.incomplete_runs()
    rows = []
    for run in comparison.runs:
        row = {"run": f"({letters[run]}) {run}"}
        if incomplete:
            lacks = incomplete.get(run, ())
            row["judged queries it lacks"] = (", ".join(lacks[:5]) + (f" and {len(lacks) - 5:,} more"
                                                                      if len(lacks) > 5 else ""))
        for measure in comparison.measures:
            mean = comparison.mean(measure, run)
            beaten = "".join(letters[other] for other in comparison.beaten_by(measure, run))
            row[measure] = f"{mean.mean:.4f}" + (f" ^{beaten}" if beaten else "")
            row[f"{measure} interval"] = f"[{mean.interval.low:.4f}, {mean.interval.high:.4f}]"
        rows.append(row)
    tables.table(pd.DataFrame(rows), hide_index=True, width="stretch", key="many_report")
    st.caption(f"^ the runs each run beats significantly ({comparison.describe()}). Intervals: "
               f"{ {'bca': 'BCa'}.get(comparison.means[0].interval.method, comparison.means[0].interval.method)} "
               f"bootstrap, {RESAMPLES:,} resamples, "
               f"{1 - comparison.alpha:.0%} confidence.")
    left, right = st.columns(2)
    # A click does not rerun the page (nothing on it depends on a download).
    markdown = report_table(comparison, fmt="markdown", qrels_name=qrels_name)
    left.download_button("Download the table (Markdown)", markdown, "results.md", "text/markdown",
                         key="many_download_markdown", icon=":material/download:", on_click="ignore")
    latex = report_table(comparison, fmt="latex", qrels_name=qrels_name)
    right.download_button("Download the table (LaTeX)", latex, "results.tex", "text/x-tex", key="many_download_latex",
                          icon=":material/download:", on_click="ignore")


def _pair_columns() -> dict:
    """The pairs table's ten columns in the page's width at 1280 px: each number gets the width it needs, two long
    headers a short label (their help says them whole), and the names of the measure and the runs the rest."""
    return {
        "B − A": st.column_config.NumberColumn(format=TABLE_DELTA_FORMAT, width=65),
        "interval": st.column_config.TextColumn(width=125),
        "effect size d_z": st.column_config.TextColumn(
            "d_z", width=55, alignment="right",
            help="Effect size d_z: the mean difference over the standard deviation of the differences. "
                 + UNBOUNDED_NOTE),
        "p": st.column_config.NumberColumn(format=TABLE_FORMAT, width=60),
        "p adjusted": st.column_config.NumberColumn(format=TABLE_FORMAT, width=80),
        "significant": st.column_config.CheckboxColumn(width=80),
        "B wins / ties / losses": st.column_config.TextColumn(
            "W / T / L", width=75, help="Queries where B wins / ties / loses against A"),
    }


def pairs_table(comparison: ManyComparison) -> None:
    rows = [{
        "measure": pair.measure, "B": pair.run_b, "A": pair.run_a, "B − A": pair.difference,
        "interval": f"[{pair.interval.low:+.4f}, {pair.interval.high:+.4f}]",
        "effect size d_z": statistic(pair.effect_size),
        "p": pair.p_value, "p adjusted": pair.p_adjusted, "significant": pair.significant,
        "B wins / ties / losses": f"{pair.wins} / {pair.ties} / {pair.losses}",
    } for pair in comparison.pairs]
    against = "Every pair" if comparison.baseline is None else f"Each run against {literal(comparison.baseline)}"
    with st.expander(f"{against} ({comparison.tests_counted()})", expanded=len(rows) <= 6):
        tables.table(pd.DataFrame(rows), hide_index=True, width="stretch", key="many_pairs", placeholder="",
                     column_config=_pair_columns())


def risk_table(comparison: ManyComparison) -> None:
    alpha = st.slider("Risk aversion alpha (URisk counts each loss 1 + alpha times)", 0.0, 5.0, 1.0, 0.5,
                      key="many_risk_alpha")
    rows = [dict(zip(RISK_COLUMNS, (*row[:-1], statistic(row[-1])))) for row in risk_rows(comparison, alpha)]
    st.markdown(f"**Risk against {literal(comparison.baseline)}**")
    columns = {name: st.column_config.NumberColumn(format=TABLE_FORMAT)
               for name in ("total gain", "total loss", "worst loss", "URisk")}
    tables.table(pd.DataFrame(rows), hide_index=True, width="stretch", key="many_risk",
                 column_config={**columns, "TRisk": st.column_config.TextColumn(alignment="right")})
    st.caption(risk_note(comparison, alpha, literal))
    buttons = st.columns(3)
    # A click does not rerun the page (nothing on it depends on a download).
    for column, (fmt, label, file_name, mime) in zip(buttons, (
            ("markdown", "Markdown", "risk.md", "text/markdown"), ("latex", "LaTeX", "risk.tex", "text/x-tex"),
            ("csv", "CSV", "risk.csv", "text/csv"))):
        column.download_button(f"Download the risk table ({label})", risk_report(comparison, alpha=alpha, fmt=fmt),
                               file_name, mime, key=f"many_risk_download_{fmt}", icon=":material/download:",
                               on_click="ignore")
