"""Classroom mode through AppTest: one sidebar switch (and ``mode=class`` in the link) that every page follows, which
hides the conventions, the judgment holes and the online signals unless they are asked for, and never changes a
number."""

from __future__ import annotations

import pytest

from tests.app.support import PASTRY, app_test, assert_no_failure, open_app, open_runs_page, param, shown
from ui.common import pages, state
from ui.common.classroom import PANELS_PICKER, TOGGLE
from ui.common.text import shown as as_shown
from ui.explore import scores
from ui.runs import TAB as RUNS_TAB


def brackets(at) -> list[str]:
    """The judgment-hole brackets under the cards (``bounds [0.500, 1.000]``)."""
    return [c.value for c in at.caption if c.value.startswith(("bounds [", "range ["))]


def headers(at) -> list[str]:
    return [h.value for h in at.header]


def has_conventions_panel(at) -> bool:
    return any(e.label.startswith("Conventions") for e in at.sidebar.expander)


def link(at) -> dict[str, str]:
    return {name: param(at, name) for name in at.query_params}


def test_a_classroom_link_hides_conventions_holes_and_online_and_keeps_every_number():
    at = open_app(mode="class")
    assert_no_failure(at)
    assert at.toggle(key=TOGGLE).value is True
    assert shown(at) == PASTRY
    assert brackets(at) == [] and not has_conventions_panel(at)
    assert "Online signals (simulated)" not in headers(at) and "What if…" in headers(at)
    assert not any(c.value.startswith("The list shown is the ranking scored") for c in at.caption)
    assert param(at, "mode") == "class"
    # The guide (drawn once opened) no longer points "further down" to a section that is not there.
    at.session_state[scores.GUIDE] = True
    at.run()
    assert any("classroom mode hides it" in c.value for c in at.caption)


def test_the_switch_writes_mode_class_into_the_link_and_that_link_opens_classroom_mode_again():
    at = open_app()
    assert brackets(at) and has_conventions_panel(at) and "mode" not in at.query_params
    at.toggle(key=TOGGLE).set_value(True).run()
    assert_no_failure(at)
    assert brackets(at) == [] and not has_conventions_panel(at)
    copied = link(at)
    assert copied["mode"] == "class" and copied["ranking"] == "donut:0.95,bagel:0.9,muffin:0.8,croissant:0.7"

    again = open_app(**copied)
    assert again.toggle(key=TOGGLE).value is True and brackets(again) == [] and shown(again) == PASTRY
    again.toggle(key=TOGGLE).set_value(False).run()
    assert brackets(again) and has_conventions_panel(again) and "mode" not in again.query_params


def test_show_in_class_brings_back_the_panels_asked_for_and_the_link_keeps_them():
    at = open_app(mode="class", show="holes")
    assert_no_failure(at)
    assert brackets(at)[0].startswith("bounds [0.500, 1.000]")  # P@4, as on the usual page
    assert not has_conventions_panel(at) and "Online signals (simulated)" not in headers(at)
    at.pills(key=PANELS_PICKER).set_value(["holes", "online"]).run()
    assert "Online signals (simulated)" in headers(at)
    assert link(at)["show"] == "holes,online"
    assert shown(at) == PASTRY


def test_an_edit_in_classroom_mode_keeps_the_mode_in_the_link():
    at = open_app(mode="class")
    at.number_input(key="k_input").set_value(3).run()
    assert_no_failure(at)
    assert (param(at, "k"), param(at, "mode")) == ("3", "class")
    assert shown(at)["P@3"] == "0.667"  # donut and muffin in the top 3


def test_a_mode_the_link_cannot_give_is_named_and_the_usual_page_opens():
    at = open_app(mode="projector")  # every bad view: tests/app/test_query_state.py
    assert_no_failure(at)
    fragment = "URL parameter 'mode': 'projector' is not 'class'"
    assert [e for e in at.error if fragment in as_shown(e.value)], [e.value for e in at.error]
    assert at.toggle(key=TOGGLE).value is False and brackets(at) and "mode" not in at.query_params


@pytest.mark.parametrize("page", [pages.ANN, pages.LESSONS])
def test_a_bad_mode_on_the_ann_and_lessons_pages_is_named_once_as_on_the_explorer(page):
    at = app_test().run()  # AppTest switches pages only after a first run, which reads the view: start again
    del at.session_state[state.VIEW]  # from a session that has not read it, as one the link opens on this page
    at.query_params["mode"] = "projector"
    at.switch_page(page).run()
    assert_no_failure(at)
    fragment = "URL parameter 'mode': 'projector' is not 'class' (classroom mode); leave it out for the usual page"
    named = [e.value for e in at.error if fragment in as_shown(e.value)]
    assert len(named) == 1, [e.value for e in at.error]
    assert as_shown(named[0]).startswith("The link's view could not be opened: ")
    assert at.toggle(key=TOGGLE).value is False and "mode" not in at.query_params


def test_the_run_page_follows_the_switch_and_hides_its_holes_and_online_tabs():
    at = open_runs_page()
    at.toggle(key="runs_use_samples").set_value(True).run()
    assert {"Judge the holes", "Online signals"} <= {t.label for t in at.tabs}
    at.session_state[RUNS_TAB] = "Online signals"  # a tab classroom mode hides was open
    at.run()
    at.toggle(key=TOGGLE).set_value(True).run()
    assert_no_failure(at)
    labels = [t.label for t in at.tabs]
    assert "Per-query results" in labels and not {"Judge the holes", "Online signals"} & set(labels)
    assert param(at, "mode") == "class"


def test_the_lessons_page_keeps_classroom_mode_and_its_link():
    at = open_app(mode="class").switch_page(pages.LESSONS).run()
    assert_no_failure(at)
    assert at.toggle(key=TOGGLE).value is True
    assert param(at, "mode") == "class" and "lesson" in at.query_params


def test_show_in_class_offers_only_the_panels_each_page_has_and_keeps_the_others_choice():
    at = open_app(mode="class", show="conventions")
    assert at.pills(key=PANELS_PICKER).options == ["Conventions", "Judgment holes", "Online signals"]
    at.switch_page(pages.RUNS).run()
    assert_no_failure(at)
    assert at.pills(key=PANELS_PICKER).options == ["Judgment holes", "Online signals"]
    at.pills(key=PANELS_PICKER).set_value(["online"]).run()
    assert link(at)["show"] == "conventions,online"  # the explorer's choice stays for when it opens again
    for page in (pages.ANN, pages.LESSONS):  # no panel classroom mode hides: no picker to choose from
        at.switch_page(page).run()
        assert_no_failure(at)
        assert not [p for p in at.pills if p.key == PANELS_PICKER]
        assert link(at)["mode"] == "class" and link(at)["show"] == "conventions,online"
