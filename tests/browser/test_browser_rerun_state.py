"""What the explorer's cards show while a rerun replaces them, watched on every frame the browser draws; and what
a rerun sends: an edit the sidebar does not show reruns only the query panels (a fragment).

Streamlit replaces a page's elements one by one as a rerun sends them, and keeps showing the ones not yet replaced
with the run before's values: the row of cards used to show two states side by side for a moment (RR 0.500 of the
new list next to AP 0.604 of the old one). Here every frame of several reruns is read, and each must show the cards
of one state only (all of it, or the part of the new one drawn so far).
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


def _sidebar_deltas(frames: list[bytes]) -> int:
    """How many of these forward messages draw something in the sidebar (delta path 1, ...)."""
    count = 0
    for payload in frames:
        message = ForwardMsg()
        message.ParseFromString(payload)
        if message.WhichOneof("type") == "delta" and list(message.metadata.delta_path)[:1] == [1]:
            count += 1
    return count


def test_an_edit_reruns_the_query_panels_and_the_sidebar_only_when_it_shows_the_change(
        explorer: ExplorerPage) -> None:
    frames: list[bytes] = []

    def watch(socket) -> None:
        socket.on("framereceived", lambda payload: frames.append(payload) if isinstance(payload, bytes) else None)

    explorer.page.on("websocket", watch)
    try:
        sidebar_sent_only_when_it_shows_the_change(explorer, frames)
    finally:
        explorer.page.remove_listener("websocket", watch)  # the tab serves the next tests, which watch nothing


def sidebar_sent_only_when_it_shows_the_change(explorer: ExplorerPage, frames: list[bytes]) -> None:
    explorer.open()
    picker = explorer.page.locator(".st-key-sample_picker [role=combobox]")
    expect(picker).to_have_value("sweet pastry")
    # k 4 -> 3: the list is no longer the sample as loaded, and the sidebar's picker says so (the whole page ran).
    frames.clear()
    explorer.set_k(3)
    expect(picker).to_have_value("— your own list —")
    assert _sidebar_deltas(frames) > 0
    # k 3 -> 2 on your own list: the cards follow, the sidebar is not sent again (only the query panels ran).
    frames.clear()
    explorer.set_k(2)
    assert explorer.shown_metrics()["P@2"] == "0.500"
    assert _sidebar_deltas(frames) == 0 and frames  # frames were watched, none of them for the sidebar
    expect(picker).to_have_value("— your own list —")
    explorer.expect_no_traceback()
