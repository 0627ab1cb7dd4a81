"""The registries: every measure and every convention carries every fact, and every measure passes one table of
invariants (in the spirit of scikit-learn's ``test_common.py``: one list of properties, each checked on every
measure, with the exceptions named in a table rather than scattered through the tests)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np
import pytest

import metrics
from metrics.check.finder import TOOL_FAMILIES
from metrics.conventions import ALL_CONVENTIONS, CONVENTION_INFO, ORDER_CONVENTIONS, URL_PARAMS, Conventions
from metrics.measures import IR_NAMES, MEASURES, aggregation
from metrics.names import Measure, parse_measures
from tests.support.strategies import random_collection

CONVENTION_FIELDS = [field.name for field in dataclasses.fields(Conventions)]


# ---- every fact ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", MEASURES)
def test_every_registered_measure_has_every_fact(name):
    info = MEASURES[name]
    assert info.name == name
    for text in (info.ir_name, info.pretty_name, info.short_desc, info.rewards, info.text, info.formula, info.peer):
        assert text.strip(), name
    assert callable(info.kernel)
    assert info.aggregate in ("mean", "sum", "geometric")
    assert info.cutoff in ("none", "required", "optional")
    assert bool(info.default_cutoffs) == (info.cutoff != "none"), "a measure with cut-offs has default cut-offs"
    assert info.float_cutoffs <= (info.cutoff != "none")
    assert info.params in ("none", "values", "pairs")
    assert set(info.conventions) <= set(CONVENTION_FIELDS), "its conventions are fields of Conventions"
    assert set(info.computed_by) <= set(TOOL_FAMILIES), "the tools that compute it come from their profiles"
    assert ("trec_eval" in info.computed_by) <= info.trec_eval
    assert info.per_query == (info.aggregate != "geometric"), "trec_eval prints geometric means in the summary only"


@pytest.mark.parametrize("name", MEASURES)
def test_a_measure_is_a_score_a_count_or_a_diagnostic(name):
    info = MEASURES[name]
    kinds = [info.is_score, info.is_count, bool(info.not_a_score)]
    assert kinds.count(True) == 1, name
    assert info.is_count == (info.aggregate == "sum")


@pytest.mark.parametrize("name", MEASURES)
def test_cut_and_uncut_forms_point_at_each_other_and_share_the_ir_measures_name(name):
    info = MEASURES[name]
    if info.cut_form is not None:
        cut = MEASURES[info.cut_form]
        assert (info.cutoff, cut.cutoff) == ("none", "required")
        assert cut.uncut_form == name and cut.ir_name == info.ir_name
    if info.uncut_form is not None:
        assert MEASURES[info.uncut_form].cut_form == name


@pytest.mark.parametrize("name", MEASURES)
def test_every_name_of_a_measure_reads_back_as_it(name):
    info = MEASURES[name]
    if not info.ir_native:
        assert info.ir_name == name, "a measure ir_measures lacks is written with trec_eval's name"
    for ir_name in info.ir_names if info.ir_native else ():
        uncut, cut = IR_NAMES[ir_name]
        assert name in (uncut, cut)
        spec = f"{ir_name}@5" if info.cutoff == "required" else ir_name
        assert parse_measures(spec)[0].name == name
    assert {m.name for m in parse_measures(name)} == {name}


def test_no_name_means_two_aggregations():
    seen: dict[str, str] = {}
    for info in MEASURES.values():
        for name in (info.name, *info.ir_names):
            assert seen.setdefault(name, info.aggregate) == info.aggregate, name


def test_result_keys_aggregate_as_their_measure_says():
    assert [aggregation(key) for key in ("num_q", "NumRet(rel=2)", "gm_map", "P_5", "nDCG@10", "hit_rate@10")] == [
        "sum", "sum", "geometric", "mean", "mean", "mean"]


def test_every_convention_has_every_fact_and_every_field_has_one_convention():
    assert [info.name for info in ALL_CONVENTIONS] != [] and sorted(info.name for info in ALL_CONVENTIONS) == sorted(
        CONVENTION_FIELDS)
    for info in ALL_CONVENTIONS:
        assert info.label and info.affects and info.description, info.name
        assert info.scope in ("query", "run")
        if info.url_param is not None:
            assert info.scope == "query", "the explorer offers only conventions that mean something for one query"
        if info.orders_only:
            assert info.name in ("tie_order", "score_precision")
    assert CONVENTION_INFO == tuple(info for info in ALL_CONVENTIONS if info.choices)
    assert ORDER_CONVENTIONS == ("tie_order", "score_precision")
    assert len(set(URL_PARAMS.values())) == len(URL_PARAMS), "URL parameters are distinct"
    assert all(name in (Conventions.__doc__ or "") for name in CONVENTION_FIELDS)


# ---- one table of invariants, every measure ----------------------------------------------------------------------

#: Measures whose per-query values may leave [0, 1], and why (counts are non-negative whole numbers instead).
OUTSIDE_THE_UNIT_INTERVAL = {
    "utility": "a weighted count of retrieved and missed documents",
    "gm_map": "per query it holds log(max(AP, 0.00001)), as trec_eval does",
    "gm_bpref": "per query it holds log(max(bpref, 0.00001))",
    "yaap": "a log-odds, log((1 + S) / (1 + R - S)), negative when S < R / 2",
    "dcg": "unnormalised: the sum of discounted gains grows with the graded documents found",
    "dcg_cut": "unnormalised DCG of the top k",
}
#: Deeper than every ranking of the collection below: a cut there sees the whole ranking.
BEYOND_EVERY_LIST = 1000


@pytest.fixture(scope="module")
def collection():
    qrels, run = random_collection(np.random.default_rng(19), 60, max_docs=20)
    return qrels, run


def _values(qrels, run, measures: list[Measure]) -> dict[str, dict[str, float]]:
    return metrics.evaluate(qrels, run, measures)


def values_are_finite_and_in_range(measures, qrels, run):
    for qid, values in _values(qrels, run, measures).items():
        for measure in measures:
            value = values[measure.key]
            assert math.isfinite(value), (qid, measure.key)
            if measure.info.is_count:
                assert value >= 0 and value == int(value), (qid, measure.key, value)
            elif measure.name not in OUTSIDE_THE_UNIT_INTERVAL:
                assert 0.0 <= value <= 1.0, (qid, measure.key, value)


def the_order_of_queries_changes_nothing(measures, qrels, run):
    forward = _values(qrels, run, measures)
    backward = _values(dict(reversed(qrels.items())), dict(reversed(run.items())), measures)
    assert forward == backward
    assert metrics.aggregate(forward) == pytest.approx(metrics.aggregate(backward), rel=1e-12)


def a_query_scores_the_same_alone(measures, qrels, run):
    together = _values(qrels, run, measures)
    for qid in list(together)[:10]:
        assert _values({qid: qrels[qid]}, {qid: run[qid]}, measures)[qid] == together[qid]


def renaming_queries_changes_nothing(measures, qrels, run):
    rename = {qid: f"renamed-{i}" for i, qid in enumerate({**qrels, **run})}
    renamed = _values({rename[q]: j for q, j in qrels.items()}, {rename[q]: d for q, d in run.items()}, measures)
    original = _values(qrels, run, measures)
    assert {rename[qid]: values for qid, values in original.items()} == renamed


def an_increasing_transform_of_untied_scores_changes_nothing(measures, qrels, run):
    untied = {qid: {doc: float(len(docs) - rank) for rank, doc in enumerate(sorted(docs, key=docs.get))}
              for qid, docs in run.items()}
    stretched = {qid: {doc: 10.0 * score + 3.0 for doc, score in docs.items()} for qid, docs in untied.items()}
    assert _values(qrels, untied, measures) == _values(qrels, stretched, measures)


def the_cut_form_beyond_every_list_is_the_uncut_form(measures, qrels, run):
    for measure in measures:
        cut = measure.info.cut_form
        if cut is None:
            continue
        deep = dataclasses.replace(measure, name=cut, cutoff=BEYOND_EVERY_LIST)
        both = _values(qrels, run, [measure, deep])
        for qid, values in both.items():
            assert values[deep.key] == pytest.approx(values[measure.key], abs=1e-12), (qid, measure.key)


def the_mean_aggregates_as_the_registry_says(measures, qrels, run):
    per_query = _values(qrels, run, measures)
    means = metrics.aggregate(per_query)
    for measure in measures:
        column = [values[measure.key] for values in per_query.values()]
        expected = {"sum": sum(column), "mean": sum(column) / len(column),
                    "geometric": math.exp(sum(column) / len(column))}[measure.info.aggregate]
        assert means[measure.key] == pytest.approx(expected, rel=1e-12), measure.key


INVARIANTS: dict[str, Callable] = {
    "values are finite and in range": values_are_finite_and_in_range,
    "the order of queries changes nothing": the_order_of_queries_changes_nothing,
    "a query scores the same alone": a_query_scores_the_same_alone,
    "renaming queries changes nothing": renaming_queries_changes_nothing,
    "an increasing transform of untied scores changes nothing":
        an_increasing_transform_of_untied_scores_changes_nothing,
    "the cut form beyond every list is the uncut form": the_cut_form_beyond_every_list_is_the_uncut_form,
    "the mean aggregates as the registry says": the_mean_aggregates_as_the_registry_says,
}


@pytest.mark.parametrize("invariant", INVARIANTS)
@pytest.mark.parametrize("name", MEASURES)
def test_every_measure_keeps_every_invariant(name, invariant, collection):
    qrels, run = collection
    INVARIANTS[invariant](parse_measures(name), qrels, run)
