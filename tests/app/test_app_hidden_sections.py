"""The explorer computes only what is on screen (issue 22): a section whose expander is closed costs nothing on a
rerun, and computes once it is opened. Spies count the calls of the engine functions each section uses."""

from __future__ import annotations

from collections import Counter

import pytest

import ui.explore.online
from tests.app.support import assert_no_failure, count_calls, open_app

#: (module, engine function it calls): the heavy work of each hidden section.
HEAVY = {
    "online: closed forms": (ui.explore.online, "expected_signals"),
    "online: simulation": (ui.explore.online, "simulate_signals"),
    "online: A/B test": (ui.explore.online, "ab_test"),
    "online: interleaving": (ui.explore.online, "team_draft"),
}


@pytest.fixture
def calls(monkeypatch) -> Counter:
    """How often each heavy function ran (caches emptied first)."""
    return count_calls(monkeypatch, HEAVY)


def pinned_and_edited(at):
    """A baseline pinned and k changed: the online section would run its A/B test and interleaving if open."""
    at.button(key="pin_baseline").click().run()
    at.number_input(key="k_input").set_value(3).run()
    return at


def test_the_closed_online_section_computes_nothing_on_any_rerun(calls):
    at = pinned_and_edited(open_app())
    assert_no_failure(at)
    assert [metric.label for metric in at.metric][0] == "P@3"  # the page itself reran with the edits
    assert calls == {}


def test_the_online_section_computes_once_opened_and_keeps_its_click_model_while_closed(calls):
    at = pinned_and_edited(open_app())
    at.session_state[ui.explore.online.OPEN] = True  # the expander opened, as a click on it does
    at.run()
    assert_no_failure(at)
    assert set(calls) == set(HEAVY)
    at.radio(key=ui.explore.online.MODEL).set_value("dbn").run()
    at.session_state[ui.explore.online.OPEN] = False
    at.number_input(key="k_input").set_value(4).run()
    at.session_state[ui.explore.online.OPEN] = True
    at.run()
    assert at.radio(key=ui.explore.online.MODEL).value == "dbn"
    assert_no_failure(at)
