"""ANN recall@k as each benchmark defines it, from the distances of an exact and an approximate list.

Three definitions, for an exact list (the true neighbours, nearest first, with their distances) and an ANN list
(what the index returned, in its order, repeats allowed), with n = min(k, length of the exact list):

* ``ids`` (this project, VectorDBBench, most papers): |ids of the ANN top k ∩ ids of the exact top n| / n.
* ``epsilon`` (ann-benchmarks, ``knn_threshold`` in ann_benchmarks/plotting/metrics.py): every returned item of
  the ANN top k whose distance is at most the n-th true distance + epsilon (1e-3) counts, whoever it is, and
  every time it is returned: returning the nearest neighbour k times scores 100% (ann-benchmarks issue 519).
  ann-benchmarks recomputes each returned item's distance from the vectors; here the distances are those the
  lists carry (exact for a flat, HNSW or IVF-flat index; approximate for a compressed one such as PQ).
* ``ties`` (big-ann-benchmarks, ``compute_recall_with_distance_ties`` in benchmark/plotting/metrics.py): the exact
  list's distances are grouped, a new group starting where a distance is 1e-6 or more from its group's first;
  the true set is every id of the first n groups, so an id tied with the n-th distance counts as a true
  neighbour even past rank n (and a tie above rank n lets in the ids of one more group). |ANN top-k ids ∩ true
  set| / n. Ties past the end of the exact list cannot be seen: give a deeper exact list than k.

The definitions agree when no distance ties and no id repeats; each disagreement is explained per query.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..evaluate import evaluate
from ..model import InputError, iter_sorted_qids, order_documents
from .compare import check_cutoffs

#: ann-benchmarks' default epsilon in knn_threshold (the k-th true distance + epsilon).
ANN_BENCHMARKS_EPSILON = 1e-3
#: big-ann-benchmarks' closeness of two distances in one tie group.
BIG_ANN_TIE_TOLERANCE = 1e-6
DEFINITIONS = ("ids", "epsilon", "ties")

#: One list: (doc id, distance) pairs in rank order, nearest first.
Neighbours = Sequence[tuple[str, float]]


@dataclass(frozen=True)
class QueryRecalls:
    """The three recalls of one query at one k, and what makes them differ."""

    qid: str
    k: int
    ids: float
    epsilon: float
    ties: float
    repeated: tuple[str, ...] = ()  # ids the ANN top k returns more than once
    within_epsilon: tuple[str, ...] = ()  # other ids of the ANN top k within epsilon of the n-th true distance
    widened: tuple[str, ...] = ()  # ids of the ANN top k that only the tied true set holds (past rank n)
    tie_reaches_end: bool = False  # the exact list ends inside its n-th group of distances (a deeper one may add ids)

    @property
    def agree(self) -> bool:
        return self.ids == self.epsilon == self.ties

    def why(self) -> str:
        """One sentence: where the three definitions disagree and why (empty when they agree)."""
        if self.agree:
            return ""
        parts = []
        if self.repeated:
            parts.append(f"the ANN list returns {_ids(self.repeated)} more than once: 'epsilon' counts every copy, "
                         "'ids' and 'ties' count an id once")
        if self.within_epsilon:
            one = len(self.within_epsilon) == 1
            parts.append(f"{_ids(self.within_epsilon)} {'is' if one else 'are'} not among the exact top {self.k} "
                         f"but within epsilon of its {_ordinal(self.k)} distance: 'epsilon' counts "
                         f"{'it' if one else 'them'}")
        tied_last = [doc for doc in self.widened if doc in self.within_epsilon]
        shifted = [doc for doc in self.widened if doc not in self.within_epsilon]
        if tied_last:
            one = len(tied_last) == 1
            parts.append(f"{_ids(tied_last)} {'ties' if one else 'tie'} with the {_ordinal(self.k)} true distance: "
                         f"'ties' counts {'it as a true neighbour' if one else 'them as true neighbours'}")
        if shifted:
            one = len(shifted) == 1
            parts.append(f"a tie above rank {self.k} makes the exact list's first {self.k} groups of equal distances "
                         f"reach past rank {self.k}, so 'ties' also counts {_ids(shifted)}, farther than the "
                         f"{_ordinal(self.k)} true distance")
        if self.tie_reaches_end:
            parts.append(f"the exact list ends inside its {_ordinal(self.k)} group of equal distances, so a deeper "
                         "list could add ids tied with it to 'ties'")
        return f"query {self.qid} at k = {self.k}: ids {self.ids:.4f}, epsilon {self.epsilon:.4f}, ties " \
               f"{self.ties:.4f}: " + "; ".join(parts)


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(doc) for doc in ids[:5])
    return f"{shown} and {len(ids) - 5} more" if len(ids) > 5 else shown


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def query_recalls(qid: str, exact: Neighbours, ann: Neighbours, k: int,
                  epsilon: float = ANN_BENCHMARKS_EPSILON) -> QueryRecalls:
    """The three recalls@k of one query: ``exact`` the true neighbours nearest first, ``ann`` the index's list in
    its order (repeats allowed), both as (doc id, distance)."""
    if not exact:
        raise InputError(f"query {qid!r}: the exact list is empty, so recall@{k} has no true neighbours")
    n = min(k, len(exact))
    truth = [doc for doc, _ in exact[:n]]
    top = list(ann[:k])
    top_ids = [doc for doc, _ in top]
    ids_value = len(set(truth) & set(top_ids)) / n
    threshold = exact[n - 1][1] + epsilon
    epsilon_value = sum(1 for _, distance in top if distance <= threshold) / n
    tied_truth, reaches_end = tied_true_set(exact, n)
    ties_value = len(set(tied_truth) & set(top_ids)) / n
    counts = Counter(top_ids)
    repeated = tuple(doc for doc, count in counts.items() if count > 1 and _within(top, doc, threshold))
    within = tuple(dict.fromkeys(doc for doc, distance in top if distance <= threshold and doc not in truth))
    widened = tuple(doc for doc in dict.fromkeys(tied_truth[n:]) if doc in counts)
    return QueryRecalls(qid, k, ids_value, epsilon_value, ties_value, repeated, within, widened,
                        reaches_end and len(tied_truth) > n)


def _within(top: Sequence[tuple[str, float]], doc: str, threshold: float) -> bool:
    return any(d == doc and distance <= threshold for d, distance in top)


def tied_true_set(exact: Neighbours, n: int) -> tuple[list[str], bool]:
    """big-ann-benchmarks' true set: the ids of the first ``n`` groups of near-equal distances (a group holds the
    distances within 1e-6 of its first), and whether the last of them runs to the end of the exact list."""
    groups: list[list[str]] = []
    first = None
    for doc, distance in exact:
        if first is None or abs(distance - first) >= BIG_ANN_TIE_TOLERANCE:
            if len(groups) == n:
                return [doc for group in groups for doc in group], False
            groups.append([])
            first = distance
        groups[-1].append(doc)
    return [doc for group in groups for doc in group], True


@dataclass(frozen=True)
class RecallDefinitions:
    """Every query's three recalls at each k, with the means and the disagreements explained."""

    cutoffs: tuple[int, ...]
    queries: dict[int, list[QueryRecalls]]
    notes: tuple[str, ...] = field(default=())

    def means(self, k: int) -> dict[str, float]:
        rows = self.queries[k]
        return {name: sum(getattr(row, name) for row in rows) / len(rows) if rows else 0.0 for name in DEFINITIONS}

    def disagreements(self, k: int) -> list[QueryRecalls]:
        return [row for row in self.queries[k] if not row.agree]


def neighbours(run: Mapping[str, float], distances: str = "negated-score", qid: str = "") -> list[tuple[str, float]]:
    """One query of a run as (doc, distance) nearest first: the score column is ``-distance`` (``negated-score``,
    higher is nearer, as :func:`metrics.ann.index.as_run` writes it) or the distance itself (``score``). Equal
    distances are ordered as trec_eval orders equal scores (doc id descending)."""
    if distances not in ("negated-score", "score"):
        raise InputError(f"Argument `distances` has to be 'negated-score' or 'score', got {distances!r}")
    sign = -1.0 if distances == "score" else 1.0
    as_scores = {doc: sign * float(value) for doc, value in run.items()}
    order = order_documents(as_scores, "trec_eval", qid=qid, score_precision="float64")
    return [(doc, -as_scores[doc]) for doc in order]


def recall_definitions(exact_run: Mapping[str, Mapping[str, float]], ann_run: Mapping[str, Mapping[str, float]],
                       k: int | Sequence[int] = 10, *, distances: str = "negated-score",
                       epsilon: float = ANN_BENCHMARKS_EPSILON) -> RecallDefinitions:
    """The three recalls of runs whose score column carries distances (see :func:`neighbours`), over the queries
    of the exact run with a non-empty list (sorted ids); a query missing from the ANN run has an empty ANN list."""
    cutoffs = check_cutoffs(list(k) if isinstance(k, (list, tuple, range)) else [k])
    if not isinstance(epsilon, (int, float)) or isinstance(epsilon, bool) or not 0 <= epsilon <= 1e6:
        raise InputError(f"Argument `epsilon` has to be a number from 0 to 1e6, got {epsilon!r}")
    qids = [qid for qid in iter_sorted_qids(exact_run) if exact_run[qid]]
    exact = {qid: neighbours(exact_run[qid], distances, qid) for qid in qids}
    ann = {qid: neighbours(ann_run.get(qid, {}), distances, qid) for qid in qids}
    queries = {cutoff: [query_recalls(qid, exact[qid], ann[qid], cutoff, epsilon) for qid in qids]
               for cutoff in cutoffs}
    notes = []
    short = [qid for qid in qids if len(exact[qid]) <= max(cutoffs)]
    if short:
        notes.append(f"{len(short):,} exact lists hold no more than {max(cutoffs)} neighbours: a tie with the "
                     f"{_ordinal(max(cutoffs))} distance past their end cannot be seen ('ties'); give the exact "
                     "search a deeper k")
    return RecallDefinitions(cutoffs, queries, tuple(notes))


@dataclass(frozen=True)
class DefinitionCost:
    """What a definition of recall hides: over the queries it scores 1 (a perfect index), the mean of the ANN
    list's retrieval nDCG@k minus the exact list's (``ndcg_difference``, from the qrels; negative: a loss)."""

    definition: str
    k: int
    mean_recall: float
    perfect: int
    ndcg_difference: float


def definition_costs(definitions: RecallDefinitions, qrels: Mapping[str, Mapping[str, int]],
                     exact_run: Mapping[str, Mapping[str, float]], ann_run: Mapping[str, Mapping[str, float]], *,
                     distances: str = "negated-score", relevance_level: int = 1
                     ) -> tuple[dict[int, dict[str, float]], list[DefinitionCost]]:
    """Per k, each judged query's nDCG@k of the ANN list minus the exact list's (trec_eval's nDCG of both lists
    ordered by distance), and per definition and k that difference over the queries it scores perfect."""
    judged = [row.qid for row in definitions.queries[definitions.cutoffs[0]] if qrels.get(row.qid)]
    if not judged:
        raise InputError("no query of the exact run has judgments: the nDCG@k cost needs qrels for its queries")

    def as_scores(run):  # nearer first, as trec_eval orders a run (score descending)
        return {qid: {doc: -d for doc, d in neighbours(run.get(qid, {}), distances, qid)} for qid in judged}

    sub_qrels = {qid: qrels[qid] for qid in judged}
    measures = [f"ndcg_cut.{k}" for k in definitions.cutoffs]
    exact = evaluate(sub_qrels, as_scores(exact_run), measures, relevance_level=relevance_level)
    ann_scores = as_scores(ann_run)
    ann = evaluate(sub_qrels, {qid: docs for qid, docs in ann_scores.items() if docs}, measures,
                   relevance_level=relevance_level)
    differences: dict[int, dict[str, float]] = {}
    costs = []
    for k in definitions.cutoffs:
        key = f"ndcg_cut_{k}"
        differences[k] = {qid: ann.get(qid, {}).get(key, 0.0) - exact[qid][key] for qid in judged}
        rows = [row for row in definitions.queries[k] if row.qid in differences[k]]
        for name in DEFINITIONS:
            perfect = [row.qid for row in rows if getattr(row, name) >= 1.0]
            change = sum(differences[k][qid] for qid in perfect) / len(perfect) if perfect else 0.0
            mean = sum(getattr(row, name) for row in rows) / len(rows)
            costs.append(DefinitionCost(name, k, mean, len(perfect), change))
    return differences, costs
