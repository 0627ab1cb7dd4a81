"""The front door for DataFrames: pandas DataFrames and pyarrow Tables (or pytrec_eval dicts) in, a DataFrame of
per-query values and the means out. The columns are read as :mod:`metrics.io.frames` describes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .bulk import evaluate_tables_checked
from .conventions import Conventions
from .engine import make_conventions, nothing_to_evaluate
from .io.frames import as_qrels_table, as_run_table, per_query_frame
from .model import InputError
from .names import Measure


class FrameEvaluation(NamedTuple):
    """Per-query values (one row per evaluated query, sorted by qid as trec_eval prints them: a ``qid`` column,
    then one column per measure) and the ``all`` values (means, or sums for ``num_*``), summed in that order."""

    per_query: object  # a pandas DataFrame
    means: dict[str, float]


def evaluate_frames(
    qrels: object, run: object, measures: str | Iterable[str | Measure], *,
    relevance_level: int | None = None, judged_docs_only: bool | None = None,
    conventions: Conventions | None = None, **convention_changes: object,
) -> FrameEvaluation:
    """Evaluate frames (or pytrec_eval dicts) and return a :class:`FrameEvaluation`: per-query values as a pandas
    DataFrame and the means, as ``metrics.evaluate`` and ``aggregate`` would give them."""
    conv = make_conventions(conventions, relevance_level=relevance_level, judged_docs_only=judged_docs_only,
                            **convention_changes)
    qrels_table, run_table = as_qrels_table(qrels), as_run_table(run)
    qids, values, means = evaluate_tables_checked(qrels_table, run_table, measures, conv)
    if not qids:
        raise InputError(nothing_to_evaluate(run_table.name, qrels_table.name))
    return FrameEvaluation(per_query_frame(qids, values), means)


__all__ = ["FrameEvaluation", "evaluate_frames"]
