"""trec_eval 10's measures beyond the official set, each on one query worked out by hand.

The query: judgments a=2, b=0, c=1, d=-1 (in the pool, unjudged), e=1; the ranking a, x, b, c, d, where x is not in
the qrels. At -l 1 the relevant documents are a, c, e (R = 3); a is at rank 1 and c at rank 4; e is never retrieved.
Every value below was also checked against trec_eval 10.0 built from NIST's source (4 decimals), and the
conformance files (tests/engine/test_conformance.py) replay its own test suite byte for byte.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval

import metrics
from metrics.measures.rank_based import MIN_GEOMETRIC_MEAN
from tests.support.paths import DOCS
from tests.support.strategies import pytrec_eval_safe, random_collection

JUDGMENTS = {"a": 2, "b": 0, "c": 1, "d": -1, "e": 1}
RANKING = ["a", "x", "b", "c", "d"]
SCORES = {doc: float(len(RANKING) - rank) for rank, doc in enumerate(RANKING)}

IDEAL_DCG_3 = 2 + 1 / math.log2(3) + 1 / math.log2(4)  # ideal gains 2, 1, 1
DCG = 2 / math.log2(2) + 1 / math.log2(5)  # a (gain 2) at rank 1, c (gain 1) at rank 4

WORKED = {
    # set measures: 2 relevant among 5 retrieved, R = 3
    "set_P": 2 / 5,
    "set_recall": 2 / 3,
    "set_relative_P": 2 / min(5, 3),
    "set_map": 2 * 2 / (5 * 3),
    "set_F": 2 * (2 / 5) * (2 / 3) / ((2 / 5) + (2 / 3)),
    "set_F.0.5": 1.5 * (2 / 5) * (2 / 3) / (0.5 * (2 / 5) + (2 / 3)),
    "utility": 1 * 2 - 1 * 3,  # default coefficients 1, -1, 0, 0
    "utility.2,-1,1,0": 2 * 2 - 1 * 3 + 1 * (3 - 2),
    "num_nonrel_judged_ret": 1,  # b
    # P@k against the best possible min(k, R)
    "relative_P.2": 1 / 2,
    "relative_P.3": 1 / 3,
    # precision at c = floor(m R + 0.9): m = 0.2 -> c = 1; m = 1 -> c = 3; m = 2 -> c = 6 > |L| -> 2 / 6
    "Rprec_mult.0.2": 1 / 1,
    "Rprec_mult.1.0": 1 / 3,
    "Rprec_mult.2.0": 2 / 6,
    # interpolated precision: P at the relevant ranks is 1/1 (a) and 2/4 (c); c-th relevant, c = round(x R)
    "iprec_at_recall.0.0": 1.0,  # c = 0: the best precision anywhere
    "iprec_at_recall.0.4": 0.5,  # c = (long)(1.2 + 0.9) = 2 (trec_eval 10's lround(1.2) = 1 gives 1.0)
    "iprec_at_recall.0.5": 0.5,  # c = round(1.5) = 2: the 2nd relevant is at rank 4
    "iprec_at_recall.1.0": 0.0,  # c = 3, but only 2 are retrieved
    # c = (long)(3x + 0.9): levels 0-0.3 give c <= 1, 0.4-0.7 c = 2 (3 * 0.7 + 0.9 is 2.9999999999999996 in
    # doubles), 0.8-1 c = 3; trec_eval 10's lround gives (5 * 1.0 + 4 * 0.5 + 2 * 0.0) / 11
    "11pt_avg": (4 * 1.0 + 4 * 0.5 + 3 * 0.0) / 11,
    "11pt_avg.0.5,1.0": (0.5 + 0.0) / 2,
    # infAP: a at rank 1 counts 1; at c (rank 4) the pooled documents above are a and b (x is not pooled)
    "infAP": (1 + (1 / 4 + (3 / 4) * (2 / 3) * ((1 + 1e-5) / (2 + 2e-5)))) / 3,
    # binG: 1 / log2(2 + non-relevant above): a has none, c has x and b
    "binG": (1 / math.log2(2) + 1 / math.log2(4)) / 3,
    # G: cost C_r = sum of max(ideal gain, 1) = 2, 3, 4, 5; gained so far 2, 2, 2, 3; ideal gains sum to 4
    "G": (2 / math.log2(2 + 2 - 2) + 1 / math.log2(2 + 5 - 3)) / 4,
    # ndcg_rel: nDCG at a (rank 1) and at c (rank 4), and the whole ranking's nDCG for e, never retrieved
    "ndcg_rel": (2 / 2 + DCG / IDEAL_DCG_3 + DCG / IDEAL_DCG_3) / 3,
    # Rndcg: the ideal gain drops after rank 1 (2 -> 1) and after rank 3 (1 -> 0); the ranking runs on to rank 5
    "Rndcg": (2 / 2 + 2 / IDEAL_DCG_3 + DCG / IDEAL_DCG_3) / 3,
    # unj@k: x and d lack a grade >= 0
    "unj.2": 1 / 2,
    "unj.5": 2 / 5,
    # rbp: gains scaled by the largest grade (2): a 1, c 0.5, persistence 0.9
    "rbp": (1 - 0.9) * (1.0 * 0.9**0 + 0.5 * 0.9**3),
    "rbp.p=0.5": (1 - 0.5) * (1.0 + 0.5 * 0.5**3),
    "rbp_resid": 0.9**5 + (1 - 0.9) * (0.9**1 + 0.9**4),  # x at rank 2, d at rank 5
    # Judged@k (ir_measures): documents of the top k with a qrels line (d's -1 counts) over min(k, |L|)
    "Judged@2": 1 / 2,
    "Judged@10": 4 / 5,
    # F@k (ranx f1): P@3 = R@3 = 1/3; F(beta=2) weighs recall, equal here
    "F@3": 2 * (1 / 3) * (1 / 3) / (1 / 3 + 1 / 3),
    "F(beta=2)@5": 5 * (2 / 5) * (2 / 3) / (4 * (2 / 5) + 2 / 3),
    # ERR@k (gdeval): a (grade 2) stops the user with 3/16, c (grade 1) with 1/16
    "ERR@2": (3 / 16) / 1,
    "ERR@5": (3 / 16) / 1 + (1 - 3 / 16) * (1 / 16) / 4,
    # unnormalised DCG (ranx dcg, dcg_burges): a (grade 2) at rank 1, c (grade 1) at rank 4
    "dcg": DCG, "dcg_cut.3": 2.0, "dcg@5": DCG, "dcg_burges@5": 3 + 1 / math.log2(5),
    # Accuracy (ir_measures): a precedes x, b, d; c follows x and b: 1 - 2 / (2 relevant * 3 non-relevant)
    "accuracy": 1 - 2 / (2 * 3), "Accuracy(cutoff=3)": 1.0,
    # Compat: ideal I = a, c, e (grade > 0, grade descending, then as retrieved); overlaps of the prefixes of the
    # ranking with I at depths 1-5 are 1, 1, 1, 2, 2, and I's own 1, 2, 3, 3, 3
    "Compat(p=0.95)": (1 + 0.95 / 2 + 0.95 ** 2 / 3 + 0.95 ** 3 * 2 / 4 + 0.95 ** 4 * 2 / 5)
                      / (1 + 0.95 * 2 / 2 + 0.95 ** 2 * 3 / 3 + 0.95 ** 3 * 3 / 4 + 0.95 ** 4 * 3 / 5),
    "Compat(p=0.5,normalize=False)": (1 + 0.5 / 2 + 0.25 / 3 + 0.125 * 2 / 4 + 0.0625 * 2 / 5)
                                     / (1 + 0.5 + 0.25 + 0.125 + 0.0625),
    # C/W/L (cwl_eval), max_rel=4: gains a 0.5, x (unjudged) 0, b 0, c 0.25, d (grade -1, judged) 0, then 0 to rank
    # 1000. The user reaches rank r with chance prod_{s<r} C_s; EU = sum_r reach_r g_r / sum_r reach_r.
    "BPM(T=0.5,max_rel=4)@10": 0.5,  # the gain wanted arrives at rank 1: C_1 = 0
    "NERR8(max_rel=4)@3": (0.5 * 1) / (1 + 0.5 + 0.5),  # C = 1 - g before rank 3: reach 1, 0.5, 0.5
    "NERR9(max_rel=4)@3": 0.5 / (1 + 1 / 4 + 1 / 6),  # C = r / (r + 1) (1 - g): reach 1, 1/4, 1/4 * 2/3
    "SDCG(max_rel=4)@4": (0.5 + 0.25 / math.log2(5)) / (1 + 1 / math.log2(3) + 1 / 2 + 1 / math.log2(5)),
    "INSQ(T=1,max_rel=4)": (0.5 + 0.25 * (2 / 5) ** 2) / sum(4 / (r + 1) ** 2 for r in range(1, 1001)),
    "INSQ(T=1,max_rel=4,quantity=ED)": sum(4 / (r + 1) ** 2 for r in range(1, 1001)),  # 1 / W_1
    "NERR10(p=0.5,max_rel=4)": (33 / 64) / (95 / 64),  # C = p (1 - g): reach 1, 1/4, 1/8, 1/16, then 3/128 halving
    "NERR10(p=0.5,max_rel=4,quantity=ResEU)": (0.5 + 0.25) / 1.25 - 33 / 95,  # x at gain 1 stops the user at 2
    "INST(T=1,max_rel=4)": 0.0, "NERR11(T=1,max_rel=4)": 0.0,  # filled in below from their C_r
    # diversity measures (ndeval): without subtopics the qrels are one subtopic, S = 1; a gains 1, c (the second
    # relevant document) 1 - alpha = 0.5; the "ideal ideal" gains 0.5^(r-1) at rank r, the greedy ideal a, c, e
    "alpha-DCG@5": (1 + 0.5 / math.log2(5)) / sum(0.5 ** r / math.log2(r + 2) for r in range(5)),
    "alpha-nDCG@5": (1 + 0.5 / math.log2(5)) / (1 + 0.5 / math.log2(3) + 0.25 / math.log2(4)),
    "ERR-IA@5": (1 + 0.5 / 4) / sum(0.5 ** r / (r + 1) for r in range(5)),
    "nERR-IA@5": (1 + 0.5 / 4) / (1 + 0.5 / 2 + 0.25 / 3),
    "NRBP": (1 - 0.5 * 0.5) * (1 + 0.5 * 0.5**3),
    "nNRBP": (1 + 0.5 * 0.5**3) / (1 + 0.5 * 0.5 + 0.25 * 0.5**2),
    "MAP-IA": (1 / 1 + 2 / 4) / 3,
    "P-IA@5": 2 / 5,
    "strec@1": 1.0,
    # gm_map and gm_bpref report log values per query (the mean over queries is exp of their mean)
    "gm_map": math.log((1 / 1 + 2 / 4) / 3),
    "gm_bpref": math.log((1 + (1 - 1 / 1)) / 3),
    # yaap: AP's sum S = 1/1 + 2/4 against R = 3 (here S = R / 2, so the log-odds is 0)
    "yaap": math.log((1 + (1 / 1 + 2 / 4)) / (1 + 3 - (1 / 1 + 2 / 4))),
}




def test_a_judged_query_missing_from_the_run_scores_0_in_every_cwl_quantity_with_c():
    qrels, run = {"q": JUDGMENTS, "missing": {"a": 1}}, {"q": SCORES}
    specs = [f"INST(max_rel=2,quantity={quantity})" for quantity in ("EU", "ED", "ETC", "ResEU", "ResED")]
    values = metrics.evaluate(qrels, run, specs, missing_queries="zero")
    assert set(values["missing"].values()) == {0.0} and values["q"]["INST(T=1,max_rel=2,quantity=ED)"] > 1


def _cwl_expected_utility(continuation) -> float:
    """EU = sum_r W_r g_r for the worked example's gains, from the C_r of ranks 1..1000 (cwl_eval's depth)."""
    gains = [0.5, 0, 0, 0.25] + [0] * 996
    reach = [1.0]
    for c in continuation[:-1]:
        reach.append(reach[-1] * c)
    return sum(r * g for r, g in zip(reach, gains)) / sum(reach)


_WANTED = [0.5, 0.5, 0.5, 0.25] + [0.25] * 996  # INST's T_r = T - gain so far, T = 1
WORKED["INST(T=1,max_rel=4)"] = _cwl_expected_utility(
    [((r + 1 + t - 1) / (r + 1 + t)) ** 2 for r, t in enumerate(_WANTED, 1)])
WORKED["NERR11(T=1,max_rel=4)"] = _cwl_expected_utility(
    [((r + 1) / (r + 2)) ** 2 * (1 - g) for r, g in enumerate([0.5, 0, 0, 0.25] + [0] * 996, 1)])


@pytest.mark.parametrize("spec", list(WORKED))
def test_worked_example(spec):
    key = metrics.parse_measure(spec)[0].key
    values = metrics.evaluate({"q": JUDGMENTS}, {"q": SCORES}, [spec])["q"]
    assert values[key] == pytest.approx(WORKED[spec], rel=1e-12, abs=1e-15)


def test_every_measure_beyond_the_official_set_has_a_worked_example():
    official = {"P", "recall", "success", "recip_rank", "recip_rank_cut", "map", "map_cut", "ndcg", "ndcg_cut",
                "Rprec", "bpref", "num_ret", "num_rel", "num_rel_ret", "num_q"}  # tests/engine/test_measures.py
    worked = {metrics.parse_measure(spec)[0].name for spec in WORKED}
    assert worked | official >= set(metrics.MEASURES)


def test_the_geometric_mean_floors_a_query_at_0_00001():
    qrels = {"hit": {"a": 1}, "miss": {"b": 1}}
    run = {"hit": {"a": 1.0}, "miss": {"z": 1.0}}
    means = metrics.aggregate(metrics.evaluate(qrels, run, ["gm_map", "map"]))
    assert means["map"] == 0.5
    assert means["gm_map"] == pytest.approx(math.sqrt(1.0 * MIN_GEOMETRIC_MEAN))


def test_an_empty_ranking_scores_0_utility_as_trec_eval_scores_a_query_missing_under_c():
    qrels = {"q": {"a": 1}, "absent": {"b": 1}}
    values = metrics.evaluate(qrels, {"q": {"z": 1.0}}, ["utility.1,-1,-1,0"], missing_queries="zero")
    assert values == {"q": {"utility_1,-1,-1,0": -1 - 1}, "absent": {"utility_1,-1,-1,0": 0.0}}


# ---- differential: recall levels, where trec_eval 9 (inside pytrec_eval) and trec_eval 10 agree -------------------


def _v9_and_v10_agree(level: float, num_relevant: int) -> bool:
    """trec_eval 10 turns recall level x into c = round(x R); trec_eval 9 took (long)(x R + 0.9)."""
    exact = level * num_relevant
    return int(exact + 0.9) == int(math.floor(exact + 0.5))


def test_interpolated_precision_matches_pytrec_eval_where_the_recall_rounding_agrees():
    rng = np.random.default_rng(77)
    qrels, run = random_collection(rng, 700, max_docs=40)
    pytrec_eval_safe(qrels, run)
    levels = (0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0)
    spec = "iprec_at_recall." + ",".join(map(str, levels))
    for level_rel in (1, 2):
        reference = pytrec_eval.RelevanceEvaluator(qrels, {spec}, relevance_level=level_rel).evaluate(run)
        ours = metrics.evaluate(qrels, run, [spec], relevance_level=level_rel)
        compared = 0
        for qid, values in reference.items():
            R = sum(1 for g in qrels[qid].values() if g >= level_rel)
            for level in levels:
                if _v9_and_v10_agree(level, R):
                    key = f"iprec_at_recall_{level:3.2f}"
                    assert ours[qid][key] == values[key], (qid, key)
                    compared += 1
        assert compared > 5000


def test_unj_is_one_minus_judged_when_nothing_has_a_negative_grade():
    rng = np.random.default_rng(5)
    qrels, run = random_collection(rng, 300, max_docs=30)
    qrels = {qid: {doc: max(grade, 0) for doc, grade in docs.items()} for qid, docs in qrels.items()}
    values = metrics.evaluate(qrels, run, ["unj.5", "Judged@5"])
    for qid, row in values.items():
        if len(run[qid]) >= 5:
            assert row["unj_5"] == pytest.approx(1 - row["Judged@5"], abs=1e-15), qid


def test_the_score_finder_reads_a_reported_gm_map_as_a_geometric_mean():
    from metrics.check.finder import find_conventions

    qrels = {"hit": {"a": 1}, "miss": {"b": 1}, "half": {"c": 1, "d": 1}}
    run = {"hit": {"a": 1.0}, "miss": {"z": 1.0}, "half": {"c": 1.0, "y": 0.5}}
    # (1 * 0.00001 * 0.5) ** (1/3) = 0.0171; the arithmetic mean of the logs would be about -4.07
    finding = find_conventions(qrels, run, "gm_map", "0.0171")
    assert [match.description for match in finding.matches][:1] == ["trec_eval defaults"]


def test_the_measures_page_lists_every_measure_with_its_formula_and_peer():
    page = (DOCS / "measures.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip().split("`")[1]: line for line in page.splitlines()
            if line.startswith("| `") and line.count("|") >= 6}
    assert set(metrics.MEASURES) <= set(rows)
    for name, info in metrics.MEASURES.items():
        assert info.text.replace("|", "\\|") in rows[name] and info.peer in rows[name], name


# ---- nDCG variants papers mean: the discount ---------------------------------------------------------------------


def test_jarvelin_kekalainen_discount_leaves_ranks_before_b_undiscounted():
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "e": 1}}
    run = {"q": {"a": 5.0, "x": 4.0, "b": 3.0, "c": 2.0}}
    b2 = metrics.evaluate(qrels, run, ["ndcg_cut.4"], discount="jk_b2")["q"]["ndcg_cut_4"]
    assert b2 == pytest.approx((2 / 1 + 1 / math.log2(4)) / (2 / 1 + 1 / math.log2(2) + 1 / math.log2(3)))
    b10 = metrics.evaluate(qrels, run, ["ndcg_cut.4"], discount="jk_b10")["q"]["ndcg_cut_4"]
    assert b10 == pytest.approx((2 + 1) / (2 + 1 + 1))  # no discount at all before rank 10
    log2 = metrics.evaluate(qrels, run, ["ndcg_cut.4"])["q"]["ndcg_cut_4"]
    assert log2 == pytest.approx((2 + 1 / math.log2(5)) / (2 + 1 / math.log2(3) + 1 / math.log2(4)))


def test_the_score_finder_searches_the_discount():
    from metrics.check.finder import find_conventions

    qrels = {"q": {"a": 2, "b": 0, "c": 1, "e": 1}}
    run = {"q": {"a": 5.0, "x": 4.0, "b": 3.0, "c": 2.0}}
    reported = metrics.evaluate(qrels, run, ["nDCG@3"], discount="jk_b2")["q"]["nDCG@3"]
    finding = find_conventions(qrels, run, "nDCG@3", f"{reported:.4f}")
    assert [match.description for match in finding.matches] == ["discount=jk_b2"]
