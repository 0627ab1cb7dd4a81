"""The run page computes only for the tab that is open (issue 20): the heavy work of a tab (significance tests and
bootstrap intervals, the convention finder, the judgment holes, the online signals) never runs while the tab is
closed, and runs once it is opened. Spies count the calls of the engine functions each tab uses."""

from __future__ import annotations

from collections import Counter

import pytest
from streamlit.elements.lib import policies

import ui.runs.compare
import ui.runs.data
import ui.runs.judging
import ui.runs.online
import ui.runs.significance
from tests.app.support import assert_no_failure, count_calls, open_runs_page, open_tab

#: (module, engine function it calls): the heavy work of each tab.
HEAVY = {
    "significance": (ui.runs.significance, "compare_values_many"),  # every pair, with BCa bootstrap intervals
    "comparison": (ui.runs.compare, "compare_values"),  # two runs: t-test and 10,000 sign flips
    "finder": (ui.runs.data, "find_conventions"),
    "judging": (ui.runs.judging, "find_holes"),
    "online": (ui.runs.online, "run_signals"),
}
TAB_OF = {"significance": "Compare runs", "comparison": "Compare runs", "finder": "Check a reported score",
          "judging": "Judge the holes", "online": "Online signals"}


@pytest.fixture
def calls(monkeypatch) -> Counter:
    """How often each heavy function ran (caches emptied first)."""
    return count_calls(monkeypatch, HEAVY)


def test_nothing_heavy_runs_for_a_tab_nobody_opened(calls):
    at = open_runs_page()
    at.toggle(key="runs_use_samples").set_value(True).run()
    at.session_state["check_value"] = "0.5"  # a reported value waits in the closed finder
    at.run()
    assert_no_failure(at)
    assert any(frame.value.shape[0] for frame in at.dataframe)  # the open tab, per-query results, is drawn
    assert calls == {}


@pytest.mark.parametrize("work", list(HEAVY))
def test_a_tabs_heavy_work_runs_once_it_is_opened_and_only_its_own(calls, work):
    at = open_runs_page()
    at.toggle(key="runs_use_samples").set_value(True).run()
    at.session_state["check_value"] = "0.5"
    at = open_tab(at, TAB_OF[work])
    assert_no_failure(at)
    assert calls[work] >= 1
    assert {name for name in calls} == {name for name, tab in TAB_OF.items() if tab == TAB_OF[work]}


def test_a_tab_keeps_its_choices_while_another_one_is_open(calls, monkeypatch):
    """Select boxes, text and number inputs, radios and toggles come back as chosen, and the browser is told so:
    a kept value returned to Python but not sent with ``set_value`` shows the widget's default in the browser
    (the finder's "Reported value" came back empty, issue 22), which the browser then sends back."""
    warned: list[str] = []  # Streamlit logs a warning when a kept value meets a widget drawn in the same run
    monkeypatch.setattr(policies._LOGGER, "warning", lambda message, *args, **kwargs: warned.append(message % args))
    at = open_runs_page()
    at.toggle(key="runs_use_samples").set_value(True).run()
    at.toggle(key="results_holes").set_value(True).run()
    at = open_tab(at, "Check a reported score")
    at.text_input(key="check_measure").input("P@5").run()
    at.text_input(key="check_value").input("0.5").run()
    at = open_tab(at, "Compare runs")
    at.selectbox(key="compare_measure").select("success_1").run()
    many = at.multiselect(key="many_measures").select("success_1").run().multiselect(key="many_measures").value
    assert "success_1" in many
    at = open_tab(at, "Judge the holes")
    at.number_input(key="judge_k").set_value(5).run()
    at = open_tab(at, "Online signals")
    at.radio(key="runs_online_model").set_value("dbn").run()
    expected = {
        "Per-query results": [("toggle", "results_holes", True)],
        "Check a reported score": [("text_input", "check_measure", "P@5"), ("text_input", "check_value", "0.5")],
        "Compare runs": [("selectbox", "compare_measure", "success_1"), ("multiselect", "many_measures", many)],
        "Judge the holes": [("number_input", "judge_k", 5)],
        "Online signals": [("radio", "runs_online_model", "dbn")],
    }
    for tab in ("Per-query results", "Check a reported score", "Compare runs", "Judge the holes", "Online signals"):
        at = open_tab(at, tab)
        for kind, key, value in expected[tab]:
            widget = getattr(at, kind)(key=key)
            assert (widget.value, widget.proto.set_value) == (value, True), (tab, key)
    assert_no_failure(at)
    assert warned == []
