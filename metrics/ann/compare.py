"""ANN recall against retrieval recall, from an exact run, an approximate (ANN) run and optional qrels.

ANN recall@k tests the index: the share of the exact search's top k (the true nearest neighbours) that the
approximate top k contains. Retrieval recall@k tests the whole system: the share of the judged relevant documents
that a list's top k contains. Both lists are ordered as trec_eval orders a run (score descending, ties by doc id
descending), so "top k" means the same documents trec_eval would cut at k.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..conventions import Conventions
from ..engine import check_qrels, check_run, make_conventions
from ..evaluate import evaluate
from ..io.csv_cells import csv_text
from ..measures.display import name_of
from ..model import InputError, iter_sorted_qids, order_documents
from ..optional import require

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float]]

#: Largest cut-off accepted, as for trec_eval's cut-off measures in this engine.
MAX_CUTOFF = 100_000


def check_cutoffs(cutoffs: Sequence[int]) -> tuple[int, ...]:
    """Cut-offs as a sorted tuple of distinct positive integers, or InputError naming the bad one."""
    cleaned = []
    for k in cutoffs:
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_CUTOFF:
            raise InputError(f"Argument `k` has to be an integer from 1 to {MAX_CUTOFF}, got {k!r}")
        cleaned.append(k)
    if not cleaned:
        raise InputError("Argument `k` needs at least one cut-off, e.g. k=[10]")
    return tuple(sorted(set(cleaned)))


def ranked(scores: Mapping[str, float], conventions: Conventions, qid: str = "") -> list[str]:
    """Doc ids in the order trec_eval (or the given tie convention) ranks them."""
    return order_documents(scores, conventions.tie_order, qid=qid, score_precision=conventions.score_precision)


def relevant_docs(judgments: Mapping[str, int], relevance_level: int) -> set[str]:
    return {doc for doc, grade in judgments.items() if grade >= relevance_level}


@dataclass(frozen=True)
class AnnComparison:
    """Per-query values ``{qid: {name: value}}`` and their means, with the measure names in output order.

    Names: ``ann_recall_k``; with qrels ``recall_k_exact``, ``recall_k_ann``, ``ndcg_cut_k_exact``,
    ``ndcg_cut_k_ann``, ``lost_relevant_k`` and ``gained_relevant_k``.
    """

    names: tuple[str, ...]
    per_query: dict[str, dict[str, float]]
    means: dict[str, float]
    notes: tuple[str, ...] = field(default=())

    def rows(self) -> list[dict[str, object]]:
        """One row per query, then the ``all`` row: ready for ``pandas.DataFrame(rows)``."""
        rows = [{"qid": qid, **values} for qid, values in self.per_query.items()]
        return rows + [{"qid": "all", **self.means}]

    def frame(self):
        """The rows as a pandas DataFrame (pandas is imported only here)."""
        pd = require("pandas", needed_by="metrics.ann (AnnComparison.frame)")
        return pd.DataFrame(self.rows(), columns=["qid", *self.names])

    def beats_exact(self, k: int) -> tuple[str, ...]:
        """The queries whose ANN list has a higher recall@k than the exact list: it holds relevant documents from
        beyond the exact top k (empty without qrels)."""
        ann, exact = f"recall_{k}_ann", f"recall_{k}_exact"
        return tuple(qid for qid, values in self.per_query.items()
                     if ann in values and values[ann] > values[exact])

    def exact_list_note(self, k: int) -> str:
        """What the exact list is to the ANN list, with this comparison's own counts: what the index converges to
        as its search widens, not a bound on retrieval recall (an ANN list can beat it on a query)."""
        sentence = (f"The exact top {k} is what the index converges to as its search widens, not a bound on "
                    f"retrieval recall: an ANN list can hold relevant documents from beyond the exact top {k}.")
        gained_name = f"gained_relevant_{k}"
        judged = [values for values in self.per_query.values() if gained_name in values]
        gained = round(sum(values[gained_name] for values in judged))
        if gained:
            better = len(self.beats_exact(k))
            documents = "document" if gained == 1 else "documents"
            sentence += (f" Here the ANN lists hold {gained:,} relevant {documents} the exact lists lack, and score a "
                         f"higher {name_of('recall', k)} than the exact list on {better:,} of {len(judged):,} queries.")
        return sentence

    def csv(self) -> str:
        """The rows as CSV text (``qid`` and the names), a qid a spreadsheet would run as a formula made inert
        (:func:`metrics.io.csv_cells.csv_text`)."""
        columns = ["qid", *self.names]
        return csv_text([columns, *([row.get(name) for name in columns] for row in self.rows())])


def compare_ann(
    exact_run: Run,
    ann_run: Run,
    qrels: Qrels | None = None,
    k: int | Sequence[int] = 10,
    *,
    conventions: Conventions | None = None,
    **convention_changes: object,
) -> AnnComparison:
    r"""ANN recall@k of ``ann_run`` against ``exact_run`` and, with qrels, the retrieval side of both lists.

    .. math:: \mathrm{ANNRecall@k} = |\mathrm{top}_k(\mathrm{ANN}) \cap \mathrm{top}_k(\mathrm{exact})|
              \,/\, |\mathrm{top}_k(\mathrm{exact})|

    The queries are those of the exact run; one missing from the ANN run scores 0 (its index returned nothing).
    ``lost_relevant_k`` counts relevant documents in the exact top k but not in the ANN top k, and
    ``gained_relevant_k`` the reverse. Recall and nDCG follow trec_eval (queries without judgments are not
    evaluated on those measures) and the given conventions.
    """
    cutoffs = check_cutoffs(list(k) if isinstance(k, (list, tuple, range)) else [k])
    conv = make_conventions(conventions, **convention_changes)
    check_run(exact_run, "exact_run")
    check_run(ann_run, "ann_run")
    if qrels is not None:
        check_qrels(qrels)
    notes = []
    only_ann = sorted(set(ann_run) - set(exact_run))
    if only_ann:
        notes.append(f"{len(only_ann)} queries of the ANN run are not in the exact run and are left out")
    missing = [qid for qid in exact_run if qid not in ann_run]
    if missing:
        notes.append(f"{len(missing)} queries of the exact run are not in the ANN run: their ANN list is empty")
    qids = [qid for qid in iter_sorted_qids(exact_run) if exact_run[qid]]
    empty = len(exact_run) - len(qids)
    if empty:
        notes.append(f"{empty} queries with an empty exact list are left out (ANN recall is undefined there)")

    names: list[str] = []
    per_query: dict[str, dict[str, float]] = {qid: {} for qid in qids}
    exact_lists = {qid: ranked(exact_run[qid], conv, qid) for qid in qids}
    ann_lists = {qid: ranked(ann_run.get(qid, {}), conv, qid) for qid in qids}
    for cutoff in cutoffs:
        name = f"ann_recall_{cutoff}"
        names.append(name)
        for qid in qids:
            truth = set(exact_lists[qid][:cutoff])
            per_query[qid][name] = len(truth.intersection(ann_lists[qid][:cutoff])) / len(truth)

    if qrels is not None:
        judged = [qid for qid in qids if qid in qrels]
        if len(judged) < len(qids):
            notes.append(f"{len(qids) - len(judged)} queries have no judgments: only their ANN recall is computed")
        measures = [f"recall.{cutoff}" for cutoff in cutoffs] + [f"ndcg_cut.{cutoff}" for cutoff in cutoffs]
        sub_qrels = {qid: qrels[qid] for qid in judged}
        for side, run in (("exact", exact_run), ("ann", {qid: ann_run.get(qid, {}) for qid in judged})):
            values = evaluate(sub_qrels, {qid: run[qid] for qid in judged}, measures, conventions=conv)
            for cutoff in cutoffs:
                for measure in ("recall", "ndcg_cut"):
                    name = f"{measure}_{cutoff}_{side}"
                    if name not in names:
                        names.append(name)
                    for qid in judged:
                        per_query[qid][name] = values.get(qid, {}).get(f"{measure}_{cutoff}", 0.0)
        for cutoff in cutoffs:
            lost_name, gained_name = f"lost_relevant_{cutoff}", f"gained_relevant_{cutoff}"
            names += [lost_name, gained_name]
            for qid in judged:
                relevant = relevant_docs(qrels[qid], conv.relevance_level)
                exact_hits = relevant.intersection(exact_lists[qid][:cutoff])
                ann_hits = relevant.intersection(ann_lists[qid][:cutoff])
                per_query[qid][lost_name] = float(len(exact_hits - ann_hits))
                per_query[qid][gained_name] = float(len(ann_hits - exact_hits))
        names = _ordered(names, cutoffs)

    means = {}
    for name in names:
        column = [values[name] for values in per_query.values() if name in values]
        means[name] = sum(column) / len(column) if column else 0.0
    ordered = {qid: {name: per_query[qid][name] for name in names if name in per_query[qid]} for qid in qids}
    return AnnComparison(tuple(names), ordered, means, tuple(notes))


def _ordered(names: list[str], cutoffs: tuple[int, ...]) -> list[str]:
    """Group the names by cut-off: ANN recall first, then the retrieval side of each list, then the difference."""
    order = []
    for cutoff in cutoffs:
        order += [f"ann_recall_{cutoff}", f"recall_{cutoff}_exact", f"recall_{cutoff}_ann",
                  f"ndcg_cut_{cutoff}_exact", f"ndcg_cut_{cutoff}_ann",
                  f"lost_relevant_{cutoff}", f"gained_relevant_{cutoff}"]
    return [name for name in order if name in names]
