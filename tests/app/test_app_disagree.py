"""The explorer's disagreement lab through AppTest: closed it computes nothing; opened on the sweet pastry list it
finds the one swap after which P@4 and nDCG@4 disagree, applies it to the two-list view's B, and undoes it."""

from __future__ import annotations

import ui.explore.disagree
from tests.app.support import assert_no_failure, count_calls, open_app
from ui.common import state
from ui.common.text import shown
from ui.common.two_lists import EXPLORER_PREFIX


def lab_says(at) -> list[str]:
    """What the lab's success or info box says (the page has other boxes)."""
    return [shown(box.value) for box in [*at.success, *at.info] if " agree" in box.value or "disagree" in box.value]


def test_the_lab_finds_applies_and_undoes_the_smallest_edit(monkeypatch):
    calls = count_calls(monkeypatch, {"lab": (ui.explore.disagree, "find_disagreement")})
    at = open_app()
    assert_no_failure(at)
    assert calls == {} and EXPLORER_PREFIX not in at.session_state  # closed: nothing computed, no pair made
    at.session_state[ui.explore.disagree.EXPANDER] = True  # opened, as a click on it does
    at.run()
    assert_no_failure(at)
    assert calls["lab"] == 1
    assert lab_says(at) == [
        "P@4 and nDCG@4 agree now (tie). Swapping ranks 1 and 2 of B (donut and bagel): P@4 says tie, nDCG@4 says "
        "A better."]

    at.button(key="disagree_apply").click().run()
    assert_no_failure(at)
    assert at.session_state[EXPLORER_PREFIX].list_b == ("bagel", "donut", "muffin", "croissant")
    assert any(shown(c.value) == "Swapping ranks 1 and 2 of B (donut and bagel): applied to the two-list view."
               for c in at.caption)
    # Now the two metrics disagree already, and the lab says so.
    assert lab_says(at) == ["P@4 and nDCG@4 disagree already: P@4 says tie, nDCG@4 says A better."]

    at.button(key="disagree_undo_button").click().run()
    assert at.session_state[EXPLORER_PREFIX].list_b == ("donut", "bagel", "muffin", "croissant")


def test_one_metric_under_two_conventions():
    at = open_app()
    at.session_state[ui.explore.disagree.EXPANDER] = True
    at.run()
    at.selectbox(key="disagree_second").select("RR").run()
    assert lab_says(at)[0].startswith("P@4 and RR agree")
    at.selectbox(key="disagree_first").select("nDCG@4").run()
    at.selectbox(key="disagree_second").select("nDCG@4").run()
    assert any(i.value.startswith("Choose two different metrics") for i in at.info)
    at.selectbox(key="disagree_conventions").select("relevance threshold: 2").run()
    assert_no_failure(at)
    (said,) = lab_says(at)
    assert said.startswith("nDCG@4 and nDCG@4 (relevance threshold: 2) agree")


def test_against_the_pinned_baseline_the_edit_changes_the_list_above_until_undo():
    at = open_app()
    at.button(key="pin_baseline").click().run()
    at.session_state[ui.explore.disagree.EXPANDER] = True
    at.run()
    at.radio(key="disagree_source").set_value(ui.explore.disagree.BASELINE).run()
    assert_no_failure(at)
    assert lab_says(at)[0].endswith("Swapping ranks 1 and 2 of B (donut and bagel): P@4 says tie, nDCG@4 says A "
                                    "better.")
    at.button(key="disagree_apply").click().run()
    assert_no_failure(at)
    assert at.session_state[state.QUERY].ranking == ["bagel", "donut", "muffin", "croissant"]
    assert lab_says(at) == ["P@4 and nDCG@4 disagree already: P@4 says tie, nDCG@4 says A better."]
    at.button(key="disagree_undo_button").click().run()
    assert at.session_state[state.QUERY].ranking == ["donut", "bagel", "muffin", "croissant"]


def test_the_lab_on_two_100_document_lists_and_8994_judgments_stays_within_a_memory_bound():
    """What the judgments box takes (8,994 one-character ids fit its 50,000 characters): the lab scores each list
    with its own documents' grades and shares the sorted grades, so memory follows the lists, not the judgments."""
    import tracemalloc

    from ui.common.two_lists import SECTION

    ids = [chr(0x4E00 + i) for i in range(8_994)]  # CJK ideographs: one character each
    judgments = "\n".join(f"{doc}:{i % 4}" for i, doc in enumerate(ids))
    assert len(judgments) <= 50_000
    at = open_app()
    at.session_state[SECTION] = True
    at.run()
    boxes = {box.label.split(":")[0]: box for box in at.text_area}
    boxes["List A (the list above)"].input("\n".join(ids[:100]))
    boxes["List B"].input("\n".join(reversed(ids[:100])))
    boxes["Judgments of both lists"].input(judgments).run()
    assert_no_failure(at)
    pair = at.session_state[EXPLORER_PREFIX]
    assert (len(pair.list_a), len(pair.list_b), len(pair.judgments)) == (100, 100, 8_994)
    at.session_state[ui.explore.disagree.EXPANDER] = True
    tracemalloc.start()
    try:
        at.run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert_no_failure(at)
    (said,) = lab_says(at)
    assert said.startswith("P@4 and nDCG@4 ")
    assert peak < 150 << 20, f"the rerun that opened the lab allocated {peak >> 20} MiB at its peak"
