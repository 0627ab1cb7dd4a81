"""The two trec_eval presets, ``--trec-eval 9.0.8`` and ``--trec-eval 10.0``, print what those builds print.

tests/data/trec_eval_builds holds each build's output (made by its generate.py with the real binaries) for the
conformance inputs and for random collections with ties, under -q, -c, -J, -M, -l and parameterised measures. Every
case is replayed through ``python -m metrics --trec-eval BUILD`` and must match byte for byte, with one deliberate
difference: where nothing judged is retrieved (-J), trec_eval divides 0 by 0 in iprec_at_recall and 11pt_avg and
prints ``-nan``; the engine prints 0.0000.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import numpy as np
import pytest

import metrics
from metrics.cli import main
from tests.support.paths import TEST_DATA
from tests.support.strategies import pytrec_eval_safe, random_collection

BUILDS_DATA = TEST_DATA / "trec_eval_builds"


def recorded(build: str) -> list[dict]:
    return [json.loads(line) for line in gzip.decompress((BUILDS_DATA / f"{build}.jsonl.gz").read_bytes()).splitlines()]


CASES = [(build, case) for build in metrics.TREC_EVAL_BUILDS for case in recorded(build)]


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def ours(build: str, case: dict) -> str:
    status, output, errors = run_cli(["--trec-eval", build, *case["flags"], str(TEST_DATA / case["qrels"]),
                                      str(TEST_DATA / case["run"])])
    assert status == 0, errors
    return output


def is_deliberate_difference(mine: str, theirs: str) -> bool:
    """trec_eval's -nan (0 / 0 when nothing judged is retrieved) where the engine prints 0.0000, or the mean over
    queries that such a -nan made -nan."""
    name, _, value = theirs.rpartition("\t")
    return (value.strip() in ("-nan", "nan") and name.split("\t")[0].startswith(("iprec_at_recall", "11pt_avg"))
            and mine.rpartition("\t")[0] == name)


def assert_same_lines(mine: list[str], theirs: list[str], flags: list[str]) -> None:
    """Equal lines, but for the deliberate difference (only under -J, where nothing judged can be retrieved)."""
    assert len(mine) == len(theirs)
    different = [(m, t) for m, t in zip(mine, theirs) if m != t]
    assert all(is_deliberate_difference(m, t) for m, t in different), different[:3]
    assert not different or "-J" in flags


@pytest.mark.parametrize(("build", "case"), CASES, ids=[f"{build}:{case['case']}" for build, case in CASES])
def test_each_build_is_reproduced_byte_for_byte(build, case):
    output = ours(build, case)
    if case["status"] != 0:
        # trec_eval 10.0 without -c stops at the first judged query the run lacks ("result qid not found in
        # qrels", exit 4), after the lines before it: those are ours too, and the engine goes on.
        assert build == "10.0" and "-c" not in case["flags"] and case["status"] == 4
        printed = case["stdout"].splitlines()
        assert len(output.splitlines()) > len(printed)
        assert_same_lines(output.splitlines()[:len(printed)], printed, case["flags"])
        return
    if output != case["stdout"]:
        assert_same_lines(output.splitlines(), case["stdout"].splitlines(), case["flags"])


def test_the_recorded_cases_cover_every_flag_and_both_builds():
    for build in metrics.TREC_EVAL_BUILDS:
        flags = {flag for case in recorded(build) for flag in case["flags"]}
        assert {"-q", "-c", "-J", "-M", "-l", "all_trec"} <= flags
        runs = {Path(case["run"]).name for case in recorded(build)}
        assert {"results.test", "results.trunc", "random-1.run.gz", "random-2.run.gz", "random-3.run.gz"} <= runs


def test_the_builds_differ_and_each_preset_tells_them_apart():
    """The recorded outputs differ between the builds (float scores, recall cut-offs, -c placeholders), so replaying
    both shows that each preset reproduces its own build and not the other."""
    nine = {(case["case"], " ".join(case["flags"])): case for case in recorded("9.0.8")}
    ten = {(case["case"], " ".join(case["flags"])): case for case in recorded("10.0")}
    shared = [key for key in nine if key in ten and ten[key]["status"] == 0]
    differing = [key for key in shared if nine[key]["stdout"] != ten[key]["stdout"]]
    assert len(differing) >= len(shared) // 2
    for key in differing[:5]:
        case = nine[key]
        assert ours("9.0.8", case) != ours("10.0", case)


# ---- pytrec_eval: trec_eval 9.0.8 inside Python --------------------------------------------------------------

#: pytrec_eval's measures the engine computes: every trec_eval measure of 9.0.8 with its default parameters.
PYTREC_EVAL_MEASURES = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                        "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
                        "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
                        "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret")


def pytrec_eval_differences(qrels, run, level: int, **conventions) -> tuple[int, int]:
    """(values that differ from pytrec_eval's, values compared), every query and measure."""
    import pytrec_eval

    reference = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC_EVAL_MEASURES), relevance_level=level).evaluate(run)
    mine = metrics.evaluate(qrels, run, PYTREC_EVAL_MEASURES, relevance_level=level, **conventions)
    pairs = [(mine[qid][key], value) for qid, values in reference.items() for key, value in values.items()]
    return sum(abs(a - b) > 1e-12 for a, b in pairs), len(pairs)


@pytest.mark.parametrize("seed", [1, 2])
def test_pytrec_eval_gives_the_9_0_8_numbers(seed):
    pytest.importorskip("pytrec_eval", reason="pytrec_eval does not install here")
    qrels, run = random_collection(np.random.default_rng(seed), 150, max_docs=60)
    run = {qid: scores for qid, scores in run.items() if qid in qrels}
    pytrec_eval_safe(qrels, run)
    for level in (1, 2):
        differing, compared = pytrec_eval_differences(qrels, run, level)  # the default: trec_eval 9.0.8
        assert compared > 10_000 and differing == 0
        assert pytrec_eval_differences(qrels, run, level, trec_eval="9.0.8") == (0, compared)
        # 10.0's doubles and rounded recall cut-offs give other numbers on the same data
        assert pytrec_eval_differences(qrels, run, level, trec_eval="10.0")[0] > 0


# ---- the quirks, one at a time ----------------------------------------------------------------------------------


@pytest.fixture
def one_query_missing(tmp_path) -> list[str]:
    """q2 is judged (one relevant document) and absent from the run."""
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 d 0\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 2.0 t\nq1 Q0 x 2 1.0 t\n")
    return [str(tmp_path / "qrels"), str(tmp_path / "run")]


PARAMETERISED = ["-q", "-c", "-m", "rbp_resid.p=0.5", "-m", "utility.1,-1,-2,0", "-m", "relstring.3", "-m", "num_ret"]


def test_c_under_10_scores_a_placeholder_whose_parameterised_values_stay(one_query_missing):
    """As trec_eval 10.0 prints it: the placeholder (one unjudged document) leaves utility.1,-1,-2,0 at -1 - 2 * 1,
    rbp_resid.p=0.5 at 1 and relstring.3 at '-'; only the unparameterised names (num_ret here) go back to 0."""
    _, output, _ = run_cli(["--trec-eval", "10.0", *PARAMETERISED, *one_query_missing])
    assert [line for line in output.splitlines() if "\tq2\t" in line] == [
        "num_ret               \tq2\t0",
        "relstring_3           \tq2\t'-'",
        "utility_1,-1,-2,0     \tq2\t-3.0000",
        "rbp_resid_p=0.5       \tq2\t1.0000",
    ]
    assert output.splitlines()[-2:] == ["utility_1,-1,-2,0     \tall\t-1.5000", "rbp_resid_p=0.5       \tall\t0.7500"]


def test_c_under_9_0_8_counts_the_missing_query_as_0_without_printing_it(one_query_missing):
    _, output, _ = run_cli([*PARAMETERISED, *one_query_missing])
    assert "\tq2\t" not in output
    assert output.splitlines()[-2:] == ["utility_1,-1,-2,0     \tall\t0.0000", "rbp_resid_p=0.5       \tall\t0.2500"]


def test_the_library_gives_the_placeholder_values_under_trec_eval_10():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 0}}
    run = {"q1": {"a": 2.0, "x": 1.0}}
    measures = ["rbp_resid.p=0.5", "rbp_resid", "utility.1,-1,-2,0", "utility", "num_ret", "unj.3"]
    ten = metrics.evaluate(qrels, run, measures, trec_eval="10.0", missing_queries="zero")["q2"]
    assert ten == {"rbp_resid_p=0.5": 1.0, "rbp_resid": 0.0, "utility_1,-1,-2,0": -3.0, "utility": 0.0,
                   "num_ret": 0.0, "unj_3": 0.0}
    nine = metrics.evaluate(qrels, run, measures, trec_eval="9.0.8", missing_queries="zero")["q2"]
    assert set(nine.values()) == {0.0}
    assert metrics.evaluate(qrels, run, measures, missing_queries="zero") == metrics.evaluate(
        qrels, run, measures, trec_eval="9.0.8", missing_queries="zero")


def test_aggregate_and_the_command_line_give_one_num_rel_under_c_l_2(tmp_path):
    qrels = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"d": 1, "e": 2}}
    run = {"q1": {"a": 3.0, "c": 2.0}}
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, js in qrels.items() for d, g in js.items()))
    (tmp_path / "run").write_text("q1 Q0 a 1 3.0 t\nq1 Q0 c 2 2.0 t\n")
    _, output, _ = run_cli(["-c", "-l", "2", "-m", "num_rel", str(tmp_path / "qrels"), str(tmp_path / "run")])
    per_query = metrics.evaluate(qrels, run, ["num_rel"], relevance_level=2, missing_queries="zero")
    assert [values["num_rel"] for values in per_query.values()] == [1.0, 1.0]
    # trec_eval's -c all-line counts the qrels lines with a grade > 0 (4), not the per-query sum (2)
    assert metrics.aggregate(per_query)["num_rel"] == 4.0 == float(output.split("\t")[-1])
    from metrics.frames import evaluate_frames

    assert evaluate_frames(qrels, run, ["num_rel"], relevance_level=2, missing_queries="zero").means == {
        "num_rel": 4.0}


def test_the_presets_set_the_conventions_on_which_the_builds_differ():
    assert metrics.trec_eval_conventions("9.0.8") == metrics.Conventions() == metrics.TREC_EVAL
    ten = metrics.trec_eval_conventions("10.0", metrics.Conventions(relevance_level=2))
    assert ten.differences() == {"relevance_level": 2, "score_precision": "float64", "recall_cutoff": "round",
                                 "missing_ranking": "placeholder"}
    from metrics.conventions import CONVENTION_INFO, trec_eval_build, trec_eval_values

    # every convention where builds differ names, in CONVENTION_INFO, which choice each build needs
    for info in CONVENTION_INFO:
        builds = [build for choice in info.choices for build in choice.builds]
        assert sorted(builds) in ([], sorted(metrics.TREC_EVAL_BUILDS)), info.name
    differing = {info.name for info in CONVENTION_INFO if any(choice.builds for choice in info.choices)}
    assert set(trec_eval_values("10.0")) == differing
    assert trec_eval_build(ten) == "10.0" and trec_eval_build(metrics.Conventions(score_precision="float64")) is None


def test_a_convention_that_contradicts_the_build_is_refused_by_library_and_command_line(one_query_missing):
    with pytest.raises(metrics.InputError, match="`score_precision` 'float32' contradicts trec_eval='10.0'"):
        metrics.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "P.5", trec_eval="10.0", score_precision="float32")
    with pytest.raises(metrics.InputError, match="Argument `trec_eval` has to be one of '9.0.8', '10.0'"):
        metrics.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "P.5", trec_eval="10")
    status, _, errors = run_cli(["--trec-eval", "10.0", "--score-precision", "float32", *one_query_missing])
    assert status == 2 and "--score-precision float32 conflicts with --trec-eval 10.0" in errors
    status, _, errors = run_cli(["--trec-eval", "9", *one_query_missing])
    assert status == 2 and "expected one of 9.0.8, 10.0" in errors and len(errors.splitlines()) == 1


def test_help_names_the_default_build():
    _, text, _ = run_cli(["--help"])
    flat = " ".join(text.split())
    assert "The defaults reproduce trec_eval 9.0.8 byte for byte; --trec-eval 10.0 reproduces that build" in flat
    assert "--trec-eval {9.0.8|10.0}" in flat and "(default 9.0.8," in flat


def test_every_evaluating_command_line_takes_trec_eval(one_query_missing):
    from metrics.ann.__main__ import build_parser as ann_parser
    from metrics.check.__main__ import build_parser as check_parser
    from metrics.compare.__main__ import build_parser as compare_parser
    from metrics.online.__main__ import build_parser as online_parser

    for parser in (check_parser(), compare_parser(), ann_parser(), online_parser()):
        assert parser.parse_args([*one_query_missing, "--trec-eval", "10.0"]).trec_eval == "10.0"
        assert parser.parse_args(one_query_missing).trec_eval is None  # the default build, 9.0.8
