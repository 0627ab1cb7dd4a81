"""The run page's judgment holes: Judged≥0@k and each measure's low and high, per query and in the means."""

from __future__ import annotations

import numpy as np
import streamlit as st

from metrics import Conventions
from metrics.engine import is_count, is_geometric
from metrics.holes import HoleTable, holes_tables

from . import data


def hole_table(collection: data.Collection, run_name: str, measures: list[str],
               conventions: Conventions) -> HoleTable:
    """The holes of one run (metrics.holes, the bulk path), kept for the session like the values."""
    cache = st.session_state.setdefault("run_holes", {})
    key = (collection.key, run_name, tuple(measures), conventions)
    if key not in cache:
        with st.spinner("Judging the holes: every unjudged document of each top k relevant…"):
            cache.clear()  # one run's holes at a time: whole runs are large
            cache[key] = holes_tables(collection.qrels, collection.runs[run_name], measures, conventions)
    return cache[key]


#: The hole's Judged@k counts grades >= 0 only; ir_measures' measure ``Judged@k`` (``-m Judged@10``) counts every
#: qrels line, negative grades too: the two differ, so they never share a name.
JUDGED_PREFIX = "Judged≥0@"
JUDGED_HELP = ("The share of the query's top k with a grade >= 0 (k = the measure's cut-off; all = the whole "
               "ranking). A negative grade counts as unjudged here, as trec_eval -J and the low/high scenarios read "
               "it; the measure Judged@k (-m Judged@10, ir_measures) counts any qrels line, negative grades too, so "
               "it can be higher.")


def judged_name(table: HoleTable, key: str) -> str:
    """The column of a measure's hole Judged@k: ``Judged≥0@10``, or ``Judged≥0@all`` for the whole ranking."""
    k = table.k(key)
    return f"{JUDGED_PREFIX}{k}" if k is not None else f"{JUDGED_PREFIX}all"


def column_help(column: str) -> str | None:
    """The help of a results column: what a hole Judged≥0@k column counts; None for the others."""
    return JUDGED_HELP if column.startswith(JUDGED_PREFIX) else None


def with_holes(qids: list[str], values: dict[str, np.ndarray], means: dict[str, float], table: HoleTable
               ) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """The per-query columns and the means with ``key low`` and ``key high`` after each measure and the Judged@k
    columns at the end, per-query columns in the order of ``qids``; the means of low and high are the means
    (counts: sums) of the per-query lows and highs, summed in sorted-qid order."""
    row = {qid: i for i, qid in enumerate(table.qids)}
    order = np.array([row[qid] for qid in qids], dtype=np.int64)
    hole_means = table.means()
    shown: dict[str, np.ndarray] = {}
    shown_means: dict[str, float] = {}
    judged: dict[str, np.ndarray] = {}
    judged_means: dict[str, float] = {}
    for key, column in values.items():
        shown[key], shown_means[key] = column, means[key]
        if key not in table.low:
            continue
        shown[f"{key} low"], shown[f"{key} high"] = table.low[key][order], table.high[key][order]
        shown_means[f"{key} low"], shown_means[f"{key} high"] = hole_means[key].low, hole_means[key].high
        name = judged_name(table, key)
        judged[name], judged_means[name] = table.judged[key][order], hole_means[key].judged
    return {**shown, **judged}, {**shown_means, **judged_means}


def holes_caption(table: HoleTable) -> str:
    """What the low, high and Judged columns mean, naming which measures have bounds and which only a range."""
    bounded = [m.key for m in table.measures if table.bounded(m.key)]
    ranges = [m.key for m in table.measures if not table.bounded(m.key)]
    if table.conventions.unjudged == "removed":
        shown = "unjudged documents removed from the rankings, as the convention chosen says"
    else:
        shown = "unjudged documents count as non-relevant, trec_eval's assumption; bpref and infAP skip them"
    text = ("Judged≥0@k: the share of each query's top k (k = the measure's cut-off; all = the whole ranking) that "
            "has a grade >= 0 (unlike the measure Judged@k, where any qrels line counts, negative grades too). "
            "low and high: the lower and the higher of two values, as judged (the value shown: "
            f"{shown}) and with every unjudged document of the top k judged relevant at the query's top grade "
            "(its largest grade, at least the relevance threshold).")
    if bounded:
        text += (f" For {', '.join(bounded)} they are bounds: no judgment of those documents moves the value "
                 "outside them.")
    if ranges:
        text += (f" For {', '.join(ranges)} they are only the range between the two scenarios, not bounds: other "
                 "judgments may fall outside.")
    return text + " " + means_text([m.key for m in table.measures])


def means_text(keys: list[str]) -> str:
    """How the means row gets low and high from the per-query ones: as trec_eval's ``all`` line gets the measure's
    own mean (an average; a sum for counts; exp of the mean log for gm_map and gm_bpref)."""
    geometric = [key for key in keys if is_geometric(key)]
    counts = [key for key in keys if is_count(key)]
    text = "The means row's low and high come from the per-query lows and highs as the measure's own mean does"
    rules = ([f"exp of the mean of the logs for {', '.join(geometric)} (a geometric mean)"] if geometric else []) + \
        ([f"their sum for {', '.join(counts)}"] if counts else [])
    if not rules:
        return text + ": their mean."
    return text + ": their mean, but " + "; ".join(rules) + "."
