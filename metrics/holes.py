"""Judgment holes: how much of each score rests on documents nobody judged.

For a measure with a rank cut-off k (``P@10``, ``nDCG@10``), the *hole* is the unjudged documents in the top k;
for a measure without one (AP, R-precision, RR, nDCG, bpref; and measures whose parameter is not a rank, such as
IPrec@x or Rprec_mult), k is the ranking's length (after ``depth``, trec_eval -M), so every unjudged document
retrieved belongs to the hole. A document is *unjudged* when it has no grade >= 0 for the query: outside the
qrels, or in them with a negative grade (trec_eval's rule: the documents -J drops).

Every measure gets, per query:

* ``value``: the score as computed, trec_eval's assumption (unjudged documents count as non-relevant; bpref,
  infAP and the condensed list of -J treat them as trec_eval does);
* ``judged``: Judged@k, the share of the top min(k, |L|) documents that are judged (0 for an empty ranking),
  computed by the ``Judged`` kernel with the same notion of judged as the hole;
* the *all relevant* scenario: every unjudged document in the top k judged relevant at the query's top grade
  g* = max(the largest grade >= 0 in the query's qrels, the measure's relevance level). These documents join the
  query's judgments, so R and the ideal DCG grow with them. A query without a relevant document gets
  g* = the relevance level: its unjudged top-k documents become its only relevant ones (R = their number);
* ``low`` = min(value, all relevant), ``high`` = max(value, all relevant): the range between the two scenarios.

For the measures in :data:`BOUNDED` (and not scored on the condensed list, -J or ``judged_only``), ``low`` and
``high`` are true bounds: whatever judgments the unjudged documents in the top k receive (any grades, some left
unjudged), the value stays within [low, high], as long as documents outside the top k keep their status. These
measures read a judgment only as relevant or not and move in one direction with each one. For every other
measure the two scenarios are not bounds: AP of [relevant, unjudged x 9] with R = 1 is 1 as judged and 1 with
all nine relevant, but (1 + 2/10) / 2 = 0.6 when only the tenth is relevant. ``tests/analyses/test_holes.py``
checks both statements over random partial judgments.

Each scenario is one batch per distinct (k, relevance level): no per-document loop, work follows the batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .bulk import batches_for_run
from .conventions import Conventions
from .engine import (
    aggregate_columns,
    as_measures,
    check_gain_range,
    check_qrels,
    check_rankings,
    check_run,
    evaluate_batch,
    judged_only,
    make_conventions,
    ranking_scores,
)
from .io.trec import read_qrels, read_run
from .measures import MEASURES, Context
from .measures.judgments import judged_fraction
from .model import NO_JUDGMENT, Qrels, RankingBatch, Run, rankings_for_run
from .names import Measure

#: Measures whose [low, high] bounds every judgment of the hole: they see a document only as relevant or not (or
#: judged or not), and each judgment moves them one way (P, recall, success, RR, RR@k, F, set_P, set_recall, set_F,
#: Judged, num_rel and num_rel_ret up; unj down; num_q and num_ret not at all; tests/analyses/test_holes.py checks
#: it over random partial judgments). Not when scored on the condensed list: judging a document there inserts it.
BOUNDED = frozenset(name for name, info in MEASURES.items() if info.monotone)
#: Bounded measures that a judgment outside the hole still moves: the ones dividing by R fall when a document below
#: k (or not retrieved) is judged relevant, and num_rel, R itself, rises. Their bounds hold while nothing else is
#: judged.
MOVED_FROM_OUTSIDE = frozenset({"recall", "set_recall", "F", "set_F", "num_rel"})


def hole_cutoff(measure: Measure) -> int:
    """The k of a measure's hole: its rank cut-off, or 0 for the whole ranking (uncut, or a cut-off that is not
    a rank: IPrec@x, Rprec_mult)."""
    if measure.cutoff is None or measure.info.float_cutoffs:
        return 0
    return int(measure.cutoff)


def top_grade(judgments: Mapping[str, int], relevance_level: int) -> int:
    """g*, the grade the all-relevant scenario gives the hole: the query's largest grade >= 0, at least the
    relevance level (so a query without a relevant document gets the level)."""
    return max([int(g) for g in judgments.values() if g >= 0] + [int(relevance_level)])


def is_bounded(measure: Measure, conventions: Conventions) -> bool:
    """Whether low and high of ``measure`` are true bounds under ``conventions`` (see :data:`BOUNDED`)."""
    return measure.name in BOUNDED and not judged_only(measure, conventions)


def hole_kind(measure: Measure, conventions: Conventions) -> str:
    """``"bounds"`` (low and high bound every judgment of the hole) or ``"scenarios"`` (only their range)."""
    return "bounds" if is_bounded(measure, conventions) else "scenarios"


@dataclass(frozen=True)
class MeasureHole:
    """One measure on one query: the value, its Judged@k, and the low and high of the two scenarios."""

    value: float
    low: float
    high: float
    judged: float
    k: int | None  # the hole's depth: the measure's cut-off, None for the whole ranking
    bounded: bool  # low and high are bounds over every judgment of the hole (else the scenarios' range)

    @property
    def kind(self) -> str:
        return "bounds" if self.bounded else "scenarios"


@dataclass(frozen=True)
class HoleTable:
    """Per-query holes of several measures: arrays indexed like ``qids`` (sorted in trec_eval's order)."""

    qids: list[str]
    measures: list[Measure]
    value: dict[str, np.ndarray]
    low: dict[str, np.ndarray]
    high: dict[str, np.ndarray]
    judged: dict[str, np.ndarray]
    conventions: Conventions

    def bounded(self, key: str) -> bool:
        return is_bounded(self._measure(key), self.conventions)

    def k(self, key: str) -> int | None:
        return hole_cutoff(self._measure(key)) or None

    def query(self, qid: str) -> dict[str, MeasureHole]:
        """Every measure's hole for one query."""
        i = self.qids.index(qid)
        return {m.key: MeasureHole(float(self.value[m.key][i]), float(self.low[m.key][i]), float(self.high[m.key][i]),
                                   float(self.judged[m.key][i]), hole_cutoff(m) or None,
                                   is_bounded(m, self.conventions)) for m in self.measures}

    def means(self) -> dict[str, MeasureHole]:
        """Each measure's ``all`` line under trec_eval's rules (counts summed, gm_* geometric, the rest averaged),
        for the value and for the per-query lows, highs and Judged@k, summed in sorted-qid order."""
        parts = {name: aggregate_columns(getattr(self, name)) for name in ("value", "low", "high")}
        judged = {key: float(np.cumsum(column)[-1] / column.size) if column.size else 0.0
                  for key, column in self.judged.items()}
        return {m.key: MeasureHole(parts["value"][m.key], parts["low"][m.key], parts["high"][m.key], judged[m.key],
                                   hole_cutoff(m) or None, is_bounded(m, self.conventions)) for m in self.measures}

    def _measure(self, key: str) -> Measure:
        for measure in self.measures:
            if measure.key == key:
                return measure
        raise KeyError(key)


# ---- the kernel: one batch -----------------------------------------------------------------------------------


def holes_of_batch(batch: RankingBatch, measures: str | Iterable[str | Measure],
                   conventions: Conventions | None = None) -> dict[str, dict[str, np.ndarray]]:
    """``{"value"|"low"|"high"|"judged": {key: array of batch.size}}`` for a batch of whole rankings (cut to
    ``depth`` but not condensed: measures scored on the condensed list, -J or ``judged_only``, are condensed
    here, after the scenario's judgments are added)."""
    conv = make_conventions(conventions)
    parsed = as_measures(measures)
    value = _evaluate(batch, parsed, conv)
    scenario: dict[str, np.ndarray] = {}
    groups: dict[tuple[int, int], list[Measure]] = {}
    for measure in parsed:
        groups.setdefault((_hole_depth(measure, batch), _level(measure, conv)), []).append(measure)
    for (k, level), group in groups.items():
        scenario.update(_evaluate(all_relevant(batch, k, level), group, conv))
    judged = judged_shares(batch, sorted({_hole_depth(m, batch) for m in parsed}), conv)
    return {
        "value": value,
        "low": {key: np.minimum(column, scenario[key]) for key, column in value.items()},
        "high": {key: np.maximum(column, scenario[key]) for key, column in value.items()},
        "judged": {m.key: judged[_hole_depth(m, batch)] for m in parsed},
    }


def all_relevant(batch: RankingBatch, k: int, level: int) -> RankingBatch:
    """The batch with every unjudged document in each ranking's top k (0: the whole ranking) judged at the
    query's top grade g* = max(largest judged grade, ``level``); the new grades join the query's judgments."""
    ranks = np.arange(batch.width)
    window = ranks < batch.lengths[:, None]
    if k > 0:
        window &= ranks < k
    flip = window & ~batch.judged
    top = np.maximum(np.asarray(batch.judged_grades)[:, 0], float(level))  # sorted descending, padded with -1
    grades = np.where(flip, top[:, None], batch.grades)
    added = flip.sum(axis=1)
    # g* is at least every judged grade, so the added grades go in front and each row stays sorted descending.
    old = np.asarray(batch.judged_grades)
    width = old.shape[1] + int(added.max(initial=0))
    source = np.arange(width)[None, :] - added[:, None]
    inside = (source >= 0) & (source < old.shape[1])
    taken = np.take_along_axis(old, np.clip(source, 0, old.shape[1] - 1), axis=1)
    judged_grades = np.where(source < 0, top[:, None], np.where(inside, taken, float(NO_JUDGMENT)))
    return RankingBatch(grades, batch.judged | flip, batch.lengths, judged_grades, batch.tied_with_previous)


def condensed(batch: RankingBatch) -> RankingBatch:
    """The batch without its unjudged documents (trec_eval -J), as ``RankingBatch.from_rankings`` builds it with
    ``judged_only``: the judged documents move up in order, and a kept document is tied with the kept document
    above it when every document between them was tied (scores only fall down a ranking)."""
    keep = batch.judged & (np.arange(batch.width) < batch.lengths[:, None])
    order = np.argsort(~keep, axis=1, kind="stable")
    lengths = keep.sum(axis=1).astype(np.int64)
    width = max(1, int(lengths.max(initial=0)))
    order = order[:, :width]
    filled = np.arange(width) < lengths[:, None]
    grades = np.where(filled, np.take_along_axis(batch.grades, order, axis=1), 0.0)
    tied = None
    if batch.tied_with_previous is not None:
        group = np.cumsum(~batch.tied_with_previous, axis=1)  # rank 1 always opens a group
        kept_group = np.take_along_axis(group, order, axis=1)
        tied = np.zeros(filled.shape, dtype=bool)
        tied[:, 1:] = filled[:, 1:] & (kept_group[:, 1:] == kept_group[:, :-1])
    return RankingBatch(grades, filled.copy(), lengths, batch.judged_grades, tied)


def judged_shares(batch: RankingBatch, depths: Sequence[int], conventions: Conventions) -> dict[int, np.ndarray]:
    """Judged@k for each k of ``depths`` (0: the whole ranking) with the ``Judged`` kernel, counting as judged a
    grade >= 0 only (a negative grade is unjudged here, as in the scenarios; ir_measures' Judged counts it)."""
    without_pool = RankingBatch(np.where(batch.judged, batch.grades, 0.0), batch.judged, batch.lengths,
                                batch.judged_grades)
    columns = judged_fraction(Context(without_pool, conventions), np.asarray(depths, dtype=np.int64))
    return {k: columns[:, j] for j, k in enumerate(depths)}


def _hole_depth(measure: Measure, batch: RankingBatch) -> int:
    # A cut-off at or beyond every ranking's length is the whole ranking: one scenario batch serves both.
    k = hole_cutoff(measure)
    return 0 if k >= batch.width else k


def _level(measure: Measure, conventions: Conventions) -> int:
    return measure.relevance_level if measure.relevance_level is not None else conventions.relevance_level


def _evaluate(batch: RankingBatch, measures: list[Measure], conv: Conventions) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    whole = [m for m in measures if not judged_only(m, conv)]
    condensed_only = [m for m in measures if judged_only(m, conv)]
    if whole:
        out.update(evaluate_batch(batch, whole, conv))
    if condensed_only:
        out.update(evaluate_batch(condensed(batch), condensed_only, conv))
    return {m.key: out[m.key] for m in measures}


# ---- entry points: one ranking, a run as dicts, files --------------------------------------------------------


def query_holes(ranking: Sequence[str], judgments: Mapping[str, int], measures: str | Iterable[str | Measure],
                conventions: Conventions | None = None, *, scores: Sequence[float] | None = None
                ) -> dict[str, MeasureHole]:
    """Every measure's hole for one ranking (doc ids in rank order) and its judgments: ``{key: MeasureHole}``."""
    table = ranking_holes([ranking], [judgments], measures, conventions,
                          scores=None if scores is None else [scores])
    return table.query(table.qids[0])


def ranking_holes(rankings: Sequence[Sequence[str]], judgments: Sequence[Mapping[str, int]],
                  measures: str | Iterable[str | Measure], conventions: Conventions | None = None, *,
                  qids: Sequence[str] | None = None, scores: Sequence[Sequence[float]] | None = None) -> HoleTable:
    """Holes of explicit rankings; ``qids`` name them (default "0", "1", ...; the table keeps them sorted)."""
    conv = make_conventions(conventions)
    check_rankings(rankings, judgments)
    parsed = as_measures(measures)
    check_gain_range(judgments, parsed, conv)
    names = [str(i) for i in range(len(rankings))] if qids is None else [str(q) for q in qids]
    batch = RankingBatch.from_rankings(rankings, judgments, depth=conv.depth, scores=scores,
                                       nonpositive_scores=conv.nonpositive_scores)
    return _table(names, holes_of_batch(batch, parsed, conv), parsed, conv)


def holes(qrels: Qrels, run: Run, measures: str | Iterable[str | Measure], *, relevance_level: int | None = None,
          judged_docs_only: bool | None = None, conventions: Conventions | None = None,
          **convention_changes: object) -> HoleTable:
    """Holes of a run given as dicts, with the arguments of :func:`metrics.evaluate`."""
    conv = make_conventions(conventions, relevance_level=relevance_level, judged_docs_only=judged_docs_only,
                            **convention_changes)
    check_qrels(qrels)
    check_run(run)
    qids, rankings = rankings_for_run(qrels, run, conv.tie_order, include_missing=conv.missing_queries == "zero",
                                      score_precision=conv.score_precision)
    scores = ranking_scores(run, qids, rankings, conv)
    return ranking_holes(rankings, [qrels[qid] for qid in qids], measures, conv, qids=qids, scores=scores)


def holes_tables(qrels, run, measures: str | Iterable[str | Measure], conventions: Conventions | None = None
                 ) -> HoleTable:
    """Holes of parsed TREC tables (:mod:`metrics.io.trec`) by the bulk path: no per-line Python."""
    conv = make_conventions(conventions)
    parsed = as_measures(measures)
    # The whole rankings: the scenarios judge documents before -J would drop them.
    qids, batches = batches_for_run(qrels, run, conv.replace(unjudged="nonrelevant"))
    parts: dict[str, dict[str, np.ndarray]] = {name: {} for name in ("value", "low", "high", "judged")}
    for rows, batch in batches:
        found = holes_of_batch(batch, parsed, conv)
        for name, columns in found.items():
            for key, column in columns.items():
                if rows is None:
                    parts[name][key] = column
                else:
                    parts[name].setdefault(key, np.zeros(len(qids)))[rows] = column
    for name in parts:
        for m in parsed:
            parts[name].setdefault(m.key, np.zeros(len(qids)))
    return _table([str(q) for q in qids], parts, parsed, conv)


def holes_files(qrels_source, run_source, measures: str | Iterable[str | Measure],
                conventions: Conventions | None = None) -> HoleTable:
    """Read TREC qrels and a run (paths, ``.gz`` or binary streams), then :func:`holes_tables`."""
    return holes_tables(read_qrels(qrels_source), read_run(run_source), measures, conventions)


def _table(qids: list[str], parts: Mapping[str, Mapping[str, np.ndarray]], measures: list[Measure],
           conv: Conventions) -> HoleTable:
    order = np.asarray(sorted(range(len(qids)), key=qids.__getitem__), dtype=np.int64)
    arranged = {name: {key: np.asarray(column)[order] for key, column in columns.items()}
                for name, columns in parts.items()}
    return HoleTable([qids[i] for i in order], measures, arranged["value"], arranged["low"], arranged["high"],
                     arranged["judged"], conv)


__all__ = ["BOUNDED", "HoleTable", "MeasureHole", "all_relevant", "condensed", "hole_cutoff",
           "hole_kind", "holes", "holes_files", "holes_of_batch", "holes_tables", "is_bounded", "judged_shares",
           "query_holes", "ranking_holes", "top_grade"]
