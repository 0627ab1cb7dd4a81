"""State that a link keeps, and state that never lies: the explorer's URL, sidebar and messages say what is shown."""

from __future__ import annotations

from math import log2

import pytest

from tests.app.support import PASTRY_URL, assert_no_failure, open_app, shown

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
