"""What the explorer's cards show while a rerun replaces them, watched on every frame the browser draws; and what
a rerun sends: an edit reruns only the query panels (a fragment), and sends a bounded number of deltas.

Streamlit replaces a page's elements one by one as a rerun sends them, and keeps showing the ones not yet replaced
with the run before's values: the row of cards used to show two states side by side for a moment (RR 0.500 of the
new list next to AP 0.604 of the old one). Here every frame of several reruns is read, and each must show the cards
of one state only (all of it, or the part of the new one drawn so far).

An edit reruns only the query panels (a fragment), which also draw the sidebar's sample picker, and sends at most
MAX_DELTAS deltas: the weight of a rerun cannot grow back unnoticed.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser.support import ExplorerPage

pytestmark = [pytest.mark.browser]

#: On every animation frame, the cards the row shows (label -> value; a hidden card is not shown), kept when they
#: differ from the frame before.
WATCH_THE_CARDS = """() => {
    window.__cardFrames = [];
    const sample = () => {
        const shown = {};
        for (const card of document.querySelectorAll('.st-key-metric_cards [data-testid=stMetric]')) {
            if (getComputedStyle(card).visibility === 'hidden') continue;
            const label = card.querySelector('[data-testid=stMetricLabel]')?.innerText.trim();
            const value = card.querySelector('[data-testid=stMetricValue]')?.innerText.trim();
            if (label && value) shown[label] = value;
        }
        const frame = JSON.stringify(shown);
        if (window.__cardFrames.at(-1) !== frame) window.__cardFrames.push(frame);
        window.__watching = requestAnimationFrame(sample);
    };
    sample();
}"""
STOP_WATCHING = "() => { cancelAnimationFrame(window.__watching); return window.__cardFrames; }"


def test_the_cards_show_one_state_at_a_time_across_reruns(explorer: ExplorerPage) -> None:
    explorer.open()
    states = [explorer.shown_metrics()]
    explorer.page.evaluate(WATCH_THE_CARDS)
    for k in (3, 2):
        explorer.set_k(k)
        states.append(explorer.shown_metrics())
    # donut (rank 1) no longer relevant: RR, AP and nDCG move, as in the example
    explorer.rerun_after(lambda: explorer.type_in_cell(1, "grade", "0"))
    states.append(explorer.shown_metrics())
    frames = [json.loads(frame) for frame in explorer.page.evaluate(STOP_WATCHING)]

    assert len({json.dumps(state, sort_keys=True) for state in states}) == len(states)  # each edit changed the cards
    assert states[1]["P@3"] == "0.667" and states[-1]["RR"] == "0.333"
    for frame in frames:
        assert any(frame.items() <= state.items() for state in states), (frame, states)
    # The watch saw every state (a watch that saw nothing would pass anything).
    assert all(any(frame == state for frame in frames) for state in states[1:])
    explorer.expect_no_traceback()


#: The most deltas an edit of the query panels may send (k 4 -> 3 and 3 -> 2 sent 101 each with the conventions
#: panel closed; a whole-page run sent about 150 before the sidebar was drawn by the panels): the bound that keeps the
#: page light per interaction, with a margin for a message or a caption more.
MAX_DELTAS = 115


def _sent(frames: list[bytes]) -> tuple[int, int, bool]:
    """Of these forward messages: how many deltas, how many of them draw in the sidebar (delta path 1, ...), and
    whether the page's title is among them (a run of the whole page, not of the query panels alone)."""
    deltas = sidebar = 0
    title = False
    for payload in frames:
        message = ForwardMsg()
        message.ParseFromString(payload)
        if message.WhichOneof("type") != "delta":
            continue
        deltas += 1
        sidebar += list(message.metadata.delta_path)[:1] == [1]
        element = message.delta.new_element
        title |= element.WhichOneof("type") == "heading" and element.heading.body == "Explore a query"
    return deltas, sidebar, title


def test_an_edit_reruns_the_query_panels_alone_with_the_sidebar_picker_they_draw(explorer: ExplorerPage) -> None:
    frames: list[bytes] = []

    def watch(socket) -> None:
        socket.on("framereceived", lambda payload: frames.append(payload) if isinstance(payload, bytes) else None)

    explorer.page.on("websocket", watch)
    try:
        edits_rerun_the_query_panels_alone(explorer, frames)
    finally:
        explorer.page.remove_listener("websocket", watch)  # the tab serves the next tests, which watch nothing


def edits_rerun_the_query_panels_alone(explorer: ExplorerPage, frames: list[bytes]) -> None:
    explorer.open()
    picker = explorer.page.locator(".st-key-sample_picker [role=combobox]")
    expect(picker).to_have_value("sweet pastry")
    # k 4 -> 3: the list is no longer the sample as loaded, and the sidebar's picker says so; k 3 -> 2 on your own
    # list. Each reruns the query panels alone (no title sent), which redraw the picker in the sidebar.
    for k, shown in ((3, {"P@3": "0.667"}), (2, {"P@2": "0.500"})):
        frames.clear()
        explorer.set_k(k)
        assert shown.items() <= explorer.shown_metrics().items()
        expect(picker).to_have_value("— your own list —")
        deltas, sidebar, title = _sent(frames)
        assert 0 < deltas <= MAX_DELTAS and sidebar > 0 and not title, (k, deltas, sidebar, title)
    explorer.expect_no_traceback()


#: Marks every data grid's element on the page (the ranked list first, then the judgments), so a later check can
#: tell a grid the browser kept from one it built again.
MARK_THE_GRIDS = """() => document.querySelectorAll('[data-testid=stDataFrame]')
    .forEach((grid, index) => { grid.dataset.kept = String(index); })"""
KEPT_GRIDS = """() => [...document.querySelectorAll('[data-testid=stDataFrame]')]
    .map(grid => grid.dataset.kept ?? null)"""


def test_an_edit_of_the_list_keeps_the_judgments_grid_its_rows_did_not_change(explorer: ExplorerPage) -> None:
    """A grid is the heaviest element to build in the browser: an edit made in the ranked list, or a move, builds
    the list's grid again (its rows changed) but keeps the "judged but not retrieved" grid, whose rows did not; and
    the edit is applied once, the next one on top of it."""
    explorer.open()
    for edit, shown in ((lambda: explorer.type_in_cell(1, "grade", "0"), {"RR": "0.333"}),
                        (lambda: explorer.type_in_cell(2, "grade", "1"), {"RR": "0.500", "AP@4": "0.389"}),
                        (lambda: (explorer.choose_document_to_move("1. donut"),
                                  explorer.press_move_button("move_down")), {"RR": "1.000", "AP@4": "0.556"})):
        explorer.wait_until_idle()
        explorer.page.evaluate(MARK_THE_GRIDS)
        explorer.rerun_after(edit)
        explorer.wait_until_idle()
        assert shown.items() <= explorer.shown_metrics().items(), (shown, explorer.shown_metrics())
        ranking_grid, judgments_grid = explorer.page.evaluate(KEPT_GRIDS)
        assert ranking_grid is None and judgments_grid == "1", (ranking_grid, judgments_grid)
    assert [row["grade"] for row in explorer.ranking_rows()][:3] == ["1", "0", "1"]
    explorer.expect_no_traceback()
