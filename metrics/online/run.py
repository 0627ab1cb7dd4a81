"""Online signals over a whole run: every query's signals under one click model, their means, the zero-result rate
and the abandonment rate.

Queries are those trec_eval evaluates (judged queries the run answers), each ranked as trec_eval orders it (score
descending, ties by doc id descending), with attractiveness from its grades and g_max its highest grade over all its
judgments. The closed forms run over one padded batch of all queries (or a few, grouped by length, for lopsided
runs: :func:`metrics.bulk.batches_for_run`); the means are summed in sorted-qid order, as trec_eval's ``all`` line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..bulk import batches_for_run
from ..conventions import Conventions
from ..engine import check_qrels, check_run, nothing_to_evaluate
from ..io.trec import QrelsTable, RunTable
from ..model import NO_JUDGMENT, InputError, RankingBatch, rankings_for_run, short_repr
from .models import (
    DEFAULT_CONTINUATION,
    DEFAULT_ETA,
    MAX_LIST_LENGTH,
    MODELS,
    SIGNALS,
    ClickModel,
    _as_number,
    _attractiveness_from,
    _satisfaction_from,
    closed_forms,
)
from .simulate import MAX_DRAWS, check_seed, check_sessions, clickable_length, simulate_with

#: The per-query values a run carries: the command line's signals and ERR's online reading.
RUN_SIGNALS = (*SIGNALS, "stop_reciprocal_rank")


@dataclass(frozen=True, eq=False)
class RunSignals:
    """Online signals of a run. ``qids`` are the evaluated queries in sorted order; ``per_query[signal]`` an array
    aligned with them; ``has_click[i]`` whether query i can get (simulated: got) a click at all;
    ``per_query["first_click_rank"]`` is 0 where it cannot (the rank has no value there).

    ``means``: each signal's mean over the evaluated queries, first_click_rank's over those with ``has_click`` (0
    when none has). ``zero_result_qids``: queries of the qrels (with a judgment line) with no retrieved document;
    ``zero_result_rate`` their share of the qrels' queries; ``abandonment_rate``: P(no click) averaged over every
    query of the qrels, a query without results abandoning for certain. ``standard_error`` holds each simulated
    per-query value's standard error (None for closed forms).
    """

    kind: str
    qids: list[str]
    per_query: dict[str, np.ndarray]
    has_click: np.ndarray
    means: dict[str, float]
    judged_queries: int
    zero_result_qids: list[str]
    zero_result_rate: float
    abandonment_rate: float
    sessions: int | None = None
    seed: int | None = None
    standard_error: dict[str, np.ndarray] | None = None


def run_signals(
    qrels: Mapping[str, Mapping[str, int]] | QrelsTable, run: Mapping[str, Mapping[str, float]] | RunTable,
    kind: str, *, eta: float = DEFAULT_ETA, continuation: float = DEFAULT_CONTINUATION,
    sessions: int | None = None, seed: int = 0, conventions: Conventions | None = None,
) -> RunSignals:
    """Every query's signals under the click model ``kind`` (closed forms; with ``sessions``, a seeded simulation
    of that many sessions per query, each query's stream drawn from ``seed`` and its id).

    ``qrels`` and ``run`` are ``{qid: {doc: grade}}`` and ``{qid: {doc: score}}``, or the tables
    :func:`metrics.io.trec.read_qrels` and ``read_run`` give. Parameters as :meth:`ClickModel.for_list`: PBM's
    position bias (1/r)^eta, DBN's continuation. ``conventions``: how scores order each list (tie order, score
    precision; trec_eval 9.0.8's by default).
    """
    if kind not in MODELS:
        raise InputError(f"Argument `kind` has to be one of {', '.join(MODELS)}, got {short_repr(kind)}")
    eta = _as_number(eta, "eta", low=0.0, high=None)
    continuation = _as_number(continuation, "continuation", low=0.0, high=1.0)
    if sessions is not None:
        sessions = check_sessions(sessions)
        seed = check_seed(seed)
    if isinstance(qrels, QrelsTable) and isinstance(run, RunTable):
        qids, batches, judged_qids, answered = _from_tables(qrels, run, conventions)
    else:
        qids, batches, judged_qids, answered = _from_dicts(qrels, run, conventions)
    if not qids:  # means over no query would describe nothing (the rates too): refused as evaluate refuses it
        raise InputError(nothing_to_evaluate(getattr(run, "name", "the run"), getattr(qrels, "name", "the qrels")))
    values = {signal: np.zeros(len(qids)) for signal in RUN_SIGNALS}
    run_name = getattr(run, "name", "run")  # a table's file name
    models: dict[int, ClickModel] = {}  # simulation: each query's model, so the work is checked before any draw
    for rows, batch in batches:
        attractiveness, satisfaction, position_bias = _parameters(batch, kind, eta)
        if sessions is None:
            forms = closed_forms(kind, attractiveness, position_bias=position_bias, satisfaction=satisfaction,
                                 continuation=continuation)
            for signal in RUN_SIGNALS:
                _put(values[signal], rows, forms[signal])
        else:
            _collect_models(models, qids, run_name, rows, batch, kind, attractiveness,
                            satisfaction, position_bias, continuation)
    errors = None
    if sessions is not None:
        errors = _simulate(qids, run_name, models, values, sessions, seed)
    order = np.asarray(sorted(range(len(qids)), key=qids.__getitem__), dtype=np.int64)
    sorted_qids = [qids[i] for i in order]
    per_query = {signal: values[signal][order] for signal in RUN_SIGNALS}
    if errors is not None:
        errors = {signal: column[order] for signal, column in errors.items()}
    has_click = per_query["ctr"] > 0
    per_query["first_click_rank"] = np.where(has_click, per_query["first_click_rank"], 0.0)
    means = {signal: _mean(per_query[signal]) for signal in RUN_SIGNALS}
    means["first_click_rank"] = _mean(per_query["first_click_rank"][has_click])
    zero_result = sorted(judged_qids - answered)
    judged = len(judged_qids)
    zero_rate = len(zero_result) / judged if judged else 0.0
    missing = len(judged_qids - set(qids))  # judged queries the run does not evaluate: no result, no click
    abandonment = _sum(per_query["abandonment"]) + missing
    return RunSignals(kind, sorted_qids, per_query, has_click, means, judged, zero_result, zero_rate,
                      abandonment / judged if judged else 0.0, sessions, seed if sessions is not None else None,
                      errors)


def _from_dicts(qrels, run, conventions: Conventions | None = None,
                ) -> tuple[list[str], list[tuple[np.ndarray | None, RankingBatch]], set[str], set[str]]:
    check_qrels(qrels)
    check_run(run)
    conv = conventions if conventions is not None else Conventions()
    qids, rankings = rankings_for_run(qrels, run, conv.tie_order, score_precision=conv.score_precision)
    batch = RankingBatch.from_rankings(rankings, [qrels[qid] for qid in qids])
    judged = {qid for qid, judgments in qrels.items() if judgments}
    answered = {qid for qid, scores in run.items() if scores}
    return qids, [(None, batch)], judged, answered


def _from_tables(qrels: QrelsTable, run: RunTable, conventions: Conventions | None = None):
    qids, batches = batches_for_run(qrels, run, (conventions or Conventions()).replace(missing_queries="skip"))
    return qids, batches, set(qrels.qids), set(run.qids)


def _parameters(batch: RankingBatch, kind: str, eta: float):
    """Per-rank attractiveness, satisfaction (dbn) and position bias (pbm) of every ranking of the batch."""
    grades = np.where(batch.judged, batch.grades, np.nan)  # unjudged and outside the qrels: no grade
    gmax = batch.judged_grades[:, :1]  # highest judged grade of each query (NO_JUDGMENT when it has none)
    gmax = np.where(gmax == NO_JUDGMENT, 0.0, gmax)
    filled = np.arange(batch.width) < batch.lengths[:, None]
    attractiveness = np.where(filled, _attractiveness_from(grades, gmax), 0.0)
    satisfaction = np.where(filled, _satisfaction_from(grades, gmax), 0.0) if kind == "dbn" else None
    position_bias = None
    if kind == "pbm":
        position_bias = np.broadcast_to((1.0 / np.arange(1, batch.width + 1, dtype=np.float64)) ** eta,
                                        attractiveness.shape)
    return attractiveness, satisfaction, position_bias


def _put(column: np.ndarray, rows: np.ndarray | None, values: np.ndarray) -> None:
    if rows is None:
        column[:] = values
    else:
        column[rows] = values


def _collect_models(models, qids, run_name, rows, batch, kind, attractiveness, satisfaction, position_bias,
                    continuation) -> None:
    """Each query's model down to its last clickable rank: a simulation draws nothing below it, so a long
    unclickable tail costs nothing and meets no limit."""
    clickable = attractiveness > 0
    if position_bias is not None:
        clickable &= position_bias > 0
    last = np.where(clickable.any(axis=1), clickable.shape[1] - np.argmax(clickable[:, ::-1], axis=1), 0)
    indices = range(batch.size) if rows is None else rows
    for row, index in enumerate(indices):
        n = int(min(last[row], batch.lengths[row]))
        if n > MAX_LIST_LENGTH:
            raise InputError(f"Argument `sessions`: {run_name}, query {qids[int(index)]!r}: {n:,} clickable "
                             f"documents, more than the {MAX_LIST_LENGTH:,} a simulated session takes; without it "
                             "the values are exact (no such limit)")
        models[int(index)] = ClickModel(
            kind, attractiveness[row, :n],
            position_bias=position_bias[row, :n] if position_bias is not None else None,
            satisfaction=satisfaction[row, :n] if satisfaction is not None else None,
            continuation=continuation if kind == "dbn" else 1.0)


def _simulate(qids: list[str], run_name: str, models: dict[int, ClickModel], values: dict[str, np.ndarray],
              sessions: int, seed: int) -> dict[str, np.ndarray]:
    """Fill ``values`` with each query's simulated signals; return their standard errors."""
    work = sessions * sum(clickable_length(model) for model in models.values())
    if work > MAX_DRAWS:
        raise InputError(f"Argument `sessions`: {run_name}: {sessions:,} sessions for each of {len(qids):,} queries "
                         f"make {work:,} draws (sessions x "
                         f"ranks down to each query's last clickable document); the limit is {MAX_DRAWS:,}: use "
                         f"at most {max(1, sessions * MAX_DRAWS // work):,} sessions")
    errors = {signal: np.zeros(len(qids)) for signal in RUN_SIGNALS}
    for index, model in sorted(models.items()):
        # Each query's stream depends on the seed and its id only, not on the other queries of the run.
        stream = np.random.SeedSequence(seed, spawn_key=tuple(qids[index].encode("utf-8")))
        simulated = simulate_with(model, sessions, np.random.default_rng(stream), seed)
        for signal in RUN_SIGNALS:
            value = getattr(simulated.signals, signal)
            values[signal][index] = 0.0 if value is None else value
            errors[signal][index] = simulated.standard_error[signal] or 0.0
    return errors


def _sum(column: np.ndarray) -> float:
    """Sequential sum, as trec_eval accumulates its 'all' line."""
    return float(np.cumsum(column)[-1]) if column.size else 0.0


def _mean(column: np.ndarray) -> float:
    return _sum(column) / column.size if column.size else 0.0


__all__ = ["RUN_SIGNALS", "RunSignals", "run_signals"]
