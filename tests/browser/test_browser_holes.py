"""The explorer's judgment holes in a real browser: each card shows its bracket and the list marks unjudged
documents."""

from __future__ import annotations

import pytest

from tests.browser.support import ExplorerPage

pytestmark = [
    pytest.mark.browser,
]


def test_sweet_pastry_shows_each_cards_bracket_and_marks_bagel_and_croissant_unjudged(explorer: ExplorerPage) -> None:
    explorer.open()
    # bagel and croissant are unjudged: if both were relevant, P@4 would be 4/4.
    assert explorer.card_bracket("P@4") == "bounds [0.500, 1.000] whatever the top 4's 2 unjudged get"
    assert explorer.card_bracket("AP@4") == ("range [0.556, 0.800]: the top 4's 2 unjudged all non-relevant or all "
                                             "relevant")
    marks = {row["document"]: row["judged"] for row in explorer.ranking_rows()}
    assert marks == {"donut": "✓", "bagel": "✗", "muffin": "✓", "croissant": "✗"}
    explorer.screenshot("holes")
    explorer.expect_no_traceback()
