"""Every tool profile of metrics/profiles.py is checked against the tool: the tool runs on random data with tied
scores, float64 scores that tie as float32 and graded judgments, and the engine under the profile's whole setting
gives the tool's numbers. Tools that do not install here (sentence-transformers, BEIR, the MS MARCO script,
trec_eval 10) are checked against a short transcription of their code, linked from the profile's ``source``;
torchmetrics (torch's CPU build, requirements-dev.txt) against both, the transcription covering 1.7.3 too.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import warnings

import numpy as np
import pytest

import metrics
from metrics.check.finder import _searched_dimensions
from metrics.conventions import CONVENTIONS_BY_NAME, TREC_EVAL
from metrics.measures import MEASURES
from metrics.names import Measure
from metrics.profiles import ANY, ANY_LEVEL, PROFILE_TESTS, PROFILES, RULES, Profile, Switch, markdown_table
from tests.engine.test_attributions import _labels, _lightgbm_ndcg, _per_query, collection, has_ties
from tests.support.paths import REPO
from tests.support.ranx_kernels import ranx_evaluate

TOLERANCE = 1e-12
BY_NAME = {profile.name: profile for profile in PROFILES}


def setting(profile: Profile, **chosen: object) -> dict[str, object]:
    """The profile's conventions as keyword arguments of metrics.evaluate: each Switch at its default (the option
    ``""``, else its first) unless ``chosen``, ANY and ANY_LEVEL at trec_eval's value."""
    values = {}
    for name, value in profile.settings.items():
        if name in chosen:
            assert profile.allows(name, chosen[name]), (profile.name, name, chosen[name])
            values[name] = chosen[name]
        elif isinstance(value, Switch):
            values[name] = next((v for v, option in value.options.items() if not option), next(iter(value.options)))
        elif value in (ANY, ANY_LEVEL):
            values[name] = getattr(TREC_EVAL, name)
        else:
            values[name] = value
    return values


def ours(qrels, run, specs, profile: str, **chosen):
    return metrics.evaluate(qrels, run, specs, **setting(BY_NAME[profile], **chosen))


# ---- the table itself ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES, ids=[p.name for p in PROFILES])
def test_every_profile_sets_every_convention_that_can_change_its_measures(profile):
    for measure in profile.measures:
        assert measure in MEASURES, (profile.name, measure)
        needed = set(_searched_dimensions(Measure(measure, 10 if MEASURES[measure].cutoff != "none" else None), {}))
        own = MEASURES[measure].conventions
        if profile.settings.get("gain", "binary") != "binary" and "relevance_level" not in own:
            needed.discard("relevance_level")  # nDCG reads the level only through binary gain
        assert needed <= set(profile.settings), (profile.name, measure, needed - set(profile.settings))
    for name, value in profile.settings.items():
        if name == "relevance_level":
            assert value == ANY_LEVEL or isinstance(value, int)
            continue
        allowed = {choice.value for choice in CONVENTIONS_BY_NAME[name].choices}
        values = set(value.options) if isinstance(value, Switch) else ({value} - {ANY})
        assert values <= allowed, (profile.name, name, values - allowed)
    assert set(profile.rules) <= set(RULES)


@pytest.mark.parametrize("profile", PROFILES, ids=[p.name for p in PROFILES])
def test_every_profile_names_a_test_that_exists(profile):
    path, _, name = profile.test.partition("::")
    assert f"def {name}(" in (REPO / path).read_text(encoding="utf-8"), profile.test
    if name.endswith("_transcription"):
        assert profile.source.startswith("https://"), f"{profile.name}: a transcription links its source"
    if path == PROFILE_TESTS:
        assert name in globals()


def test_a_switch_names_the_option_a_credit_needs():
    trec_eval = BY_NAME["trec_eval 10.0"]
    assert trec_eval.credit({"missing_queries": "zero", "relevance_level": 2}) == "trec_eval 10.0 -l 2 -c"
    assert trec_eval.credit({"missing_queries": "skip", "relevance_level": 1}) == "trec_eval 10.0"


# ---- trec_eval, pytrec_eval, ir_measures ---------------------------------------------------------------------


def test_trec_eval_10_reads_scores_as_doubles():
    # trec_format.h in trec_eval 10 reads sim as a double; form_res_rels sorts by sim descending, then docno
    # descending (strcmp): the near-ties that trec_eval 9's floats merge stay apart.
    qrels, run = collection(19)
    for scores in run.values():
        expected = sorted(scores, key=lambda doc: (scores[doc], doc.encode()), reverse=True)
        assert metrics.order_documents(scores, score_precision=BY_NAME["trec_eval 10.0"].settings["score_precision"]
                                       ) == expected


@pytest.mark.parametrize("judged_only", [False, True])
def test_pytrec_eval_profile(judged_only):
    import pytrec_eval

    qrels, run = collection(31)
    specs = ["P.5", "recall.10", "success.5", "recip_rank", "map", "map_cut.5", "ndcg", "ndcg_cut.10", "Rprec",
             "bpref", "infAP", "set_F", "G", "binG", "Rprec_mult_0.20"]
    specs = [spec for spec in specs if spec != "Rprec_mult_0.20"]
    reference = pytrec_eval.RelevanceEvaluator(qrels, specs, judged_docs_only_flag=judged_only).evaluate(run)
    chosen = {"unjudged": "removed"} if judged_only else {}
    mine = ours(qrels, run, specs, "pytrec_eval", **chosen)
    assert max(abs(mine[q][k] - reference[q][k]) for q in reference for k in reference[q]) <= TOLERANCE
    level_two = pytrec_eval.RelevanceEvaluator(qrels, ["P.5", "map"], relevance_level=2).evaluate(run)
    mine = ours(qrels, run, ["P.5", "map"], "pytrec_eval", relevance_level=2)
    assert max(abs(mine[q][k] - level_two[q][k]) for q in level_two for k in level_two[q]) <= TOLERANCE


def test_ir_measures_pytrec_eval_profile():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = collection(32)
    qrels["judged but not run"] = {"d1": 1}
    names = ["P@5", "R@10", "Success@5", "RR", "AP", "AP@5", "nDCG", "nDCG@10", "Rprec", "Bpref", "P(rel=2)@5"]
    reference = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], qrels, run)
    for name in names:
        level = 2 if "rel=2" in name else 1
        mine = metrics.aggregate(ours(qrels, run, [name], "ir_measures", relevance_level=level))
        assert mine[name] == pytest.approx(reference[ir_measures.parse_measure(name)], abs=TOLERANCE), name


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")
def test_gdeval_profile():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = collection(33, 120)
    qids = list(run)
    qrels = {str(i + 1): {d: min(g, 4) for d, g in qrels[q].items()} for i, q in enumerate(qids)}
    run = {str(i + 1): run[q] for i, q in enumerate(qids)}
    for measure, profile in ((ir_measures.nDCG(dcg="exp-log2") @ 10, "ir_measures nDCG(dcg='exp-log2') (gdeval)"),
                             (ir_measures.ERR @ 20, "gdeval ERR@k (through ir_measures)")):
        reference = _per_query(ir_measures, [measure], qrels, run)
        spec = str(measure) if profile.startswith("ir_measures") else "ERR@20"
        mine = ours(qrels, run, [spec], profile)
        key = next(iter(next(iter(reference.values()))))
        assert max(abs(mine[q][spec] - reference[q][key]) for q in reference) <= 5.1e-6  # gdeval prints 5 decimals


def test_ir_measures_msmarco_profile():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = collection(34)
    qrels["judged but not run"] = {"d1": 1}
    reference = ir_measures.calc_aggregate([ir_measures.RR @ 10], qrels, run)[ir_measures.RR @ 10]
    mine = metrics.aggregate(ours(qrels, run, ["RR@10"], "ir_measures RR@k (msmarco)"))["RR@10"]
    assert mine == pytest.approx(reference, abs=TOLERANCE)


def test_ir_measures_judged_profile():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = collection(35)
    qrels["judged but not run"] = {"d1": 1}
    for k in (1, 5, 20):
        reference = ir_measures.calc_aggregate([ir_measures.Judged @ k], qrels, run)[ir_measures.Judged @ k]
        mine = metrics.aggregate(ours(qrels, run, [f"Judged@{k}"], "ir_measures Judged@k"))[f"Judged@{k}"]
        assert mine == pytest.approx(reference, abs=TOLERANCE), k


def test_cwl_eval_profile():
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl", reason="cwl_eval does not install here")
    qrels, run = collection(36, 30)
    rng = np.random.default_rng(36)  # input order unrelated to the scores: as_given means the input's order
    run = {q: dict(sorted(scores.items(), key=lambda item: rng.random())) for q, scores in run.items()}
    qrels = {q: js for q, js in qrels.items() if q in run}
    names = {"AP": "map", "P@5": "P.5", "RR": "recip_rank", "RBP(rel=1)": "RBP(rel=1)",
             "RBP(rel=2,p=0.5)": "RBP(rel=2,p=0.5)"}
    reference = {}
    for metric in ir_measures.cwl_eval.iter_calc([ir_measures.parse_measure(n) for n in names], qrels, run):
        reference.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    for name, spec in names.items():
        level = 2 if "rel=2" in name else 1
        key = metrics.parse_measure(spec)[0].key
        for profile in ("cwl_eval", "ir_measures RBP(rel=N) (cwl_eval)"):
            if spec.startswith("RBP") == profile.startswith("ir_measures"):
                mine = ours(qrels, run, [spec], profile, relevance_level=level)
                assert max(abs(mine[q][key] - reference[name].get(q, 0.0)) for q in mine) <= TOLERANCE, name


_CWL_MEASURES = ("BPM(T=1,max_rel=3)@10", "BPM(T=2.5,min_rel=1,max_rel=2)@4", "INST(T=1,max_rel=3)",
                 "INST(T=3,max_rel=2)", "INSQ(T=2,max_rel=3)", "SDCG(max_rel=3)@10", "SDCG(min_rel=1,max_rel=2)@3",
                 "NERR8(max_rel=3)@10", "NERR9(max_rel=2)@5", "NERR10(p=0.7,max_rel=3)", "NERR11(T=2,max_rel=3)")


def _cwl_residuals(ir_measures, measure, judgments, ranked) -> list[float]:
    """cwl_eval's ResEU ... ResED for one ranking: its own Ranking and metric classes with residuals on, gains
    scaled as ir_measures' provider scales them (unjudged: nan, resolved by cwl_eval to 0 or 1)."""
    from cwl.ruler.ranking import Ranking

    low, high = measure["min_rel"], measure["max_rel"]
    gains = [(min(max(max(judgments[d], 0), low), high) - low) / (high - low) if d in judgments else np.nan
             for d in ranked]
    metric = ir_measures.providers.registry["cwl_eval"]._evaluator([measure], {"q": {"x": 0}})
    model = metric._irm_convert_to_measure(measure)
    model.residuals = True
    model.measure(Ranking("q", np.array(gains), np.full(len(gains), np.nan), max_n=1000))
    return [model.residual_expected_utility, model.residual_expected_total_utility, model.residual_expected_cost,
            model.residual_expected_total_cost, model.residual_expected_items]


def test_cwl_eval_cwl_measures_profile():
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl", reason="cwl_eval does not install here")
    qrels, run = collection(48, 10)
    assert has_ties(run)
    rng = np.random.default_rng(48)  # input order unrelated to the scores: as_given means the input's order
    run = {q: dict(sorted(scores.items(), key=lambda item: rng.random())) for q, scores in run.items()}
    qrels = {q: js for q, js in qrels.items() if q in run}
    parsed = [ir_measures.parse_measure(name) for name in _CWL_MEASURES]
    reference = {}
    for metric in ir_measures.cwl_eval.iter_calc(parsed, qrels, run):
        reference[(str(metric.measure), metric.query_id)] = (
            metric.value, metric.expected_total_utility, metric.expected_cost, metric.expected_total_cost,
            metric.expected_items)
    quantities = ("EU", "ETU", "EC", "ETC", "ED", "ResEU", "ResETU", "ResEC", "ResETC", "ResED")
    specs = [name.replace(")", f",quantity={quantity})") for name in _CWL_MEASURES for quantity in quantities]
    mine = ours(qrels, run, specs, "cwl_eval C/W/L")
    residuals_checked = 0
    for name, measure in zip(_CWL_MEASURES, parsed, strict=True):
        for q in run:
            ranked = metrics.order_documents(run[q], tie_order="as_given", score_precision="float64")
            expected = list(reference[(str(measure), q)])
            if q in list(run)[:3]:  # cwl_eval's own residuals, on a few queries (each is one more cwl_eval pass)
                expected += _cwl_residuals(ir_measures, measure, qrels[q], ranked)
                residuals_checked += 1
            for quantity, value in zip(quantities, expected):
                key = metrics.parse_measure(name.replace(")", f",quantity={quantity})"))[0].key
                assert mine[q][key] == pytest.approx(value, abs=1e-10), (name, quantity, q)
    assert residuals_checked == 3 * len(_CWL_MEASURES)
    assert sum(value > 0 for key, value in mine[next(iter(run))].items() if "quantity=Res" in key) > 5
    # A query's values alone are its values in the batch to the bit (the sums stop at its own length, and the tail
    # past it to cwl_eval's 1,000 ranks is in closed form, whatever the batch's width), on its shortest and longest.
    for q in (min(run, key=lambda q: len(run[q])), max(run, key=lambda q: len(run[q]))):
        assert ours({q: qrels[q]}, {q: run[q]}, specs, "cwl_eval C/W/L")[q] == mine[q], q


def test_ir_measures_own_cwl_eval_cases():
    # ir_measures' test/test_cwl_eval.py: cwl_eval's values to 4 decimals, compared within its delta of 0.0001.
    import json

    case = json.loads((REPO / "tests" / "data" / "cwl_eval_cases.json").read_text(encoding="utf-8"))
    assert len(case["expected"]) == 11
    for name, expected in case["expected"].items():
        mine = ours(case["qrels"], case["run"], [name], "cwl_eval C/W/L")
        key = metrics.parse_measure(name)[0].key
        assert {q: mine[q][key] for q in expected} == pytest.approx(expected, abs=1e-4), name


def test_ir_measures_compat_profile():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = collection(49, 60)
    run = {q: {d: s + 10.0 for d, s in scores.items()} for q, scores in run.items()}  # rule positive_scores
    qrels = {q: dict(sorted(js.items())) for q, js in qrels.items()}  # rule relevant_ties_in_qrels_order
    for name in ("Compat", "Compat(p=0.8)", "Compat(p=0.5,normalize=False)"):
        reference = _per_query(ir_measures, [ir_measures.parse_measure(name)], qrels, run)
        key = metrics.parse_measure(name)[0].key
        mine = ours(qrels, run, [name], "ir_measures Compat")
        assert max(abs(mine[q][key] - next(iter(reference[q].values()))) for q in mine) <= TOLERANCE, name
    shifted = {q: {d: s - 10.0 for d, s in scores.items()} for q, scores in run.items()}
    reference = _per_query(ir_measures, [ir_measures.Compat], qrels, shifted)
    mine = ours(qrels, shifted, ["Compat"], "ir_measures Compat")
    assert any(abs(mine[q]["Compat(p=0.95)"] - next(iter(reference[q].values()))) > 1e-6 for q in mine), \
        "scores <= 0 move ir_measures' ideal ranking: rule positive_scores"


def test_ir_measures_accuracy_profile():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = collection(51, 80)
    for name, level, k in (("Accuracy", 1, None), ("Accuracy(cutoff=5)", 1, 5), ("Accuracy(rel=2,cutoff=10)", 2, 10)):
        top = {q: metrics.order_documents(s, tie_order="as_given", score_precision="float64")[:k]
               for q, s in run.items()}
        relevant = {q: sum(qrels[q].get(d, 0) >= level for d in docs) for q, docs in top.items()}
        kept = [q for q in run if 0 < relevant[q] < len(top[q])]  # rule relevant_and_nonrelevant_in_top_k
        assert len(kept) > 10
        subset = ({q: qrels[q] for q in kept}, {q: run[q] for q in kept})
        reference = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(name)], *subset)}
        mine = ours(*subset, [name], "ir_measures Accuracy", relevance_level=level)
        key = metrics.parse_measure(name)[0].key
        assert max(abs(mine[q][key] - reference[q]) for q in kept) <= TOLERANCE, name


def test_pyndeval_profile():
    pyndeval = pytest.importorskip("pyndeval")
    ir_measures = pytest.importorskip("ir_measures")
    from tests.engine.test_diversity import NDEVAL_NAMES, random_collection

    qrels, run = random_collection(52, queries=30)
    rng = np.random.default_rng(52)  # some tied integer scores split by 1e-9: equal as float32, not as doubles
    run = {q: {d: s + (1e-9 if rng.random() < 0.3 else 0.0) for d, s in scores.items()} for q, scores in run.items()}
    del run["q4"]  # a judged query the run lacks: pyndeval skips it, ir_measures scores it 0
    lines = [(q, s, d, g) for q, docs in qrels.items() for d, grades in docs.items() for s, g in grades.items()]
    scored = [(q, d, score) for q, docs in run.items() for d, score in docs.items()]
    for level in (1, 2):
        theirs = pyndeval.RelevanceEvaluator(lines, NDEVAL_NAMES, relevance_level=level).evaluate(scored)
        mine = ours(qrels, run, NDEVAL_NAMES, "pyndeval", relevance_level=level)
        assert set(mine) == set(theirs) == set(run)
        for q, values in theirs.items():
            for name, value in values.items():  # ndeval's nNRBP is 0/0 where no subtopic has a relevant document
                assert mine[q][name] == (0.0 if math.isnan(value) else pytest.approx(value, abs=TOLERANCE)), (q, name)
    # ir_measures' pyndeval provider on the same subtopic qrels (its iteration column is the subtopic)
    frame = pytest.importorskip("pandas").DataFrame(lines, columns=["query_id", "iteration", "doc_id", "relevance"])
    names = {"alpha_nDCG(rel=2)@20": "alpha-nDCG@20", "ERR_IA(rel=2)@5": "ERR-IA@5", "AP_IA(rel=2)": "MAP-IA",
             "StRecall(rel=2)@10": "strec@10", "NRBP(rel=2)": "NRBP", "P_IA(rel=2)@10": "P-IA@10"}
    parsed = [ir_measures.parse_measure(name) for name in names]
    reference = {}
    for metric in ir_measures.pyndeval.iter_calc(parsed, frame, run):
        reference.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    mine = ours(qrels, run, list(names.values()), "ir_measures (pyndeval)", relevance_level=2)
    assert set(mine) == set(qrels)  # q4 scores 0, as the provider's 0 for a query the run lacks
    for name, ndeval_name in names.items():
        assert {q: mine[q][ndeval_name] for q in qrels} == pytest.approx(reference[name], abs=TOLERANCE), name


# ---- ranx ----------------------------------------------------------------------------------------------------


def _short_tied_lists(seed: int, grades_up_to: int = 3):
    qrels, run = collection(seed, max_docs=15)
    qrels = {q: {d: min(g, grades_up_to) for d, g in js.items() if g >= 0} for q, js in qrels.items()}
    qrels = {q: js for q, js in qrels.items() if js and q in run}
    return qrels, {q: s for q, s in run.items() if q in qrels}


def test_ranx_profile():
    qrels, run = _short_tied_lists(37)
    cases = [("precision@5", "P.5", "ranx"), ("recall@10", "recall.10", "ranx"), ("hit_rate@3", "success.3", "ranx"),
             ("mrr", "recip_rank", "ranx"), ("mrr@3", "RR@3", "ranx"), ("map", "map", "ranx"),
             ("map@5", "map_cut.5", "ranx"), ("ndcg", "ndcg", "ranx"), ("ndcg@10", "ndcg_cut.10", "ranx"),
             ("r-precision", "Rprec", "ranx"), ("f1@10", "F@10", "ranx"), ("precision@5-l2", "P.5", "ranx"),
             ("ndcg_burges@10", "ndcg_cut.10", "ranx ndcg_burges"), ("dcg", "dcg", "ranx"),
             ("dcg@5", "dcg_cut.5", "ranx"), ("dcg_burges@10", "dcg_cut.10", "ranx dcg_burges"),
             ("dcg_burges", "dcg", "ranx dcg_burges")]
    references = ranx_evaluate(qrels, run, [metric for metric, _, _ in cases])
    for metric, spec, profile in cases:
        level = 2 if metric.endswith("-l2") else 1
        reference = references[metric]
        key = metrics.parse_measure(spec)[0].key
        mine = ours(qrels, run, [spec], profile, relevance_level=level)
        assert max(abs(mine[q][key] - reference[q]) for q in reference) <= TOLERANCE, metric
    binary, run = _short_tied_lists(38, grades_up_to=1)
    reference = ranx_evaluate(binary, run, "rbp.8")
    mine = ours(binary, run, ["rbp.p=0.8"], "ranx rbp")
    assert max(abs(mine[q]["rbp_p=0.8"] - reference[q]) for q in reference) <= TOLERANCE


def test_ranx_graded_rbp_is_what_its_rule_excludes():
    graded, run = _short_tied_lists(39)
    reference = ranx_evaluate(graded, run, "rbp.8")
    ours_rbp = ours(graded, run, ["rbp.p=0.8"], "ranx rbp")
    assert max(abs(ours_rbp[q]["rbp_p=0.8"] - reference[q]) for q in reference) > 0.01  # rule binary_grades


def _long_ties(seed: int, n_queries: int = 8):
    """Queries of 60 to 1,000 documents, each scored with one of a few values (tie groups of 10 to 1,000), graded
    judgments of 60 of them: numba's quicksort partitions these lists many times over."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for i in range(n_queries):
        n = int(rng.integers(60, 1001))
        docs = [f"d{d}" for d in rng.permutation(5 * n)[:n].tolist()]
        values = rng.integers(0, int(rng.integers(1, 6)), n).astype(float) / 4
        run[f"q{i}"] = dict(zip(docs, values.tolist()))
        judged = rng.choice(docs, 60, replace=False).tolist()
        qrels[f"q{i}"] = dict(zip(judged, rng.integers(0, 4, 60).tolist()))
    return qrels, run


def _dl20(name: str):
    from metrics.real import DL20

    qrels = DL20.qrels().to_dict()
    run = DL20.run(name).to_dict()
    return {q: js for q, js in qrels.items() if q in run}, {q: s for q, s in run.items() if q in qrels}


#: ranx's names, the engine's, and the relevance level.
_RANX_TIED = (("map", "map", 1), ("mrr@10", "RR@10", 1), ("ndcg@10", "ndcg_cut.10", 1),
              ("precision@10", "P.10", 1), ("recall@100", "recall.100", 1), ("map-l2", "map", 2),
              ("mrr@10-l2", "RR@10", 2))


def _ranx_tie_orders(qrels, run, make_comparable: bool = False) -> dict[str, int]:
    """For each tie order, how many (measure, query) values differ from ranx's own under its profile (plain
    ``evaluate``, or with ``make_comparable=True``)."""
    references = ranx_evaluate(qrels, run, [name for name, _, _ in _RANX_TIED], make_comparable=make_comparable)
    profile = BY_NAME["ranx make_comparable=True" if make_comparable else "ranx"]
    wrong = {}
    for tie in ("ranx", "ranx_resorted", "as_given", "trec_eval", "docid_ascending"):
        wrong[tie] = 0
        for name, spec, level in _RANX_TIED:
            key = metrics.parse_measure(spec)[0].key
            mine = metrics.evaluate(qrels, run, [spec], **(setting(profile, relevance_level=level)
                                                           | {"tie_order": tie}))
            wrong[tie] += sum(abs(mine[q][key] - value) > TOLERANCE for q, value in references[name].items())
    return wrong


@pytest.mark.parametrize("seed", [41, 42])
@pytest.mark.parametrize("make_comparable", [False, True])
def test_ranx_tie_order_is_ranx_on_long_tie_groups(seed, make_comparable):
    qrels, run = _long_ties(seed)
    assert max(len(s) - len(set(s.values())) for s in run.values()) > 500
    wrong = _ranx_tie_orders(qrels, run, make_comparable)
    own = "ranx_resorted" if make_comparable else "ranx"
    assert wrong[own] == 0, wrong
    assert min(count for tie, count in wrong.items() if tie != own) > 10, wrong


@pytest.mark.parametrize("name", ["BM25", "TAS-B", "SPLADE++"])
@pytest.mark.parametrize("make_comparable", [False, True])
def test_ranx_tie_order_is_ranx_on_dl20_runs(name, make_comparable):
    qrels, run = _dl20(name)  # real ties: pairs of equal scores in lists of 100
    assert any(len(set(s.values())) < len(s) for s in run.values())
    wrong = _ranx_tie_orders(qrels, run, make_comparable)
    assert wrong["ranx_resorted" if make_comparable else "ranx"] == 0, wrong


# ---- scikit-learn, LightGBM, XGBoost -------------------------------------------------------------------------


def test_scikit_learn_profile():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    qrels, run = collection(41)
    run = {q: s for q, s in run.items() if len(s) > 1}
    for k in (None, 3, 10):
        spec = "ndcg" if k is None else f"ndcg_cut.{k}"
        key = metrics.parse_measure(spec)[0].key
        for tie in ("trec_eval", "as_given", "docid_ascending"):  # ANY: averaged ties make the order irrelevant
            mine = ours(qrels, run, [spec], "scikit-learn ndcg_score", tie_order=tie)
            for q, scores in run.items():
                labels, values = _labels(qrels[q], scores)
                assert abs(mine[q][key] - sklearn_metrics.ndcg_score([labels], [values], k=k)) <= TOLERANCE


def _lightgbm_map(labels, scores, k: int) -> float:
    lightgbm = pytest.importorskip("lightgbm")
    label = np.concatenate(labels)
    data = lightgbm.Dataset(np.arange(label.shape[0], dtype=np.float64)[:, None], label=label,
                            group=[len(g) for g in labels], init_score=np.concatenate(scores))
    record: dict = {}
    params = {"objective": lambda p, _: (np.zeros(len(p)), np.ones(len(p))), "metric": "map", "eval_at": [k],
              "verbosity": -1, "min_data_in_leaf": 1}
    lightgbm.train(params, data, num_boost_round=1, valid_sets=[data], valid_names=["v"],
                   callbacks=[lightgbm.record_evaluation(record)])
    return record["v"][f"map@{k}"][0]


def test_lightgbm_profile():
    qrels, run = collection(42, 100)
    labels, scores = zip(*(_labels(qrels[q], run[q]) for q in run))
    for k in (1, 5, 10):
        ndcg = metrics.aggregate(ours(qrels, run, [f"ndcg_cut.{k}"], "LightGBM ndcg@k"))[f"ndcg_cut_{k}"]
        assert ndcg == pytest.approx(_lightgbm_ndcg(list(labels), list(scores), k), abs=TOLERANCE)
        average = metrics.aggregate(ours(qrels, run, [f"map_cut.{k}"], "LightGBM map@k"))[f"map_cut_{k}"]
        assert average == pytest.approx(_lightgbm_map(list(labels), list(scores), k), abs=TOLERANCE)


def test_lightgbm_map_at_k_divides_by_the_relevant_documents_it_was_given():
    # The example: qrels {a, b, c relevant}, run a 0.9, x 0.8: trec_eval's AP@10 is 1/3, LightGBM's 1.
    qrels, run = {"q": {"a": 1, "b": 1, "c": 1}}, {"q": {"a": 0.9, "x": 0.8}}
    assert metrics.evaluate(qrels, run, ["AP@10"])["q"]["AP@10"] == pytest.approx(1 / 3)
    assert ours(qrels, run, ["AP@10"], "LightGBM map@k")["q"]["AP@10"] == 1.0
    assert _lightgbm_map([np.array([1.0, 0.0])], [np.array([0.9, 0.8])], 10) == 1.0


def _xgboost(qrels, run, metric: str, **params) -> float:
    xgboost = pytest.importorskip("xgboost", reason="XGBoost does not install here")
    labels, scores = zip(*(_labels(qrels[q], run[q]) for q in run))
    label = np.concatenate(labels)
    data = xgboost.DMatrix(np.zeros((label.shape[0], 1)), label=label, base_margin=np.concatenate(scores))
    data.set_group([len(g) for g in labels])
    booster = xgboost.train({"objective": "rank:ndcg", "eval_metric": metric, "base_score": 0.0, **params}, data,
                            num_boost_round=0)  # predictions are the margins given, as C floats
    return float(booster.eval(data).rsplit(":", 1)[1])


def test_xgboost_profile():
    # Rankings of up to 120 documents: XGBoost's uncut map and ndcg read the top 32 (its profiles' depth).
    qrels, run = collection(43, 60, max_docs=120, nonnegative=True)
    assert max(map(len, run.values())) > 100
    binary = {q: {d: min(g, 1) for d, g in js.items()} for q, js in qrels.items()}
    for k, empty in ((5, "one"), (10, "zero"), (100, "one"), (None, "one"), (None, "zero")):
        suffix = "" if empty == "one" else "-"
        if k is None:
            profiles, spec, key, name = ("XGBoost ndcg", "XGBoost map"), ("ndcg_cut.32", "map_cut.32"), (
                "ndcg_cut_32", "map_cut_32"), ("ndcg", "map")
            assert BY_NAME[profiles[0]].depth == BY_NAME[profiles[1]].depth == 32
        else:
            profiles, spec, key, name = ("XGBoost ndcg@k", "XGBoost map@k"), (f"ndcg_cut.{k}", f"map_cut.{k}"), (
                f"ndcg_cut_{k}", f"map_cut_{k}"), (f"ndcg@{k}", f"map@{k}")
        mine = metrics.aggregate(ours(qrels, run, [spec[0]], profiles[0], empty_ideal=empty))[key[0]]
        assert mine == pytest.approx(_xgboost(qrels, run, name[0] + suffix), abs=1e-9)
        mine = metrics.aggregate(ours(binary, run, [spec[1]], profiles[1], empty_ideal=empty))[key[1]]
        assert mine == pytest.approx(_xgboost(binary, run, name[1] + suffix), abs=1e-9)
    # The depth is hidden: the whole ranking's values differ, and no objective or pair parameter moves it.
    whole = metrics.aggregate(ours(binary, run, ["map"], "XGBoost map"))["map"]
    assert abs(whole - _xgboost(binary, run, "map")) > 1e-3
    assert _xgboost(binary, run, "map@100") == pytest.approx(whole, abs=1e-9)  # no ranking is longer than 100
    for params in ({"objective": "rank:pairwise"}, {"objective": "rank:map"}, {"lambdarank_num_pair_per_sample": 8},
                   {"lambdarank_pair_method": "mean"}):
        assert _xgboost(binary, run, "map", **params) == _xgboost(binary, run, "map"), params
        assert _xgboost(qrels, run, "ndcg", **params) == _xgboost(qrels, run, "ndcg"), params


def test_xgboost_and_lightgbm_return_doubles():
    # Booster.eval prints 17 significant digits (max_digits10): XGBoost gives every digit of its double, as
    # LightGBM's record_evaluation does; their profiles round nothing.
    xgboost = pytest.importorskip("xgboost", reason="XGBoost does not install here")
    qrels, run = collection(43, 30, nonnegative=True)
    labels, scores = zip(*(_labels(qrels[q], run[q]) for q in run))
    data = xgboost.DMatrix(np.zeros((sum(map(len, labels)), 1)), label=np.concatenate(labels),
                           base_margin=np.concatenate(scores))
    data.set_group([len(g) for g in labels])
    text = xgboost.train({"objective": "rank:ndcg", "eval_metric": "ndcg@10", "base_score": 0.0}, data,
                         num_boost_round=0).eval(data).rsplit(":", 1)[1]
    assert len(text.lstrip("0.")) >= 16, text
    assert all(BY_NAME[name].decimals is None for name in (
        "XGBoost ndcg", "XGBoost map@k", "LightGBM ndcg@k", "LightGBM map@k", "pytrec_eval", "ir_measures", "ranx",
        "scikit-learn ndcg_score", "cwl_eval", "MS MARCO eval script MRR@10", "sentence-transformers 6.2",
        "torchmetrics 1.7.4+"))
    assert BY_NAME["trec_eval 9.0.8"].decimals == BY_NAME["trec_eval 10.0"].decimals == 4  # printf("%.4f")
    assert BY_NAME["BEIR EvaluateRetrieval.evaluate"].decimals == BY_NAME["BEIR mrr, R_cap"].decimals == 5


def _one_long_ranking(length: int = 1300):
    """One query with ``length`` documents, relevant ones near the end too, every score above 0 and apart."""
    rng = np.random.default_rng(1)
    labels = (rng.random(length) < 0.05).astype(int)
    labels[-5:] = 1
    qrels = {"q": {f"d{i}": int(labels[i]) for i in range(length)}}
    run = {"q": {f"d{i}": float(length + 1 - i) for i in range(length)}}
    return qrels, run, labels, np.array(list(run["q"].values()))


def test_cwl_eval_reads_the_top_1000_ranks():
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl", reason="cwl_eval does not install here")
    qrels, run, _, _ = _one_long_ranking()
    theirs = ir_measures.cwl_eval.calc_aggregate([ir_measures.AP, ir_measures.RR], qrels, run)
    assert BY_NAME["cwl_eval"].depth == 1000
    mine = ours(qrels, run, ["map_cut.1000", "RR@1000", "map"], "cwl_eval")["q"]
    assert mine["map_cut_1000"] == pytest.approx(theirs[ir_measures.AP], abs=TOLERANCE)
    assert mine["RR@1000"] == pytest.approx(theirs[ir_measures.RR], abs=TOLERANCE)
    assert abs(mine["map"] - theirs[ir_measures.AP]) > 1e-4  # the whole ranking's AP is not cwl_eval's


def test_the_other_tools_uncut_measures_read_every_rank():
    # On one ranking of 1,300 documents: pytrec_eval, scikit-learn (k=None) and torchmetrics (top_k=None) give the
    # whole ranking's value, so their profiles have no depth (ranx's k=0 reads every rank too; its recorded values
    # in tests/data/ranx cover the profile test's lists).
    import pytrec_eval
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    qrels, run, labels, scores = _one_long_ranking()
    whole = {spec: metrics.evaluate(qrels, run, [spec])["q"][spec] for spec in ("map", "ndcg", "recip_rank")}
    assert abs(whole["map"] - metrics.evaluate(qrels, run, ["map"], depth=1000)["q"]["map"]) > 1e-3
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg"}).evaluate(run)["q"]
    assert reference["map"] == pytest.approx(whole["map"], abs=TOLERANCE)
    assert sklearn_metrics.ndcg_score([labels], [scores]) == pytest.approx(whole["ndcg"], abs=TOLERANCE)
    try:
        import torch
        from torchmetrics.functional import retrieval
    except ImportError:
        torch = None
    if torch is not None:
        preds, target = torch.tensor(scores), torch.tensor(labels > 0)
        assert retrieval.retrieval_average_precision(preds, target).item() == pytest.approx(whole["map"], abs=1e-6)
        assert retrieval.retrieval_normalized_dcg(preds, torch.tensor(labels)).item() == pytest.approx(
            whole["ndcg"], abs=2e-6)  # float32 sums over 1,300 ranks
    assert all(profile.depth is None for profile in PROFILES
               if profile.tool in ("pytrec_eval", "scikit-learn", "torchmetrics", "trec_eval"))


# ---- transcriptions of tools that do not install here -----------------------------------------------------------


def _dcg(gains, k: int | None) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(list(gains)[:k]))


def _torchmetrics_query(labels: np.ndarray, scores: np.ndarray, k: int, since_1_7_4: bool) -> dict[str, float]:
    """torchmetrics.functional.retrieval for one query (1.9.0 and 1.7.3: precision.py, average_precision.py,
    reciprocal_rank.py, hit_rate.py, ndcg.py): scores as float32 (preds.float()); from 1.7.4 precision, AP and RR
    first set ``target = torch.where(preds > 0, target, 0)``: a document scored <= 0 keeps its rank, not relevant."""
    preds = scores.astype(np.float32)
    binary = (labels > 0).astype(np.float64)
    target = np.where(preds > 0, binary, 0.0) if since_1_7_4 else binary
    order = np.argsort(-preds, kind="stable")  # torch gives ties no order: the profiles' rule keeps them out
    top = target[order][: min(k, len(preds))]
    values = {"P": top.sum() / k if binary.any() else 0.0,
              "P_adaptive": top.sum() / min(k, len(preds)) if binary.any() else 0.0,  # every document counts in n
              "RR": next((1.0 / (i + 1) for i, t in enumerate(top) if t), 0.0),
              "HitRate": float(binary[order][:k].any())}  # hit_rate.py reads the labels as given
    positions = np.flatnonzero(top) + 1
    values["AP"] = float(np.mean(np.arange(1, len(positions) + 1) / positions)) if len(positions) else 0.0
    # nDCG: each tie group shares its mean gain over the discounts of its ranks (_tie_average_dcg).
    groups, inverse = np.unique(-preds, return_inverse=True)
    mean_gain = np.bincount(inverse, weights=labels) / np.bincount(inverse)
    ranked_gains = mean_gain[inverse][np.argsort(-preds, kind="stable")]
    ideal = _dcg(sorted(labels, reverse=True), k)
    values["nDCG"] = _dcg(ranked_gains, k) / ideal if ideal > 0 else 0.0
    return values


def _torchmetrics_itself(labels: np.ndarray, scores: np.ndarray, k: int) -> dict[str, float] | None:
    """The same values from torchmetrics where it is installed (None where it is not)."""
    try:
        import torch
        from torchmetrics.functional import retrieval
    except ImportError:
        return None
    preds, target = torch.tensor(scores, dtype=torch.float64), torch.tensor(labels > 0)
    return {"P": retrieval.retrieval_precision(preds, target, top_k=k).item(),
            "P_adaptive": retrieval.retrieval_precision(preds, target, top_k=k, adaptive_k=True).item(),
            "RR": retrieval.retrieval_reciprocal_rank(preds, target, top_k=k).item(),
            "HitRate": retrieval.retrieval_hit_rate(preds, target, top_k=k).item(),
            "AP": retrieval.retrieval_average_precision(preds, target, top_k=k).item(),
            "nDCG": retrieval.retrieval_normalized_dcg(preds, torch.tensor(labels, dtype=torch.long), top_k=k).item()}


def _signed(run, seed: int):
    """Every other query shifted so that its third document scores exactly 0 and those below it less; a score of
    -0.0 and one of 1e-46 (0 as a float32) in others: torchmetrics 1.7.4's rule reads all of them as <= 0."""
    rng = np.random.default_rng(seed)
    signed = {}
    for i, (q, scores) in enumerate(run.items()):
        values = dict(scores)
        if i % 2 == 0 and len(values) > 3:
            third = sorted(values.values(), reverse=True)[2]
            values = {d: s - third for d, s in values.items()}
        elif i % 6 == 1:
            values[str(rng.choice(list(values)))] = -0.0
        elif i % 6 == 3:
            values[str(rng.choice(list(values)))] = 1e-46
        signed[q] = values
    return signed


@pytest.mark.parametrize("since_1_7_4", [True, False], ids=["1.9.0", "1.7.3"])
def test_torchmetrics_transcription(since_1_7_4):
    qrels, run = collection(44, nonnegative=True)
    run = _signed(run, 44)
    name = "torchmetrics 1.7.4+" if since_1_7_4 else "torchmetrics before 1.7.4"
    ndcg = ours(qrels, run, [f"ndcg_cut.{k}" for k in (5, 50)], "torchmetrics retrieval_normalized_dcg")
    hits = ours(qrels, run, ["success.5", "success.50"], "torchmetrics retrieval_hit_rate")
    specs = [f"{m}.{k}" for k in (5, 50) for m in ("P", "map_cut")] + ["RR@5", "RR@50"]
    rest = ours(qrels, run, specs, name)
    adaptive = ours(qrels, run, ["P.5", "P.50"], name, precision_short_list="retrieved")
    untied = [q for q, s in run.items() if len(set(np.float32(list(s.values())))) == len(s)]
    nonpositive = [q for q in untied if min(np.float32(list(run[q].values()))) <= 0]
    assert len(untied) > 40 and len(nonpositive) > 20
    assert any(-0.0 in run[q].values() for q in nonpositive) and any(1e-46 in run[q].values() for q in nonpositive)
    for q, scores in run.items():
        labels, values = _labels(qrels[q], scores)
        for k in (5, 50):
            expected = _torchmetrics_query(labels, values, k, since_1_7_4)
            assert abs(ndcg[q][f"ndcg_cut_{k}"] - expected["nDCG"]) <= TOLERANCE
            if q not in untied:  # the profiles' rule: no float32 ties
                continue
            assert hits[q][f"success_{k}"] == expected["HitRate"]
            assert abs(rest[q][f"P_{k}"] - expected["P"]) <= TOLERANCE
            assert abs(adaptive[q][f"P_{k}"] - expected["P_adaptive"]) <= TOLERANCE
            assert abs(rest[q][f"map_cut_{k}"] - expected["AP"]) <= TOLERANCE
            assert abs(rest[q][f"RR@{k}"] - expected["RR"]) <= TOLERANCE
            itself = _torchmetrics_itself(labels, values, k) if since_1_7_4 else None
            if itself is not None:  # the transcription is torchmetrics 1.9.0's own numbers
                assert all(abs(itself[key] - expected[key]) <= 1e-6 for key in itself), (q, k, itself, expected)
    # Scores <= 0 change the numbers from 1.7.4 on, and only there: the convention, not a rule, says so.
    changed = [q for q in nonpositive if any(
        _torchmetrics_query(*_labels(qrels[q], run[q]), k, True)[key]
        != _torchmetrics_query(*_labels(qrels[q], run[q]), k, False)[key] for k in (5, 50) for key in ("P", "AP"))]
    assert len(changed) > 5


def test_torch_orders_tied_scores_by_k_so_no_tie_order_gives_torchmetrics():
    """The rule no_float32_ties_across_grades: torch's CPU argsort and topk are unstable beyond 16 tied scores and
    repeatable for one input, but topk (precision, AP, RR) orders a tie group differently for each k, and unlike argsort
    (hit_rate, recall): no one ranking gives torchmetrics' values on tied lists."""
    torch = pytest.importorskip("torch")
    tied = torch.zeros(100)
    assert torch.argsort(torch.zeros(16), descending=True).tolist() == list(range(16))  # insertion sort: stable
    assert tied.topk(10).indices.tolist() == tied.topk(10).indices.tolist()
    tops = {k: tied.topk(k).indices[:10].tolist() for k in (10, 20, 50)}
    assert len({tuple(top) for top in tops.values()}) == 3
    assert torch.argsort(tied, descending=True)[:10].tolist() not in tops.values()


def _sentence_transformers(relevant: set[str], scores: dict[str, float], k: int, docid_ties: bool):
    """InformationRetrievalEvaluator.compute_metrics for one query (6.2.0, information_retrieval.py; 5.1.2,
    InformationRetrievalEvaluator.py): 6.2 sorts by (-score, corpus_id), 5.1 by score with a stable sort."""
    hits = [(float(np.float32(score)), doc) for doc, score in scores.items()]
    top = sorted(hits, key=lambda x: (-x[0], x[1])) if docid_ties else sorted(hits, key=lambda x: x[0], reverse=True)
    found = [doc in relevant for _, doc in top[:k]]
    sum_precisions, correct = 0.0, 0
    for rank, hit in enumerate(found):
        if hit:
            correct += 1
            sum_precisions += correct / (rank + 1)
    return {"accuracy": float(any(found)), "precision": sum(found) / k, "recall": sum(found) / len(relevant),
            "mrr": next((1 / (r + 1) for r, hit in enumerate(found) if hit), 0.0),
            "ndcg": _dcg(map(float, found), k) / _dcg([1.0] * len(relevant), k),
            "map": sum_precisions / min(k, len(relevant))}


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("profile", ["sentence-transformers 6.2", "sentence-transformers 5.1 and earlier"])
def test_sentence_transformers_transcription(profile, level):
    # relevant_docs is the user's: made of the documents graded >= level, it is the engine's threshold.
    qrels, run = collection(45)
    qrels = {q: js for q, js in qrels.items() if any(g >= level for g in js.values())}  # relevant_in_every_query
    run = {q: s for q, s in run.items() if q in qrels}
    k = 10
    specs = {"accuracy": f"Success@{k}", "precision": f"P@{k}", "recall": f"R@{k}", "mrr": f"RR@{k}",
             "ndcg": f"nDCG@{k}", "map": f"AP@{k}"}
    mine = ours(qrels, run, list(specs.values()), profile, relevance_level=level)
    for q, scores in run.items():
        relevant = {d for d, g in qrels[q].items() if g >= level}
        expected = _sentence_transformers(relevant, scores, k, docid_ties=profile.endswith("6.2"))
        for metric, spec in specs.items():
            assert mine[q][spec] == pytest.approx(expected[metric], abs=TOLERANCE), (q, spec)


@pytest.mark.parametrize("level", [1, 2])
def test_ms_marco_transcription(level):
    # ms_marco_eval.py: MRR@10 from the ranks as written, summed over the run's queries and divided by the
    # number of queries of the reference file (a judged query missing from the run adds 0). The reference file is
    # the user's: made of the documents graded >= level, it is the engine's threshold.
    qrels, run = collection(46)
    reference = {q: {d for d, g in js.items() if g >= level} for q, js in qrels.items()}
    reference = {q: docs for q, docs in reference.items() if docs}  # load_reference: a line per relevant document
    qrels = {q: js for q, js in qrels.items() if q in reference}
    run = {q: dict(sorted(s.items(), key=lambda item: -item[1])) for q, s in list(run.items())[5:] if q in qrels}
    total = sum(next((1 / r for r, d in enumerate(list(s)[:10], 1) if d in reference[q]), 0.0)
                for q, s in run.items())
    mine = metrics.aggregate(ours(qrels, run, ["RR@10"], "MS MARCO eval script MRR@10", relevance_level=level))
    assert mine["RR@10"] == pytest.approx(total / len(reference), abs=TOLERANCE)
    expected = "with a reference file of the documents graded >= 2" if level == 2 else ""
    assert BY_NAME["MS MARCO eval script MRR@10"].options_for({"relevance_level": level}) == (
        (expected,) if expected else ())


def _beir_evaluate(qrels, run, k: int) -> dict[str, float]:
    """EvaluateRetrieval.evaluate (beir 2.2.0, evaluation.py) for one k: identical ids dropped, pytrec_eval's
    per-query values summed over the queries it returns, each mean rounded with round(x, 5)."""
    import pytrec_eval

    results = {q: {d: s for d, s in docs.items() if d != q} for q, docs in run.items()}
    scores = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{k}", f"map_cut.{k}", f"recall.{k}", f"P.{k}"}
                                            ).evaluate(results)
    sums = {key: 0.0 for key in (f"ndcg_cut_{k}", f"map_cut_{k}", f"recall_{k}", f"P_{k}")}
    for query_id in scores:
        for key in sums:
            sums[key] += scores[query_id][key]
    return {key: round(total / len(scores), 5) for key, total in sums.items()}


def test_beir_transcription():
    # evaluation.py: pytrec_eval's ndcg_cut, map_cut, recall and P averaged over the queries it returns;
    # custom_metrics.py: mrr and R_cap from Python's stable sort by score, divided by the number of judged queries.
    import pytrec_eval

    qrels, run = collection(47)
    qrels = {q: js for q, js in qrels.items() if any(g >= 1 for g in js.values())}
    run = {q: s for q, s in list(run.items())[3:] if q in qrels}
    scores = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map_cut.10", "recall.10", "P.10"}).evaluate(run)
    profile = BY_NAME["BEIR EvaluateRetrieval.evaluate"]
    mine = metrics.aggregate(ours(qrels, run, ["ndcg_cut.10", "map_cut.10", "recall.10", "P.10"], profile.name))
    rounded = _beir_evaluate(qrels, run, 10)
    for key in ("ndcg_cut_10", "map_cut_10", "recall_10", "P_10"):
        assert mine[key] == pytest.approx(sum(s[key] for s in scores.values()) / len(scores), abs=TOLERANCE)
        assert profile.shown(mine[key]) == rounded[key]  # what BEIR returns: round(mean, 5)
    mrr = cap = 0.0
    for q, docs in run.items():
        top = sorted(docs.items(), key=lambda item: item[1], reverse=True)[:10]
        relevant = [d for d in qrels[q] if qrels[q][d] > 0]
        mrr += next((1 / (r + 1) for r, (d, _) in enumerate(top) if d in relevant), 0.0)
        cap += sum(qrels[q].get(d, 0) > 0 for d, _ in top) / min(len(relevant), 10)
    mine = metrics.aggregate(ours(qrels, run, ["RR@10", "relative_P.10"], "BEIR mrr, R_cap"))
    assert mine["RR@10"] == pytest.approx(mrr / len(qrels), abs=TOLERANCE)
    assert mine["relative_P_10"] == pytest.approx(cap / len(qrels), abs=TOLERANCE)
    assert BY_NAME["BEIR mrr, R_cap"].shown(mine["RR@10"]) == round(mrr / len(qrels), 5)


def test_profiles_are_plain_data():
    for profile in PROFILES:
        assert dataclasses.is_dataclass(profile) and isinstance(profile.settings, dict)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert BY_NAME["ranx rbp"].rules == ("same_queries", "binary_grades")


def test_the_docs_table_of_profiles_is_the_profile_table():
    text = (REPO / "docs" / "conventions.md").read_text(encoding="utf-8")
    generated = text.split("keeps it in step -->\n", 1)[1].split("\n<!-- end of the generated table -->", 1)[0]
    assert generated == markdown_table(), "regenerate it: python -c 'from metrics.profiles import markdown_table; ...'"


@pytest.mark.parametrize("build", ["9.0.8", "10.0"])
def test_the_trec_eval_profiles_are_the_builds_presets(build):
    from metrics.conventions import trec_eval_values

    profile = BY_NAME[f"trec_eval {build}"]
    assert {name: profile.settings[name] for name in trec_eval_values(build)} == trec_eval_values(build)
