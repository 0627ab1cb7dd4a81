"""A run shallower than a measure: what it cannot hold, and how far a deeper run could move the number.

A measure reads the run to its depth: its cut-off k (P@k, R@k, AP@k, nDCG@k), or every rank for an uncut measure
(MAP, nDCG, RR, R-precision), which TREC runs give to depth 1000. A top-100 run (or a run cut at ``-M 100``) asked
for such a measure lacks every judged relevant document it did not retrieve in its top 100, and a number reported
from a deeper run cannot be reproduced from it. :func:`depth_shortfall` counts those documents per query and
computes, with the engine, the best value a deeper run that keeps these top ranks could reach: the lacking
relevant documents placed right after the last rank held, highest grade first, up to the measure's depth.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..conventions import Conventions
from ..engine import aggregate
from ..evaluate import evaluate, split_subtopic_qrels
from ..model import Qrels, Run, order_documents
from ..names import Measure, parse_one_measure

#: The depth an uncut measure is read to in a TREC run (trec_eval's usual -M 1000, the runs TREC asks for).
TREC_RUN_DEPTH = 1000


@dataclass(frozen=True, slots=True)
class DepthShortfall:
    """How a run falls short of a measure's depth.

    measure: the measure's key (``map``); measure_depth: its cut-off, or TREC_RUN_DEPTH when uncut (``assumed``);
    run_depth: the most documents any query holds, after ``cut_by`` (``-M N``, or None when the run itself stops);
    relevant_grade: the lowest grade counted as relevant; beyond: each judged query of the run -> judged relevant
    documents it does not hold within the measure's depth; value: the measure's mean on the run as it is;
    best_value: the mean with those documents placed right after its last rank (what a deeper run can reach at most).
    """

    measure: str
    measure_depth: int
    assumed: bool
    run_depth: int
    cut_by: int | None
    relevant_grade: int
    beyond: dict[str, int]
    value: float
    best_value: float

    @property
    def total(self) -> int:
        return sum(self.beyond.values())

    @property
    def queries_short(self) -> int:
        return sum(1 for count in self.beyond.values() if count)

    def headline(self) -> str:
        """Where the run stops, how deep the measure reads, and that the number needs a deeper run."""
        stop = (f"the run is cut at rank {self.run_depth} (-M {self.cut_by})" if self.cut_by is not None
                else f"the run stops at rank {self.run_depth}")
        depth = (f"{self.measure} reads every rank, which TREC runs give to depth {self.measure_depth}"
                 if self.assumed else f"{self.measure} reads down to rank {self.measure_depth}")
        return f"{stop}, but {depth}: {self.measure} at depth {self.measure_depth} needs a deeper run."

    def counts(self) -> str:
        """How many judged relevant documents the run lacks, and the most a deeper run could give."""
        counts = sorted(self.beyond.values())
        return (f"grade >= {self.relevant_grade}: {self.total} judged relevant documents lie beyond what the run "
                f"holds, within rank {self.measure_depth} ({self.total / len(counts):.1f} per query, from "
                f"{counts[0]} to {counts[-1]}, in {self.queries_short} of {len(counts)} queries); with them right "
                f"after rank {self.run_depth}, {self.measure} would be at most {self.best_value:.4f} "
                f"({self.value:.4f} here).")

    def sentences(self) -> list[str]:
        """The shortfall in plain words."""
        return [self.headline()[0].upper() + self.headline()[1:], self.counts()[0].upper() + self.counts()[1:]]

    def per_query_text(self) -> str:
        """``qid: count`` for every query that lacks some, in trec_eval's query order."""
        return ", ".join(f"{qid}: {count}" for qid, count in sorted(self.beyond.items()) if count)


def measure_depth(measure: Measure) -> tuple[int, bool]:
    """(depth, assumed): the cut-off, or TREC_RUN_DEPTH for a measure that reads every rank."""
    if measure.cutoff is not None and not measure.info.float_cutoffs:
        return int(measure.cutoff), False
    return TREC_RUN_DEPTH, True


def depth_shortfall(qrels: Qrels, run: Run, measure: str | Measure,
                    conventions: Conventions | None = None) -> DepthShortfall | None:
    """The shortfall of ``run`` for ``measure`` under ``conventions`` (its relevance level and -M depth), or None
    when every query holds the measure's depth or every judged relevant document it could reach."""
    conventions = conventions or Conventions()
    parsed = parse_one_measure(measure)
    depth, assumed = measure_depth(parsed)
    held = {qid: len(docs) if conventions.depth is None else min(len(docs), conventions.depth)
            for qid, docs in run.items() if qid in qrels}
    if not held or max(held.values()) >= depth:
        return None
    graded = "gain" in parsed.info.conventions and conventions.gain != "binary" and parsed.relevance_level is None
    level = 1 if graded else (parsed.relevance_level or conventions.relevance_level)
    level = max(level, 1)
    graded_qrels, _ = split_subtopic_qrels(qrels)  # subtopic qrels: each document's best grade, as P@k reads it
    rankings: dict[str, list[str]] = {}
    beyond: dict[str, int] = {}
    deeper: dict[str, dict[str, float]] = {}
    for qid, count in held.items():
        ranking = order_documents(run[qid], conventions.tie_order, qid=qid,
                                  score_precision=conventions.score_precision)[:count]
        rankings[qid] = ranking
        present = set(ranking)
        grades = graded_qrels[qid]
        lacking = sorted((doc for doc, grade in grades.items() if grade >= level and doc not in present),
                         key=lambda doc: (-grades[doc], doc))[: max(0, depth - count)]
        beyond[qid] = len(lacking)
        extended = ranking + lacking
        deeper[qid] = {doc: float(len(extended) - rank) for rank, doc in enumerate(extended)}
    if not any(beyond.values()):
        return None
    shallow = {qid: {doc: deeper[qid][doc] for doc in ranking} for qid, ranking in rankings.items()}
    plain = conventions.replace(depth=None, tie_order="as_given")
    key = parsed.key
    value = aggregate(evaluate(qrels, shallow, [parsed], conventions=plain))[key]
    best = aggregate(evaluate(qrels, deeper, [parsed], conventions=plain))[key]
    return DepthShortfall(key, depth, assumed, max(held.values()), conventions.depth if conventions.depth is not None
                          and conventions.depth < max(len(docs) for docs in run.values()) else None,
                          level, beyond, float(value), float(best))


def finding_shortfalls(qrels: Qrels, run: Run, finding, base: Conventions | None = None,
                       count: int = 5) -> list[DepthShortfall]:
    """The shortfalls at every relevance level the finder considered (``finding`` is a
    :class:`~metrics.check.finder.Finding`: the level the measure's notation fixes, else every level it searched,
    else those of its ``count`` nearest outcomes), the other conventions from ``base``: one per relevance grade
    counted (TREC DL's -l 2 counts fewer documents than -l 1), lowest grade first."""
    base = base or Conventions()
    if "relevance_level" in finding.fixed:
        levels = [finding.fixed["relevance_level"]]
    else:
        levels = [*finding.searched.get("relevance_level", ()),
                  *(candidate.conventions.relevance_level for candidate in finding.nearest(count))]
    found: dict[int, DepthShortfall] = {}
    for level in dict.fromkeys(levels):
        shortfall = depth_shortfall(qrels, run, finding.measure, base.replace(relevance_level=level))
        if shortfall is not None:
            found.setdefault(shortfall.relevant_grade, shortfall)
    return [found[grade] for grade in sorted(found)]


__all__ = ["TREC_RUN_DEPTH", "DepthShortfall", "depth_shortfall", "finding_shortfalls", "measure_depth"]
