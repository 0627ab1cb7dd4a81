"""The explorer's two-list view: list A and list B over the same judgments, each editable, every metric on both
with its difference, and a tie said in words. Expected values come from the engine on the same lists."""

from __future__ import annotations

import pytest

from metrics import InputError, evaluate_rankings
from metrics.explain import explorer_metrics
from tests.app.support import assert_no_failure, open_app
from ui.common.two_lists import (
    EXPLORER_PREFIX,
    SECTION,
    ListPair,
    compare,
    parse_docs,
    parse_judgments,
    tie_sentence,
)

PASTRY = ("donut", "bagel", "muffin", "croissant")
JUDGMENTS = {"donut": 1, "muffin": 1, "scone": 1}


def _table(at) -> dict[str, list[str]]:
    frame = next(table.value for table in at.dataframe if "B − A" in table.value.columns)
    return {row["metric"]: list(row.values)[1:] for _, row in frame.iterrows()}


def _box(at, label_start: str):
    return next(box for box in at.text_area if box.label.startswith(label_start))


def test_compare_scores_both_lists_in_one_batch_as_the_engine_does_each():
    pair = ListPair(PASTRY, ("bagel", "croissant", "muffin", "donut"), JUDGMENTS, 4)
    rows = compare(pair)
    measures = explorer_metrics(4)
    assert [row.label for row in rows] == [label for label, _ in measures]
    for row, (_, measure) in zip(rows, measures):
        alone_a = evaluate_rankings([list(pair.list_a)], [JUDGMENTS], [measure])[measure.key][0]
        alone_b = evaluate_rankings([list(pair.list_b)], [JUDGMENTS], [measure])[measure.key][0]
        assert (row.value_a, row.value_b) == (alone_a, alone_b)
    tied = {row.label for row in rows if row.tied}
    assert tied == {"P@4", "Recall@4", "Success@4"}  # the same two relevant documents, in another order
    assert tie_sentence(pair, rows).startswith("Tied: P@4 (0.500 on both), Recall@4 (0.667 on both)")


def test_the_boxes_refuse_a_repeated_document_a_grade_without_a_colon_and_an_oversized_text():
    with pytest.raises(InputError, match="'donut' is at rank 1 and again at rank 3"):
        parse_docs("donut bagel donut", "List B")
    with pytest.raises(InputError, match="judgment 2: 'muffin' has no grade"):
        parse_judgments("donut:1 muffin")
    with pytest.raises(InputError, match="at most 50,000"):
        parse_docs("d " * 30_000, "List A")
    assert parse_judgments("a:b:2 c:0") == {"a:b": 2, "c": 0}


def test_the_section_opens_on_the_list_above_shows_each_edit_of_list_b_and_refuses_a_bad_box():
    at = open_app()
    assert EXPLORER_PREFIX not in at.session_state  # closed: no pair, no table
    assert not [box for box in at.text_area if box.label.startswith("List B")]
    at.session_state[SECTION] = True  # the expander opened, as a click on it does
    at.run()
    assert_no_failure(at)
    table = _table(at)
    assert table["P@4"] == ["0.5000", "0.5000", "tie"]
    assert table["AP@4"] == ["0.5556", "0.5556", "tie"]

    _box(at, "List B").input("muffin\ndonut\nbagel\ncroissant").run()
    assert_no_failure(at)
    table = _table(at)
    assert table["P@4"] == ["0.5000", "0.5000", "tie"]
    assert table["AP@4"] == ["0.5556", "0.6667", "+0.1111"]
    assert table["nDCG@4"][2] == "+0.0614"
    assert any(info.value.startswith("Tied: P@4 (0.500 on both)") for info in at.info)

    _box(at, "Judgments").input("donut:1 muffin:x").run()
    assert_no_failure(at)
    errors = [error.value for error in at.error]
    assert len(errors) == 1 and "grade has to be a whole number" in errors[0]
    assert _table(at)["AP@4"] == ["0.5556", "0.6667", "+0.1111"]  # the last good lists
