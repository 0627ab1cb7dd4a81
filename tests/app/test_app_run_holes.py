"""The run page's judgment holes through AppTest: Judged@k and low/high columns per query and in the means, the
same numbers as metrics.holes, and a caption saying which are bounds. The holes are opt-in (their toggle starts
off: they triple the columns)."""

from __future__ import annotations

import pytest

from metrics.holes import holes_files
from tests.app.support import assert_no_failure, open_runs_page
from tests.app.test_app_runs import upload
from tests.support.paths import TEST_DATA
from ui.runs import holes as run_holes

DATA = TEST_DATA / "trec_eval"
PASTRY_QRELS = b"sweet_pastry 0 donut 1\nsweet_pastry 0 muffin 1\nsweet_pastry 0 scone 1\n"
PASTRY_RUN = (b"sweet_pastry Q0 donut 1 0.95 t\nsweet_pastry Q0 bagel 2 0.9 t\nsweet_pastry Q0 muffin 3 0.8 t\n"
              b"sweet_pastry Q0 croissant 4 0.7 t\n")


def _set_measures(at, measures):
    at.multiselect(key="runs_measures").set_value(measures)
    return at.run()


def _with_holes(at):
    at.toggle(key="results_holes").set_value(True)
    return at.run()


def test_the_holes_start_off_so_the_tables_hold_the_measures_alone():
    at = upload(open_runs_page(), ("qrels", PASTRY_QRELS), ("run", PASTRY_RUN))
    at = _set_measures(at, ["P.4", "map"])
    assert at.toggle(key="results_holes").value is False
    assert list(at.dataframe[0].value.columns) == ["P_4", "map"]
    assert list(at.dataframe[1].value.columns) == ["P_4", "map"]
    assert not any(c.value.startswith("Judged≥0@k:") for c in at.caption)


def test_sweet_pastry_run_shows_p4_between_half_and_one_and_judged_at_4():
    at = upload(open_runs_page(), ("qrels", PASTRY_QRELS), ("run", PASTRY_RUN))
    at = _with_holes(_set_measures(at, ["P.4", "map"]))
    assert_no_failure(at)
    means = at.dataframe[0].value.iloc[0].to_dict()
    assert means == {"P_4": 0.5, "P_4 low": 0.5, "P_4 high": 1.0, "map": pytest.approx(5 / 9),
                     "map low": pytest.approx(5 / 9), "map high": pytest.approx(0.8), "Judged≥0@4": 0.5,
                     "Judged≥0@all": 0.5}
    per_query = at.dataframe[1].value
    assert list(per_query.columns) == list(means)
    assert per_query.loc["sweet_pastry", "P_4 high"] == 1.0
    caption = next(c.value for c in at.caption if c.value.startswith("Judged≥0@k:"))
    assert "For P_4 they are bounds" in caption
    assert "For map they are only the range between the two scenarios" in caption


def test_trec_eval_test_files_columns_are_the_library_holes():
    at = upload(open_runs_page(), ("qrels.test", (DATA / "qrels.test").read_bytes()),
                ("results.test", (DATA / "results.test").read_bytes()))
    at = _with_holes(at)
    assert_no_failure(at)
    measures = ["P.10", "recall.100", "recip_rank", "map", "ndcg_cut.10", "success.1"]  # the page's defaults
    table = holes_files(DATA / "qrels.test", DATA / "results.test", measures)
    means, per_query = at.dataframe[0].value.iloc[0], at.dataframe[1].value
    expected_means = table.means()
    for m in table.measures:
        assert means[f"{m.key} low"] == expected_means[m.key].low
        assert means[f"{m.key} high"] == expected_means[m.key].high
        for i, qid in enumerate(table.qids):
            assert per_query.loc[qid, f"{m.key} low"] == table.low[m.key][i]
            assert per_query.loc[qid, f"{m.key} high"] == table.high[m.key][i]
            judged = f"Judged≥0@{m.cutoff}" if m.cutoff is not None else "Judged≥0@all"
            assert per_query.loc[qid, judged] == table.judged[m.key][i]
            low, value, high = (per_query.loc[qid, column] for column in (f"{m.key} low", m.key, f"{m.key} high"))
            assert low <= value <= high


def test_the_toggle_hides_the_hole_columns_again():
    at = upload(open_runs_page(), ("qrels", PASTRY_QRELS), ("run", PASTRY_RUN))
    at = _with_holes(_set_measures(at, ["P.4"]))
    assert list(at.dataframe[0].value.columns) == ["P_4", "P_4 low", "P_4 high", "Judged≥0@4"]
    at.toggle(key="results_holes").set_value(False)
    at = at.run()
    assert list(at.dataframe[0].value.columns) == ["P_4"]
    assert list(at.dataframe[1].value.columns) == ["P_4"]


def test_the_holes_judged_column_never_shares_the_name_of_the_judged_measure_and_says_why():
    # ir_measures' Judged@4 counts bagel's negative grade as judged (3 of 4); the hole counts it unjudged (2 of 4).
    qrels = PASTRY_QRELS + b"sweet_pastry 0 bagel -1\n"
    at = upload(open_runs_page(), ("qrels", qrels), ("run", PASTRY_RUN))
    at = _with_holes(_set_measures(at, ["Judged@4"]))
    means = at.dataframe[0].value.iloc[0].to_dict()
    assert means == {"Judged@4": 0.75, "Judged@4 low": 0.75, "Judged@4 high": 1.0, "Judged≥0@4": 0.5}
    alone = _set_measures(at, ["P.4"]).dataframe[0].value.iloc[0].to_dict()
    assert "Judged@4" not in alone and alone["Judged≥0@4"] == 0.5  # not named as -m Judged@4 (0.75) without it
    assert "negative grades too" in run_holes.column_help("Judged≥0@4") and run_holes.column_help("P_4") is None


def test_the_caption_says_how_the_means_row_gets_low_and_high_geometric_for_gm_map_and_summed_for_counts():
    at = upload(open_runs_page(), ("qrels", PASTRY_QRELS), ("run", PASTRY_RUN))
    at = _with_holes(_set_measures(at, ["P.4", "gm_map", "num_rel_ret"]))
    assert_no_failure(at)
    caption = next(c.value for c in at.caption if c.value.startswith("Judged≥0@k:"))
    assert "The means of low and high are the means of the per-query lows and highs" not in caption
    assert "exp of the mean of the logs for gm_map (a geometric mean)" in caption
    assert "their sum for num_rel_ret" in caption
    assert run_holes.means_text(["P_4"]).endswith("as the measure's own mean does: their mean.")
