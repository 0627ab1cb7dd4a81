"""Evaluation entry points: runs as dicts (pytrec_eval-compatible), explicit rankings, and prepared batches.

All of them end in :func:`evaluate_batch`, which groups the requested measures by the conventions they need and
calls each kernel once per group with all of its cut-offs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .conventions import Conventions
from .measures import MEASURES, Context
from .model import InputError, Qrels, RankingBatch, Run, check_grades, check_unique, rankings_for_run
from .names import Measure, parse_measures

PerQuery = dict[str, dict[str, float]]


def make_conventions(
    conventions: Conventions | None = None, *, relevance_level: int | None = None,
    judged_docs_only: bool | None = None, **changes: object,
) -> Conventions:
    """Conventions from an optional base plus keyword changes; ``judged_docs_only`` is trec_eval's -J."""
    base = conventions if conventions is not None else Conventions()
    if relevance_level is not None:
        changes["relevance_level"] = relevance_level
    if judged_docs_only is not None:
        changes["unjudged"] = "removed" if judged_docs_only else base.unjudged
    return base.replace(**changes) if changes else base


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

    Measures may be written in trec_eval notation (``"P.4"`` reported as ``"P_4"``) or ir_measures notation
    (``"nDCG@10"``). Keyword arguments beyond the trec_eval flags name conventions (see ``Conventions``), e.g.
    ``gain="exponential"``. ``relevance_level`` (default 1) and ``judged_docs_only`` (default False) are
    trec_eval's -l and -J. Queries without judgments are not evaluated, as in trec_eval.
    """
    conv = make_conventions(conventions, relevance_level=relevance_level, judged_docs_only=judged_docs_only,
                            **convention_changes)
    parsed = _as_measures(measures)
    for qid, judgments in qrels.items():
        check_grades(judgments, qid=qid)
    qids, rankings = rankings_for_run(qrels, run, conv.tie_order, include_missing=conv.missing_queries == "zero")
    values = evaluate_rankings(rankings, [qrels[qid] for qid in qids], parsed, conv)
    return {qid: {key: float(column[i]) for key, column in values.items()} for i, qid in enumerate(qids)}


def evaluate_rankings(
    rankings: Sequence[Sequence[str]],
    judgments: Sequence[Mapping[str, int]],
    measures: str | Iterable[str | Measure],
    conventions: Conventions | None = None,
) -> dict[str, np.ndarray]:
    """Values of each measure for explicit rankings (doc ids in rank order), one array entry per ranking."""
    conv = conventions if conventions is not None else Conventions()
    for ranking in rankings:
        check_unique(ranking)
    parsed = _as_measures(measures)
    batches: dict[bool, RankingBatch] = {}

    def batch_for(condensed: bool) -> RankingBatch:
        if condensed not in batches:
            batches[condensed] = RankingBatch.from_rankings(
                rankings, judgments, depth=conv.depth, judged_only=condensed
            )
        return batches[condensed]

    results: dict[str, np.ndarray] = {}
    for condensed, group in _group_by(parsed, lambda m: judged_only(m, conv)).items():
        results.update(evaluate_batch(batch_for(condensed), group, conv))
    return {m.key: results[m.key] for m in parsed}


def evaluate_batch(
    batch: RankingBatch, measures: str | Iterable[str | Measure], conventions: Conventions | None = None
) -> dict[str, np.ndarray]:
    """Values of each measure for every ranking of a prepared batch: ``{key: array of batch.size}``."""
    conv = conventions if conventions is not None else Conventions()
    parsed = _as_measures(measures)
    results: dict[str, np.ndarray] = {}
    for (level, gain, gain_map), group in _group_by(parsed, lambda m: _context_key(m, conv)).items():
        ctx = Context(batch, conv.replace(relevance_level=level, gain=gain), dict(gain_map) if gain_map else None)
        for name, same_name in _group_by(group, lambda m: m.name).items():
            cutoffs = np.array([m.cutoff or 0 for m in same_name], dtype=np.int64)
            columns = MEASURES[name].kernel(ctx, cutoffs)
            for j, measure in enumerate(same_name):
                results[measure.key] = columns[:, min(j, columns.shape[1] - 1)]
    return {m.key: results[m.key] for m in parsed}


def aggregate(per_query: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """The ``all`` line under trec_eval's rules: counts (``num_*``) are summed, everything else is the mean over the
    queries given. Use ``missing_queries="zero"`` (trec_eval -c) when evaluating to count absent queries as 0."""
    keys: dict[str, None] = {}
    for values in per_query.values():
        keys.update(dict.fromkeys(values))
    return aggregate_columns({
        key: np.array([values[key] for values in per_query.values() if key in values], dtype=np.float64)
        for key in keys
    })


def aggregate_columns(columns: Mapping[str, np.ndarray]) -> dict[str, float]:
    """:func:`aggregate` for per-query arrays ``{key: values}``, as the bulk path produces them."""
    means: dict[str, float] = {}
    for key, column in columns.items():
        # Sequential summation, as trec_eval accumulates, keeps the mean bit-identical to its own.
        total = float(np.cumsum(column)[-1]) if column.size else 0.0
        means[key] = total if is_count(key) else (total / column.size if column.size else 0.0)
    return means


_COUNT_KEYS = {"num_q", "num_ret", "num_rel", "num_rel_ret", "NumQ", "NumRet", "NumRel", "NumRelRet"}


def is_count(key: str) -> bool:
    """Whether a result key is a count, summed rather than averaged over queries."""
    return key.split("(")[0] in _COUNT_KEYS


class RelevanceEvaluator:
    """Drop-in replacement for ``pytrec_eval.RelevanceEvaluator``."""

    def __init__(self, query_relevance: Qrels, measures: Iterable[str], relevance_level: int = 1,
                 judged_docs_only_flag: bool = False, **convention_changes: object):
        self.qrels = query_relevance
        self.measures = _as_measures(measures)
        self.conventions = make_conventions(relevance_level=relevance_level,
                                            judged_docs_only=judged_docs_only_flag, **convention_changes)

    def evaluate(self, scores: Run) -> PerQuery:
        return evaluate(self.qrels, scores, self.measures, conventions=self.conventions)


def _as_measures(measures: str | Iterable[str | Measure]) -> list[Measure]:
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    # A dict keeps the first occurrence of each measure in order; a list scan made hundreds of cut-offs quadratic.
    parsed: dict[Measure, None] = {}
    for item in measures:
        for measure in [item] if isinstance(item, Measure) else parse_measures(item):
            parsed.setdefault(measure)
    if not parsed:
        raise ValueError("Argument `measures` has to name at least one measure")
    return list(parsed)


def judged_only(measure: Measure, conv: Conventions) -> bool:
    """Whether ``measure`` is scored on the condensed list (unjudged removed): its own judged_only, else -J."""
    return measure.judged_only if measure.judged_only is not None else conv.unjudged == "removed"


def _context_key(measure: Measure, conv: Conventions) -> tuple:
    level = measure.relevance_level if measure.relevance_level is not None else conv.relevance_level
    return level, measure.gain or conv.gain, measure.gain_map


def _group_by(items, key) -> dict:
    groups: dict = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


__all__ = ["InputError", "RelevanceEvaluator", "aggregate", "aggregate_columns", "evaluate", "evaluate_batch", "evaluate_rankings",
           "is_count", "make_conventions"]
