"""Tie intervals of a run: for every measure, per query and for the mean, the lowest and highest value over all
orders of the tied documents and the expected value under a uniformly random order of each tie group.

How each number is found, per query:

* no tie group with two different labels (:mod:`metrics.ties.groups`): the value is the only one;
* at most :data:`MAX_ORDERS` distinct rankings (and a batch of at most :data:`MAX_CELLS` ranks): every one is
  scored (one batch), so low, high and the expectation are exact for every measure;
* more: the expectation in closed form where there is one (:mod:`metrics.ties.expected`), and low and high from
  the two rankings with every tie group sorted by label, best first and best last, for the measures in
  :data:`SORTED_EXTREMES` (those for which that is proven to give the extremes, and checked against every order by
  tests/analyses/test_ties.py); for the others, and for a tie group that straddles the -M depth, the number is not
  available (None), never estimated.

The mean's low and high aggregate the queries' lows and highs (each query's ties are ordered independently, and the
mean, sum and geometric mean grow with each query's value); its expectation is the mean of the expectations (or
their sum, for counts). The geometric means (gm_map, gm_bpref) have no expectation here: the expected geometric
mean is not a function of the queries' expectations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..conventions import Conventions
from ..engine import (
    aggregate_columns,
    as_measures,
    check_gain_range,
    check_qrels,
    check_run,
    evaluate_batch,
    is_count,
    is_geometric,
    judged_only,
    make_conventions,
)
from ..model import InputError, Qrels, Run, compared_scores, rankings_for_run
from ..names import Measure
from .expected import AVERAGED_GAINS, averaged_conventions, closed_forms
from .groups import TiedQuery, as_evaluated, batch_of, batch_of_many

#: The largest number of distinct rankings scored one by one for a query (beyond, closed forms and sorted groups).
MAX_ORDERS = 5040
#: ...and the largest batch they make (rankings x ranks): 5,040 orders of a 1,000-document ranking would be 40 MB
#: per matrix, so long rankings are scored one by one only for fewer orders.
MAX_CELLS = 1_000_000

NO_CHANGE = "no tie changes the ranking"

#: Measures whose lowest and highest values over the orders of the tie groups are those of the two rankings with
#: each group sorted by label (grade descending, then pooled-unjudged, then absent; and the reverse). Exchanging two
#: adjacent tied documents so that the better one comes first never lowers them (never raises unj and rbp_resid):
#: Rndcg averages nDCG at fixed ranks, and ndcg_rel's term for the better document only grows when it moves up
#: past one without gain (DCG grows more than the ideal DCG does). infAP is not among them: how many pooled
#: documents lie above a relevant one moves it both ways (tests/analyses/test_ties.py has a case).
SORTED_EXTREMES = frozenset({
    "P", "recall", "success", "recip_rank", "recip_rank_cut", "map", "gm_map", "map_cut", "Rprec", "bpref",
    "gm_bpref", "iprec_at_recall", "11pt_avg", "binG", "G", "ndcg", "ndcg_cut", "relative_P", "Rprec_mult",
    "F", "ERR", "rbp", "rbp_resid", "unj", "Judged", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
    "utility", "num_ret", "num_rel", "num_rel_ret", "num_q", "num_nonrel_judged_ret", "ndcg_rel", "Rndcg",
})


@dataclass(frozen=True)
class TieInterval:
    """One measure's value for one query (or the mean) and what the order of its tied documents can make of it.
    ``low``, ``high`` and ``expected`` are None where not available (see :mod:`metrics.ties.intervals`)."""

    value: float
    low: float | None
    high: float | None
    expected: float | None

    @property
    def spread(self) -> float | None:
        """high - low: how much the order of the tied documents can move the value (None if unknown)."""
        return None if self.low is None or self.high is None else self.high - self.low


@dataclass(frozen=True)
class TieTable:
    """Tie intervals of every query (sorted ids, trec_eval's order) and measure. ``orders[i]`` is how many
    distinct rankings query i's ties allow (1: no tie matters); ``how[i]`` says how its numbers were found."""

    qids: list[str]
    measures: list[Measure]
    values: dict[str, np.ndarray]
    low: dict[str, np.ndarray]  # NaN where not available
    high: dict[str, np.ndarray]
    expected: dict[str, np.ndarray]
    orders: list[int]
    how: list[str]

    @cached_property
    def _row(self) -> dict[str, int]:
        return {qid: i for i, qid in enumerate(self.qids)}

    def query(self, qid: str) -> dict[str, TieInterval]:
        """Every measure's interval for one query."""
        i = self._row[qid]
        return {m.key: TieInterval(float(self.values[m.key][i]), _known(self.low[m.key][i]),
                                   _known(self.high[m.key][i]), _known(self.expected[m.key][i]))
                for m in self.measures}

    def means(self) -> dict[str, TieInterval]:
        """The 'all' line: aggregates of the values, lows and highs; the expectation's mean (or sum)."""
        out = {}
        for m in self.measures:
            key = m.key
            value = aggregate_columns({key: self.values[key]})[key]
            low = high = expected = None
            if not np.isnan(self.low[key]).any():
                low = aggregate_columns({key: self.low[key]})[key]
            if not np.isnan(self.high[key]).any():
                high = aggregate_columns({key: self.high[key]})[key]
            if not is_geometric(key) and not np.isnan(self.expected[key]).any() and self.qids:
                total = float(np.sum(self.expected[key]))
                expected = total if is_count(key) else total / len(self.qids)
            out[key] = TieInterval(value, low, high, expected)
        return out

    def changed(self, key: str) -> list[str]:
        """The queries whose ``key`` the order of the tied documents can change (or might: bounds unknown)."""
        low, high = self.low[key], self.high[key]
        moved = np.isnan(low) | np.isnan(high) | (high - low > 1e-12)
        return [qid for qid, flag, orders in zip(self.qids, moved.tolist(), self.orders) if flag and orders > 1]


def _known(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def query_intervals(query: TiedQuery, measures: Sequence[Measure], conventions: Conventions
                    ) -> tuple[dict[str, tuple[float, float, float, float]], int, str]:
    """``{key: (value, low, high, expected)}`` for one query (NaN where not available), its number of distinct
    rankings, and how the numbers were found."""
    condensed_of = {m.key: judged_only(m, conventions) for m in measures}
    by_kind: dict[bool, list[Measure]] = {}
    for m in measures:
        by_kind.setdefault(condensed_of[m.key], []).append(m)

    def score(rows: np.ndarray) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for condensed, group in by_kind.items():
            out.update(evaluate_batch(batch_of(query, rows, conventions, condensed), group, conventions))
        return out

    orders = query.orders()
    if orders == 1:
        values = {key: float(column[0]) for key, column in score(query.labels).items()}
        return {key: (v, v, v, v) for key, v in values.items()}, 1, NO_CHANGE
    evaluated = {condensed: as_evaluated(query, conventions, condensed) for condensed in by_kind}
    straddles = query.straddles(conventions.depth)
    closed = {} if straddles else closed_forms(list(measures), query, conventions, evaluated, condensed_of)
    if enumerable(query):
        # Row 0 is trec_eval's order, then every distinct ranking once.
        scored = score(np.vstack([query.labels[None, :], query.every_order()]))
        out = {}
        for key, column in scored.items():
            found = closed.get(key)
            every = column[1:]
            out[key] = (float(column[0]), float(every.min()), float(every.max()),
                        float(np.mean(every)) if found is None else found)
        return out, orders, f"all {orders:,} orders scored"
    return sorted_intervals(query, measures, score(three_rows(query)), closed, straddles)


def enumerable(query: TiedQuery) -> bool:
    """Whether every distinct ranking of ``query`` is scored one by one (few enough, in a small enough batch)."""
    orders = query.orders()
    return orders <= MAX_ORDERS and (orders + 1) * max(1, query.labels.shape[0]) <= MAX_CELLS


def three_rows(query: TiedQuery) -> np.ndarray:
    """trec_eval's order, then every tie group sorted best label first, then best label last."""
    return np.vstack([query.labels, query.sorted_labels(True), query.sorted_labels(False)])


def sorted_intervals(query: TiedQuery, measures: Sequence[Measure], scored: Mapping[str, np.ndarray],
                     closed: Mapping[str, float | None], straddles: bool
                     ) -> tuple[dict[str, tuple[float, float, float, float]], int, str]:
    """A query with too many orders to score: ``scored`` holds each measure on :func:`three_rows`; low and high
    come from the sorted rows for :data:`SORTED_EXTREMES`, the expectation from ``closed``."""
    nan = float("nan")
    orders = query.orders()
    if straddles:
        return ({key: (float(column[0]), nan, nan, nan) for key, column in scored.items()}, orders,
                f"{orders:,} orders and a tie across the -M depth: not available")
    out = {}
    for m in measures:
        column = scored[m.key]
        low, high = (float(column[1:].min()), float(column[1:].max())) if m.name in SORTED_EXTREMES else (nan, nan)
        found = closed.get(m.key)
        out[m.key] = (float(column[0]), low, high, nan if found is None else found)
    return out, orders, f"{orders:,} orders: extremes by sorting each tie group, expectation in closed form"


def tie_table(qids: Sequence[str], queries: Sequence[TiedQuery], measures: str | Iterable[str | Measure],
              conventions: Conventions | None = None) -> TieTable:
    """Tie intervals of prepared queries (:class:`TiedQuery`), kept in trec_eval's query order (sorted ids)."""
    conv = make_conventions(conventions)
    if conv.missing_ranking == "placeholder":
        raise InputError("tie intervals do not support missing_ranking='placeholder' (trec_eval 10's -c): "
                         "use missing_ranking='empty'")
    parsed = as_measures(measures)
    order = sorted(range(len(qids)), key=lambda i: qids[i])
    found: dict[int, dict[str, tuple[float, float, float, float]]] = {}
    counts: dict[int, int] = {}
    notes: dict[int, str] = {}
    # Queries whose ties change nothing (most of a run) are scored together, in one batch per kind of list.
    simple = [i for i in order if queries[i].orders() == 1]
    if simple:
        scored = score_many([(queries[i], queries[i].labels[None, :]) for i in simple], parsed, conv)
        for row, i in enumerate(simple):
            found[i] = {key: (float(column[row]),) * 4 for key, column in scored.items()}
            counts[i], notes[i] = 1, NO_CHANGE
    # Queries with too many orders to score one by one: their three rows in one batch, and the tie-averaged gains
    # of nDCG and RBP in another.
    large = [i for i in order if i not in found and not enumerable(queries[i])
             and not queries[i].straddles(conv.depth)]
    if large:
        scored = score_many([(queries[i], three_rows(queries[i])) for i in large], parsed, conv)
        averaged = [m for m in parsed if m.name in AVERAGED_GAINS and not (m.name == "rbp" and m.gain_map)]
        mean_gains = score_many([(queries[i], queries[i].labels[None, :]) for i in large], averaged,
                                averaged_conventions(conv)) if averaged else {}
        condensed_of = {m.key: judged_only(m, conv) for m in parsed}
        kinds = set(condensed_of.values())
        for row, i in enumerate(large):
            query = queries[i]
            evaluated = {condensed: as_evaluated(query, conv, condensed) for condensed in kinds}
            closed = closed_forms(parsed, query, conv, evaluated, condensed_of,
                                  {key: float(column[row]) for key, column in mean_gains.items()})
            rows = {key: column[3 * row: 3 * row + 3] for key, column in scored.items()}
            found[i], counts[i], notes[i] = sorted_intervals(query, parsed, rows, closed, False)
    for i in order:
        if i not in found:
            found[i], counts[i], notes[i] = query_intervals(queries[i], parsed, conv)
    parts = ("value", "low", "high", "expected")
    arrays = {part: {m.key: np.array([found[i][m.key][j] for i in order], dtype=np.float64) for m in parsed}
              for j, part in enumerate(parts)}
    return TieTable([qids[i] for i in order], parsed, arrays["value"], arrays["low"], arrays["high"],
                    arrays["expected"], [counts[i] for i in order], [notes[i] for i in order])


def score_many(parts: Sequence[tuple[TiedQuery, np.ndarray]], measures: Sequence[Measure], conventions: Conventions
               ) -> dict[str, np.ndarray]:
    """Every measure over the label rows of several queries (:func:`metrics.ties.groups.batch_of_many`), each on
    the list it is scored on (whole, or without unjudged documents)."""
    by_kind: dict[bool, list[Measure]] = {}
    for m in measures:
        by_kind.setdefault(judged_only(m, conventions), []).append(m)
    out: dict[str, np.ndarray] = {}
    for condensed, group in by_kind.items():
        out.update(evaluate_batch(batch_of_many(parts, conventions, condensed), group, conventions))
    return out


def tied_queries(qrels: Qrels, run: Run, conventions: Conventions) -> tuple[list[str], list[TiedQuery]]:
    """Each evaluated query of a run (dicts) in trec_eval's tie order, with its tie groups."""
    qids, rankings = rankings_for_run(qrels, run, conventions.tie_order,
                                      include_missing=conventions.missing_queries == "zero",
                                      score_precision=conventions.score_precision)
    queries = []
    for qid, ranking in zip(qids, rankings):
        scores = compared_scores(np.array([float(run[qid][doc]) for doc in ranking], dtype=np.float64),
                                 conventions.score_precision) if ranking else np.zeros(0)
        queries.append(TiedQuery.from_ranking(ranking, scores, qrels[qid]))
    return qids, queries


def tie_intervals(qrels: Qrels, run: Run, measures: str | Iterable[str | Measure], *,
                  relevance_level: int | None = None, judged_docs_only: bool | None = None,
                  conventions: Conventions | None = None, **convention_changes: object) -> TieTable:
    """Tie intervals of a run given as dicts, with the arguments of :func:`metrics.evaluate`."""
    conv = make_conventions(conventions, relevance_level=relevance_level, judged_docs_only=judged_docs_only,
                            **convention_changes)
    check_qrels(qrels)
    check_run(run)
    parsed = as_measures(measures)
    qids, queries = tied_queries(qrels, run, conv)
    check_gain_range([qrels[qid] for qid in qids], parsed, conv, names=qids)
    return tie_table(qids, queries, parsed, conv)


def ranking_intervals(ranking: Sequence[str], scores: Sequence[float], judgments: Mapping[str, int],
                      measures: str | Iterable[str | Measure], conventions: Conventions | None = None
                      ) -> dict[str, TieInterval]:
    """Tie intervals of one ranking (doc ids in rank order, with their scores as compared): ``{key: interval}``."""
    conv = make_conventions(conventions)
    if len(ranking) != len(scores):
        raise InputError(f"the ranking has {len(ranking)} documents but {len(scores)} scores")
    table = tie_table(["q"], [TiedQuery.from_ranking(list(ranking), scores, judgments)], measures, conv)
    return table.query("q")
