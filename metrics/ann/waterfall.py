"""The recall waterfall: where along a retrieval pipeline each relevant document is lost.

A pipeline is a sequence of stages, each a ranked list cut at a depth: the exact search's top k (what the index
converges to), the ANN index's top k, a reranker's top k, the context cut-off (the passages a RAG prompt holds). Every
relevant document is followed through the stages; one missing from a stage, having been in the one before, is
lost there. One that appears in a stage without being in the one before is gained there (an ANN index can return
a relevant document that the exact top k did not hold).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..conventions import Conventions
from ..engine import check_qrels, check_run, make_conventions
from ..model import InputError, iter_sorted_qids
from .compare import check_cutoffs, ranked, relevant_docs

#: Where a relevant document that never reaches the first stage is lost.
NOT_REACHED = "not in the exact top k"


@dataclass(frozen=True)
class Stage:
    """One stage of a pipeline: a run and the depth at which it is cut. ``key`` names the stage in output
    names (``waterfall_ann_10``), ``name`` on the page ("ANN top 10")."""

    name: str
    key: str
    run: Mapping[str, Mapping[str, float]]
    depth: int


@dataclass(frozen=True)
class QueryWaterfall:
    """One query: ``kept[i]`` relevant documents survive stage i; ``lost[i]`` and ``gained[i]`` name the documents
    that stage i dropped (present in stage i-1, or judged relevant for stage 0) or added."""

    qid: str
    relevant: int
    stage_names: tuple[str, ...]
    kept: tuple[int, ...]
    lost: tuple[tuple[str, ...], ...]
    gained: tuple[tuple[str, ...], ...]

    def lost_at(self) -> dict[str, str]:
        """Each relevant document that does not survive the last stage, with the stage that lost it last."""
        where: dict[str, str] = {}
        for name, lost, gained in zip(self.stage_names, self.lost, self.gained):
            for doc in lost:
                where[doc] = name
            for doc in gained:
                where.pop(doc, None)
        return where


@dataclass(frozen=True)
class Waterfall:
    """A pipeline over a run: per query, and summed over the queries."""

    stage_names: tuple[str, ...]
    stage_keys: tuple[str, ...]
    queries: tuple[QueryWaterfall, ...]

    @property
    def relevant(self) -> int:
        return sum(query.relevant for query in self.queries)

    @property
    def kept(self) -> tuple[int, ...]:
        return tuple(sum(query.kept[i] for query in self.queries) for i in range(len(self.stage_names)))

    @property
    def lost(self) -> tuple[int, ...]:
        return tuple(sum(len(query.lost[i]) for query in self.queries) for i in range(len(self.stage_names)))

    @property
    def gained(self) -> tuple[int, ...]:
        return tuple(sum(len(query.gained[i]) for query in self.queries) for i in range(len(self.stage_names)))

    def rows(self) -> list[dict[str, object]]:
        """One row per stage over the whole run: relevant documents kept, lost there and gained there."""
        rows = [{"stage": "judged relevant", "kept": self.relevant, "lost here": 0, "gained here": 0}]
        for name, kept, lost, gained in zip(self.stage_names, self.kept, self.lost, self.gained):
            rows.append({"stage": name, "kept": kept, "lost here": lost, "gained here": gained})
        return rows


def pipeline_stages(
    exact_run: Mapping[str, Mapping[str, float]],
    ann_run: Mapping[str, Mapping[str, float]],
    k: int,
    *,
    reranked_run: Mapping[str, Mapping[str, float]] | None = None,
    context: int | None = None,
) -> list[Stage]:
    """The usual dense-retrieval pipeline: exact top k, ANN top k, [reranked top k], [top ``context`` passages]."""
    (k,) = check_cutoffs([k])
    stages = [Stage(f"exact top {k}", f"exact_{k}", exact_run, k), Stage(f"ANN top {k}", f"ann_{k}", ann_run, k)]
    if reranked_run is not None:
        stages.append(Stage(f"reranked top {k}", f"reranked_{k}", reranked_run, k))
    if context is not None:
        (context,) = check_cutoffs([context])
        if context > k:
            raise InputError(f"Argument `context` ({context}) is larger than k ({k}): the prompt can only hold "
                             f"passages of the top {k}; give at most {k}, or a larger k")
        stages.append(Stage(f"context top {context}", f"context_{context}", stages[-1].run, context))
    return stages


def recall_waterfall(
    qrels: Mapping[str, Mapping[str, int]],
    stages: Sequence[Stage],
    *,
    conventions: Conventions | None = None,
    **convention_changes: object,
) -> Waterfall:
    """Follow the relevant documents of every judged query with a relevant document through ``stages``.

    Documents count as relevant at the conventions' relevance level (trec_eval's -l, default 1). A query absent
    from a stage's run has an empty list there.
    """
    if not stages:
        raise InputError("Argument `stages` needs at least one stage")
    conv = make_conventions(conventions, **convention_changes)
    check_qrels(qrels)
    for stage in stages:
        check_run(stage.run, stage.name)
    queries = []
    for qid in iter_sorted_qids(qrels):
        relevant = relevant_docs(qrels[qid], conv.relevance_level)
        if not relevant:
            continue
        previous = relevant
        kept, lost, gained = [], [], []
        for stage in stages:
            found = relevant.intersection(ranked(stage.run.get(qid, {}), conv, qid)[: stage.depth])
            kept.append(len(found))
            lost.append(tuple(sorted(previous - found)))
            gained.append(tuple(sorted(found - previous)))
            previous = found
        queries.append(QueryWaterfall(qid, len(relevant), tuple(s.name for s in stages), tuple(kept),
                                      tuple(lost), tuple(gained)))
    return Waterfall(tuple(stage.name for stage in stages), tuple(stage.key for stage in stages), tuple(queries))
