"""Conformance: trec_eval's own test outputs and the public cases of ir_measures and ranx, reproduced exactly.

The trec_eval files (tests/data/trec_eval, from NIST's trec_eval 10.0) are run through ``python -m metrics`` with
the flags that produced them. Lines of measures this engine does not compute are dropped from the expected file
(listed below with the reason); every other line must come out in trec_eval's order, with the same name field
and query, and a value within 5e-5 (trec_eval prints 4 decimals).
"""

from __future__ import annotations

import io
import json
import re
import shlex
from pathlib import Path

import pytest

import metrics
from metrics.cli import main

DATA = Path(__file__).parent / "data"
TREC_DATA = DATA / "trec_eval"
TOLERANCE = 5e-5

#: trec_eval measures the engine does not compute, and why their lines are skipped.
NOT_COMPUTED = {
    "gm_map": "geometric mean of AP: an aggregate the engine does not offer",
    "gm_bpref": "geometric mean of bpref: an aggregate the engine does not offer",
    "iprec_at_recall": "interpolated precision at recall levels: not implemented",
    "relstring": "a string of relevance values, not a number",
    "infAP": "inferred AP for sampled judgments: not implemented",
    "Rprec_mult": "precision at multiples of R: not implemented",
    "utility": "set-based utility: not implemented",
    "11pt_avg": "11-point interpolated average precision: not implemented",
    "binG": "binary G (Sakai): not implemented",
    "G": "G (Sakai): not implemented",
    "ndcg_rel": "nDCG averaged over relevant documents: not implemented",
    "Rndcg": "nDCG at rank R: not implemented",
    "relative_P": "precision relative to the best possible: not implemented",
    "set_P": "set (unranked) precision: not implemented",
    "set_relative_P": "set (unranked) relative precision: not implemented",
    "set_recall": "set (unranked) recall: not implemented",
    "set_map": "set (unranked) AP: not implemented",
    "set_F": "set (unranked) F-measure: not implemented",
    "num_nonrel_judged_ret": "count of judged non-relevant retrieved: not implemented",
    "rbp": "rank-biased precision: not implemented",
    "rbp_resid": "rank-biased precision residual: not implemented",
    "unj": "fraction of unjudged documents in the top k: not implemented",
}

#: Measures of the expected files this engine computes (trec_eval names).
COMPUTED = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "P",
            "recall", "ndcg", "ndcg_cut", "map_cut", "success"}


def measure_family(output_name: str) -> str:
    """The trec_eval measure an output line belongs to: ``P_5`` -> ``P``, ``ndcg_rel`` -> ``ndcg_rel``."""
    families = [name for name in COMPUTED | set(NOT_COMPUTED)
                if output_name == name or output_name.startswith(name + "_")]
    if not families:
        raise AssertionError(f"expected output has a measure {output_name!r} this test does not classify")
    return max(families, key=len)


def expected_runs() -> list[tuple[str, str, str, list[str]]]:
    """(expected file, qrels, results, trec_eval flags) for each copied output, from EXPECTED_OUTPUTS.tsv."""
    runs = []
    lines = (TREC_DATA / "EXPECTED_OUTPUTS.tsv").read_text().splitlines()
    for row in lines[1:]:
        expected, flags, qrels, results, notes = (row.split("\t") + [""])[:5]
        if not (TREC_DATA / expected).exists():
            continue  # preference and z-score outputs: formats the engine does not read
        flags = [] if flags.startswith("(none") else shlex.split(flags)
        runs.append((expected, qrels, results, flags))
        if "qrels.test.with-comments" in notes:
            runs.append((expected, "qrels.test.with-comments", results, flags))
    return runs


def supported_flags(flags: list[str]) -> list[str]:
    """trec_eval's flags without the -m arguments that name measures we do not compute."""
    kept: list[str] = []
    tokens = iter(flags)
    for token in tokens:
        spec = next(tokens) if token == "-m" else token[2:] if token.startswith("-m") else None
        if spec is None:
            kept.append(token)
        elif spec.partition(".")[0] not in NOT_COMPUTED:
            kept.extend(["-m", spec])
    return kept


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


TREC_RUNS = expected_runs()


def test_every_copied_trec_eval_output_is_checked():
    checked = {expected for expected, *_ in TREC_RUNS}
    copied = {path.name for path in TREC_DATA.glob("out.*")}
    assert checked == copied == {"out.test", "out.comment.test", "out.test.a", "out.test.aq", "out.test.aqc",
                                 "out.test.aqcM", "out.test.aql", "out.test.meas_params"}


@pytest.mark.parametrize(("expected", "qrels", "results", "flags"), TREC_RUNS,
                         ids=[f"{e}<-{q}" for e, q, _, _ in TREC_RUNS])
def test_trec_eval_output_is_reproduced(expected, qrels, results, flags):
    status, output, errors = run_cli(supported_flags(flags) + [str(TREC_DATA / qrels), str(TREC_DATA / results)])
    assert status == 0, errors
    wanted = [line.split("\t") for line in (TREC_DATA / expected).read_text().splitlines()]
    wanted = [fields for fields in wanted if measure_family(fields[0].rstrip()) in COMPUTED]
    got = [line.split("\t") for line in output.splitlines()]
    assert [(name, qid) for name, qid, _ in got] == [(name, qid) for name, qid, _ in wanted]
    for (name, qid, value), (_, _, expected_value) in zip(got, wanted):
        if name.rstrip() == "runid":
            assert value == expected_value
        elif re.fullmatch(r"-?\d+", expected_value):
            assert value == expected_value, f"{name.rstrip()} {qid}"
        else:
            assert re.fullmatch(r"-?\d+\.\d{4}", value), f"{name.rstrip()} {qid}: {value!r} is not %6.4f"
            assert abs(float(value) - float(expected_value)) <= TOLERANCE, f"{name.rstrip()} {qid}"


def test_unsupported_trec_eval_measures_are_an_error_not_a_silent_skip():
    status, output, errors = run_cli(["-m", "gm_map", str(TREC_DATA / "qrels.test"), str(TREC_DATA / "results.test")])
    assert status == 2 and output == ""
    assert "gm_map" in errors and errors.count("\n") == 1


# ---- public cases of ir_measures and ranx ---------------------------------------------------------------------

#: Measures of cases_public.json the engine does not implement.
NOT_IMPLEMENTED_CASES = {
    "rbp": "rank-biased precision is not implemented",
    "set_P": "set (unranked) precision is not implemented",
    "set_recall": "set (unranked) recall is not implemented",
    "ERR@20(gdeval)": "ERR (gdeval) is not implemented",
    "ERR@2(gdeval)": "ERR (gdeval) is not implemented",
}

CASES = json.loads((DATA / "cases_public.json").read_text())


def case_measure_is_implemented(case: dict) -> bool:
    return case["measure"].partition(".")[0] not in NOT_IMPLEMENTED_CASES


def file_semantics(run: dict) -> dict:
    """The run as a run file can hold it: a query without documents has no line, so it does not exist.

    The expected values follow trec_eval reading files; pytrec_eval given ``{"q": {}}`` would score q as 0.
    """
    return {qid: docs for qid, docs in run.items() if docs}


IMPLEMENTED_CASES = [case for case in CASES if case_measure_is_implemented(case)]


def test_only_the_listed_measures_of_the_public_cases_are_skipped():
    skipped = {case["measure"].partition(".")[0] for case in CASES if not case_measure_is_implemented(case)}
    assert skipped == set(NOT_IMPLEMENTED_CASES)
    assert len(CASES) - len(IMPLEMENTED_CASES) == 8  # 4 rbp, 2 ERR, set_P, set_recall


@pytest.mark.parametrize("case", IMPLEMENTED_CASES, ids=[case["name"] for case in IMPLEMENTED_CASES])
def test_public_case_is_reproduced_by_evaluate(case):
    options = case.get("options") or {}
    per_query = metrics.evaluate(
        case["qrels"], file_semantics(case["run"]), case["measure"],
        relevance_level=options.get("relevance_level"),
        judged_docs_only=options.get("judged_docs_only"),
        missing_queries="zero" if options.get("complete") else "skip",
    )
    name = case["output_name"]
    got = {qid: values[name] for qid, values in per_query.items()}
    assert got == pytest.approx(case["expected"]["per_query"], abs=1e-9)
    assert metrics.aggregate(per_query)[name] == pytest.approx(case["expected"]["all"], abs=1e-9)


@pytest.mark.parametrize("case", IMPLEMENTED_CASES, ids=[case["name"] for case in IMPLEMENTED_CASES])
def test_public_case_is_reproduced_by_the_command_line(case, tmp_path):
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("".join(f"{qid} 0 {doc} {grade}\n" for qid, docs in case["qrels"].items()
                             for doc, grade in docs.items()))
    run.write_text("".join(f"{qid} Q0 {doc} {rank} {score!r} case\n" for qid, docs in case["run"].items()
                           for rank, (doc, score) in enumerate(docs.items(), start=1)))
    options = case.get("options") or {}
    flags = ["-q", "-m", case["measure"]]
    flags += ["-l", str(options["relevance_level"])] if "relevance_level" in options else []
    flags += ["-J"] if options.get("judged_docs_only") else []
    flags += ["-c"] if options.get("complete") else []
    status, output, errors = run_cli(flags + [str(qrels), str(run)])
    assert status == 0, errors
    values = {qid: float(value) for name, qid, value in (line.split("\t") for line in output.splitlines())
              if name.rstrip() == case["output_name"]}
    expected = dict(case["expected"]["per_query"], all=case["expected"]["all"])
    assert values == pytest.approx(expected, abs=TOLERANCE)
