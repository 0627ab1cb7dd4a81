"""trec_eval's preference measures (-R prefs, -R qrels_prefs), judgment-group measures (-R qrels_jg), z-scores
(-Z) and yaap (over qrels, not in all_trec): both builds' outputs on seeded random collections
(tests/data/trec_eval_prefs, made by its generate.py from the builds) replayed byte for byte, and named edge cases.
trec_eval's own quicktest files are replayed in test_conformance.py."""

from __future__ import annotations

import gzip
import io
import json

import pytest

from metrics.cli import main
from metrics.measures.preferences import (
    preference_counts,
    prefs_avgjg_Rnonrel_ret,
    prefs_num_prefs_ful,
    prefs_num_prefs_poss,
    prefs_pair,
    prefs_simp,
)
from metrics.preferences import MISSING_ZSCORE, zscores_of
from tests.support.paths import DOCS, TEST_DATA

TREC = TEST_DATA / "trec_eval"
CASES = [json.loads(line) for line in gzip.open(TEST_DATA / "trec_eval_prefs" / "cases.jsonl.gz", "rt")]


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("case", CASES, ids=[f"{case['build']}:{case['case']}" for case in CASES])
def test_each_build_is_reproduced_byte_for_byte(case, tmp_path):
    paths = {}
    for label in ("judgments", "run", "zscores"):
        if case[label] is not None:
            paths[label] = tmp_path / label
            paths[label].write_text(case[label])
    flags = [str(paths["zscores"]) if flag == "{zscores}" else flag for flag in case["flags"]]
    status, output, errors = run_cli(["--trec-eval", case["build"], *flags, str(paths["judgments"]),
                                      str(paths["run"])])
    if "stderr" in case:
        # The build stops at a comment line it does not skip or at a blank line ("Malformed line", exit 2, or 255
        # for the -Z file): one message saying what that build does, nothing printed.
        assert "Malformed line" in case["stderr"] and case["status"] in (2, 255), case["stderr"]
        assert (status, output) == (2, "") and f"{case['build']} " in errors, errors
        assert ("blank line" if "blank" in case["case"] else "comment line") in errors, errors
        if "#" not in case["judgments"] + (case["zscores"] or ""):  # 10.0 does not count the lines it skips
            assert f" line {case['stderr'].split('Malformed line ')[1].split()[0]}: " in errors, errors
        return
    assert status == 0, errors
    if case["status"] == 4:
        # trec_eval 10.0 stops at the first judged query the run lacks ("result qid not found in qrels"), after
        # printing the queries before it; the engine prints those lines too, and goes on.
        assert case["build"] == "10.0" and output.startswith(case["stdout"]) and len(output) > len(case["stdout"])
    else:
        assert output == case["stdout"]


def test_the_recorded_cases_cover_every_format_both_builds_and_z_scores():
    formats = {flag for case in CASES for flag in case["flags"] if flag in ("prefs", "qrels_prefs", "qrels_jg")}
    assert formats == {"prefs", "qrels_prefs", "qrels_jg"}
    assert {case["build"] for case in CASES} == {"9.0.8", "10.0"}
    assert any("-Z" in case["flags"] and case["status"] == 0 for case in CASES)
    assert any("-M" in case["flags"] for case in CASES) and any("-l" in case["flags"] for case in CASES)
    assert {"-c", "-J"} <= {flag for case in CASES if "yaap" in case["flags"] for flag in case["flags"]}
    for judgments in ("prefs", "qrels_prefs", "qrels_jg"):  # -c under -R (half the seeds lack a judged query)
        assert any("-c" in case["flags"] and judgments in case["flags"] for case in CASES), judgments
    assert any("-J" in case["flags"] and "qrels_jg" in case["flags"] for case in CASES)
    comments = {(case["build"], case["status"]) for case in CASES if "#" in case["judgments"]}
    assert {("9.0.8", 0), ("9.0.8", 2), ("10.0", 0), ("10.0", 2)} <= comments
    # A blank line stops both builds in each -R format (empty, spaces in a \r\n file, last line), and in -Z; a '#'
    # line in -Z is data (four fields) or stops both (exit 255).
    blank = {(case["build"], case["flags"][-1], case["status"]) for case in CASES if "blank" in case["case"]}
    assert blank == {(build, flag, status) for build in ("9.0.8", "10.0")
                     for flag, status in (("prefs", 2), ("qrels_prefs", 2), ("qrels_jg", 2), ("{zscores}", 255))}
    assert any("\r\n" in case["judgments"] for case in CASES if "blank" in case["case"])
    hashes = {(case["build"], case["status"]) for case in CASES if (case["zscores"] or "").startswith("#")}
    assert hashes == {("9.0.8", 0), ("9.0.8", 255), ("10.0", 0), ("10.0", 255)}


class Pref:
    def __init__(self, jg: str, jsg: str, docno: str, rel: float):
        self.jg, self.jsg, self.docno, self.rel = jg, jsg, docno, rel


def test_a_preference_is_fulfilled_when_the_preferred_document_is_ranked_above():
    prefs = [Pref("g", "s", "a", 2), Pref("g", "s", "b", 1)]
    assert prefs_simp(preference_counts(prefs, ["a", "b"])) == 1.0
    assert prefs_simp(preference_counts(prefs, ["b", "a"])) == 0.0
    # An unretrieved document counts below every retrieved one; two unretrieved ones fulfil nothing.
    assert prefs_simp(preference_counts(prefs, ["a"])) == 1.0
    assert prefs_simp(preference_counts(prefs, [])) == 0.0


def test_sub_groups_of_one_judgment_group_add_their_transitive_preferences():
    # a > b in one sub-group, b > c in another: a > c follows, so three preferences are possible.
    prefs = [Pref("g", "s1", "a", 2), Pref("g", "s1", "b", 1), Pref("g", "s2", "b", 2), Pref("g", "s2", "c", 1)]
    counts = preference_counts(prefs, ["c", "b", "a"])
    assert prefs_num_prefs_poss(counts) == 3 and prefs_num_prefs_ful(counts) == 0
    # The same preferences as two judgment groups (two users) are not chained.
    apart = [Pref("g1", "s", "a", 2), Pref("g1", "s", "b", 1), Pref("g2", "s", "b", 2), Pref("g2", "s", "c", 1)]
    assert prefs_num_prefs_poss(preference_counts(apart, ["c", "b", "a"])) == 2


def test_prefs_pair_averages_over_document_pairs_the_share_of_groups_agreeing():
    # Two users prefer a to b, one prefers b to a: ranking a first fulfils 2/3 of that pair.
    prefs = [Pref(g, "s", doc, rel) for g, doc, rel in (("u1", "a", 1), ("u1", "b", 0), ("u2", "a", 1),
                                                         ("u2", "b", 0), ("u3", "b", 1), ("u3", "a", 0))]
    assert prefs_pair(preference_counts(prefs, ["a", "b"])) == pytest.approx(2 / 3)


def test_rnonrel_ret_of_a_group_with_nothing_retrieved_makes_the_query_score_0_as_in_trec_eval():
    # trec_eval divides 0 by 0 there; the NaN fails its 'sum > 0' test, so the query's value stays 0.
    prefs = [Pref("g1", "s", "a", 1), Pref("g1", "s", "b", 0), Pref("g2", "s", "c", 1), Pref("g2", "s", "d", 0)]
    assert prefs_avgjg_Rnonrel_ret(preference_counts(prefs, ["a", "b"])) == 0.0


def test_z_scores_are_trec_evals():
    table = {("q1", "map"): (0.5, 0.25), ("q1", "P_5"): (0.2, 0.0), ("q2", "P_5"): (0.4, 0.0)}
    scores = zscores_of(["q1", "q2"], {"map": [0.75, 0.5], "P_5": [0.2, 0.6]}, table)
    assert scores["map"].tolist() == [1.0, MISSING_ZSCORE]  # q2 has no mean for map
    assert scores["P_5"].tolist() == [0.0, MISSING_ZSCORE]  # deviation 0: 0 at the mean, else missing


def test_the_measures_page_and_help_list_every_preference_measure_with_its_formula_and_peer():
    from metrics.measures.registry import PREFERENCE_MEASURES

    page = (DOCS / "measures.md").read_text(encoding="utf-8")
    rows = {line.split("`")[1]: line for line in page.splitlines() if line.startswith("| `")}
    _, shown, _ = run_cli(["--help"])
    for name, info in PREFERENCE_MEASURES.items():
        assert info.text in rows[name] and info.peer in rows[name], name
        assert f"  {name}  -R " in shown, name


def test_the_command_lines_page_examples_run():
    status, output, errors = run_cli(["-q", "-m", "all_prefs", "-R", "prefs", str(TREC / "prefs.test"),
                                      str(TREC / "prefs.results.test")])
    assert status == 0 and output == (TREC / "out.test.prefs").read_text(), errors
    status, output, _ = run_cli(["-m", "map", "-Z", str(TREC / "zscores_file"), str(TREC / "qrels.test"),
                                 str(TREC / "results.test")])
    assert status == 0 and output.startswith("Zmap                   \tall\t")


def test_the_library_front_door_gives_the_recorded_outputs_of_both_builds():
    import metrics

    chosen = [case for case in CASES if case["case"] in ("prefs-c-J-2", "qrels_prefs-c-2", "qrels_jg-c-J-M-2")]
    assert len(chosen) == 6
    for case in chosen:
        flags = case["flags"]
        format = flags[flags.index("-R") + 1]
        values = metrics.evaluate_preferences(
            case["judgments"].encode(), metrics.io.trec.read_run(case["run"].encode()).to_dict(),
            flags[flags.index("-m") + 1], format=format, trec_eval=case["build"], missing_queries="zero",
            judged_docs_only="-J" in flags, depth=int(flags[flags.index("-M") + 1]) if "-M" in flags else None)
        printed = {(name.strip(), qid): value for name, qid, value in (line.split("\t")
                                                                      for line in case["stdout"].splitlines())}
        means = metrics.aggregate(values)
        assert printed[("num_q", "all")] == str(len(values)) == "5", case["case"]
        for key, mean in means.items():
            assert printed[(key, "all")] == (f"{mean:.0f}" if metrics.is_count(key) else f"{mean:.4f}"), key
        shown = {qid for _, qid in printed} - {"all"}
        # 9.0.8 prints no line for the judged query the run lacks (q4), and scores it 0; 10.0 prints its placeholder's
        assert shown == (set(values) if case["build"] == "10.0" else set(values) - {"q4"}), case["case"]
        for (key, qid), text in printed.items():
            if qid != "all" and key != "runid":
                assert text == (f"{values[qid][key]:.0f}" if metrics.is_count(key) else f"{values[qid][key]:.4f}")
