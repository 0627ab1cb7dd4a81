"""The front doors for one run: pytrec_eval-style dicts (or frames) with :func:`evaluate`, explicit rankings with
:func:`evaluate_rankings`, and :class:`RelevanceEvaluator`, pytrec_eval's class.

Both end in :func:`metrics.engine.evaluate_batch`; the engine's aggregation and checks are re-exported here, where
they were first defined.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .bulk import evaluate_tables_checked
from .conventions import PLACEHOLDER_DOCNO, Conventions
from .engine import (
    MAX_EXPONENTIAL_GRADE,
    MAX_GAIN_PARAMETER_GRADE,
    PerQuery,
    aggregate,
    aggregate_columns,
    as_measures,
    check_gain_range,
    check_qrels,
    check_rankings,
    check_run,
    clear_placeholder_rows,
    clear_unscored_rows,
    complete_all_line,
    evaluate_batch,
    grade_limit,
    group_by,
    is_count,
    is_geometric,
    judged_only,
    make_conventions,
    nothing_to_evaluate,
    ranking_scores,
    uses_exponential_gain,
)
from .ids import check_ids
from .io.frames import as_qrels_table, as_run_table, is_frame
from .io.trec import QrelsTable, RunTable
from .model import (
    InputError,
    Qrels,
    RankingBatch,
    Run,
    SubtopicQrels,
    check_grades,
    rankings_for_run,
    short_repr,
)
from .names import Measure


def evaluate(
    qrels: Qrels,
    run: Run,
    measures: str | Iterable[str | Measure],
    *,
    relevance_level: int | None = None,
    judged_docs_only: bool | None = None,
    conventions: Conventions | None = None,
    **convention_changes: object,
) -> PerQuery:
    """Per-query values ``{qid: {name: value}}``, as ``pytrec_eval.RelevanceEvaluator(...).evaluate(run)``.

    ``qrels`` and ``run`` are pytrec_eval dicts, or pandas DataFrames / pyarrow Tables in PyTerrier's, ir_measures'
    or ranx's columns (see :mod:`metrics.io.frames`), or the tables :mod:`metrics.io.read` returns, read column by
    column through the bulk path.

    Measures may be written in trec_eval notation (``"P.4"`` reported as ``"P_4"``) or ir_measures notation
    (``"nDCG@10"``). Keyword arguments beyond the trec_eval flags name conventions (see ``Conventions``), e.g.
    ``gain="exponential"``. ``relevance_level`` (default 1) and ``judged_docs_only`` (default False) are
    trec_eval's -l and -J. Queries without judgments are not evaluated, as in trec_eval.
    """
    conv = make_conventions(conventions, relevance_level=relevance_level, judged_docs_only=judged_docs_only,
                            **convention_changes)
    parsed = as_measures(measures)
    qrels, subtopics = split_subtopic_qrels(qrels)
    # Columns straight into the bulk path, never a dict per document (the readers' tables are columns too).
    if subtopics is None and (is_frame(qrels) or is_frame(run) or isinstance(qrels, QrelsTable)
                              or isinstance(run, RunTable)):
        qrels_table = as_qrels_table(qrels)
        qids, columns, _ = evaluate_tables_checked(qrels_table, as_run_table(run), parsed, conv)
        return PerQuery({qid: {key: float(column[i]) for key, column in columns.items()} for i, qid in enumerate(qids)},
                        complete_all_line(parsed, conv, qrels_table.grade))
    check_qrels(qrels)
    check_run(run)
    placeholder = PLACEHOLDER_DOCNO if conv.missing_ranking == "placeholder" else None
    qids, rankings = rankings_for_run(qrels, run, conv.tie_order, include_missing=conv.missing_queries == "zero",
                                      score_precision=conv.score_precision, placeholder=placeholder)
    check_gain_range([qrels[qid] for qid in qids], parsed, conv, names=qids)
    scores = ranking_scores(run, qids, rankings, conv, placeholder)
    values = evaluate_rankings(rankings, [qrels[qid] for qid in qids], parsed, conv, scores=scores,
                               subtopics=None if subtopics is None else [subtopics[qid] for qid in qids])
    if placeholder is not None:
        clear_placeholder_rows(values, parsed, np.flatnonzero([qid not in run for qid in qids]))
    elif conv.missing_queries == "zero":
        clear_unscored_rows(values, parsed, np.flatnonzero([qid not in run for qid in qids]))
    return PerQuery({qid: {key: float(column[i]) for key, column in values.items()} for i, qid in enumerate(qids)},
                    complete_all_line(parsed, conv, lambda: [grade for js in qrels.values() for grade in js.values()]))


def evaluate_rankings(
    rankings: Sequence[Sequence[str]],
    judgments: Sequence[Mapping[str, int]],
    measures: str | Iterable[str | Measure],
    conventions: Conventions | None = None,
    *,
    scores: Sequence[Sequence[float]] | None = None,
    subtopics: Sequence[Mapping[str, Mapping[str, int]]] | None = None,
) -> dict[str, np.ndarray]:
    """Values of each measure for explicit rankings (doc ids in rank order), one array entry per ranking.

    ``scores`` (each ranking's scores in rank order, as compared) are read only by ``tied_gains="averaged"`` and
    ``nonpositive_scores="not_relevant"`` (:func:`metrics.engine.reads_scores`); without them no two documents tie
    and none is scored <= 0. ``subtopics`` (each ranking's ``{doc: {subtopic: grade}}``) are read by the diversity
    measures; without them each ranking's judgments are its one subtopic."""
    conv = make_conventions(conventions)
    check_rankings(rankings, judgments)
    parsed = as_measures(measures)
    check_gain_range(judgments, parsed, conv)
    batches: dict[bool, RankingBatch] = {}

    def batch_for(condensed: bool) -> RankingBatch:
        if condensed not in batches:
            batches[condensed] = RankingBatch.from_rankings(
                rankings, judgments, depth=conv.depth, judged_only=condensed, scores=scores, subtopics=subtopics,
                nonpositive_scores=conv.nonpositive_scores)
        return batches[condensed]

    results: dict[str, np.ndarray] = {}
    for condensed, group in group_by(parsed, lambda m: judged_only(m, conv)).items():
        results.update(evaluate_batch(batch_for(condensed), group, conv))
    return {m.key: results[m.key] for m in parsed}


def split_subtopic_qrels(qrels: object) -> tuple[object, SubtopicQrels | None]:
    """``(qrels, None)`` for ordinary qrels; for subtopic qrels ``{qid: {doc: {subtopic: grade}}}`` (what
    :func:`metrics.io.trec.read_subtopic_qrels` returns), checked, ``({qid: {doc: largest grade}}, subtopic qrels)``:
    the other measures see each document's best grade (relevant to some subtopic: relevant)."""
    if not isinstance(qrels, Mapping) or not any(
            isinstance(grade, Mapping) for judgments in qrels.values() if isinstance(judgments, Mapping)
            for grade in judgments.values()):
        return qrels, None
    check_ids(qrels, "query id", where="qrels")
    best: dict[str, dict[str, int]] = {}
    for qid, judgments in qrels.items():
        check_ids(judgments, "document id", where=f"qrels, query {qid!r}")
        best[qid] = {}
        for doc, grades in judgments.items():
            where = f"qrels, query {qid!r}, document {doc!r}"
            if not isinstance(grades, Mapping) or not grades:
                raise InputError(f"{where}: subtopic qrels map each document to its grades per subtopic "
                                 f"({{subtopic: grade}}, at least one), got {short_repr(grades)}")
            check_ids(grades, "subtopic id", where=where)
            for subtopic, grade in grades.items():
                try:
                    check_grades({subtopic: grade})
                except InputError as error:  # its message names the key a document; here it is a subtopic
                    raise InputError(f"{where}, subtopic {str(error).removeprefix('document ')}") from None
            best[qid][doc] = int(max(grades.values()))
    return best, qrels


class RelevanceEvaluator:
    """Drop-in replacement for ``pytrec_eval.RelevanceEvaluator``."""

    def __init__(self, query_relevance: Qrels, measures: Iterable[str], relevance_level: int = 1,
                 judged_docs_only_flag: bool = False, **convention_changes: object):
        check_qrels(query_relevance, "query_relevance")
        self.qrels = query_relevance
        self.measures = as_measures(measures)
        self.conventions = make_conventions(relevance_level=relevance_level,
                                            judged_docs_only=judged_docs_only_flag, **convention_changes)

    def evaluate(self, scores: Run) -> PerQuery:
        return evaluate(self.qrels, scores, self.measures, conventions=self.conventions)


__all__ = [
    "MAX_EXPONENTIAL_GRADE", "MAX_GAIN_PARAMETER_GRADE", "InputError", "PerQuery", "RelevanceEvaluator", "aggregate",
    "aggregate_columns", "check_gain_range", "check_qrels", "check_run", "evaluate", "evaluate_batch",
    "evaluate_rankings", "grade_limit", "is_count", "is_geometric", "make_conventions", "nothing_to_evaluate",
    "split_subtopic_qrels", "uses_exponential_gain",
]
