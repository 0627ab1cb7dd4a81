"""Measure names: trec_eval's notation, ir_measures' notation, the keys results are reported under, and errors."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import metrics
from metrics import Measure, parse_measure, parse_measures

# ---- trec_eval notation --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec,keys",
    [
        ("P.5,10", ["P_5", "P_10"]),
        ("P.10,5,5", ["P_5", "P_10"]),  # sorted, duplicates dropped
        ("ndcg_cut.10", ["ndcg_cut_10"]),
        ("ndcg_cut.23.4", ["ndcg_cut_23"]),  # trec_eval reads cut-offs with atol
        ("map", ["map"]),
        ("recip_rank", ["recip_rank"]),
        ("ndcg.1=3,2=9", ["ndcg_1=3,2=9"]),
        ("success.1", ["success_1"]),
        ("P_5", ["P_5"]),  # pytrec_eval also accepts its output names
        ("ndcg_cut_5,10", ["ndcg_cut_5", "ndcg_cut_10"]),
    ],
)
def test_trec_eval_notation_gives_pytrec_eval_keys(spec, keys):
    assert [m.key for m in parse_measure(spec)] == keys


@pytest.mark.parametrize("name", [n for n, info in metrics.MEASURES.items() if info.cutoff == "required"])
def test_a_cutoff_measure_without_cutoffs_gets_its_default_cutoffs(name):
    info = metrics.MEASURES[name]
    assert [m.cutoff for m in parse_measure(name)] == sorted(info.default_cutoffs)


def test_judged_without_a_cutoff_is_the_whole_ranking_as_in_ir_measures():
    (judged,) = parse_measure("Judged")
    assert (judged.name, judged.cutoff, judged.key, judged.ir_name) == ("Judged", None, "Judged", "Judged")
    qrels = {"q": {"a": 1, "b": 0, "c": -1}}
    run = {"q": {"a": 0.9, "x": 0.8, "b": 0.7, "y": 0.6, "c": 0.5}}  # 3 of the 5 retrieved have a qrels line
    assert metrics.evaluate(qrels, run, ["Judged", "Judged@2"])["q"] == {"Judged": 3 / 5, "Judged@2": 1 / 2}


def test_trec_eval_default_cutoffs_are_trec_evals():
    assert [m.key for m in parse_measure("P")] == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert [m.key for m in parse_measure("success")] == ["success_1", "success_5", "success_10"]


def test_gain_map_is_parsed_into_levels_and_keeps_its_written_form():
    (measure,) = parse_measure("ndcg.1=3,2=9")
    assert measure.gain_map == ((1, 3.0), (2, 9.0))
    assert measure.key == "ndcg_1=3,2=9"


def test_parse_measures_keeps_first_seen_order_and_drops_repeats():
    assert [m.key for m in parse_measures(["map", "P.5", "P.5,10", "map"])] == ["map", "P_5", "P_10"]
    assert [m.key for m in parse_measures("P.5")] == ["P_5"]


# ---- ir_measures notation --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec,name,cutoff,relevance_level",
    [
        ("P@5", "P", 5, None),
        ("nDCG@10", "ndcg_cut", 10, None),
        ("nDCG", "ndcg", None, None),
        ("AP@100", "map_cut", 100, None),
        ("AP", "map", None, None),
        ("RR", "recip_rank", None, None),
        ("RR@10", "recip_rank_cut", 10, None),
        ("R@1000", "recall", 1000, None),
        ("Success@1", "success", 1, None),
        ("P(rel=2)@5", "P", 5, 2),
        ("Rprec", "Rprec", None, None),
        ("Bpref", "bpref", None, None),
        ("NumRet", "num_ret", None, None),
        ("NumRel", "num_rel", None, None),
        ("NumRelRet", "num_rel_ret", None, None),
        ("NumQ", "num_q", None, None),
    ],
)
def test_ir_measures_notation_parses_and_round_trips(spec, name, cutoff, relevance_level):
    (measure,) = parse_measure(spec)
    assert (measure.name, measure.cutoff, measure.relevance_level) == (name, cutoff, relevance_level)
    assert measure.ir_name == measure.key == str(measure) == spec
    assert parse_measure(measure.ir_name) == [measure]


@pytest.mark.parametrize(
    "spec,canonical",
    [("MAP@10", "AP@10"), ("NDCG@10", "nDCG@10"), ("MRR@10", "RR@10"),
     ("nDCG(dcg=exp-log2)@10", "nDCG(dcg='exp-log2')@10"), ("P( rel=2 )@5", "P(rel=2)@5")],
)
def test_ir_measures_aliases_and_spellings_become_the_canonical_name(spec, canonical):
    assert parse_measure(spec)[0].key == canonical


def test_ir_measures_parameters_set_the_measures_conventions():
    (exp,) = parse_measure("nDCG(dcg='exp-log2')@10")
    assert (exp.name, exp.cutoff, exp.gain) == ("ndcg_cut", 10, "exponential")
    assert exp.ir_name == "nDCG(dcg='exp-log2')@10"
    (judged,) = parse_measure("nDCG(judged_only=True)@10")
    assert judged.judged_only is True and judged.ir_name == "nDCG(judged_only=True)@10"
    (both,) = parse_measure("P(rel=2,judged_only=True)@5")
    assert parse_measure(both.ir_name) == [both]


def test_every_registered_measure_round_trips_through_its_ir_name():
    for name, info in metrics.MEASURES.items():
        cutoff = (0.5 if info.float_cutoffs else 7) if info.cutoff != "none" else None
        measure = Measure(name, cutoff=cutoff, notation="ir_measures")
        (parsed,) = parse_measure(measure.ir_name)
        # Rprec is spelled the same in both notations, so it parses as trec_eval's; the key is the same either way.
        assert (parsed.name, parsed.cutoff, parsed.key) == (name, measure.cutoff, measure.key), name


def test_the_same_measure_in_both_notations_gives_the_same_values(pastry_qrels, pastry_run):
    trec = metrics.evaluate(pastry_qrels, pastry_run, ["P.4", "ndcg_cut.4", "map", "recip_rank", "recall.4"])
    ir = metrics.evaluate(pastry_qrels, pastry_run, ["P@4", "nDCG@4", "AP", "RR", "R@4"])
    assert list(trec["sweet pastry"].values()) == list(ir["sweet pastry"].values())
    assert list(ir["sweet pastry"]) == ["P@4", "nDCG@4", "AP", "RR", "R@4"]


def test_a_measure_parameter_overrides_the_conventions_for_that_measure_only(jam_qrels, jam_run):
    values = metrics.evaluate(jam_qrels, jam_run, ["P@4", "P(rel=2)@4", "nDCG@4", "nDCG(dcg='exp-log2')@4"])["jam"]
    assert (values["P@4"], values["P(rel=2)@4"]) == (3 / 4, 1 / 4)
    assert round(values["nDCG@4"], 5) == 0.46724 and round(values["nDCG(dcg='exp-log2')@4"], 4) == 0.4138


# ---- errors ----------------------------------------------------------------------------------------------------------


def test_numret_with_a_level_counts_relevant_retrieved_at_that_level_as_ir_measures_does():
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"1": {"a": 2, "b": 1}}
    run = {"1": {"a": 1.0, "b": 0.5, "c": 0.2}}
    names = ["NumRet(rel=2)", "NumRet(rel=1)", "NumRet"]
    reference = ir_measures.calc_aggregate([ir_measures.parse_measure(name) for name in names], qrels, run)
    assert {str(measure): value for measure, value in reference.items()} == {
        "NumRet(rel=2)": 1.0, "NumRet(rel=1)": 2.0, "NumRet": 3.0}
    assert metrics.evaluate(qrels, run, names) == {"1": {"NumRet(rel=2)": 1.0, "NumRet(rel=1)": 2.0, "NumRet": 3.0}}
    assert parse_measure("NumRet(rel=2)")[0] == Measure("num_rel_ret", relevance_level=2, notation="ir_measures")


@pytest.mark.parametrize(
    "spec,message",
    [
        ("precision", "measure 'precision' takes a cut-off, e.g. precision@10"),
        ("prec", "unknown measure 'prec'; known: P, recall"),
        ("Precisn@5", "unknown measure 'Precisn@5'; ir_measures names:"),
        ("P@0", "measure 'P@0': cut-off has to be a whole number from 1 to 10,000,000"),
        ("P@1.5", "measure 'P@1.5': cut-off has to be a whole number from 1 to 10,000,000"),  # never P@1
        ("Success@2.5", "measure 'Success@2.5': cut-off has to be a whole number from 1 to 10,000,000"),
        ("P.0", "measure 'P.0': cut-off '0' has to be a whole number from 1 to 10,000,000"),
        ("P.-5", "measure 'P.-5': cut-off '-5' has to be a whole number from 1 to 10,000,000"),
        ("P@-5", "unknown measure 'P@-5'"),
        ("P.five", "measure 'P.five': cut-off 'five' has to be a whole number from 1 to 10,000,000"),
        ("P", None),  # valid: trec_eval's default cut-offs
        ("R", "measure 'R' takes a cut-off, e.g. R@10"),
        ("Success", "measure 'Success' takes a cut-off, e.g. Success@10"),
        ("Rprec@5", "measure 'Rprec@5' takes no cut-off"),
        ("map.5", "measure 'map' takes no parameters, got 'map.5'"),
        ("nDCG(dcg='exp')@10", "unsupported parameter \"dcg='exp'\""),
        ("P(dcg='exp-log2')@5", "unsupported parameter"),
        ("ndcg.1:3", "gain parameter '1:3' has to look like level=gain"),
        ("", "measure name has to be a non-empty string"),
    ],
)
def test_bad_names_raise_a_precise_error(spec, message):
    if message is None:
        assert parse_measure(spec)
        return
    with pytest.raises(ValueError) as error:
        parse_measure(spec)
    assert message in str(error.value)


def test_ir_notation_p_without_cutoff_says_what_to_write():
    with pytest.raises(ValueError, match=r"unknown measure 'P@'; ir_measures names: .* \(e.g. P@5"):
        parse_measure("P@")
    with pytest.raises(ValueError, match=r"takes a cut-off, e.g. P@10"):
        parse_measure("P()")


def test_evaluate_rejects_an_empty_measure_list():
    with pytest.raises(ValueError, match="has to name at least one measure"):
        metrics.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [])


# ---- names people type ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "written,reads_as",
    [
        ("HitRate@10", "Success@10"), ("hit_rate@10", "Success@10"), ("Accuracy@1", "Success@1"),
        ("top-10 accuracy", "Success@10"), ("Top-5 Accuracy", "Success@5"),
        ("precision@5", "P@5"), ("Precision@5", "P@5"), ("recall@100", "R@100"), ("Recall@100", "R@100"),
        ("mrr", "RR"), ("mrr@10", "RR@10"), ("MRR@10", "RR@10"), ("map@100", "AP@100"), ("MAP@100", "AP@100"),
        ("ndcg@10", "nDCG@10"), ("NDCG@10", "nDCG@10"), ("ndcg_burges@10", "nDCG(dcg='exp-log2')@10"),
        ("r-precision", "Rprec"), ("bpref", "Bpref"), ("f1@10", "F@10"), ("R_cap@100", "relative_P@100"),
        ("cosine_ndcg@10", "nDCG@10"), ("cos_sim-MAP@100", "AP@100"), ("dot_mrr@10", "RR@10"),
        ("RBP", "RBP(p=0.8)"), ("map", "AP"),
    ],
)
def test_names_other_tools_print_are_read_as_one_measure(written, reads_as):
    (measure,) = parse_measure(written)
    assert measure.ir_name == reads_as


def test_an_alias_is_reported_under_the_name_as_written(pastry_qrels, pastry_run):
    values = metrics.evaluate(pastry_qrels, pastry_run, ["hit_rate@2", "Success@2", "top-2 accuracy"])
    row = values["sweet pastry"]
    assert list(row) == ["hit_rate@2", "Success@2", "top-2 accuracy"]
    assert row["hit_rate@2"] == row["Success@2"] == row["top-2 accuracy"]


def test_sentence_transformers_names_carry_its_conventions():
    qrels = {"q": {"a": 2, "b": 1, "c": 1}}
    run = {"q": {"x": 3.0, "a": 2.0, "y": 1.0}}
    values = metrics.evaluate(qrels, run, ["cosine_map@2", "MAP@2", "cosine_ndcg@2", "NDCG@2"])["q"]
    assert values["cosine_map@2"] == (1 / 2) / min(3, 2)  # sentence-transformers: min(R, k)
    assert values["AP@2"] == (1 / 2) / 3  # the default reading: trec_eval's map_cut divides by R
    binary = (1 / math.log2(3)) / (1 + 1 / math.log2(3))  # every relevant document gains 1
    assert values["cosine_ndcg@2"] == pytest.approx(binary, rel=1e-15)
    assert values["nDCG@2"] == pytest.approx((2 / math.log2(3)) / (2 + 1 / math.log2(3)), rel=1e-15)


def test_ambiguous_names_say_what_they_were_read_as():
    from metrics.names import describe_reading

    assert describe_reading("MAP@10").startswith("MAP@10: read as AP@10 (trec_eval map_cut.10: divides by R)")
    assert "cosine_map@10" in describe_reading("MAP@10")
    assert "binary gain" in describe_reading("NDCG@10") and "ndcg_burges@10" in describe_reading("NDCG@10")
    assert describe_reading("hit_rate@10").startswith("hit_rate@10 = Success@10 as the seed, ranx")
    assert describe_reading("cosine_map@10").endswith("divides by min(R, k)")


def test_an_alias_without_its_cut_off_says_how_to_write_it():
    with pytest.raises(ValueError, match=r"measure 'hit_rate' takes a cut-off, e.g. hit_rate@10"):
        parse_measure("hit_rate")


def test_only_names_from_other_tools_get_a_reading_note():
    from metrics import reading_note

    assert reading_note("nDCG@10") is None and reading_note("ndcg_cut.10") is None and reading_note("P.5") is None
    assert reading_note("no such measure") is None
    assert reading_note("hit_rate@10").startswith("hit_rate@10 = Success@10")
    assert reading_note("MAP@100").startswith("MAP@100: read as AP@100")


# ---- every parameterised spelling ir_measures documents, against ir_measures itself ---------------------------------


def _tied_collection(seed: int, n_queries: int = 80):
    """Grades -1..3 (a negative grade is judged but not relevant), scores in steps of 0.5 so that many tie."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        pool = [f"d{i}" for i in range(int(rng.integers(3, 25)))]
        judged = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
        qrels[f"q{q}"] = {str(doc): int(rng.integers(-1, 4)) for doc in judged}
        retrieved = rng.choice(pool + [f"u{i}" for i in range(8)], size=int(rng.integers(1, len(pool) + 8)),
                               replace=False)
        run[f"q{q}"] = {str(doc): float(rng.integers(0, 5)) / 2 for doc in retrieved}
    return qrels, run


#: Each spelling of ir_measures' measure list with its parameters (rel, judged_only, cutoff=, recall=, beta=,
#: relative=, gains=, dcg=, p=, and the aliases Precision, Recall, RPrec, BPref, SetRelP), and the conventions under
#: which the engine gives ir_measures' number on tied scores (its providers: pytrec_eval in trec_eval's order;
#: Judged@k in its own order, doc ids ascending, scores as doubles; RBP through cwl_eval, ties as given).
#: nDCG(dcg='exp-log2') goes to gdeval (perl, five decimals, numeric query ids): test_peers.py covers gdeval.
IR_MEASURES_SPELLINGS = {
    "SetF(beta=0.5)": {}, "SetF(beta=2.0,rel=2)": {}, "SetF(judged_only=True)": {},
    "SetP(relative=True)": {}, "SetP(relative=False,rel=2)": {}, "SetRelP": {}, "SetRelP(rel=2)": {},
    "SetP(relative=True,judged_only=True)": {}, "SetAP(rel=2,judged_only=True)": {}, "SetR(rel=2)": {},
    "nDCG(gains={0:1,1:4})": {}, "nDCG(gains={0:1,1:4})@5": {}, "nDCG(gains={1:3,2:9,3:10},judged_only=True)@10": {},
    "nDCG(dcg='log2',judged_only=True)": {},
    "P(cutoff=5)": {}, "P(rel=2,judged_only=True)@5": {}, "Precision(rel=2)@5": {}, "Recall(cutoff=10)": {},
    "R(rel=2)@20": {}, "Success(rel=2)@3": {}, "AP(cutoff=10,rel=2)": {}, "AP(judged_only=True)": {},
    "RR(rel=2)": {}, "Rprec(rel=2,judged_only=True)": {}, "RPrec": {}, "BPref": {}, "Bpref(rel=2)": {},
    "infAP(rel=2)": {}, "IPrec(recall=0.0,rel=2)": {}, "IPrec(recall=0.2,rel=2)": {}, "IPrec(recall=0.5)": {},
    "NumRet(rel=2)": {}, "NumRelRet(rel=2)": {},
    "Judged": {}, "Judged(cutoff=3)": {"tie_order": "docid_ascending", "score_precision": "float64"},
    "RBP(p=0.5,rel=2)": {"tie_order": "as_given"}, "RBP(rel=1)": {"tie_order": "as_given"},
    "INST(T=2.0,max_rel=3)": {"tie_order": "as_given"}, "BPM(T=1.0,max_rel=3,cutoff=5)": {"tie_order": "as_given"},
}


@pytest.mark.parametrize("spec, reads_as", [
    ("Compat", "Compat(p=0.95)"), ("Compat(normalize=False,p=0.8)", "Compat(p=0.8,normalize=False)"),
    ("Accuracy(cutoff=10)", "Accuracy(cutoff=10)"), ("Accuracy(rel=2)", "Accuracy(rel=2)"),
    ("NERR10(max_rel=2)", "NERR10(p=0.9,max_rel=2)"),
    ("SDCG(cutoff=5,min_rel=1,max_rel=3)", "SDCG(min_rel=1,max_rel=3)@5"),
    ("INSQ(max_rel=3,quantity=ResETU)", "INSQ(T=1,max_rel=3,quantity=ResETU)"), ("dcg_burges@10", "dcg_burges@10"),
    # A denormal keeps the digits typed: :g wrote 9.99989e-321, which reads back as the same double but not as typed.
    ("RBP(p=1e-320)", "RBP(p=1e-320)"), ("nDCG(gains={0:5e-324,1:1000000})", "nDCG(gains={0:5e-324,1:1e+06})"),
])
def test_names_beyond_trec_eval_read_back_as_the_same_measure(spec, reads_as):
    (measure,) = parse_measure(spec)
    assert measure.key == reads_as
    (again,) = parse_measure(measure.key)
    assert (again.name, again.cutoff, again.params, again.gain, again.relevance_level) == (
        measure.name, measure.cutoff, measure.params, measure.gain, measure.relevance_level)
    assert parse_measure("Accuracy@10")[0].name == "success"  # sentence-transformers' Accuracy@k is Success@k


@pytest.mark.parametrize("spec", list(IR_MEASURES_SPELLINGS))
def test_each_parameterised_ir_measures_spelling_gives_ir_measures_values_on_tied_scores(spec):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = _tied_collection(21)
    reference = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(spec)], qrels, run)}
    (measure,) = parse_measure(spec)
    ours = metrics.evaluate(qrels, run, [spec], conventions=metrics.Conventions(**IR_MEASURES_SPELLINGS[spec]))
    assert {qid: values[measure.key] for qid, values in ours.items()} == pytest.approx(reference, abs=1e-12)
    (again,) = parse_measure(measure.ir_name)  # the name it is reported under reads back as the same measure
    assert (again.name, again.cutoff, again.params, again.gain_map, again.key) == (
        measure.name, measure.cutoff, measure.params, measure.gain_map, measure.key)


def test_parameter_spellings_read_as_the_measure_they_name():
    assert parse_measure("SetF(beta=0.5)")[0] == Measure("set_F", params=(0.5,), notation="ir_measures")
    assert parse_measure("SetP(relative=True)")[0].name == parse_measure("SetRelP")[0].name == "set_relative_P"
    assert parse_measure("nDCG(gains={0:1,1:4})")[0].gain_map == ((0, 1.0), (1, 4.0))
    assert parse_measure("IPrec(recall=0.5)") == parse_measure("IPrec@0.5")
    assert parse_measure("P(cutoff=5)") == parse_measure("P@5")
    assert parse_measure("RPrec")[0].key == "Rprec" and parse_measure("BPref")[0].key == "Bpref"


@pytest.mark.parametrize("spec, why", [
    ("SetP@10", "SetP is over the whole retrieved set; ir_measures parses SetP@k but none of its providers computes "
                "it: for the top k write P@10, as ranx's precision@10"),
    ("SetR@5", "for the top k write R@5, as ranx's recall@5"),
    ("RBP@10", "RBP here is over the whole ranking; ir_measures parses RBP@k but none of its providers computes it"),
    ("nDCG(gains={0:1,1:4},dcg='exp-log2')", "gains and dcg='exp-log2' together are not computed"),
])
def test_names_ir_measures_parses_but_the_engine_cannot_compute_get_one_message_saying_why(spec, why):
    ir_measures = pytest.importorskip("ir_measures")
    ir_measures.parse_measure(spec)  # ir_measures accepts the name
    with pytest.raises(ValueError) as error:
        parse_measure(spec)
    assert why in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("spec, message", [
    ("P(cutoff=5)@5", "gives its cut-off twice"),
    ("IPrec(recall=abc)", "recall has to be a number"),
    ("nDCG(gains={0:1,x})", "gains has to map grades to gains, e.g. gains={0:1,1:4}"),
    ("SetP(relative=maybe)", "unsupported parameter 'relative=maybe'"),
    ("SetF(beta=0)", "unsupported parameter 'beta=0'"),
    ("P(rel)@5", "parameter 'rel' has to look like name=value"),
])
def test_bad_parameter_spellings_name_the_parameter(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_measure(spec)
