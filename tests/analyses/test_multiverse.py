"""The multiverse of conventions against brute force: for every setting, each run evaluated on its own with
metrics.evaluate under that setting's conventions and compared by compare_values_many must give the multiverse's
means, differences and corrected p-values; then the sentences, the leaderboard's tau-b, the cap and the errors."""

from __future__ import annotations

import functools
import gc
import io
import itertools
import sys
import weakref

import numpy as np
import pytest

from metrics import Conventions, bulk, evaluate
from metrics.compare.__main__ import main as compare_main
from metrics.compare.many import _p_value, adjust_p_values
from metrics.compare.multiverse import (
    MAX_SETTINGS,
    Multiverse,
    Outcome,
    _ties,
    kendall_tau_b,
    multiverse,
    multiverse_report,
    plausible_values,
    relevance_levels,
)
from metrics.compare.pairs import EXACT_MAX_QUERIES, randomisation_p_values, randomisation_test
from metrics.io.frames import as_run_table
from metrics.model import InputError
from metrics.names import parse_one_measure
from metrics.real import DL20
from tests.support.paths import REPO

multiverse_module = sys.modules["metrics.compare.multiverse"]  # the package's `multiverse` is the function

# Grades 0-3 (two readings of "relevant": -l 1 and -l 2), an unjudged document (d9), and run C lacks query q4
# (missing_queries matters). Run A has ties and a score pair only float32 ties (0.30000001 vs 0.3), B ties under
# both precisions, C has no ties: the three ways the multiverse shares a run's batches across settings.
QRELS = {
    "q1": {"d1": 3, "d2": 1, "d3": 0, "d4": 2, "d5": 1},
    "q2": {"d1": 1, "d2": 2, "d3": 0, "d6": 3},
    "q3": {"d2": 2, "d4": 1, "d7": 0, "d8": 1},
    "q4": {"d1": 1, "d3": 2},
}
RUNS = {
    "A": {"q1": {"d1": 0.5, "d2": 0.5, "d9": 0.4, "d4": 0.3, "d3": 0.30000001},
          "q2": {"d6": 0.2, "d2": 0.9, "d9": 0.9, "d1": 0.1},
          "q3": {"d7": 0.8, "d8": 0.8, "d2": 0.1},
          "q4": {"d3": 0.5, "d9": 0.6}},
    "B": {"q1": {"d4": 0.9, "d1": 0.8, "d9": 0.7, "d5": 0.7},
          "q2": {"d9": 0.9, "d3": 0.5, "d6": 0.5, "d2": 0.4},
          "q3": {"d8": 0.3, "d4": 0.3, "d7": 0.3, "d2": 0.2},
          "q4": {"d1": 1.0, "d3": 0.9}},
    "C": {"q1": {"d3": 0.9, "d1": 0.65, "d5": 0.6, "d2": 0.1},
          "q2": {"d1": 0.75, "d2": 0.7, "d9": 0.6},
          "q3": {"d2": 0.95, "d9": 0.9, "d4": 0.2}},
}


def _brute_force(result: Multiverse, test: str = "t", correction: str = "holm") -> None:
    for index, conv in enumerate(result.settings):
        values = {name: {qid: row[result.measure] for qid, row in
                         evaluate(QRELS, run, [result.measure], conventions=conv).items()}
                  for name, run in RUNS.items()}
        common = sorted(set.intersection(*(set(per_query) for per_query in values.values())))
        arrays = {name: np.array([values[name][qid] for qid in common]) for name in RUNS}
        assert result.queries[index] == len(common)
        np.testing.assert_allclose(result.means[index], [arrays[name].mean() for name in RUNS], rtol=0, atol=1e-12)
        raw = [_p_value(test, arrays, a, b, 10_000, 0) for a, b in result.pairs]
        adjusted = adjust_p_values(raw, correction)
        for outcome, (a, b), p in zip(result.outcomes[index], result.pairs, adjusted):
            assert outcome.difference == pytest.approx((arrays[b] - arrays[a]).mean(), abs=1e-12)
            assert outcome.p_adjusted == pytest.approx(p, abs=1e-12)
            assert outcome.significant == (p < 0.05)


@functools.cache
def _multiverse(measure: str) -> Multiverse:
    return multiverse(QRELS, RUNS, measure)


def test_the_example_runs_cover_each_way_batches_are_shared(monkeypatch):
    assert {name: _ties(as_run_table(run)) for name, run in RUNS.items()} == {
        "A": (True, True), "B": (True, False), "C": (False, False)}
    built = []
    prepare = bulk.prepare_run
    monkeypatch.setattr(bulk, "prepare_run", lambda qrels, run, *args: built.append(run.name) or
                        prepare(qrels, run, *args))
    result = multiverse(QRELS, RUNS, "P.2")
    assert len(result.settings) == 48  # 3 tie orders x 2 precisions x 2 unjudged rules x 2 x 2 levels
    # Batches per run: every ordering combination for A, the tie orders for B, the unjudged rules alone for C.
    assert [built.count(f"run {name!r}") for name in RUNS] == [12, 6, 2]


@pytest.mark.parametrize("measure, settings", [("nDCG@3", 144), ("map_cut.3", 192), ("P.2", 48)])
def test_every_setting_equals_evaluating_each_run_alone_under_it(measure, settings):
    result = _multiverse(measure)
    assert len(result.settings) == settings
    assert result.settings[0] == Conventions()
    assert len(set(result.settings)) == settings
    _brute_force(result)


def test_the_randomisation_test_and_bonferroni_follow_the_same_brute_force():
    result = multiverse(QRELS, RUNS, "RR", test="randomisation", correction="bonferroni", vary=["relevance_level",
                                                                                               "missing_queries"])
    assert [name for name, _ in result.dimensions] == ["missing_queries", "relevance_level"]
    _brute_force(result, "randomisation", "bonferroni")


def test_the_conventions_varied_come_from_the_measure():
    grades = np.array([grade for judged in QRELS.values() for grade in judged.values()])
    varied = {measure: [name for name, _ in plausible_values(parse_one_measure(measure), grades, Conventions())]
              for measure in ("nDCG@3", "map_cut.3", "P.2", "P(rel=2)@2")}
    assert varied == {
        "nDCG@3": ["tie_order", "score_precision", "unjudged", "missing_queries", "gain", "ideal_from"],
        "map_cut.3": ["tie_order", "score_precision", "unjudged", "missing_queries", "relevance_level",
                      "ap_denominator"],
        "P.2": ["tie_order", "score_precision", "unjudged", "missing_queries", "relevance_level"],
        "P(rel=2)@2": ["tie_order", "score_precision", "unjudged", "missing_queries"],  # the measure fixes -l
    }
    levels = dict(plausible_values(parse_one_measure("P.2"), grades, Conventions(relevance_level=2)))["relevance_level"]
    assert levels == (2, 1)  # the default's value first


def test_a_conclusion_says_how_often_it_holds_and_when_it_fails():
    result = multiverse(QRELS, RUNS, "P.2", vary=["relevance_level", "unjudged"])
    by_pair = {(c.first, c.second): c for c in result.conclusions()}
    for conclusion in by_pair.values():
        assert len(conclusion.holds) + len(conclusion.fails) == 4 and 0 in conclusion.holds
    failing = [c for c in by_pair.values() if c.fails]
    assert failing, "the example is chosen so that some conclusion depends on the conventions"
    for conclusion in failing:
        sentence = conclusion.sentence()
        assert sentence.startswith(f"{conclusion.claim} holds in {len(conclusion.holds)} of 4 settings; it fails ")
        assert "where the difference is" in sentence and "adjusted p" in sentence


def test_the_condition_names_the_convention_exactly_when_it_can():
    outcome = {True: Outcome(0.2, 0.01, 0.01, True), False: Outcome(0.2, 0.2, 0.2, False)}
    settings = tuple(Conventions(relevance_level=level, unjudged=unjudged)
                     for unjudged in ("nonrelevant", "removed") for level in (1, 2))
    dims = (("unjudged", ("nonrelevant", "removed")), ("relevance_level", (1, 2)))

    def conclusion(significant):
        mv = Multiverse("P_2", ("A", "B"), dims, settings, np.zeros((4, 2)), (("A", "B"),),
                        tuple((outcome[flag],) for flag in significant), (4,) * 4, "t", "holm", 0.05)
        return mv.conclusions()[0]

    assert conclusion([True, False, True, False]).condition == "when relevance_level=2"
    assert conclusion([True, True, True, False]).condition == "when unjudged=removed and relevance_level=2"
    only = conclusion([True, True, True, True])
    assert only.fails == () and only.sentence() == "B > A (p < 0.05, Holm) holds in 4 of 4 settings; the difference " \
                                                  "is +0.2000"


@pytest.mark.parametrize("x, y", [([1, 2, 3, 4], [1, 2, 3, 4]), ([1, 2, 3, 4], [4, 3, 2, 1]),
                                  ([0.3, 0.1, 0.2, 0.5], [0.3, 0.2, 0.2, 0.1]), ([1, 1, 2, 3, 5], [2, 1, 1, 4, 4])])
def test_tau_b_is_scipys(x, y):
    stats = pytest.importorskip("scipy.stats")
    assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert kendall_tau_b([1, 1, 1], [1, 2, 3]) is None  # tau is undefined when one order ties everything


def test_the_leaderboard_stability_lists_each_settings_tau_and_swaps():
    result = _multiverse("nDCG@3")
    rows = result.stability()
    assert rows[0] == (0, 1.0, ())
    for index, tau, swapped in rows:
        order = {run: result.means[index][i] for i, run in enumerate(result.runs)}
        expected = [(a, b) for a, b in itertools.permutations(result.runs, 2)
                    if result.means[0][result.runs.index(a)] > result.means[0][result.runs.index(b)] + 1e-12
                    and order[a] < order[b] - 1e-12]
        assert sorted(swapped) == sorted(expected)
        assert tau == kendall_tau_b(result.means[0], result.means[index])


def test_too_many_settings_get_one_message_naming_what_to_vary_instead():
    with pytest.raises(InputError, match=r"^nDCG@3 under every plausible convention is 3 tie_order x 2 "
                                         r"score_precision x 2 unjudged x 2 missing_queries x 3 gain x 2 ideal_from "
                                         r"= 144 settings, more than 100; vary fewer conventions \(some of tie_order"):
        multiverse(QRELS, RUNS, "nDCG@3", max_settings=100)
    with pytest.raises(InputError, match=f"from 1 to {MAX_SETTINGS}"):
        multiverse(QRELS, RUNS, "nDCG@3", max_settings=MAX_SETTINGS + 1)


@pytest.mark.parametrize("call, message", [
    (lambda: multiverse(QRELS, {"A": RUNS["A"]}, "P.2"), "compares 2 to 26 runs"),
    (lambda: multiverse(QRELS, RUNS, ["P.2", "P.3"]), "compares one measure, got 2"),
    (lambda: multiverse(QRELS, RUNS, "num_ret"), "is a count"),
    (lambda: multiverse(QRELS, RUNS, "P.2", vary=["gain"]), "cannot vary 'gain' for P_2"),
    (lambda: multiverse(QRELS, RUNS, "P.2", alpha=0.9), "significance level"),
    (lambda: multiverse(QRELS, RUNS, "P.2", vary=[]), "has to name conventions to vary"),
    (lambda: multiverse(QRELS, RUNS, "P.2", vary="unjudged"), "has to name conventions to vary"),
])
def test_bad_input_gets_one_clear_message(call, message):
    with pytest.raises(InputError, match=message):
        call()


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return compare_main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


def test_the_command_line_prints_the_library_report_in_text_and_markdown():
    qrels, bm25, rm3 = str(DL20.path()), str(DL20.path("BM25")), str(DL20.path("BM25 + RM3"))
    argv = (qrels, bm25, rm3, "-m", "RR", "-l", "2", "--multiverse", "--vary", "relevance_level,unjudged")
    expected = multiverse(qrels, {"dl20.BM25.run.gz": bm25, "dl20.BM25_RM3.run.gz": rm3}, "RR",
                          vary=["relevance_level", "unjudged"], relevance_level=2)
    status, out, err = _cli(*argv)
    assert (status, err) == (0, "") and out == multiverse_report(expected)
    assert out.splitlines()[0] == ("Multiverse: RR over 2 runs in 4 settings (2 x 2); paired t-test, "
                                   "Holm-Bonferroni, alpha = 0.05.")
    status, markdown, _ = _cli(*argv, "--format", "markdown")
    assert status == 0 and markdown == multiverse_report(expected, fmt="markdown")
    assert r"dl20\.BM25\.run\.gz \> dl20\.BM25\_RM3\.run\.gz" in markdown  # run names are literal


@pytest.mark.parametrize("extra, message", [
    (("-m", "RR", "-m", "P@10", "--multiverse"), "--multiverse compares one measure, got 2 (-m RR -m P@10)"),
    (("--multiverse", "--format", "latex"), "--multiverse prints --format text or markdown, not latex"),
    (("--multiverse", "--baseline", "x"), "--baseline does not apply to --multiverse"),
    (("--vary", "gain"), "--vary names the conventions of --multiverse; add --multiverse"),
    (("--multiverse", "--vary", ","), "--vary names no convention; give one or more of tie_order, "),
    (("--multiverse", "--vary", "ap_denominator"), "cannot vary 'ap_denominator' for nDCG@10"),
])
def test_the_command_line_refuses_what_does_not_apply_in_one_line(extra, message):
    status, out, err = _cli(str(DL20.path()), str(DL20.path("BM25")), str(DL20.path("TAS-B")), *extra)
    assert status == 2 and out == "" and len(err.splitlines()) == 1 and message in err


DOC = (REPO / "docs" / "multiverse.md").read_text(encoding="utf-8")
PROSE = " ".join(DOC.split())  # the page's words, however its lines wrap
DL20_FILES = {DL20.path(name).name: str(DL20.path(name)) for name in DL20.run_names}


def _text_blocks() -> list[str]:
    return [part.split("```", 1)[0] for part in DOC.split("```text\n")[1:]]


def test_the_docs_page_shows_what_the_multiverse_computes_on_dl20():
    rr = multiverse(str(DL20.path()), DL20_FILES, "RR", conventions=DL20.conventions)
    ap = multiverse(str(DL20.path()), DL20_FILES, "AP", vary=["relevance_level", "ap_denominator"],
                    conventions=DL20.conventions)
    rr_block, ap_block = _text_blocks()
    assert rr_block == multiverse_report(rr)  # what the page's command prints (the CLI test shows it is the same)
    assert ap_block in multiverse_report(ap) and ap_block.startswith("Leaderboard under the default:")
    by_pair = {(c.first, c.second): c for c in rr.conclusions()}
    everywhere = by_pair["dl20.OPEN_AI_ADA2.run.gz", "dl20.BM25_RM3.run.gz"]
    assert (len(everywhere.holds), everywhere.claim.endswith("(p < 0.05, Holm)")) == (48, True)
    assert "holds in all 48 settings" in PROSE
    failing = by_pair["dl20.D_BERT_KD_TASB.run.gz", "dl20.BM25.run.gz"]
    assert (len(failing.holds), failing.condition) == (24, "when relevance_level=1")
    assert "+0.0972 (adjusted p 0.217 to 0.239)" in failing.sentence()
    assert "holds in 24 of 48: under `-l 1` the difference stays (+0.0972) but the adjusted p rises to 0.217 to " \
           "0.239" in PROSE
    assert {tau for _, tau, _ in rr.stability()} == {1.0} and "(tau-b 1)" in PROSE
    assert [(a, b) for a, b, _, _ in ap.swaps()] == [("dl20.BM25_RM3.run.gz", "dl20.BM25.run.gz"),
                                                     ("dl20.OPEN_AI_ADA2.run.gz", "dl20.D_BERT_KD_TASB.run.gz")]
    ndcg = plausible_values(parse_one_measure("nDCG@10"), DL20.qrels().grade, DL20.conventions)
    assert " x ".join(str(len(values)) for _, values in ndcg) == "3 x 2 x 2 x 2 x 3 x 2"
    assert "(3 x 2 x 2 x 2 x 3 x 2 = 144 settings)" in PROSE
    assert f"At most {MAX_SETTINGS} settings" in PROSE


@pytest.mark.parametrize("grades, levels", [
    ([0, 1, 2, 3], (1, 2)), ([0, 1, 3], (1, 3)), ([0, 1, 10**8], (1, 10**8)), ([0, 5], (5,)), ([0, 1], (1,)),
    ([-1, 0], ()), ([0, 1, 2**62], (1, 2**62))])
def test_relevance_levels_are_one_per_reading_of_the_grades_that_occur(grades, levels):
    assert relevance_levels(np.array(grades, dtype=np.int64)) == levels


def test_the_levels_read_the_grades_as_every_level_from_1_to_the_highest_minus_one_does():
    rng = np.random.default_rng(7)
    for _ in range(200):
        grades = rng.choice(np.arange(-1, 12), size=rng.integers(1, 6))
        for base in (1, 2, 5, 20):
            varied = dict(plausible_values(parse_one_measure("P.2"), grades, Conventions(relevance_level=base)))
            levels = varied.get("relevance_level", (base,))
            assert levels[0] == base

            def relevant(level, grades=grades):
                return frozenset(int(g) for g in grades if g >= level)

            wanted = {relevant(level) for level in (base, *range(1, max(2, int(grades.max()))))}
            assert [relevant(level) for level in levels] == list(dict.fromkeys(map(relevant, levels)))  # no twins
            assert {relevant(level) for level in levels} == wanted


def test_an_exponential_gain_the_grades_overflow_is_refused_before_any_setting(monkeypatch):
    monkeypatch.setattr(bulk, "prepare_run", lambda *args: pytest.fail("no setting is evaluated"))
    qrels = {**QRELS, "q1": {**QRELS["q1"], "d1": 10**8}}
    with pytest.raises(InputError, match=r"^gain=exponential, one of the multiverse's settings \(vary other "
                                         r"conventions to leave it out\): qrels, query 'q1', document 'd1': grade "
                                         r"100000000 is too large for exponential gain"):
        multiverse(qrels, RUNS, "nDCG@3")
    levels = dict(plausible_values(parse_one_measure("P.2"), np.array([0, 1, 10**8]), Conventions()))
    assert levels["relevance_level"] == (1, 10**8)


def test_each_run_holds_one_set_of_batches_at_a_time_and_settings_are_reduced_one_by_one(monkeypatch):
    built: list[tuple[str, weakref.ref]] = []
    prepare = bulk.prepare_run

    def tracked(qrels, run, *args):
        gc.collect()
        assert not [name for name, batches in built if name == run.name and batches() is not None], \
            "a run's last batches are dropped before its next are built"
        prepared = prepare(qrels, run, *args)
        built.append((run.name, weakref.ref(prepared)))
        return prepared

    monkeypatch.setattr(bulk, "prepare_run", tracked)
    result = multiverse(QRELS, RUNS, "P.2")
    assert len(built) == 12 + 6 + 2
    assert result.outcomes == _multiverse("P.2").outcomes and np.array_equal(result.means, _multiverse("P.2").means)


def _many_queries(queries: int) -> tuple[dict, dict]:
    qrels = {f"q{i}": {"d1": i % 3, "d2": 1} for i in range(queries)}
    runs = {name: {f"q{i}": {"d1": (i * seed) % 7 / 7, "d2": 0.5} for i in range(queries)}
            for name, seed in (("A", 3), ("B", 5), ("C", 2))}
    return qrels, runs


def test_the_randomisation_test_s_work_is_refused_before_anything_is_evaluated(monkeypatch):
    qrels, runs = _many_queries(30)
    monkeypatch.setattr(bulk, "prepare_run", lambda *args: pytest.fail("nothing is evaluated"))
    monkeypatch.setattr(multiverse_module, "MAX_RANDOM_SIGNS", 10_000 * 30 * 2 - 1)
    with pytest.raises(InputError, match=r"^P_2: the randomisation test over 10,000 permutations x 30 queries x 2 "
                                         r"settings draws 600,000 random signs, more than 599,999; use fewer "
                                         r"permutations or settings \(vary fewer conventions\), or another test"):
        multiverse(qrels, runs, "P.2", test="randomisation", vary=["unjudged"])
    monkeypatch.setattr(multiverse_module, "MAX_RANDOM_SIGNS", 10**9)
    monkeypatch.setattr(multiverse_module, "MAX_SIGNED_SUMS", 10_000 * 30 * 2 * 3 - 1)
    with pytest.raises(InputError, match=r"x 2 settings x 3 pairs is 1,800,000 signed sums, more than 1,799,999; use "
                                         r"fewer permutations, runs or settings"):
        multiverse(qrels, runs, "P.2", test="randomisation", vary=["unjudged"])
    few, few_runs = _many_queries(EXACT_MAX_QUERIES)
    monkeypatch.setattr(multiverse_module, "MAX_RANDOM_SIGNS", 0)
    monkeypatch.undo()  # exact tests (at most 20 queries) draw no random signs: nothing to bound
    monkeypatch.setattr(multiverse_module, "MAX_RANDOM_SIGNS", 0)
    assert multiverse(few, few_runs, "P.2", test="randomisation", vary=["unjudged"]).queries == (20, 20)


def test_the_randomisation_test_of_many_pairs_at_once_is_each_pair_s_alone():
    rng = np.random.default_rng(3)
    deltas = rng.normal(0.02, 0.1, size=(7, 300)).round(2)  # rounded: many sums tie the observed one exactly
    deltas[3] = 0.0
    for permutations in (1, 999, 5_000):
        together = randomisation_p_values(deltas, permutations=permutations, seed=11)
        alone = [randomisation_test(np.zeros(300), row, permutations=permutations, seed=11).p_value for row in deltas]
        assert together == alone
    assert randomisation_p_values(deltas[:, :12], permutations=10) == [
        randomisation_test(np.zeros(12), row).p_value for row in deltas[:, :12]]
