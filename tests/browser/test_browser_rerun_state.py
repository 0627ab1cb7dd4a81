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


#: The most deltas a change of k may send: the cards, the list's status, the explanations, the what-if section, the
#: online section's title and the downloads (k 4 -> 3 sent 72 with the sidebar's picker and the Undo button, 3 -> 2
#: 64; the query panels as one fragment sent 101-115): the bound that keeps the page light per interaction, with a
#: margin for a message or a caption more.
MAX_DELTAS = 80


def _sent(frames: list[bytes]) -> tuple[int, int, bool, int]:
    """Of these forward messages: how many deltas, how many of them draw in the sidebar (delta path 1, ...), whether
    the page's title is among them (a run of the whole page, not of its panels alone), and how many data grids."""
    deltas = sidebar = grids = 0
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
        grids += element.WhichOneof("type") == "arrow_data_frame"
    return deltas, sidebar, title, grids


def test_a_change_of_k_sends_the_panels_it_changes_and_not_the_lists_grids(explorer: ExplorerPage) -> None:
    frames: list[bytes] = []

    def watch(socket) -> None:
        socket.on("framereceived", lambda payload: frames.append(payload) if isinstance(payload, bytes) else None)

    explorer.page.on("websocket", watch)
    try:
        changes_of_k_send_only_what_they_change(explorer, frames)
    finally:
        explorer.page.remove_listener("websocket", watch)  # the tab serves the next tests, which watch nothing


def changes_of_k_send_only_what_they_change(explorer: ExplorerPage, frames: list[bytes]) -> None:
    explorer.open()
    picker = explorer.page.locator(".st-key-sample_picker [role=combobox]")
    expect(picker).to_have_value("sweet pastry")
    # k 4 -> 3: the list is no longer the sample as loaded, and the sidebar's picker says so (its panel reruns);
    # k 3 -> 2 on your own list: the sidebar shows nothing new and is not sent. Neither sends the title (a run of the
    # whole page) nor either data grid (k changes no row of the list or of the judgments).
    for k, shown, sidebar_sent in ((3, {"P@3": "0.667"}, True), (2, {"P@2": "0.500"}, False)):
        frames.clear()
        explorer.set_k(k)
        assert shown.items() <= explorer.shown_metrics().items()
        expect(picker).to_have_value("— your own list —")
        deltas, sidebar, title, grids = _sent(frames)
        assert 0 < deltas <= MAX_DELTAS and not title and grids == 0, (k, deltas, title, grids)
        assert (sidebar > 0) == sidebar_sent, (k, sidebar)
    explorer.expect_no_traceback()


#: Marks every data grid's element on the page (the ranked list first, then the judgments), so a later check can
#: tell a grid the browser kept from one it built again.
MARK_THE_GRIDS = """() => document.querySelectorAll('[data-testid=stDataFrame]')
    .forEach((grid, index) => { grid.dataset.kept = String(index); })"""
KEPT_GRIDS = """() => [...document.querySelectorAll('[data-testid=stDataFrame]')]
    .map(grid => grid.dataset.kept ?? null)"""


def test_a_grid_is_built_again_only_when_it_would_show_something_else(explorer: ExplorerPage) -> None:
    """A grid is the heaviest element to build in the browser. A grade typed in the ranked list that the list then
    holds as typed keeps the grid (it shows the new state already); a grade that makes an unjudged document judged
    changes the "judged" column, and a move changes the ranks, so both build the list's grid again, from the state;
    none of them builds the "judged but not retrieved" grid again, whose rows did not change. Every edit is applied
    once, the next one on top of it."""
    explorer.open()
    for edit, shown, list_kept in (
            (lambda: explorer.type_in_cell(1, "grade", "0"), {"RR": "0.333"}, True),  # donut 1 -> 0: judged still
            (lambda: explorer.type_in_cell(2, "grade", "1"), {"RR": "0.500", "AP@4": "0.389"}, False),  # bagel judged
            (lambda: (explorer.choose_document_to_move("1. donut"), explorer.press_move_button("move_down")),
             {"RR": "1.000", "AP@4": "0.556"}, False)):
        explorer.wait_until_idle()
        explorer.page.evaluate(MARK_THE_GRIDS)
        explorer.rerun_after(edit)
        explorer.wait_until_idle()
        assert shown.items() <= explorer.shown_metrics().items(), (shown, explorer.shown_metrics())
        ranking_grid, judgments_grid = explorer.page.evaluate(KEPT_GRIDS)
        assert (ranking_grid == "0") == list_kept and judgments_grid == "1", (ranking_grid, judgments_grid)
    rows = explorer.ranking_rows()
    assert [(row["document"], row["grade"], row["judged"]) for row in rows][:3] == [
        ("bagel", "1", "✓"), ("donut", "0", "✓"), ("muffin", "1", "✓")], rows
    assert explorer.document_to_move() == "2. donut"  # the box follows the document it moved
    explorer.expect_no_traceback()
