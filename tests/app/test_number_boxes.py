"""Bounded number boxes say why they refuse a value, beside the box, in the words the link route uses; every
number box of the app goes through ui.common.numbers (the browser's own range check says nothing on the page)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from metrics import InputError
from tests.app.support import assert_no_failure, open_app, shown
from ui.common.numbers import range_message, refused
from ui.common.query_state import MAX_K, parse_k

ROOT = Path(__file__).resolve().parents[2]


def test_k_beyond_its_range_is_refused_beside_the_box_in_the_link_s_words():
    at = open_app()
    at.number_input(key="k_input").set_value(1_000_000).run()
    assert_no_failure(at)
    with pytest.raises(InputError) as link_route:
        parse_k(1_000_000)
    assert [error.value for error in at.error] == [str(link_route.value)] == [
        f"k has to be a whole number from 1 to {MAX_K}, got 1000000"]
    assert at.number_input(key="k_input").value == 4 and "P@4" in shown(at)  # the last good value, kept
    at.number_input(key="k_input").set_value(3).run()
    assert not at.error and "P@3" in shown(at)  # said once; the next good value applies


def test_a_relevance_threshold_below_zero_is_refused_and_the_cards_stay():
    at = open_app()
    before = shown(at)
    at.number_input(key="level_input").set_value(-1).run()
    assert [error.value for error in at.error] == ["the relevance threshold has to be a whole number from 0 to 1000, "
                                                   "got -1"]
    assert shown(at) == before and at.number_input(key="level_input").value == 1


def test_the_range_rule():
    assert range_message("k", 1, 10_000, 1.5) == "k has to be a whole number from 1 to 10000, got 1.5"
    assert range_message("epsilon", 0.0, 1e6, -0.5, whole=False) == ("epsilon has to be a number from 0 to 1000000, "
                                                                    "got -0.5")
    assert refused(1.5, 1, 10, whole=True) and not refused(1.5, 0.0, 10.0, whole=False)
    assert refused(float("nan"), 0.0, 1.0, whole=False) and not refused(None, 0, 1, whole=True)


def test_every_number_box_of_the_app_says_its_refusals():
    """A direct st.number_input would refuse out-of-range values in the browser, silently."""
    direct = []
    for path in [ROOT / "app.py", *sorted((ROOT / "ui").rglob("*.py"))]:
        if path.name == "numbers.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "number_input":
                direct.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert direct == []
