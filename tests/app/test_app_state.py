"""State that a link keeps, and state that never lies: the explorer's URL, sidebar and messages say what is shown."""

from __future__ import annotations

from math import log2

import pytest

from tests.app.support import PASTRY_URL, assert_no_failure, open_app, param, shown
from ui.common.query_state import MAX_URL_CHARS

#: sweet pastry with bagel judged 0: under trec_eval -l 0 every grade >= 0 is relevant, so bagel counts (croissant,
#: unjudged, does not); nDCG uses the grades themselves.
PASTRY_BAGEL_0_URL = {**PASTRY_URL, "ranking": "donut,bagel,muffin,croissant",
                      "qrels": "donut:1,muffin:1,scone:1,bagel:0"}
LEVEL_0 = {
    "P@4": f"{3 / 4:.3f}", "Recall@4": f"{3 / 4:.3f}", "RR": "1.000", "AP@4": f"{(1 + 1 + 1) / 4:.3f}",
    "nDCG@4": f"{(1 + 1 / log2(4)) / (1 + 1 / log2(3) + 1 / log2(4)):.3f}",
}


def live_check_notes(at) -> list[str]:
    return [box.value for box in at.info if "live check is skipped" in box.value]


@pytest.mark.parametrize("how", ["link", "input"])
def test_a_relevance_threshold_of_0_shows_trec_evals_numbers_and_says_why_the_live_check_is_skipped(how):
    if how == "link":
        at = open_app(**PASTRY_BAGEL_0_URL, level="0")
    else:
        at = open_app(**PASTRY_BAGEL_0_URL)
        at.number_input(key="level_input").set_value(0).run()
    assert_no_failure(at)
    values = shown(at)
    assert {label: values[label] for label in LEVEL_0} == LEVEL_0
    (note,) = live_check_notes(at)
    assert "pytrec_eval refuses a relevance threshold of 0" in note and "trec_eval accepts -l 0" in note
    assert not [s.value for s in at.success if "computes the same numbers" in s.value]


def test_back_at_threshold_1_the_live_check_returns():
    at = open_app(**PASTRY_BAGEL_0_URL, level="0")
    at.number_input(key="level_input").set_value(1).run()
    assert_no_failure(at)
    assert not live_check_notes(at)
    assert any("computes the same numbers" in s.value for s in at.success)


def test_after_moving_muffin_up_the_copied_link_opens_ap_0_667_in_a_new_session():
    at = open_app()
    assert shown(at)["AP@4"] == "0.556"
    at.selectbox(key="move_doc").select("3. muffin").run()
    at.button(key="move_up").click().run()
    assert shown(at)["AP@4"] == "0.667"
    link = {name: param(at, name) for name in at.query_params}
    assert link["order"] == "shown"
    copied = open_app(**link)  # a new tab: a new session that knows only the link
    assert_no_failure(copied)
    assert shown(copied) == shown(at)
    assert copied.data_editor[0].value["doc"].tolist() == ["donut", "muffin", "bagel", "croissant"]


def test_a_list_too_long_for_a_link_gets_none_and_the_page_says_so():
    at = open_app()
    run = "".join(f"q1 Q0 clueweb09-en0000-{i:02d}-{i:05d} {i + 1} {20 - i / 100} r\n" for i in range(500))
    qrels = "".join(f"q1 0 clueweb09-en0000-{i:02d}-{i:05d} {i % 2}\n" for i in range(0, 1000, 3))
    at.text_area(key="paste_run").input(run).run()
    at.text_area(key="paste_qrels").input(qrels).run()
    at.button(key="open_query").click().run()
    assert_no_failure(at)
    assert too_long_notes(at) and f"at most {MAX_URL_CHARS:,}" in too_long_notes(at)[0]
    assert "ranking" not in at.query_params
    at.button(key="move_down").click().run()  # still too long after an edit: still no link, still said
    assert too_long_notes(at) and "ranking" not in at.query_params


def too_long_notes(at) -> list[str]:
    return [c.value for c in at.caption if "too long for a link" in c.value]
