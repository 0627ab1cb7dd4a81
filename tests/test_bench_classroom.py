"""The classroom benchmark's client (bench/bench_classroom.py) still drives the app: one session over Streamlit's
websocket protocol opens the explorer, changes k and moves a document, and gets the cards the browser shows for
those states (tests/browser/test_browser.py reads the same values on the page). Not timed: the benchmark times."""

from __future__ import annotations

import asyncio

import pytest

from bench.bench_classroom import Session
from tests.app.support import PASTRY
from tests.browser.support import running_app

pytestmark = pytest.mark.slow  # a streamlit server starts


async def drive(base_url: str) -> list[dict[str, str]]:
    session = Session(base_url, timeout=120)
    try:
        _, opened = await session.open()
        _, k_three = await session.set_number("k_input", 3, lambda cards: "P@3" in cards)
        await session.choose("move_doc", "3. muffin")
        _, moved = await session.press("move_up", lambda cards: "P@3" in cards)
    finally:
        await session.close()
    assert session.exceptions == 0
    return [opened, k_three, moved]


def test_one_classroom_session_changes_k_and_moves_a_document_and_gets_the_new_cards():
    with running_app() as base_url:
        opened, k_three, moved = asyncio.run(drive(base_url))
    assert opened == PASTRY
    assert k_three == {"P@3": "0.667", "Recall@3": "0.667", "RR": "1.000", "AP@3": "0.556", "AP": "0.556",
                       "nDCG@3": "0.704", "Success@3": "1.000"}
    # muffin (relevant) up to rank 2: AP and nDCG rise, P@3 does not move
    assert moved == {**k_three, "AP@3": "0.667", "AP": "0.667", "nDCG@3": "0.765"}
