"""Conformance: trec_eval's own test outputs and the public cases of ir_measures and ranx, reproduced exactly.

The trec_eval files (tests/data/trec_eval, from NIST's trec_eval 10.0) are run through ``python -m metrics
--trec-eval 10.0`` with the flags that produced them, and the output must equal the expected file byte for byte:
every measure of ``all_trec``, in trec_eval's order, with its name field, query and formatting, and the preference,
judgment-group (-R prefs, qrels_prefs, qrels_jg) and z-score (-Z) outputs: all 15 comparisons of its quicktest.
Both builds' outputs on these inputs and on random collections are replayed in test_trec_eval_builds.py (and, for
the preference formats, test_preferences.py).
"""

from __future__ import annotations

import io
import json
import re
import shlex

import pytest

import metrics
from metrics.cli import main
from tests.support.paths import TEST_DATA

DATA = TEST_DATA
TREC_DATA = DATA / "trec_eval"
TOLERANCE = 5e-5


def expected_runs() -> list[tuple[str, str, str, list[str]]]:
    """(expected file, qrels, results, trec_eval flags) for each copied output, from EXPECTED_OUTPUTS.tsv."""
    runs = []
    lines = (TREC_DATA / "EXPECTED_OUTPUTS.tsv").read_text().splitlines()
    for row in lines[1:]:
        expected, flags, qrels, results, notes = (row.split("\t") + [""])[:5]
        # A flag's file (-Z zscores_file) is in the same folder.
        flags = [] if flags.startswith("(none") else [str(TREC_DATA / flag) if (TREC_DATA / flag).is_file() else flag
                                                      for flag in shlex.split(flags)]
        runs.append((expected, qrels, results, flags))
        also = re.search(r"also produced from (\S+)", notes)
        if also:
            runs.append((expected, also.group(1), results, flags))
    return runs


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


TREC_RUNS = expected_runs()


def test_every_copied_trec_eval_output_is_checked():
    checked = {expected for expected, *_ in TREC_RUNS}
    copied = {path.name for path in TREC_DATA.glob("out.*")}
    assert checked == copied == {"out.test", "out.comment.test", "out.test.a", "out.test.aq", "out.test.aqc",
                                 "out.test.aqcM", "out.test.aql", "out.test.aql0", "out.test.meas_params",
                                 "out.test.aqZ", "out.test.prefs", "out.test.qrels_prefs", "out.test.qrels_jg"}


def test_trec_evals_quicktest_is_replayed_whole():
    """The 15 comparisons of trec_eval's ``make quicktest`` (its Makefile), and out.test.aql0 made by a build."""
    assert len(TREC_RUNS) == 16
    assert sum(expected == "out.test.aql0" for expected, *_ in TREC_RUNS) == 1


@pytest.mark.parametrize(("expected", "qrels", "results", "flags"), TREC_RUNS,
                         ids=[f"{e}<-{q}" for e, q, _, _ in TREC_RUNS])
def test_trec_eval_output_is_reproduced_byte_for_byte(expected, qrels, results, flags):
    status, output, errors = run_cli(["--trec-eval", "10.0", *flags, str(TREC_DATA / qrels), str(TREC_DATA / results)])
    assert status == 0, errors
    wanted = (TREC_DATA / expected).read_text()
    if output != wanted:  # show the first differing line rather than two 13 kB strings
        for got_line, wanted_line in zip(output.splitlines(), wanted.splitlines()):
            assert got_line == wanted_line
        assert len(output.splitlines()) == len(wanted.splitlines())
    assert output == wanted


def test_the_default_output_is_trec_evals_official_set_as_9_0_8_prints_it():
    files = [str(TREC_DATA / "qrels.test"), str(TREC_DATA / "results.test")]
    status, output, _ = run_cli(files)
    assert status == 0 and output == run_cli(["--trec-eval", "9.0.8", *files])[1]
    names = [line.split("\t")[0].rstrip() for line in output.splitlines()]
    assert "gm_map" in names and names.count("iprec_at_recall_0.50") == 1
    # 10.0's out.test differs only where its recall cut-offs round: lround(0.1 R) against (long)(0.1 R + 0.9).
    differing = [mine.split("\t")[0].rstrip() for mine, theirs in
                 zip(output.splitlines(), (TREC_DATA / "out.test").read_text().splitlines()) if mine != theirs]
    assert differing and all(name.startswith("iprec_at_recall_") for name in differing)


def test_num_rel_under_c_counts_grades_above_0_whatever_l_says(tmp_path):
    """trec_eval's documented quirk: with -c, num_rel's 'all' line counts qrels lines with rel > 0, not >= -l."""
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 d 1\nq2 0 e 2\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 3.0 t\nq1 Q0 c 2 2.0 t\n")
    _, with_c, _ = run_cli(["--trec-eval", "10.0", "-q", "-c", "-l", "2", "-m", "num_rel", str(qrels), str(run)])
    per_query = {qid: value for _, qid, value in (line.split("\t") for line in with_c.splitlines())}
    assert per_query == {"q1": "1", "q2": "1", "all": "4"}  # 1 + 1 per query, yet 4 on the 'all' line
    # trec_eval 9.0.8 (the default) prints no line for q2, which the run lacks, and the same 'all' line.
    _, with_c, _ = run_cli(["-q", "-c", "-l", "2", "-m", "num_rel", str(qrels), str(run)])
    assert [line.split("\t")[1:] for line in with_c.splitlines()] == [["q1", "1"], ["all", "4"]]
    _, without_c, _ = run_cli(["-l", "2", "-m", "num_rel", str(qrels), str(run)])
    assert without_c.split("\t")[-1].strip() == "1"


def test_relstring_shows_grades_pool_and_unjudged_marks(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 2\nq1 0 b -1\nq1 0 c 12\nq1 0 d 0\n")
    run = tmp_path / "run"
    run.write_text("".join(f"q1 Q0 {doc} {rank} {10 - rank} t\n" for rank, doc in enumerate("abxcd", start=1)))
    _, output, _ = run_cli(["-q", "-m", "relstring.3", "-m", "P.5", str(qrels), str(run)])
    assert output.splitlines()[:2] == ["P_5                   \tq1\t0.4000", "relstring_3           \tq1\t'2.-'"]
    _, output, _ = run_cli(["-q", "-m", "relstring", str(qrels), str(run)])
    assert output == "relstring             \tq1\t'2.->0'\n"


def test_gm_map_is_printed_only_on_the_all_line():
    status, output, _ = run_cli(["-q", "-m", "gm_map", str(TREC_DATA / "qrels.test"), str(TREC_DATA / "results.test")])
    assert status == 0 and output == "gm_map                \tall\t0.1051\n"


# ---- public cases of ir_measures and ranx ---------------------------------------------------------------------

#: Measures of cases_public.json named as their source names them, and what the engine calls them (ir_measures'
#: tests give its gdeval provider's ERR@k the suffix that picks the provider).
SPELLED_HERE = {"ERR@20(gdeval)": "ERR@20", "ERR@2(gdeval)": "ERR@2"}

CASES = json.loads((DATA / "cases_public.json").read_text())


def file_semantics(run: dict) -> dict:
    """The run as a run file can hold it: a query without documents has no line, so it does not exist.

    The expected values follow trec_eval reading files; pytrec_eval given ``{"q": {}}`` would score q as 0.
    """
    return {qid: docs for qid, docs in run.items() if docs}


IMPLEMENTED_CASES = [dict(case, measure=SPELLED_HERE.get(case["measure"], case["measure"]),
                          output_name=SPELLED_HERE.get(case["output_name"], case["output_name"])) for case in CASES]


def test_every_public_case_is_replayed():
    assert len(IMPLEMENTED_CASES) == len(CASES) == 83
    assert {case["measure"] for case in CASES} & set(SPELLED_HERE) == set(SPELLED_HERE)


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
    # The expected per-query values list the queries -c adds, which trec_eval 10 prints (9.0.8 only averages them).
    flags += ["-c", "--trec-eval", "10.0"] if options.get("complete") else []
    status, output, errors = run_cli(flags + [str(qrels), str(run)])
    assert status == 0, errors
    values = {qid: float(value) for name, qid, value in (line.split("\t") for line in output.splitlines())
              if name.rstrip() == case["output_name"]}
    expected = dict(case["expected"]["per_query"], all=case["expected"]["all"])
    # Four decimals printed: half a unit of the last, and an exact half (gdeval's 0.03125) may round either way.
    assert values == pytest.approx(expected, abs=TOLERANCE + 1e-12)
