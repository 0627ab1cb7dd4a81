"""Named edge cases for every measure, with values worked out by hand.

Each case is one query: its judgments and its ranking (or its scores, when ties are the point). The expected
values are written as the arithmetic that produces them, so each line reads as a small worked example. Cut-off
measures are asked at k = 3 (k = 10 in ``k_beyond_length``). Grades follow trec_eval: >= 1 relevant, 0 judged
non-relevant, negative "in the pool but unjudged".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest
import pytrec_eval

import metrics


def _dcg(*gains: float) -> float:
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


@dataclass(frozen=True)
class Case:
    judgments: dict[str, int]
    ranking: list[str] | None = None  # rank order; or
    scores: dict[str, float] | None = None  # scores, ordered by trec_eval's tie rule
    expected: dict[str, float] = field(default_factory=dict)
    judged_only_expected: dict[str, float] = field(default_factory=dict)  # under trec_eval -J

    def run(self) -> dict[str, float]:
        if self.scores is not None:
            return dict(self.scores)
        return {doc: float(len(self.ranking) - i) for i, doc in enumerate(self.ranking)}


CASES: dict[str, Case] = {
    # Nothing is relevant: every ratio has an empty denominator (R = 0 or IDCG = 0), which trec_eval scores 0.
    "no_relevant": Case(
        {"a": 0, "b": 0, "c": 0},
        ["a", "b", "x"],
        expected={
            "P.3": 0.0, "recall.3": 0.0, "success.3": 0.0, "recip_rank": 0.0, "recip_rank_cut.3": 0.0,
            "map": 0.0, "map_cut.3": 0.0, "ndcg": 0.0, "ndcg_cut.3": 0.0, "Rprec": 0.0, "bpref": 0.0,
            "num_ret": 3, "num_rel": 0, "num_rel_ret": 0, "num_q": 1,
        },
    ),
    # Every retrieved document is relevant and every relevant one is retrieved: the perfect ranking.
    "all_relevant": Case(
        {"a": 1, "b": 1, "c": 1},
        ["a", "b", "c"],
        expected={
            "P.3": 3 / 3, "recall.3": 3 / 3, "success.3": 1.0, "recip_rank": 1 / 1, "recip_rank_cut.3": 1.0,
            "map": (1 / 1 + 2 / 2 + 3 / 3) / 3, "map_cut.3": 1.0, "ndcg": 1.0, "ndcg_cut.3": 1.0,
            "Rprec": 3 / 3, "bpref": 1.0, "num_ret": 3, "num_rel": 3, "num_rel_ret": 3, "num_q": 1,
        },
    ),
    # Nothing retrieved: every measure is 0; the relevant document still counts in num_rel.
    "empty_ranking": Case(
        {"a": 1, "b": 0},
        [],
        expected={
            "P.3": 0.0, "recall.3": 0.0, "success.3": 0.0, "recip_rank": 0.0, "recip_rank_cut.3": 0.0,
            "map": 0.0, "map_cut.3": 0.0, "ndcg": 0.0, "ndcg_cut.3": 0.0, "Rprec": 0.0, "bpref": 0.0,
            "num_ret": 0, "num_rel": 1, "num_rel_ret": 0, "num_q": 1,
        },
    ),
    # One document retrieved, relevant; a second relevant one (a) is never retrieved.
    "single_doc": Case(
        {"a": 1, "b": 1},
        ["b"],
        expected={
            "P.3": 1 / 3, "recall.3": 1 / 2, "success.3": 1.0, "recip_rank": 1 / 1, "recip_rank_cut.3": 1.0,
            "map": (1 / 1) / 2, "map_cut.3": (1 / 1) / 2, "ndcg": _dcg(1) / _dcg(1, 1),
            "ndcg_cut.3": _dcg(1) / _dcg(1, 1), "Rprec": 1 / 2, "bpref": (1 - 0) / 2,
            "num_ret": 1, "num_rel": 2, "num_rel_ret": 1, "num_q": 1,
        },
    ),
    # k = 10 on a 2-document list: the missing ranks count as non-relevant (P@10 = 1/10, not 1/2), and the
    # ideal list for nDCG@10 still holds both relevant documents.
    "k_beyond_length": Case(
        {"a": 1, "b": 0, "c": 1},
        ["a", "b"],
        expected={
            "P.10": 1 / 10, "P.2": 1 / 2, "recall.10": 1 / 2, "success.10": 1.0, "recip_rank_cut.10": 1.0,
            "map_cut.10": (1 / 1) / 2, "ndcg_cut.10": _dcg(1, 0) / _dcg(1, 1), "recip_rank": 1.0,
            "map": (1 / 1) / 2, "ndcg": _dcg(1, 0) / _dcg(1, 1), "Rprec": 1 / 2, "bpref": (1 - 0) / 2,
            "num_ret": 2, "num_rel": 2, "num_rel_ret": 1, "num_q": 1,
        },
    ),
    # Four equal scores: trec_eval orders ties by doc id descending, d c b a, so the one relevant document (a)
    # lands at rank 4, behind the judged non-relevant d.
    "all_tied": Case(
        {"a": 1, "d": 0},
        scores={"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0},
        expected={
            "P.3": 0 / 3, "P.4": 1 / 4, "recall.3": 0.0, "success.3": 0.0, "recip_rank": 1 / 4,
            "recip_rank_cut.3": 0.0, "map": (1 / 4) / 1, "map_cut.3": 0.0, "ndcg": _dcg(0, 0, 0, 1) / _dcg(1),
            "ndcg_cut.3": 0.0, "Rprec": 0 / 1, "bpref": (1 - min(1, 1) / min(1, 1)) / 1,
            "num_ret": 4, "num_rel": 1, "num_rel_ret": 1, "num_q": 1,
        },
    ),
    # Grade -1 means "in the pool but unjudged": a counts as retrieved non-relevant, but not as judged
    # non-relevant, so bpref ignores it; with -J it is removed like the never-judged z.
    "negative_grades": Case(
        {"a": -1, "b": 1, "c": 0, "d": -1},
        ["a", "b", "c", "z"],
        expected={
            "P.3": 1 / 3, "recall.3": 1 / 1, "success.3": 1.0, "recip_rank": 1 / 2, "recip_rank_cut.3": 1 / 2,
            "map": (1 / 2) / 1, "map_cut.3": (1 / 2) / 1, "ndcg": _dcg(0, 1) / _dcg(1),
            "ndcg_cut.3": _dcg(0, 1) / _dcg(1), "Rprec": 0 / 1, "bpref": (1 - 0) / 1,
            "num_ret": 4, "num_rel": 1, "num_rel_ret": 1, "num_q": 1,
        },
        judged_only_expected={
            "P.3": 1 / 3, "recip_rank": 1.0, "map": 1.0, "ndcg": 1.0, "Rprec": 1.0, "bpref": 1.0, "num_ret": 2,
        },
    ),
    # Only unjudged documents retrieved: all 0, like an empty ranking, but num_ret counts them (unless -J).
    "unjudged_only": Case(
        {"a": 1, "b": 0},
        ["x", "y", "z"],
        expected={
            "P.3": 0.0, "recall.3": 0.0, "success.3": 0.0, "recip_rank": 0.0, "recip_rank_cut.3": 0.0,
            "map": 0.0, "map_cut.3": 0.0, "ndcg": 0.0, "ndcg_cut.3": 0.0, "Rprec": 0.0, "bpref": 0.0,
            "num_ret": 3, "num_rel": 1, "num_rel_ret": 0, "num_q": 1,
        },
        judged_only_expected={"P.3": 0.0, "map": 0.0, "num_ret": 0, "num_rel": 1},
    ),
}

#: The measures every edge case covers: trec_eval's official ones, recall, success, nDCG and the cut-offs.
OFFICIAL = {"P", "recall", "success", "recip_rank", "recip_rank_cut", "map", "map_cut", "ndcg", "ndcg_cut", "Rprec",
            "bpref", "num_ret", "num_rel", "num_rel_ret", "num_q"}

EXPECTED = [
    pytest.param(case_name, spec, value, id=f"{metrics.parse_measure(spec)[0].key}_{case_name}")
    for case_name, case in CASES.items()
    for spec, value in case.expected.items()
]
EXPECTED_JUDGED_ONLY = [
    pytest.param(case_name, spec, value, id=f"{metrics.parse_measure(spec)[0].key}_{case_name}_judged_only")
    for case_name, case in CASES.items()
    for spec, value in case.judged_only_expected.items()
]


def _value(case: Case, spec: str, **options) -> float:
    key = metrics.parse_measure(spec)[0].key
    if case.ranking is not None:
        conventions = metrics.make_conventions(**options)
        return float(metrics.evaluate_rankings([case.ranking], [case.judgments], [spec], conventions)[key][0])
    return metrics.evaluate({"q": case.judgments}, {"q": case.run()}, [spec], **options)["q"][key]


@pytest.mark.parametrize("case_name,spec,expected", EXPECTED)
def test_edge_case_value(case_name, spec, expected):
    assert _value(CASES[case_name], spec) == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("case_name,spec,expected", EXPECTED_JUDGED_ONLY)
def test_edge_case_value_with_judged_docs_only(case_name, spec, expected):
    value = _value(CASES[case_name], spec, judged_docs_only=True)
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("case_name", list(CASES))
def test_every_official_measure_has_a_hand_computed_value_in_each_edge_case(case_name):
    # The other measures have worked examples in tests/engine/test_trec_measures.py.
    covered = {metrics.parse_measure(spec)[0].name for spec in CASES[case_name].expected}
    assert covered == OFFICIAL


@pytest.mark.parametrize("case_name", [name for name, case in CASES.items() if case.ranking != []])
def test_hand_computed_values_agree_with_pytrec_eval(case_name):
    # Guards the hand arithmetic itself (pytrec_eval cannot take the empty ranking; recip_rank_cut is ours).
    case = CASES[case_name]
    specs = [spec for spec in case.expected if not spec.startswith("recip_rank_cut")]
    for flag, expected in ((False, case.expected), (True, case.judged_only_expected)):
        reference = pytrec_eval.RelevanceEvaluator({"q": case.judgments}, specs, judged_docs_only_flag=flag)
        values = reference.evaluate({"q": case.run()})["q"]
        for spec in specs:
            if spec in expected:
                key = metrics.parse_measure(spec)[0].key
                assert values[key] == pytest.approx(expected[spec], rel=1e-12, abs=1e-15), (spec, flag)


# ---- the same edge cases as statements ---------------------------------------------------------------------------


def test_a_query_with_no_relevant_document_scores_zero_not_nan():
    values = metrics.evaluate({"q": {"a": 0}}, {"q": {"a": 1.0}}, ["map", "ndcg", "recall.5", "Rprec", "bpref"])
    assert all(value == 0.0 and not math.isnan(value) for value in values["q"].values())


def test_precision_at_k_beyond_the_list_divides_by_k_but_recall_does_not_change():
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": 1.0, "b": 0.5}}
    values = metrics.evaluate(qrels, run, ["P.2,4,1000", "recall.2,1000"])["q"]
    assert (values["P_2"], values["P_4"], values["P_1000"]) == (1.0, 0.5, 0.002)
    assert values["recall_2"] == values["recall_1000"] == 1.0


def test_recip_rank_cut_is_zero_when_the_first_relevant_document_is_below_k():
    ranking = ["x", "y", "z", "a"]
    values = metrics.evaluate_rankings([ranking], [{"a": 1}], ["recip_rank_cut.3,4", "recip_rank"])
    assert (values["recip_rank_cut_3"][0], values["recip_rank_cut_4"][0], values["recip_rank"][0]) == (0, 0.25, 0.25)


def test_bpref_counts_only_judged_nonrelevant_documents_above_each_relevant_one():
    # Ranking n1 u a n2 b: a has 1 judged non-relevant above it, b has 2; R = 2, N = 2, so
    # bpref = (1 - 1/2 + 1 - 2/2) / 2 = 0.25. The unjudged u changes nothing.
    judgments = {"a": 1, "b": 1, "n1": 0, "n2": 0}
    values = metrics.evaluate_rankings([["n1", "u", "a", "n2", "b"], ["n1", "a", "n2", "b"]], [judgments] * 2,
                                       ["bpref"])["bpref"]
    assert list(values) == [0.25, 0.25]


def test_rprec_is_precision_at_rank_r_even_when_the_list_is_shorter_than_r():
    # R = 4, only 2 retrieved, 1 of them relevant: 1/4.
    values = metrics.evaluate_rankings([["a", "x"]], [{"a": 1, "b": 1, "c": 1, "d": 1}], ["Rprec", "P.4"])
    assert values["Rprec"][0] == values["P_4"][0] == 0.25
