"""Delta attribution on the run page through AppTest: closed, it computes nothing; opened, it splits the chosen
query's difference between two runs over the documents, as metrics.whatif.attribute_delta does."""

from __future__ import annotations

import pytest

import ui.runs.attribution
from metrics import Conventions
from metrics.whatif import attribute_delta
from tests.app.support import assert_no_failure, count_calls, open_run_conventions, open_runs_page
from tests.app.test_app_runs import upload
from ui.common.text import shown

QRELS = b"q1 0 a 1\nq1 0 b 0\nq1 0 c 1\nq2 0 x 1\n"
RUN_A = b"q1 Q0 b 1 0.9 A\nq1 Q0 a 2 0.8 A\nq1 Q0 z 3 0.7 A\nq2 Q0 x 1 0.9 A\n"
RUN_B = b"q1 Q0 a 1 0.9 B\nq1 Q0 c 2 0.8 B\nq1 Q0 b 3 0.7 B\n"


@pytest.fixture
def calls(monkeypatch):
    return count_calls(monkeypatch, {"attribution": (ui.runs.attribution, "attribute_delta")})


def opened(calls):
    at = upload(open_runs_page(), ("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B))
    at.multiselect(key="runs_measures").set_value(["map", "P.2"]).run()
    assert_no_failure(at)
    assert calls == {}  # closed: nothing computed
    at.session_state[ui.runs.attribution.EXPANDER] = True  # opened, as a click on it does
    return at.run()


def test_the_shares_of_b_over_a_on_the_chosen_query_and_measure(calls):
    at = opened(calls)
    assert_no_failure(at)
    assert calls["attribution"] == 1  # one query, one measure
    frame = next(frame.value for frame in at.dataframe if "share" in frame.value.columns)
    expected = attribute_delta({"a": 1, "b": 0, "c": 1}, {"b": 0.9, "a": 0.8, "z": 0.7},
                               {"a": 0.9, "c": 0.8, "b": 0.7}, "map", Conventions())
    assert list(frame["document"]) == [c.doc for c in expected.contributions] == ["c", "b", "z"]
    assert list(frame["edit"]) == ["only in B", "moved", "only in A"]
    assert list(frame["share"]) == [c.value for c in expected.contributions]
    summary = next(shown(m.value) for m in at.markdown if m.value.startswith("**map**"))
    assert summary == "**map** of query q1: 0.2500 in a.run, 1.0000 in b.run, a difference of **+0.7500**."
    assert any("sum to the difference exactly" in caption.value for caption in at.caption)

    # A cut measure compares the top k; a query run B lacks is refused, unless missing queries count as empty.
    at.selectbox(key="attribution_measure").select("P.2").run()
    assert any(shown(m.value) == "Largest share: b (rank 1) left the top 2 (+0.2500)." for m in at.markdown)
    at.selectbox(key="attribution_qid").select("q2").run()
    assert_no_failure(at)
    assert [shown(error.value) for error in at.error] == [
        "query 'q2': run B does not have this query: trec_eval skips it (missing queries: skip), so it has no "
        "value to compare; 'missing queries: zero' (-c) counts it as empty"]
    at = open_run_conventions(at)
    at.selectbox(key="runs_convention_missing_queries").select("zero").run()
    assert_no_failure(at)
    assert any(shown(m.value) == "Largest share: x (rank 1) was removed (-0.5000)." for m in at.markdown)
    at.selectbox(key="attribution_run_b").select("a.run").run()
    assert any(info.value == "Choose two different runs." for info in at.info)
    at.selectbox(key="attribution_run_a").select("b.run").run()  # the runs the other way round: B - A changes sign
    assert_no_failure(at)
    assert any(shown(m.value) == "**P_2** of query q1: 1.0000 in b.run, 0.5000 in a.run, a difference of "
               "**-0.5000**." for m in at.markdown)


def test_one_run_asks_for_another(calls):
    at = upload(open_runs_page(), ("qrels", QRELS), ("a.run", RUN_A))
    at.session_state[ui.runs.attribution.EXPANDER] = True
    at.run()
    assert_no_failure(at)
    assert any(info.value.startswith("Needs two runs") for info in at.info)
    assert calls == {}


def test_the_query_with_the_largest_difference_comes_first_and_a_missing_rank_is_blank(calls):
    qrels = QRELS + b"q3 0 y 1\n"
    run_a = RUN_A + b"q3 Q0 w 1 0.9 A\nq3 Q0 y 2 0.8 A\n"
    run_b = RUN_B + b"q3 Q0 y 1 0.9 B\n"  # q3: map 0.5 in A, 1.0 in B; q1: 0.25 and 1.0; q2 only in A
    at = upload(open_runs_page(), ("qrels", qrels), ("a.run", run_a), ("b.run", run_b))
    at.multiselect(key="runs_measures").set_value(["map"]).run()
    at.session_state[ui.runs.attribution.EXPANDER] = True
    at.run()
    assert_no_failure(at)
    assert at.selectbox(key="attribution_qid").options == ["q1", "q3", "q2"]
    frame = next(frame.value for frame in at.dataframe if "share" in frame.value.columns)
    assert list(frame["rank in A"]) == ["", "1", "3"] and list(frame["rank in B"]) == ["2", "3", ""]
