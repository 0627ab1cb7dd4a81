"""Classroom mode on a projector's 1280 x 720: the cards and the ranked list in the first screen, in large type, none
of them cut, and the cards' slide downloaded as the page shows them; the switch off brings back the judgment holes
and takes mode=class out of the link."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

from playwright.sync_api import expect

from tests.app.support import PASTRY

PROJECTOR = {"width": 1280, "height": 720}
#: The card values' type outside classroom mode (Streamlit's 2.25rem of 16 px).
USUAL_VALUE_PX = 36


def box(locator) -> dict[str, float]:
    return locator.bounding_box()


def inside_first_screen(area: dict[str, float]) -> bool:
    return (area["x"] >= 0 and area["y"] >= 0 and area["x"] + area["width"] <= PROJECTOR["width"]
            and area["y"] + area["height"] <= PROJECTOR["height"])


def test_classroom_mode_at_1280_by_720_shows_the_cards_and_the_list_first_in_large_type(explorer, tmp_path: Path):
    explorer.page.set_viewport_size(PROJECTOR)
    explorer.open("mode=class")
    explorer.expect_metrics({label: float(value) for label, value in PASTRY.items()})
    assert explorer.shown_metrics() == PASTRY
    page = explorer.page

    cards = page.get_by_test_id("stMetric")
    assert cards.count() == len(PASTRY)
    for index in range(cards.count()):
        assert inside_first_screen(box(cards.nth(index))), box(cards.nth(index))
    grid = page.get_by_test_id("stDataFrame").first
    assert inside_first_screen(box(grid)), box(grid)
    # Large type, and no card label or value cut to "0.…" by its column.
    values = page.get_by_test_id("stMetricValue")
    assert float(values.first.evaluate("e => getComputedStyle(e).fontSize").removesuffix("px")) > USUAL_VALUE_PX
    cut = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stMetric] *')]
        .filter(e => e.children.length === 0 && e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)""")
    assert cut == []
    expect(page.get_by_text("bounds [", exact=False)).to_have_count(0)  # the judgment holes wait to be asked for
    explorer.screenshot("classroom-1280x720")

    # The cards' slide, made when clicked, holds the values the cards show.
    button = page.locator(".st-key-cards_slide_svg button").first
    button.scroll_into_view_if_needed()
    with page.expect_download() as info:
        button.click()
    assert info.value.suggested_filename == "sweet-pastry-cards.svg"
    svg = ElementTree.parse(info.value.path()).getroot()
    texts = ["".join(text.itertext()) for text in svg.iter("{http://www.w3.org/2000/svg}text")]
    drawn = dict(zip(texts, texts[1:]))
    assert {label: drawn[label] for label in PASTRY} == PASTRY

    explorer.rerun_after(lambda: page.get_by_text("Classroom mode", exact=True).click())
    expect(page.get_by_text("bounds [", exact=False).first).to_be_visible()
    explorer.wait_for_url_parameter("mode", None)
    explorer.expect_no_traceback()
