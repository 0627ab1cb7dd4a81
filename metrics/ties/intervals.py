"""Tie intervals of a run: for every measure, per query and for the mean, the lowest and highest value over all
orders of the tied documents and the expected value under a uniformly random order of each tie group.

How each number is found, per query (every step scores many queries in one batch, so a run costs time linear in
its lines):

* no tie group with two different labels (:mod:`metrics.ties.groups`): the value is the only one;
* otherwise, whatever the size of the groups, the expectation in closed form where there is one
  (:mod:`metrics.ties.expected`), and low and high from the two rankings with every tie group sorted, best first
  and best last, for the measures in :data:`SORTED_EXTREMES` (those for which that is proven to give the extremes,
  and checked against every order by tests/analyses/test_ties.py). Best means the highest label (grade
  descending, then pooled-unjudged, then absent); for a measure with a gain map (``ndcg.0=5,1=1``) whose gains do
  not rise with the grade, it means the highest gain, which gives the extremes of the measures in
  :data:`REARRANGED` (a sum of gains over non-increasing rank weights: the rearrangement inequality) and of no
  other;
* a number still missing (a measure outside those sets, or a tie group straddling the -M depth) is found by
  scoring every distinct ranking, when the query has at most :data:`MAX_ORDERS` of them in a batch of at most
  :data:`MAX_CELLS` ranks and the run has scored fewer than :data:`MAX_RUN_CELLS` ranks this way; otherwise it is
  not available (None), never estimated. Where low and high are equal, so is the expectation.

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
from .groups import OrderCount, TiedQuery, as_evaluated, batch_of_many

#: The largest number of distinct rankings scored one by one for a query (where a number has no other way).
MAX_ORDERS = 5040
#: ...and the largest batch they make (rankings x ranks): 5,040 orders of a 1,000-document ranking would be 40 MB
#: per matrix, so long rankings are scored one by one only for fewer orders.
MAX_CELLS = 1_000_000
#: Queries are scored together in batches of about this many ranks (a query larger than that alone): the engine
#: keeps a few dozen matrices of a batch's shape, so this bounds memory whatever the run.
BATCH_CELLS = 250_000
#: The most ranks a run scores one order at a time, over all its queries (past it, what only that could give is
#: not available): 10,000 queries of 7 tied documents, three grades, take 14.8 million.
MAX_RUN_CELLS = 20_000_000

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
    "dcg", "dcg_cut",
})

#: Measures that are a sum of each rank's gain times a weight that does not grow with the rank, over an ideal or a
#: scale the order cannot change: sorting each tie group by gain gives their extremes whatever the gains are
#: (negative ones, or a grade 0 worth more than a grade 1), by the rearrangement inequality.
REARRANGED = frozenset({"G", "dcg", "dcg_cut", "ndcg", "ndcg_cut", "rbp"})

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
    orders: list[OrderCount]
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
                    ) -> tuple[dict[str, tuple[float, float, float, float]], OrderCount, str]:
    """``{key: (value, low, high, expected)}`` for one query (NaN where not available), its number of distinct
    rankings, and how the numbers were found: :func:`tie_table` of that query alone."""
    table = tie_table(["q"], [query], measures, conventions)
    found = {m.key: (float(table.values[m.key][0]), float(table.low[m.key][0]), float(table.high[m.key][0]),
                     float(table.expected[m.key][0])) for m in table.measures}
    return found, table.orders[0], table.how[0]


def enumerable(query: TiedQuery) -> bool:
    """Whether every distinct ranking of ``query`` may be scored one by one (few enough, in a small enough batch)."""
    orders = query.orders()
    return orders <= MAX_ORDERS and (int(orders) + 1) * max(1, query.labels.shape[0]) <= MAX_CELLS


def gain_of_labels(measure: Measure, labels: Iterable[int]) -> dict[int, float] | None:
    """Each label's gain under ``measure``'s gain map (unjudged: 0; an unmapped grade: itself), or None when the
    measure has no gain map or its gains rise with the label on ``labels`` (then sorting by label is sorting by
    gain)."""
    if not measure.gain_map:
        return None
    mapped = dict(measure.gain_map)
    gain = {label: float(mapped.get(label, label)) if label >= 0 else 0.0 for label in set(labels)}
    ordered = [gain[label] for label in sorted(gain)]
    return None if all(a <= b for a, b in zip(ordered, ordered[1:])) else gain


@dataclass
class _Sorted:
    """One query's sorted rankings: row 0 trec_eval's order, rows 1-2 sorted by label best first and last, then
    two rows (best and worst gain first) for each gain map whose gains do not rise with the label."""

    rows: np.ndarray
    by_gain: dict[tuple[tuple[int, float], ...] | None, int | None]  # gain map -> its best row (worst: the next)


def _sorted_rows(query: TiedQuery, measures: Sequence[Measure]) -> _Sorted:
    rows = [query.labels, query.sorted_labels(True), query.sorted_labels(False)]
    by_gain: dict[tuple[tuple[int, float], ...] | None, int | None] = {None: 1}
    present = query.labels.tolist()
    for m in measures:
        if m.gain_map in by_gain:
            continue
        gain = gain_of_labels(m, present)
        by_gain[m.gain_map] = 1 if gain is None else len(rows)  # gains that rise with the label: the label rows
        if gain is not None:
            rows += [query.sorted_labels(True, gain), query.sorted_labels(False, gain)]
    return _Sorted(np.vstack(rows), by_gain)


class _Found:
    """value, low, high and expected of each measure (key) for each query (position in the table), NaN until
    found, and how each query's numbers were found."""

    def __init__(self, keys: Sequence[str], size: int):
        self.parts = {part: {key: np.full(size, np.nan) for key in keys} for part in PARTS}
        self.how = [""] * size

    def missing(self, positions: Sequence[int]) -> list[int]:
        """The positions with some number not found yet."""
        at = np.asarray(positions, dtype=np.int64)
        gaps = np.zeros(at.shape[0], dtype=bool)
        for columns in self.parts.values():
            for column in columns.values():
                gaps |= np.isnan(column[at])
        return at[gaps].tolist()


PARTS = ("value", "low", "high", "expected")


def tie_table(qids: Sequence[str], queries: Sequence[TiedQuery], measures: str | Iterable[str | Measure],
              conventions: Conventions | None = None) -> TieTable:
    """Tie intervals of prepared queries (:class:`TiedQuery`), kept in trec_eval's query order (sorted ids)."""
    conv = make_conventions(conventions)
    if conv.missing_ranking == "placeholder":
        raise InputError("tie intervals do not support missing_ranking='placeholder' (trec_eval 10's -c): "
                         "use missing_ranking='empty'")
    parsed = as_measures(measures)
    keys = [m.key for m in parsed]
    order = sorted(range(len(qids)), key=lambda i: qids[i])
    ordered = [queries[i] for i in order]
    found = _Found(keys, len(ordered))
    # Queries whose ties change nothing (most of a run) are scored together, in one batch per kind of list.
    simple = [p for p, query in enumerate(ordered) if query.orders() == 1]
    if simple:
        scored = score_many([(ordered[p], ordered[p].labels[None, :]) for p in simple], parsed, conv)
        for key, column in scored.items():
            for part in PARTS:
                found.parts[part][key][simple] = column
        for p in simple:
            found.how[p] = NO_CHANGE
    tied = [p for p, query in enumerate(ordered) if query.orders() > 1]
    closed = _sorted_and_closed(ordered, tied, parsed, keys, conv, found)
    # What is still missing, from every order, as far as the budgets allow.
    _score_every_order(found.missing(tied), ordered, parsed, conv, closed, found)
    return TieTable([qids[i] for i in order], parsed,
                    found.parts["value"], found.parts["low"], found.parts["high"], found.parts["expected"],
                    [query.orders() for query in ordered], found.how)


def _sorted_and_closed(queries: Sequence[TiedQuery], tied: Sequence[int], measures: Sequence[Measure],
                       keys: Sequence[str], conventions: Conventions, found: _Found
                       ) -> dict[int, Mapping[str, float | None]]:
    """Every tied query's value, low and high from its sorted rows (one batch) and its closed forms (with the
    tie-averaged gains of nDCG and RBP in one more batch); returns the closed forms, by position."""
    if not tied:
        return {}
    straddling = {p for p in tied if queries[p].straddles(conventions.depth)}
    sorts = [_sorted_rows(queries[p], measures) for p in tied]
    scored = score_many([(queries[p], sort.rows) for p, sort in zip(tied, sorts)], measures, conventions)
    starts = np.cumsum([0] + [sort.rows.shape[0] for sort in sorts[:-1]])
    at = np.asarray(tied, dtype=np.int64)
    for m, key in zip(measures, keys):
        column = scored[key]
        found.parts["value"][key][at] = column[starts]
        # Each query's best sorted row: by label (1) when the gains rise with it, else the gain map's own rows.
        best = np.array([sort.by_gain[m.gain_map] for sort in sorts], dtype=np.int64)
        usable = np.where(best == 1, m.name in SORTED_EXTREMES, m.name in REARRANGED)
        first, second = column[starts + best], column[starts + best + 1]
        found.parts["low"][key][at] = np.where(usable, np.minimum(first, second), np.nan)
        found.parts["high"][key][at] = np.where(usable, np.maximum(first, second), np.nan)
    for part in ("low", "high"):
        for key in keys:
            found.parts[part][key][sorted(straddling)] = np.nan
    closing = [p for p in tied if p not in straddling]
    averaged = [m for m in measures if m.name in AVERAGED_GAINS and not (m.name == "rbp" and m.gain_map)]
    mean_gains = score_many([(queries[p], queries[p].labels[None, :]) for p in closing], averaged,
                            averaged_conventions(conventions)) if averaged and closing else {}
    condensed_of = {key: judged_only(m, conventions) for m, key in zip(measures, keys)}
    closed: dict[int, Mapping[str, float | None]] = {}
    for row, p in enumerate(closing):
        query = queries[p]
        evaluated = {condensed: as_evaluated(query, conventions, condensed) for condensed in set(condensed_of.values())}
        closed[p] = closed_forms(list(measures), query, conventions, evaluated, condensed_of,
                                 {key: float(column[row]) for key, column in mean_gains.items()})
        for key, value in closed[p].items():
            if value is not None:
                found.parts["expected"][key][p] = value
    for key in keys:
        low, high, expected = (found.parts[part][key] for part in ("low", "high", "expected"))
        fixed = np.isnan(expected) & (low == high)  # a value no order moves is its own expectation
        expected[fixed] = low[fixed]
    for p in tied:
        orders = queries[p].orders()
        found.how[p] = (f"{orders:,} orders and a tie across the -M depth: not available" if p in straddling else
                        f"{orders:,} orders: extremes by sorting each tie group, expectation in closed form")
    return closed


def _score_every_order(candidates: Sequence[int], queries: Sequence[TiedQuery], measures: Sequence[Measure],
                       conventions: Conventions, closed: Mapping[int, Mapping[str, float | None]], found: _Found
                       ) -> None:
    """Scores every distinct ranking of the ``candidates`` (positions) that :func:`enumerable` allows, within
    :data:`MAX_RUN_CELLS`, many queries a batch, and fills in their numbers: low, high and the mean over the
    orders (the closed form, where there is one, for the mean)."""
    budget = MAX_RUN_CELLS
    pending: list[tuple[int, np.ndarray]] = []
    pending_cells = 0

    def flush() -> None:
        scored = score_many([(queries[p], rows) for p, rows in pending], measures, conventions)
        sizes = np.array([rows.shape[0] for _, rows in pending], dtype=np.int64)
        starts = np.cumsum(sizes) - sizes
        # Every row but each query's first (trec_eval's order), and where each query's rows begin among them.
        every = np.ones(int(sizes.sum()), dtype=bool)
        every[starts] = False
        begins = starts - np.arange(len(pending))
        at = [p for p, _ in pending]
        for key, column in scored.items():
            rest = column[every]
            found.parts["value"][key][at] = column[starts]
            found.parts["low"][key][at] = np.minimum.reduceat(rest, begins)
            found.parts["high"][key][at] = np.maximum.reduceat(rest, begins)
            mean = np.add.reduceat(rest, begins) / (sizes - 1)
            known = [closed.get(p, {}).get(key) for p in at]
            found.parts["expected"][key][at] = [m if k is None else k for m, k in zip(mean.tolist(), known)]
        for p in at:
            found.how[p] = f"all {queries[p].orders():,} orders scored"
        pending.clear()

    for p in candidates:
        query = queries[p]
        if not enumerable(query):
            continue
        cells = (int(query.orders()) + 1) * max(1, query.labels.shape[0])
        if cells > budget:
            found.how[p] += f"; not every order scored: the run's budget of {MAX_RUN_CELLS:,} ranks is spent"
            continue
        budget -= cells
        # Row 0 is trec_eval's order, then every distinct ranking once.
        pending.append((p, np.vstack([query.labels[None, :], query.every_order()])))
        pending_cells += cells
        if pending_cells >= BATCH_CELLS:
            flush()
            pending_cells = 0
    if pending:
        flush()


def score_many(parts: Sequence[tuple[TiedQuery, np.ndarray]], measures: Sequence[Measure], conventions: Conventions
               ) -> dict[str, np.ndarray]:
    """Every measure over the label rows of several queries (:func:`metrics.ties.groups.batch_of_many`), each on
    the list it is scored on (whole, or without unjudged documents): one value per row, in order. The rows are
    scored in batches of about :data:`BATCH_CELLS` ranks, so memory stays bounded whatever the run."""
    by_kind: dict[bool, list[Measure]] = {}
    for m in measures:
        by_kind.setdefault(judged_only(m, conventions), []).append(m)
    chunks: list[dict[str, np.ndarray]] = []
    start = 0
    while start < len(parts):
        end, cells = start, 0
        while end < len(parts) and (end == start or cells + parts[end][1].size <= BATCH_CELLS):
            cells += parts[end][1].size
            end += 1
        out: dict[str, np.ndarray] = {}
        for condensed, group in by_kind.items():
            out.update(evaluate_batch(batch_of_many(parts[start:end], conventions, condensed), group, conventions))
        chunks.append(out)
        start = end
    keys = [m.key for m in measures]
    return {key: np.concatenate([chunk[key] for chunk in chunks]) for key in keys} if chunks else {}


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
