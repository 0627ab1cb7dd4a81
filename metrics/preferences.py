"""The front door of trec_eval's other judgment formats: a run evaluated against a preference file (``-R prefs``,
``-R qrels_prefs``) or judgment-group qrels (``-R qrels_jg``), and trec_eval's z-scores (``-Z``) of any per-query
values.

Queries are those of the judgments that the run answers, in byte order of their ids, as trec_eval walks them.
Each query's documents are ranked as trec_eval ranks them for these measures: score descending, ties by doc id
ascending for preferences (form_prefs_counts.c) and descending for qrels_jg (form_res_rels_jg.c), scores read as
4-byte floats by trec_eval 9.0.8 and as doubles by 10.0, then cut at -M.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .io.preferences import read_preferences, read_qrels_jg
from .io.read import read_run_path
from .measures.preferences import (
    PREFERENCE_MEASURES,
    PreferenceError,
    map_avgjg,
    p_avgjg,
    preference_counts,
    rprec_mult_avgjg,
)
from .model import InputError

#: trec_eval's value for a z-score it cannot compute (no mean for that query and measure, or a zero deviation
#: with a value other than the mean).
MISSING_ZSCORE = -1000000.0


@dataclass(frozen=True)
class PreferenceSelection:
    """One measure with its output keys: ``P_avgjg`` -> ``P_avgjg_5``, ...; ``cutoffs`` as given or the default."""

    name: str
    cutoffs: tuple[float, ...] = ()

    @property
    def keys(self) -> list[str]:
        if not self.cutoffs:
            return [self.name]
        if self.name == "Rprec_mult_avgjg":
            return [f"{self.name}_{cut:3.2f}" for cut in self.cutoffs]
        return [f"{self.name}_{int(cut)}" for cut in self.cutoffs]


@dataclass(frozen=True)
class PreferenceResult:
    qids: list[str]
    values: dict[str, np.ndarray]  # output key -> one value per query
    counts: frozenset[str]  # the keys that are counts (summed on the 'all' line, printed as integers)
    runid: str


def evaluate_preference_files(judgments_path: str, run_path: str, format: str,
                              measures: Sequence[PreferenceSelection], *, depth: int | None = None,
                              relevance_level: int = 1, single_precision: bool = False) -> PreferenceResult:
    """Evaluate one run file against a ``format`` judgments file (``prefs``, ``qrels_prefs`` or ``qrels_jg``);
    ``single_precision``: scores compared as 4-byte floats (trec_eval 9.0.8's --score-precision float32)."""
    for selection in measures:
        if format not in PREFERENCE_MEASURES[selection.name].formats:
            wanted = " or ".join(f"-R {f}" for f in PREFERENCE_MEASURES[selection.name].formats)
            raise InputError(f"-m {selection.name} needs {wanted}; -R {format} gives the measures "
                             f"{', '.join(n for n, m in PREFERENCE_MEASURES.items() if format in m.formats)}")
    if format == "qrels_jg":
        judgments = read_qrels_jg(judgments_path)
    else:
        judgments = read_preferences(judgments_path, format)
    run = read_run_path(run_path)
    rankings = run.to_dict()
    qids = sorted((qid for qid in judgments if qid in rankings), key=lambda qid: qid.encode())
    keys = [key for selection in measures for key in selection.keys]
    values = {key: np.zeros(len(qids)) for key in keys}
    for row, qid in enumerate(qids):
        ranked = _ranked(rankings[qid], ascending_ties=format != "qrels_jg", single=single_precision)
        if depth is not None:
            ranked = ranked[:depth]
        if format == "qrels_jg":
            scores = _group_scores(judgments[qid], ranked, measures, relevance_level)
        else:
            try:
                counts = preference_counts(judgments[qid], ranked)
            except PreferenceError as error:
                raise InputError(f"{judgments_path}: query {qid!r}: {error}") from None
            scores = {s.name: PREFERENCE_MEASURES[s.name].kernel(counts) for s in measures}
        for selection in measures:
            found = scores[selection.name]
            for key, value in zip(selection.keys, found if selection.cutoffs else [found]):
                values[key][row] = value
    counts_keys = frozenset(s.name for s in measures if PREFERENCE_MEASURES[s.name].is_count)
    return PreferenceResult(qids, values, counts_keys, run.runid)


def _ranked(scores: Mapping[str, float], *, ascending_ties: bool, single: bool) -> list[str]:
    """Doc ids in trec_eval's order for these measures; ``single``: scores compared as 4-byte floats (9.0.8)."""
    docs = list(scores)
    values = np.array([scores[doc] for doc in docs], dtype=np.float32 if single else np.float64)
    keyed = sorted(zip((-values).tolist(), docs)) if ascending_ties else sorted(
        zip(values.tolist(), docs), reverse=True)
    return [doc for _, doc in keyed]


def _group_scores(groups: Mapping[str, Mapping[str, int]], ranked: Sequence[str],
                  measures: Sequence[PreferenceSelection], level: int) -> dict:
    """map_avgjg, P_avgjg and Rprec_mult_avgjg of one query: its judgment groups in byte order of their ids."""
    grades_by_group, relevant_by_group = [], []
    for jg in sorted(groups, key=lambda name: name.encode()):
        judged = groups[jg]
        grades_by_group.append(np.array([judged.get(doc, -1) if judged.get(doc, -1) >= 0 else -1 - (doc in judged)
                                         for doc in ranked], dtype=np.int64))
        relevant_by_group.append(sum(1 for grade in judged.values() if grade >= 0 and grade >= level))
    scores: dict = {}
    for selection in measures:
        if selection.name == "map_avgjg":
            scores[selection.name] = map_avgjg(grades_by_group, relevant_by_group, level)
        elif selection.name == "P_avgjg":
            scores[selection.name] = p_avgjg(grades_by_group, [int(c) for c in selection.cutoffs], level)
        else:
            scores[selection.name] = rprec_mult_avgjg(grades_by_group, relevant_by_group, selection.cutoffs, level)
    return scores


def zscores_of(qids: Sequence[str], values: Mapping[str, np.ndarray],
               table: Mapping[tuple[str, str], tuple[float, float]]) -> dict[str, np.ndarray]:
    """trec_eval's -Z: each per-query value as (value - mean) / stddev against the table's line for that query and
    measure; :data:`MISSING_ZSCORE` when the table lacks it, or when stddev is 0 and the value is not the mean (0
    when it is)."""
    converted = {}
    for key, column in values.items():
        out = np.empty(len(qids))
        for row, qid in enumerate(qids):
            value = float(column[row])
            found = table.get((qid, key))
            if found is None:
                out[row] = MISSING_ZSCORE
            elif found[1]:
                out[row] = (value - found[0]) / found[1]
            else:
                out[row] = 0.0 if value == found[0] else MISSING_ZSCORE
        converted[key] = out
    return converted


__all__ = ["MISSING_ZSCORE", "PreferenceResult", "PreferenceSelection", "evaluate_preference_files", "zscores_of"]
