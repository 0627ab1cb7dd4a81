"""The front door of trec_eval's other judgment formats: a run evaluated against a preference file (``-R prefs``,
``-R qrels_prefs``) or judgment-group qrels (``-R qrels_jg``), and trec_eval's z-scores (``-Z``) of any per-query
values.

Queries are those of the judgments that the run answers, in byte order of their ids, as trec_eval walks them.
Each query's documents are ranked as trec_eval ranks them for these measures: score descending, ties by doc id
ascending for preferences (form_prefs_counts.c) and descending for qrels_jg (form_res_rels_jg.c), scores read as
4-byte floats by trec_eval 9.0.8 and as doubles by 10.0, then cut at -M.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .conventions import DEFAULT_TREC_EVAL, PLACEHOLDER_DOCNO, Conventions, trec_eval_build
from .engine import PerQuery, check_run, make_conventions
from .ids import check_ids
from .io.preferences import FORMATS, Preference, read_preferences, read_qrels_jg
from .io.read import read_run_path
from .io.trec import read_run
from .measures.preferences import (
    PREFERENCE_MEASURES,
    PREFERENCE_NICKNAMES,
    PreferenceError,
    map_avgjg,
    p_avgjg,
    preference_counts,
    rprec_mult_avgjg,
)
from .model import InputError, check_grades, short_repr
from .names import MAX_NUMBER_CHARS

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
    missing: tuple[str, ...] = ()  # judged queries the run lacks, among qids (-c)


def evaluate_preferences(judgments: object, run: object, measures: str | Sequence[str], *, format: str = "prefs",
                         relevance_level: int | None = None, judged_docs_only: bool | None = None,
                         conventions: Conventions | None = None, trec_eval: str | None = None,
                         **convention_changes: object) -> PerQuery:
    """Per-query values ``{qid: {key: value}}`` of trec_eval's ``-R prefs``, ``-R qrels_prefs`` or ``-R qrels_jg``
    measures, as :func:`metrics.evaluate` gives those of qrels (``metrics.aggregate`` of it is the ``all`` line:
    the ``prefs_num_prefs_*`` counts summed, the rest averaged).

    ``judgments``: the file (a path, bytes or a binary stream, plain or gzip) or what its reader returns
    (:func:`metrics.io.preferences.read_preferences`, :func:`~metrics.io.preferences.read_qrels_jg`); ``run``:
    ``{qid: {doc: score}}`` or a run file. ``measures``: names as ``-m`` takes them (``all_prefs``, ``prefs_simp``,
    ``qrels_jg``, ``P_avgjg.5,10``). The keyword arguments are :func:`metrics.evaluate`'s: ``judged_docs_only``
    (-J) drops from each judgment group's ranking the documents that group does not judge (qrels_jg only: the
    preference measures never count them), ``missing_queries="zero"`` (-c) adds the judged queries the run lacks
    (as 0 in trec_eval 9.0.8; 10.0 evaluates its one-document placeholder ranking there), ``depth`` is -M and
    ``trec_eval="10.0"`` reads scores as doubles and skips comment lines in the judgments (9.0.8 refuses them).
    """
    conv = make_conventions(conventions, relevance_level=relevance_level, judged_docs_only=judged_docs_only,
                            trec_eval=trec_eval, **convention_changes)
    if format not in FORMATS or format == "qrels":
        raise InputError(f"Argument `format` has to be 'prefs', 'qrels_prefs' or 'qrels_jg', but got {format!r}; "
                         "qrels go to metrics.evaluate")
    if not isinstance(measures, (str, Sequence)):
        raise InputError(f"Argument `measures` has to be a measure name or a list of them (e.g. ['prefs_simp']), "
                         f"got {type(measures).__name__}")
    selections, _, _ = preference_selections([measures] if isinstance(measures, str) else list(measures), format)
    for name, given in (("judgments", judgments), ("run", run)):
        if not isinstance(given, (Mapping, str, bytes, bytearray, os.PathLike)) and not hasattr(given, "read"):
            shape = "{qid: {doc: score}}" if name == "run" else "as its reader returns them"
            raise InputError(f"Argument `{name}` has to be a dict {shape} or a file (a path, bytes or a binary "
                             f"stream), got {type(given).__name__}")
    if isinstance(run, Mapping):
        check_run(run)
        rankings = run
    else:
        rankings = read_run(run).to_dict()
    result = _evaluate(_judgments_of(judgments, format, build_of(conv)), rankings, format, selections, conv,
                       "judgments")
    return PerQuery({qid: {key: float(column[row]) for key, column in result.values.items()}
                     for row, qid in enumerate(result.qids)})


def build_of(conventions: Conventions) -> str:
    """The trec_eval build whose reading of judgment files these conventions select (the default's unless they are
    10.0's)."""
    return trec_eval_build(conventions) or DEFAULT_TREC_EVAL


def preference_selections(specs: Sequence[str], format: str) -> tuple[list[PreferenceSelection], bool, bool]:
    """The measures of ``-R prefs``, ``-R qrels_prefs`` or ``-R qrels_jg`` named by ``-m`` (names, trec_eval's
    nicknames all_prefs, prefs and qrels_jg, and cut-offs such as ``P_avgjg.5,10``), in trec_eval's order, and
    whether the runid and num_q lines are wanted."""
    if not specs:
        wanted = [n for n, m in PREFERENCE_MEASURES.items() if format in m.formats]
        nicknames = "qrels_jg" if format == "qrels_jg" else "all_prefs or prefs"
        raise InputError(f"-R {format}: name the measures with -m ({nicknames}, or some of {', '.join(wanted)})")
    chosen: dict[str, tuple[float, ...]] = {}
    runid = num_q = False
    for spec in specs:
        if not isinstance(spec, str):
            raise InputError(f"Argument `measures`: each has to be a measure name such as 'prefs_simp', got "
                             f"{type(spec).__name__}")
        spec = spec.strip()
        name, _, params = spec.partition(".")
        if spec in PREFERENCE_NICKNAMES:
            runid = num_q = True
            for member in PREFERENCE_NICKNAMES[spec]:
                chosen.setdefault(member, PREFERENCE_MEASURES[member].cutoffs)
        elif spec in ("runid", "num_q"):
            runid |= spec == "runid"
            num_q |= spec == "num_q"
        elif name in PREFERENCE_MEASURES and (not params or PREFERENCE_MEASURES[name].cutoffs):
            chosen[name] = _preference_cutoffs(spec, name, params) if params else PREFERENCE_MEASURES[name].cutoffs
        else:
            wanted = [n for n, m in PREFERENCE_MEASURES.items() if format in m.formats]
            shown = spec if len(spec) <= 60 else spec[:40] + "..."
            raise InputError(f"-m {shown}: with -R {format} the measures are {', '.join(wanted)} (nicknames "
                             f"{', '.join(PREFERENCE_NICKNAMES)}, runid, num_q)")
    selections = [PreferenceSelection(name, chosen[name]) for name in PREFERENCE_MEASURES if name in chosen]
    for selection in selections:
        if format not in PREFERENCE_MEASURES[selection.name].formats:
            wanted = " or ".join(f"-R {f}" for f in PREFERENCE_MEASURES[selection.name].formats)
            raise InputError(f"-m {selection.name} needs {wanted}; -R {format} gives the measures "
                             f"{', '.join(n for n, m in PREFERENCE_MEASURES.items() if format in m.formats)}")
    return selections, runid, num_q


def _preference_cutoffs(spec: str, name: str, params: str) -> tuple[float, ...]:
    """``P_avgjg.5,10`` -> (5, 10); ``Rprec_mult_avgjg.0.5,1`` -> (0.5, 1.0): sorted, each once, as trec_eval."""
    values = []
    for text in params.split(","):
        try:
            value = float(text) if len(text) <= MAX_NUMBER_CHARS else None
        except ValueError:
            value = None
        if value is None or not np.isfinite(value) or value <= 0 or (name == "P_avgjg" and value != int(value)):
            kind = "whole numbers of documents" if name == "P_avgjg" else "positive multiples of R"
            raise InputError(f"-m {spec[:60]}: the cut-offs of {name} are {kind}, e.g. {name}.5,10")
        values.append(int(value) if name == "P_avgjg" else value)
    return tuple(sorted(set(values)))


def evaluate_preference_files(judgments_path: str, run_path: str, format: str,
                              measures: Sequence[PreferenceSelection], conventions: Conventions) -> PreferenceResult:
    """Evaluate one run file against a ``format`` judgments file (``prefs``, ``qrels_prefs`` or ``qrels_jg``), as
    the command line reads them (the run may be '-', standard input)."""
    run = read_run_path(run_path)
    judgments = _judgments_of(judgments_path, format, build_of(conventions))
    return dataclasses.replace(_evaluate(judgments, run.to_dict(), format, measures, conventions, judgments_path),
                               runid=run.runid)


def _judgments_of(judgments: object, format: str, build: str) -> Mapping:
    """The judgments read from a file, or checked when given as the file's reader returns them."""
    if isinstance(judgments, Mapping):
        check_ids(judgments, "query id", where="judgments")
        for qid, lines in judgments.items():
            if format == "qrels_jg":
                ok = isinstance(lines, Mapping) and all(isinstance(group, Mapping) for group in lines.values())
                if ok:
                    for group in lines.values():
                        check_grades(group, qid=qid)
            else:
                ok = isinstance(lines, Sequence) and all(isinstance(line, Preference) for line in lines)
            if not ok:
                shape = ("{qid: {jg: {docno: grade}}}, as read_qrels_jg returns" if format == "qrels_jg" else
                         "{qid: [Preference(jg, jsg, docno, rel), ...]}, as read_preferences returns")
                raise InputError(f"judgments of query {short_repr(qid)}: -R {format} judgments are {shape}, or the "
                                 f"file itself; got {short_repr(lines)}")
        return judgments
    if format == "qrels_jg":
        return read_qrels_jg(judgments, trec_eval=build)
    return read_preferences(judgments, format, trec_eval=build)


def _evaluate(judgments: Mapping, rankings: Mapping[str, Mapping[str, float]], format: str,
              measures: Sequence[PreferenceSelection], conv: Conventions, label: str) -> PreferenceResult:
    """The queries of ``judgments`` the run answers (with -c every judged query), in byte order of their ids, as
    trec_eval walks them, and each one's values."""
    qids = sorted((qid for qid in judgments if qid in rankings or conv.missing_queries == "zero"),
                  key=lambda qid: qid.encode())
    keys = [key for selection in measures for key in selection.keys]
    values = {key: np.zeros(len(qids)) for key in keys}
    missing = []
    for row, qid in enumerate(qids):
        if qid not in rankings:
            missing.append(qid)
            if conv.missing_ranking != "placeholder":
                continue  # 9.0.8 evaluates no ranking there: 0 on each measure, counted in the means (-c)
            scores = {PLACEHOLDER_DOCNO: 1.0}  # 10.0's -c ranking (trec_eval.c)
        else:
            scores = rankings[qid]
        ranked = _ranked(scores, ascending_ties=format != "qrels_jg", single=conv.score_precision == "float32")
        if conv.depth is not None:
            ranked = ranked[:conv.depth]
        if format == "qrels_jg":
            found = _group_scores(judgments[qid], ranked, measures, conv.relevance_level,
                                  judged_only=conv.unjudged == "removed")
        else:
            try:
                counts = preference_counts(judgments[qid], ranked)
            except PreferenceError as error:
                raise InputError(f"{label}: query {qid!r}: {error}") from None
            found = {s.name: PREFERENCE_MEASURES[s.name].kernel(counts) for s in measures}
        for selection in measures:
            value = found[selection.name]
            for key, number in zip(selection.keys, value if selection.cutoffs else [value]):
                values[key][row] = number
    counts_keys = frozenset(s.name for s in measures if PREFERENCE_MEASURES[s.name].is_count)
    return PreferenceResult(qids, values, counts_keys, "", tuple(missing))


def _ranked(scores: Mapping[str, float], *, ascending_ties: bool, single: bool) -> list[str]:
    """Doc ids in trec_eval's order for these measures; ``single``: scores compared as 4-byte floats (9.0.8)."""
    docs = list(scores)
    values = np.array([scores[doc] for doc in docs], dtype=np.float32 if single else np.float64)
    keyed = sorted(zip((-values).tolist(), docs)) if ascending_ties else sorted(
        zip(values.tolist(), docs), reverse=True)
    return [doc for _, doc in keyed]


def _group_scores(groups: Mapping[str, Mapping[str, int]], ranked: Sequence[str],
                  measures: Sequence[PreferenceSelection], level: int, *, judged_only: bool = False) -> dict:
    """map_avgjg, P_avgjg and Rprec_mult_avgjg of one query: its judgment groups in byte order of their ids;
    ``judged_only`` (-J): each group's ranking keeps the documents it judges (grade >= 0), in rank order
    (form_res_rels_jg.c)."""
    grades_by_group, relevant_by_group = [], []
    for jg in sorted(groups, key=lambda name: name.encode()):
        judged = groups[jg]
        kept = [doc for doc in ranked if judged.get(doc, -1) >= 0] if judged_only else ranked
        grades_by_group.append(np.array([judged.get(doc, -1) if judged.get(doc, -1) >= 0 else -1 - (doc in judged)
                                         for doc in kept], dtype=np.int64))
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


__all__ = ["MISSING_ZSCORE", "PreferenceResult", "PreferenceSelection", "build_of", "evaluate_preference_files",
           "evaluate_preferences", "preference_selections", "zscores_of"]
