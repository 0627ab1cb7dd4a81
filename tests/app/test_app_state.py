"""State that a link keeps, and state that never lies: the explorer's URL, sidebar and messages say what is shown."""

from __future__ import annotations

from math import log2

import pytest

from metrics.samples import load_samples
from tests.app.support import PASTRY_URL, assert_no_failure, open_app, param, shown
from ui.common.query_state import MAX_URL_CHARS
from ui.explore.editor import SHOW_NOT_RELEVANT

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


# ---- the sidebar says what the list is -----------------------------------------------------------------------


def picker_shows(at) -> str:
    picker = at.selectbox(key="sample_picker")
    assert picker.index is not None  # never "Choose an option"
    return picker.options[picker.index]


def sample_captions(at) -> list[str]:
    return [c.value for c in at.sidebar.caption]


def test_an_edit_turns_the_sample_into_your_own_list_and_undo_brings_its_label_back():
    pastry = next(s for s in load_samples() if s.slug == "sweet-pastry")
    at = open_app()
    assert picker_shows(at) == pastry.title and pastry.description in sample_captions(at)
    at.selectbox(key="move_doc").select("3. muffin").run()
    at.button(key="move_up").click().run()
    assert picker_shows(at) == "— your own list —"
    assert pastry.description not in sample_captions(at)
    assert any(f"Edited from the sample “{pastry.title}”" in c for c in sample_captions(at))
    at.button(key="undo").click().run()
    assert picker_shows(at) == pastry.title and pastry.description in sample_captions(at)
    at.number_input(key="k_input").set_value(3).run()  # k and conventions are part of the sample too
    assert picker_shows(at) == "— your own list —"
    at.selectbox(key="sample_picker").select("sweet-pastry").run()  # choosing it again starts over
    assert picker_shows(at) == pastry.title and shown(at)["AP@4"] == "0.556"


def test_after_an_uploaded_query_opens_the_picker_says_your_own_list():
    at = open_app()
    at.text_area(key="paste_run").input("q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\n").run()
    at.text_area(key="paste_qrels").input("q1 0 b 1\n").run()
    at.button(key="open_query").click().run()
    assert_no_failure(at)
    assert picker_shows(at) == "— your own list —"
    assert not [c for c in sample_captions(at) if "sample" in c.lower()]


def test_a_link_that_is_a_sample_as_loaded_is_labelled_with_that_sample():
    jam = next(s for s in load_samples() if s.slug == "goes-well-with-jam")
    at = open_app()
    at.selectbox(key="sample_picker").select(jam.slug).run()
    link = {name: param(at, name) for name in at.query_params}
    assert picker_shows(open_app(**link)) == jam.title


# ---- judged but not retrieved: the relevant ones the list missed ---------------------------------------------


def test_judged_but_not_retrieved_lists_the_relevant_documents_missed_and_the_rest_on_request():
    # scone (1) and eclair (2) are relevant and missed; the 300 judged 0 and pretzel (-1) are not relevant.
    zeros = ",".join(f"stale-{i}:0" for i in range(300))
    at = open_app(ranking="donut,bagel", qrels=f"donut:1,scone:1,{zeros},eclair:2,pretzel:-1", k="2")
    assert_no_failure(at)
    missed = at.data_editor[1].value
    assert missed["doc"].tolist() == ["scone", "eclair"] and missed["grade"].tolist() == ["1", "2"]
    assert any("2 relevant (grade ≥ 1) not retrieved" in c.value for c in at.caption)
    at.toggle(key=SHOW_NOT_RELEVANT).set_value(True).run()
    every = at.data_editor[1].value["doc"].tolist()
    assert len(every) == 303 and every[:2] == ["scone", "stale-0"] and every[-1] == "pretzel"
    # At threshold 2 scone is no longer relevant: the list follows the threshold.
    at.toggle(key=SHOW_NOT_RELEVANT).set_value(False).run()
    at.number_input(key="level_input").set_value(2).run()
    assert at.data_editor[1].value["doc"].tolist() == ["eclair"]

