"""The engine core: evaluate a prepared batch, aggregate per-query values, and check the inputs of the front doors.

:func:`evaluate_batch` groups the requested measures by the conventions they need and calls each kernel once per
group with all of its cut-offs; every front door (:mod:`metrics.evaluate`, :mod:`metrics.bulk`, the streaming and
Dask paths) ends in it. :func:`aggregate` and :func:`aggregate_columns` give trec_eval's ``all`` line.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from .conventions import SCORE_CONVENTIONS, TREC_EVAL, Conventions, trec_eval_values
from .ids import check_ids
from .measures import MEASURES, Context, aggregation
from .model import InputError, RankingBatch, Run, check_grades, check_unique, compared_scores, short_repr
from .names import Measure, parse_measures


class PerQuery(dict):
    """Per-query values ``{qid: {name: value}}``, a dict as pytrec_eval returns, and ``all_line``: what trec_eval's
    ``all`` line prints that does not follow from them (``num_rel`` under -c, see :func:`complete_num_rel`), which
    :func:`aggregate` uses. A plain dict of the same values aggregates without it."""

    __slots__ = ("all_line",)

    def __init__(self, values=(), all_line: Mapping[str, float] | None = None):
        super().__init__(values)
        self.all_line = dict(all_line or {})


def complete_num_rel(grades: np.ndarray) -> float:
    """trec_eval -c's ``all`` line of num_rel: every qrels line with a grade > 0, whatever -l says (m_num_rel.c of
    9.0.8 and 10.0 count ``rel > 0``), so with -c -l 2 it exceeds the sum of the per-query num_rel."""
    return float(np.count_nonzero(np.asarray(grades) > 0))


def complete_all_line(measures: Sequence[Measure], conv: Conventions, grades) -> dict[str, float]:
    """The ``all``-line values -c changes (``{"num_rel": ...}`` when num_rel is asked for), else ``{}``."""
    if conv.missing_queries != "zero" or not any(measure.key == "num_rel" for measure in measures):
        return {}
    return {"num_rel": complete_num_rel(grades() if callable(grades) else grades)}


def make_conventions(
    conventions: Conventions | None = None, *, relevance_level: int | None = None,
    judged_docs_only: bool | None = None, trec_eval: str | None = None, **changes: object,
) -> Conventions:
    """Conventions from an optional base plus keyword changes; ``judged_docs_only`` is trec_eval's -J and
    ``trec_eval`` (``"9.0.8"`` or ``"10.0"``) a build whose values replace the base's where the builds differ
    (:func:`metrics.conventions.trec_eval_conventions`).

    Raises InputError for a value or a keyword that is not a convention, or a change that contradicts the build.
    """
    if conventions is not None and not isinstance(conventions, Conventions):
        raise InputError(f"Argument `conventions` has to be a metrics.Conventions, got {type(conventions).__name__}")
    base = conventions if conventions is not None else Conventions()
    if judged_docs_only is not None and not isinstance(judged_docs_only, (bool, np.bool_)):
        raise InputError(f"Argument `judged_docs_only` has to be True or False, got {judged_docs_only!r}")
    if relevance_level is not None:
        changes["relevance_level"] = relevance_level
    if judged_docs_only is not None:
        changes["unjudged"] = "removed" if judged_docs_only else base.unjudged
    unknown = [name for name in changes if name not in _CONVENTION_NAMES]
    if unknown:
        raise InputError(f"unknown convention {unknown[0]!r}; conventions: {', '.join(_CONVENTION_NAMES)}")
    try:
        if trec_eval is not None:
            preset = trec_eval_values(trec_eval)
            for name, value in changes.items():
                if name in preset and value != preset[name]:
                    raise InputError(f"Argument `{name}` {value!r} contradicts trec_eval={trec_eval!r}, which sets "
                                     f"{name}={preset[name]!r}; give one or the other")
            base = base.replace(**preset)
        return base.replace(**changes) if changes else base
    except (TypeError, ValueError) as error:
        raise InputError(str(error)) from None


_CONVENTION_NAMES = tuple(field.name for field in dataclasses.fields(Conventions))

#: 2^grade - 1 stays finite up to grade 1023; summed over many documents, 1000 leaves room for 2^23 of them.
MAX_EXPONENTIAL_GRADE = 1000
#: trec_eval's nDCG with gain parameters (ndcg.1=3,2=9) lists and sorts every grade from 0 to the largest, per query.
MAX_GAIN_PARAMETER_GRADE = 1000
#: ERR's chance that a document satisfies is gdeval's (2^grade - 1) / 2^4: above grade 4 it exceeds 1.
MAX_ERR_GRADE = 4


def grade_limit(measures: Sequence[Measure], conv: Conventions) -> tuple[int, str] | None:
    """The largest grade ``measures`` can score under ``conv`` and the end of the message refusing a larger one,
    or None when every grade in trec_eval's range works."""
    limits = []
    for measure in measures:
        if measure.name == "ERR":
            limits.append((MAX_ERR_GRADE, f"is above {MAX_ERR_GRADE}, the top of gdeval's scale for {measure.key}: "
                           "its chance that a document satisfies, (2^grade - 1) / 2^4, would exceed 1; map the grades "
                           f"to 0..{MAX_ERR_GRADE} first"))
        elif uses_exponential_gain(measure, conv):
            limits.append((MAX_EXPONENTIAL_GRADE, "is too large for exponential gain (2^grade - 1 overflows); the "
                                                  f"limit is {MAX_EXPONENTIAL_GRADE}, or use linear gain"))
        elif measure.gain_map is not None:
            limits.append((MAX_GAIN_PARAMETER_GRADE, f"is too large for gain parameters ({measure.key}): trec_eval "
                           f"lists every grade up to the largest; the limit is {MAX_GAIN_PARAMETER_GRADE}"))
    return min(limits) if limits else None


def check_grade_range(grades: np.ndarray, limit: tuple[int, str] | None, where: Callable[[int], str]) -> None:
    """The one grade check: raise InputError for the first of ``grades`` above ``limit`` (from :func:`grade_limit`;
    None checks nothing), with the one message ``<where>: grade <g> <why, and the fix>``, e.g. ``qrels.txt line 3:
    grade 1100 is too large for exponential gain (2^grade - 1 overflows); the limit is 1000, or use linear gain``.

    ``where(i)`` names the input and the place of grade ``i``: a file line, a table row, a query and document.
    Every reader and front door (files, tables, frames, dicts, Dask partitions, a batch) checks through here.
    """
    if limit is None:
        return
    above = np.flatnonzero(grades > limit[0])
    if above.size:
        first = int(above[0])
        raise InputError(f"{where(first)}: grade {int(grades[first])} {limit[1]}")


def check_gain_range(judgments: Sequence[Mapping[str, int]], measures: Sequence[Measure], conv: Conventions, *,
                     names: Sequence[str] | None = None) -> None:
    """Raise InputError naming the first grade above :func:`grade_limit` (2^grade would overflow, or trec_eval's
    gain parameters would list every grade up to it), by :func:`check_grade_range`."""
    limit = grade_limit(measures, conv)
    if limit is None:
        return
    places = [(i, doc) for i, judgment in enumerate(judgments) for doc in judgment]
    # Python ints, compared as they are: a grade of 10**30 is reported as written.
    grades = np.array([judgments[i][doc] for i, doc in places], dtype=object)

    def where(index: int) -> str:
        i, doc = places[index]
        return (f"query {names[i]!r}, " if names is not None else "") + f"document {doc!r}"

    check_grade_range(grades, limit, where)


def uses_exponential_gain(measure: Measure, conv: Conventions) -> bool:
    """Whether ``measure`` computes gains as 2^grade - 1 under ``conv``."""
    return (measure.gain_map is None and "gain" in MEASURES[measure.name].conventions
            and (measure.gain or conv.gain) == "exponential")


def check_qrels(qrels: object, name: str = "qrels") -> None:
    """Raise InputError unless ``qrels`` is ``{qid: {doc: grade}}`` with legal ids and integer grades."""
    if not isinstance(qrels, Mapping):
        raise InputError(f"Argument `{name}` has to be a dict {{qid: {{doc: grade}}}}, got {type(qrels).__name__}")
    check_ids(qrels, "query id", where=name)
    for qid, judgments in qrels.items():
        check_grades(judgments, where=f"{name}, query {qid!r}")
        check_ids(judgments, "document id", where=f"{name}, query {qid!r}")


def check_run(run: object, name: str = "run") -> None:
    """Raise InputError unless ``run`` is ``{qid: {doc: score}}`` with legal ids (scores are checked when the
    query is ordered)."""
    if not isinstance(run, Mapping):
        raise InputError(f"Argument `{name}` has to be a dict {{qid: {{doc: score}}}}, got {type(run).__name__}")
    check_ids(run, "query id", where=name)
    for qid, scores in run.items():
        if not isinstance(scores, Mapping):
            raise InputError(f"{name}, query {qid!r}: has to map document ids to scores ({{doc: score}}), "
                             f"got {type(scores).__name__}")
        check_ids(scores, "document id", where=f"{name}, query {qid!r}")


def check_rankings(rankings: object, judgments: object) -> None:
    """Raise InputError unless ``rankings`` is a list of rankings (doc ids in rank order, each id once) and
    ``judgments`` one ``{doc: grade}`` per ranking."""
    for argument, value in (("rankings", rankings), ("judgments", judgments)):
        if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
            what = "rankings (each a list of doc ids in rank order)" if argument == "rankings" else \
                "judgments (each a dict {doc: grade})"
            raise InputError(f"Argument `{argument}` has to be a list of {what}, got {type(value).__name__}")
    if len(rankings) != len(judgments):  # type: ignore[arg-type]
        raise InputError(f"got {len(rankings)} rankings but {len(judgments)} judgment sets; "  # type: ignore[arg-type]
                         "give one judgment set per ranking")
    for i, ranking in enumerate(rankings):  # type: ignore[arg-type]
        if isinstance(ranking, (str, bytes)) or not isinstance(ranking, (Sequence, np.ndarray)):
            hint = " (a string would be read as its characters)" if isinstance(ranking, str) else ""
            raise InputError(f"rankings[{i}] has to be a list of doc ids in rank order, got "
                             f"{type(ranking).__name__}{hint}")
        check_ids(list(ranking), "document id", where=f"rankings[{i}]")
        try:
            check_unique(ranking)
        except InputError as error:
            raise InputError(f"rankings[{i}]: {error}") from None
    for i, judgment in enumerate(judgments):  # type: ignore[arg-type]
        check_grades(judgment, where=f"judgments[{i}]")
        check_ids(judgment, "document id", where=f"judgments[{i}]")


def reads_scores(conventions: Conventions) -> bool:
    """Whether ``conventions`` read the scores once the ranking is made (a convention of
    :data:`~metrics.conventions.SCORE_CONVENTIONS` off trec_eval's value: ``tied_gains="averaged"``,
    ``nonpositive_scores="not_relevant"``): the front doors then hand each ranking's scores to its batch."""
    return any(getattr(conventions, name) != getattr(TREC_EVAL, name) for name in SCORE_CONVENTIONS)


def ranking_scores(run: Run, qids: Sequence[str], rankings: Sequence[Sequence[str]], conventions: Conventions,
                   placeholder: str | None = None) -> list[np.ndarray] | None:
    """Each ranking's scores in rank order, as compared (``score_precision``), when the conventions read them
    (:func:`reads_scores`), else None; a query the run lacks scores its ``placeholder`` document 1, as trec_eval
    10 does."""
    if not reads_scores(conventions):
        return None
    return [compared_scores(np.array([float(run.get(qid, {placeholder: 1.0})[doc]) for doc in ranking],
                                     dtype=np.float64), conventions.score_precision)
            for qid, ranking in zip(qids, rankings)]


def evaluate_batch(
    batch: RankingBatch, measures: str | Iterable[str | Measure], conventions: Conventions | None = None
) -> dict[str, np.ndarray]:
    """Values of each measure for every ranking of a prepared batch: ``{key: array of batch.size}``."""
    conv = make_conventions(conventions)
    if not isinstance(batch, RankingBatch):
        raise InputError(f"Argument `batch` has to be a metrics.RankingBatch, got {type(batch).__name__}")
    parsed = as_measures(measures)
    if not batch.size:  # no ranking: every measure has no value (kernels may assume a row)
        return {m.key: np.zeros(0) for m in parsed}
    if batch.subtopics is not None and conv.nonpositive_scores == "not_relevant":
        raise InputError("nonpositive_scores='not_relevant' (torchmetrics' rule) does not combine with subtopic "
                         "qrels: no tool clears a document's subtopic judgments by its score; use "
                         "nonpositive_scores='retrieved' or qrels without subtopics")
    if batch.judged_grades.shape[1]:  # sorted descending: the first column is each row's largest grade
        check_grade_range(batch.judged_grades[:, 0], grade_limit(parsed, conv), lambda row: f"batch row {row}")
    results: dict[str, np.ndarray] = {}
    for (level, gain, gain_map, denominator), group in group_by(parsed, lambda m: _context_key(m, conv)).items():
        ctx = Context(batch, conv.replace(relevance_level=level, gain=gain, ap_denominator=denominator),
                      dict(gain_map) if gain_map else None)
        for (name, params), same_name in group_by(group, lambda m: (m.name, m.params)).items():
            info = MEASURES[name]
            cutoffs = np.array([m.cutoff or 0 for m in same_name], dtype=np.float64 if info.float_cutoffs else np.int64)
            columns = info.kernel(ctx, cutoffs) if params is None else info.kernel(ctx, cutoffs, params=params)
            for j, measure in enumerate(same_name):
                results[measure.key] = columns[:, min(j, columns.shape[1] - 1)]
    return {m.key: results[m.key] for m in parsed}


def cleared_by_placeholder(measure: Measure) -> bool:
    """Whether trec_eval 10 sets ``measure`` back to 0 after scoring a -c placeholder (``missing_ranking=
    "placeholder"``): num_ret and unj in every form, utility and rbp_resid only without parameters (trec_eval.c
    compares the printed name, so ``utility.1,-1,-2,0`` and ``rbp_resid.p=0.5`` keep the placeholder's value)."""
    if measure.name in ("num_ret", "unj"):
        return True
    return measure.name in ("utility", "rbp_resid") and measure.key == measure.name


def clear_placeholder_rows(values: Mapping[str, np.ndarray], measures: Sequence[Measure], rows: np.ndarray) -> None:
    """Reset, in place, the values trec_eval 10 resets on the placeholder rows ``rows`` (see
    :func:`cleared_by_placeholder`)."""
    if len(rows) == 0:
        return
    for measure in measures:
        if measure.key in values and cleared_by_placeholder(measure):
            values[measure.key][rows] = 0.0


#: Measures that an empty ranking does not score 0 (yaap = log(1 / (1 + R))). trec_eval 9.0.8 never scores the
#: queries -c adds (``missing_ranking="empty"``): they count as 0 in its means, so these are set to 0 there.
NONZERO_WHEN_EMPTY = ("yaap",)


def clear_unscored_rows(values: Mapping[str, np.ndarray], measures: Sequence[Measure], rows: np.ndarray) -> None:
    """Set, in place, the :data:`NONZERO_WHEN_EMPTY` measures to 0 on the rows of queries -c adds that trec_eval
    9.0.8 does not score (``missing_ranking="empty"``)."""
    if len(rows) == 0:
        return
    for measure in measures:
        if measure.key in values and measure.name in NONZERO_WHEN_EMPTY:
            values[measure.key][rows] = 0.0


def nothing_to_evaluate(run: str, qrels: str) -> str:
    """The one message for a run none of whose queries has judgments (trec_eval stops there too): a mean over no
    query would be a number that describes nothing."""
    return (f"no query of {run} has judgments in {qrels}: nothing to evaluate (are the query ids written the same "
            "way in both, e.g. '1' and not '01'?)")


def aggregate(per_query: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """The ``all`` line under trec_eval's rules: counts (``num_*``) are summed, everything else is the mean over the
    queries given. Use ``missing_queries="zero"`` (trec_eval -c) when evaluating to count absent queries as 0; the
    values :func:`metrics.evaluate` returns then also carry -c's ``num_rel`` (:func:`complete_num_rel`), as the
    command line prints it.

    Values are summed in trec_eval's query order (byte order of the ids), whatever the dict's order, so the mean is
    the last bit of trec_eval's ``all`` line."""
    if not isinstance(per_query, Mapping):
        raise InputError(f"Argument `per_query` has to be a dict {{qid: {{measure: value}}}} as evaluate returns, "
                         f"got {type(per_query).__name__}")
    for qid, values in per_query.items():
        if not isinstance(values, Mapping):
            raise InputError(f"Argument `per_query`, query {short_repr(qid)}: has to map measure names to values, "
                             f"got {type(values).__name__}")
    keys: dict[str, None] = {}
    for values in per_query.values():
        keys.update(dict.fromkeys(values))
    ordered = [per_query[qid] for qid in sorted(per_query)]
    columns = {}
    for key in keys:
        try:
            columns[key] = np.array([values[key] for values in ordered if key in values], dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(f"Argument `per_query`, measure {short_repr(key)}: values have to be numbers") from None
    means = aggregate_columns(columns)
    means.update({key: value for key, value in getattr(per_query, "all_line", {}).items() if key in means})
    return means


def aggregate_columns(columns: Mapping[str, np.ndarray]) -> dict[str, float]:
    """:func:`aggregate` for per-query arrays ``{key: values}``, as the bulk path produces them, summed in the order
    given: pass the queries in trec_eval's order (sorted ids) for its ``all`` line to the last bit."""
    means: dict[str, float] = {}
    for key, column in columns.items():
        # gm_map and gm_bpref hold log values per query (as trec_eval and pytrec_eval do): their mean is exp(mean).
        # Sequential summation, as trec_eval accumulates, keeps the mean bit-identical to its own.
        total = float(np.cumsum(column)[-1]) if column.size else 0.0
        means[key] = total if is_count(key) else (total / column.size if column.size else 0.0)
        if is_geometric(key) and column.size:
            means[key] = math.exp(means[key])
    return means


def is_count(key: str) -> bool:
    """Whether a result key is a count, summed rather than averaged over queries (the registry's aggregate)."""
    return aggregation(key) == "sum"


def is_geometric(key: str) -> bool:
    """Whether a result key is averaged with trec_eval's geometric mean (gm_map, gm_bpref)."""
    return aggregation(key) == "geometric"


def as_measures(measures: str | Iterable[str | Measure]) -> list[Measure]:
    """``measures`` (a name, a Measure or a list of them, in either notation) parsed, each measure once, in order."""
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    if not isinstance(measures, Iterable):
        raise InputError(f"Argument `measures` has to be a measure name or a list of them (e.g. ['P.5', 'nDCG@10']), "
                         f"got {type(measures).__name__}")
    # A dict keeps the first occurrence of each measure in order; a list scan made hundreds of cut-offs quadratic.
    parsed: dict[Measure, None] = {}
    for position, item in enumerate(measures):
        if not isinstance(item, (str, Measure)):
            raise InputError(f"Argument `measures`: item {position} has to be a measure name such as 'P.5' or "
                             f"'nDCG@10', got {short_repr(item)} ({type(item).__name__})")
        try:
            found = [item] if isinstance(item, Measure) else parse_measures(item)
        except InputError:
            raise
        except ValueError as error:
            raise InputError(str(error)) from None
        for measure in found:
            parsed.setdefault(measure)
    if not parsed:
        raise InputError("Argument `measures` has to name at least one measure")
    return list(parsed)


def judged_only(measure: Measure, conv: Conventions) -> bool:
    """Whether ``measure`` is scored on the condensed list (unjudged removed): its own judged_only, else -J."""
    return measure.judged_only if measure.judged_only is not None else conv.unjudged == "removed"


def _context_key(measure: Measure, conv: Conventions) -> tuple:
    level = measure.relevance_level if measure.relevance_level is not None else conv.relevance_level
    return level, measure.gain or conv.gain, measure.gain_map, measure.ap_denominator or conv.ap_denominator


def group_by(items, key) -> dict:
    """``items`` grouped by ``key(item)``, groups and items in first-seen order."""
    groups: dict = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


__all__ = [
    "MAX_EXPONENTIAL_GRADE", "MAX_GAIN_PARAMETER_GRADE", "PerQuery", "aggregate", "aggregate_columns", "as_measures",
    "clear_placeholder_rows", "clear_unscored_rows", "complete_all_line", "complete_num_rel",
    "check_gain_range", "check_qrels", "check_rankings", "check_run", "evaluate_batch", "grade_limit", "is_count",
    "is_geometric", "judged_only", "make_conventions", "nothing_to_evaluate", "ranking_scores", "reads_scores",
    "uses_exponential_gain",
]
