"""The run page's "Judge the holes" tab through AppTest: grade a candidate, see every number move, and download
qrels that pytrec_eval scores exactly as the page shows."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval
from streamlit.delta_generator import DeltaGenerator
from streamlit.testing.v1 import AppTest

from metrics.io.trec import read_qrels, read_run
from metrics.judging import ADDED_ITERATION, find_holes, merged_trec
from metrics.measures.display import card_delta
from tests.app.support import assert_no_failure, open_runs_page, open_tab
from tests.app.test_app_runs import JAM_QRELS, JAM_RUN, upload
from ui.common.text import shown as as_shown

EDITOR = "judge_editor_0"  # the grading table's key until its first use


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """What each download button of the last run offers, by label (AppTest keeps no downloaded files)."""
    offered: dict[str, bytes] = {}
    original = DeltaGenerator.download_button

    def recording(self, label, data, *args, **kwargs):
        offered[label] = data.encode() if isinstance(data, str) else data
        return original(self, label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", recording)
    return offered


def samples_page(measure: str = "map", other: str | None = None) -> AppTest:
    at = open_runs_page()
    at.toggle(key="runs_use_samples").set_value(True).run()
    at = open_tab(at, "Judge the holes")
    at.selectbox(key="judge_measure").select(measure).run()
    if other is not None:
        at.selectbox(key="judge_other").select(other).run()
    assert_no_failure(at)
    return at


def candidates(at: AppTest):
    return at.data_editor(key=EDITOR).value


def grade_in_table(at: AppTest, grades: dict[int, object]) -> AppTest:
    """Type grades into the table's rows (AppTest seeds the editor's edits) and press the form's button."""
    at.session_state[EDITOR] = {"edited_rows": {row: {"grade": grade} for row, grade in grades.items()},
                                "added_rows": [], "deleted_rows": []}
    at.button(key="FormSubmitter:judge_form-Add the grades typed in the table").click().run()
    assert_no_failure(at)
    return at


def the_collection(downloads: dict[str, bytes]):
    """The qrels the page downloads with the added judgments, and the built-in runs, as pytrec_eval dicts."""
    from ui.runs.data import _built_in

    built_in = _built_in()
    qrels = read_qrels(downloads["Download the qrels with them (qrels)"]).to_dict()
    return qrels, {name: run.to_dict() for name, run in built_in.runs.items()}


def pytrec_means(qrels, run, measure: str) -> dict[str, float]:
    return {qid: values[measure] for qid, values in
            pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run).items()}


def means_row(at: AppTest) -> dict[str, float]:
    return at.dataframe[0].value.iloc[0].to_dict()


def test_grading_a_candidate_moves_the_mean_by_its_influence_and_the_download_scores_as_shown(downloads):
    at = samples_page("map")
    table = candidates(at)
    influences = [round(abs(value), 12) for value in table["influence"]]
    assert influences == sorted(influences, reverse=True)
    first = table.iloc[0]
    before = means_row(open_tab(at, "Per-query results"))["map"]
    at = grade_in_table(open_tab(at, "Judge the holes"), {0: int(first["if relevant"])})

    assert any("1 judgment added on this page" in as_shown(info.value) for info in at.info)
    mean_card = next(m for m in at.metric if as_shown(m.label) == "mean map of samples")
    at = open_tab(at, "Per-query results")
    after = means_row(at)["map"]
    assert after - before == pytest.approx(first["influence"], abs=1e-12)
    assert mean_card.value == f"{after:.3f}" and mean_card.delta == card_delta(after - before)  # a card: 3 decimals

    qrels, runs = the_collection(downloads)
    assert qrels[first["query"]][first["document"]] == int(first["if relevant"])
    values = pytrec_means(qrels, runs["samples"], "map")
    assert np.mean([values[qid] for qid in sorted(values)]) == pytest.approx(after, abs=1e-12)
    per_query = at.dataframe[1].value
    assert per_query["map"].to_dict() == pytest.approx(values, abs=1e-12)
    added = downloads["Download the added judgments (qrels)"].decode()
    assert added == f"{first['query']} {ADDED_ITERATION} {first['document']} {int(first['if relevant'])}\n"
    # The merged file is the built-in qrels, line for line, with the added line after them.
    from ui.runs.data import _built_in
    original = _built_in().qrels_text()
    assert downloads["Download the qrels with them (qrels)"] == merged_trec(original, {
        (first["query"], first["document"]): int(first["if relevant"])})
    assert downloads["Download the qrels with them (qrels)"].startswith(original)


def test_two_runs_list_the_documents_only_one_retrieves_and_the_comparison_moves(downloads):
    at = samples_page("ndcg_cut_10", other="oracle rerank")
    table = candidates(at)
    assert {"rank in A", "rank in B"} <= set(table.columns)
    first = table.iloc[0]
    at = open_tab(at, "Compare runs")
    at.selectbox(key="compare_measure").select("ndcg_cut_10").run()
    difference = next(m for m in at.metric if as_shown(m.label).startswith("mean ndcg_cut_10: B − A"))
    before = float(difference.value)
    # Back on the judge tab, its choices are kept (another tab was open in between).
    at = open_tab(at, "Judge the holes")
    assert (at.selectbox(key="judge_measure").value, at.selectbox(key="judge_other").value) == (
        "ndcg_cut_10", "oracle rerank")
    at = grade_in_table(at, {0: int(first["if relevant"])})
    card = next(m for m in at.metric if "(B − A)" in as_shown(m.label))
    at = open_tab(at, "Compare runs")
    assert at.selectbox(key="compare_measure").value == "ndcg_cut_10"
    difference = next(m for m in at.metric if as_shown(m.label).startswith("mean ndcg_cut_10: B − A"))
    assert float(difference.value) == pytest.approx(before + first["influence"], abs=1e-3)
    qrels, runs = the_collection(downloads)
    a = pytrec_means(qrels, runs["samples"], "ndcg_cut_10")
    b = pytrec_means(qrels, runs["oracle rerank"], "ndcg_cut_10")
    assert difference.value == card_delta(float(np.mean([b[q] - a[q] for q in sorted(a)])))
    # The judge tab's own card agrees with the comparison's.
    assert card.value == difference.value


def test_one_document_can_be_graded_with_the_select_boxes_and_a_zero_grade_counts_as_judged():
    at = samples_page("map")
    first = candidates(at).iloc[0]
    at.selectbox(key="judge_pick").select(f"{first['query']} · {first['document']}").run()
    at.number_input(key="judge_grade").set_value(0).run()
    at.button(key="judge_add").click().run()
    assert_no_failure(at)
    assert at.session_state["added_judgments"]["grades"] == {(first["query"], first["document"]): 0}
    # Judged now, so no longer a hole, and the box has moved on to the next document.
    assert (first["query"], first["document"]) not in set(zip(candidates(at)["query"], candidates(at)["document"]))
    assert at.selectbox(key="judge_pick").value != f"{first['query']} · {first['document']}"


def test_a_new_measure_starts_the_document_box_at_its_most_influential_document():
    at = samples_page("map")
    second = candidates(at).iloc[1]
    at.selectbox(key="judge_pick").select(f"{second['query']} · {second['document']}").run()
    at.selectbox(key="judge_measure").select("ndcg_cut_10").run()
    assert_no_failure(at)
    first = candidates(at).iloc[0]
    # The box names the document heading the new table, never one kept from the previous measure.
    assert at.selectbox(key="judge_pick").value == f"{first['query']} · {first['document']}"


def test_added_judgments_survive_reruns_and_go_with_the_discard_button_or_another_qrels_file():
    at = samples_page("map")
    at = grade_in_table(at, {0: 1, 1: 0})
    assert len(at.session_state["added_judgments"]["grades"]) == 2
    at.selectbox(key="judge_measure").select("P_10").run()
    assert len(at.session_state["added_judgments"]["grades"]) == 2
    at.button(key="judge_discard").click().run()
    assert at.session_state["added_judgments"]["grades"] == {}
    assert not any("added on this page" in info.value for info in at.info)

    at = grade_in_table(at, {0: 1})
    at.toggle(key="runs_use_samples").set_value(False).run()
    at = upload(at, ("jam.qrels", JAM_QRELS), ("jam.run", JAM_RUN))
    assert_no_failure(at)
    assert at.session_state["added_judgments"]["grades"] == {}


def test_a_run_without_holes_says_so():
    at = open_runs_page()
    qrels = JAM_QRELS + b"jam 0 pretzel 0\n"
    at = open_tab(upload(at, ("jam.qrels", qrels), ("jam.run", JAM_RUN)), "Judge the holes")
    assert_no_failure(at)
    assert any(as_shown(success.value) == "Every document in the top 10 is judged: there is no hole to fill."
               for success in at.success)
    assert find_holes(read_qrels(qrels), {"jam.run": read_run(JAM_RUN)}, "P.10", 10).holes == []


def test_the_page_says_when_only_the_highest_ranked_candidates_are_scored(monkeypatch):
    import ui.runs.judging

    monkeypatch.setattr(ui.runs.judging, "MAX_CANDIDATES", 3)
    at = samples_page("map")
    assert len(candidates(at)) == 3
    (cap,) = [info for info in at.info if "highest-ranked" in info.value]
    assert as_shown(cap.value).startswith("Influence is computed for the 3 highest-ranked of these ")
    assert "Filter the queries or lower k" in as_shown(cap.value)


def test_a_grade_that_is_not_whole_is_refused_and_the_query_filter_narrows_the_candidates_but_not_the_mean():
    at = samples_page("map")  # one page for three claims, none of which adds a judgment
    at.text_input(key="judge_filter").input("pastry").run()
    assert_no_failure(at)
    assert set(candidates(at)["query"]) == {"sweet-pastry"}
    assert any("in the top 10 of the queries matching the filter; influence on the mean over 8 queries"
               in as_shown(caption.value) for caption in at.caption)

    # A filter that matches no query says so.
    at.text_input(key="judge_filter").input("no such query").run()
    assert_no_failure(at)
    assert "No query matches the filter: nothing to judge." in [as_shown(info.value) for info in at.info]
    assert not any("no hole to fill" in as_shown(success.value) for success in at.success)

    at.text_input(key="judge_filter").input("").run()  # every query again, then a grade that is not whole
    at = grade_in_table(at, {0: 1.5})
    assert at.session_state["added_judgments"]["grades"] == {}
    assert any("whole numbers from 0 to 1000" in as_shown(error.value) for error in at.error)


def test_additions_the_trec_writers_refuse_are_one_message_on_the_page_not_a_traceback():
    at = samples_page("map")
    kept = at.session_state["added_judgments"]
    qid = candidates(at).iloc[0]["query"]
    # Two documents that TREC's spelling (spaces become _) would write as one id: the writers refuse them.
    kept["grades"] = {(qid, "pain au chocolat"): 1, (qid, "pain_au_chocolat"): 0}
    at.run()
    assert_no_failure(at)
    assert any("pain" in error.value for error in at.error)
