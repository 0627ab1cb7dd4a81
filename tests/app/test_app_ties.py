"""Tie intervals in the app through AppTest: the explorer's cards show them when documents of the list share a
score, and the run page's expander lists the queries ties change, computing nothing until it is opened."""

from __future__ import annotations

import pytest

import ui.runs.ties
from metrics.ties import tie_intervals
from tests.app.support import assert_no_failure, count_calls, open_app, open_runs_page
from tests.app.test_app_runs import upload

# b and a tie at 0.5; trec_eval puts b first (doc ids descending), so P@1 = 0, and a random order gives 1/2.
TIED_URL = {"ranking": "b:0.5,a:0.5,c:0.1", "qrels": "a:1", "k": "1"}


def tie_captions(at) -> list[str]:
    return [caption.value for caption in at.caption if caption.value.startswith("ties ")]


def test_each_card_shows_its_interval_when_documents_tie():
    at = open_app(**TIED_URL)
    assert_no_failure(at)
    shown = dict(zip([metric.label for metric in at.metric], tie_captions(at)))
    assert shown["P@1"] == "ties [0.000, 1.000], expected 0.500"
    assert shown["RR"] == "ties [0.500, 1.000], expected 0.750"
    help_text = next(c.help for c in at.caption if c.value == shown["P@1"])
    assert "2 documents of the list share a score" in help_text and "between 0.000 and 1.000" in help_text


def test_the_tie_sample_brackets_rr_between_one_half_and_one():
    # biscotti (relevant) and scone tie at 0.80: trec_eval's scone first gives RR 1/2, the other order 1.
    at = open_app()
    at.selectbox(key="sample_picker").select("dunk-in-coffee").run()
    assert_no_failure(at)
    shown = dict(zip([metric.label for metric in at.metric], tie_captions(at)))
    assert shown["RR"] == "ties [0.500, 1.000], expected 0.750"
    assert shown["P@4"] == "ties [0.500, 0.500], expected 0.500"  # the top 4 holds both, in either order


def test_a_list_without_ties_shows_no_interval():
    at = open_app(ranking="b:0.9,a:0.5,c:0.1", qrels="a:1", k="1")
    assert_no_failure(at)
    assert tie_captions(at) == []


QRELS = b"q1 0 a 1\nq1 0 b 0\nq2 0 x 1\n"
RUN = b"q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.5 t\nq2 Q0 x 1 0.9 t\nq2 Q0 y 2 0.1 t\n"


@pytest.fixture
def calls(monkeypatch):
    return count_calls(monkeypatch, {"tie intervals": (ui.runs.ties, "tie_intervals")})


def test_the_run_page_lists_the_queries_ties_change_once_opened(calls):
    at = upload(open_runs_page(), ("qrels", QRELS), ("run", RUN))
    at.multiselect(key="runs_measures").set_value(["P.1", "map"]).run()
    assert_no_failure(at)
    assert calls == {}  # closed: nothing computed
    at.session_state[ui.runs.ties.EXPANDER] = True  # opened, as a click on it does
    at.run()
    assert_no_failure(at)
    assert calls["tie intervals"] == 1
    means = next(frame.value for frame in at.dataframe if list(frame.value.columns)[:2] == ["measure",
                                                                                             "trec_eval's order"])
    expected = tie_intervals({"q1": {"a": 1, "b": 0}, "q2": {"x": 1}},
                             {"q1": {"a": 0.5, "b": 0.5}, "q2": {"x": 0.9, "y": 0.1}}, ["P.1", "map"]).means()
    row = means.set_index("measure").loc["P_1"]
    assert (row["trec_eval's order"], row["low"], row["expected"], row["high"]) == (
        expected["P_1"].value, "0.5000", "0.7500", "1.0000")
    changes = next(frame.value for frame in at.dataframe if "high - low" in frame.value.columns)
    assert set(changes["query"]) == {"q1"} and set(changes["measure"]) == {"P_1", "map"}
    assert any("1 of 2 queries" in markdown.value for markdown in at.markdown)


def test_twenty_thousand_tied_documents_on_the_run_page():
    # C(20000, 6667, 6667, 6666) orders: a number of 9,000 digits, which the page counts in powers of ten and
    # brackets with the closed forms (it once failed formatting that number: "Something went wrong").
    qrels = "".join(f"q1 0 d{i} {i % 3}\n" for i in range(20_000)).encode()
    run = "".join(f"q1 Q0 d{i} 1 1.0 t\n" for i in range(20_000)).encode()
    at = upload(open_runs_page(), ("qrels", qrels), ("run", run))
    at.multiselect(key="runs_measures").set_value(["P.10", "recip_rank"]).run()
    at.session_state[ui.runs.ties.EXPANDER] = True
    at.run()
    assert_no_failure(at)
    changes = next(frame.value for frame in at.dataframe if "high - low" in frame.value.columns)
    row = changes.set_index("measure").loc["P_10"]
    assert (row["low"], row["expected"], row["high"]) == ("0.0000", "0.6666", "1.0000")
    assert row["orders"].startswith("about 10^")
