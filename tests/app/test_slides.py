"""Figures for slides (ui.common.slides): the cards with their worked formulas and every chart, redrawn on the server
with matplotlib as PNG and SVG. Each SVG parses as XML and holds, as text, the values the page shows; each PNG is a
valid 1920-pixel-wide PNG; user text is drawn literally; and nothing is drawn until a button is clicked."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ElementTree

import pytest
from PIL import Image

import ui.common.slides
from metrics.explain import explain
from metrics.measures.display import card as card_value  # three decimals, as the cards show values
from metrics.whatif import Scenario, chart_data, move_preview
from tests.app.support import PASTRY, assert_no_failure, count_calls, open_app, shown
from ui.common import state
from ui.common.slides import SlideCard, cards_figure, chart_figure, formula_lines, png, safe_stem, svg
from ui.explore import charts

SCENARIO = Scenario(("donut", "bagel", "muffin", "croissant"), {"donut": 1, "muffin": 1, "scone": 1}, 4)
SVG_NS = "{http://www.w3.org/2000/svg}"


def svg_texts(data: bytes) -> list[str]:
    """Every text of an SVG (it must parse as XML), one string per <text> element."""
    root = ElementTree.fromstring(data)
    return ["".join(element.itertext()) for element in root.iter(f"{SVG_NS}text")]


def slide_cards(ranking, judgments, k) -> list[SlideCard]:
    return [SlideCard(e.label, card_value(e.value), e.worked, e.formula) for e in explain(ranking, judgments, k)]


def test_the_cards_slide_holds_every_value_the_page_shows_with_its_worked_formula_as_svg_and_png():
    at = open_app()
    assert_no_failure(at)
    page = shown(at)
    query = at.session_state[state.QUERY]
    cards = slide_cards(query.ranking, dict(query.judgments), query.k)
    figure = cards_figure(cards, "sweet pastry · k = 4", "Conventions: trec_eval's")
    texts = svg_texts(svg(figure))
    drawn = dict(zip(texts, texts[1:]))  # each label is followed by its value
    assert {label: drawn[label] for label in page} == page == PASTRY
    assert "AP@4 = (1/1 + 2/3) / 3 = 0.556" in texts  # the worked formula, as the formula panel shows it
    assert "Conventions: trec_eval's" in texts
    data = png(figure)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(data))
    image.verify()
    assert image.size == (1920, 1080)


def test_doc_ids_and_a_query_with_mathtext_markup_are_drawn_as_typed():
    hostile = r"$\frac{a}{b}$\x<b>&amp;"
    cards = slide_cards([hostile, "b"], {hostile: 1}, 2)
    texts = svg_texts(svg(cards_figure(cards, f"{hostile} · k = 2", "")))
    assert f"{hostile} · k = 2" in texts
    assert any(hostile in text for text in texts)  # RR's worked formula names the first relevant document
    bars = charts.removal_bars_figure(chart_data(Scenario((hostile, "b"), {hostile: 1}, 2)).removals)
    assert f"1. {hostile}" in svg_texts(svg(chart_figure(bars)))  # plotly's escaped label, read back as typed


def test_every_engine_formula_is_drawn_by_mathtext():
    for item in explain(list(SCENARIO.ranking), SCENARIO.judgments, 4):
        assert formula_lines(item.formula), item.label


@pytest.mark.parametrize("build, expected", [
    (lambda data: charts.k_curves_figure(data.curves), ["Every metric at every cut-off k (dashed line: current k = 4)",
                                                        "AP@k"]),
    (lambda data: charts.swap_heatmaps_figure(data.swaps), ["AP@4 (now 0.556)", "nDCG@4 (now 0.704)"]),
    (lambda data: charts.move_preview_figure(move_preview(SCENARIO, 2, 2)), ["0.556", "0.667", "0.704", "0.765"]),
], ids=["k curves", "swap heatmaps", "move preview"])
def test_a_chart_redrawn_for_slides_holds_its_titles_and_values(build, expected):
    texts = svg_texts(svg(chart_figure(build(chart_data(SCENARIO)))))
    assert set(expected) <= set(texts), sorted(texts)


def test_a_chart_for_slides_is_a_png_as_wide_as_the_cards():
    figure = chart_figure(charts.move_preview_figure(move_preview(SCENARIO, 2, 2)))
    image = Image.open(io.BytesIO(png(figure)))
    image.verify()
    assert image.format == "PNG" and image.size[0] == 1920


def test_file_names_are_ascii_letters_digits_and_dashes():
    assert safe_stem("../../etc/passwd") == "etc-passwd"
    assert safe_stem("sweet pastry-cards") == "sweet-pastry-cards"
    assert safe_stem("日本") == "figure" and safe_stem("x" * 300) == "x" * 40


def test_nothing_is_drawn_for_a_slide_until_its_button_is_clicked(monkeypatch):
    drawn = count_calls(monkeypatch, {"cards": (ui.common.slides, "cards_figure"),
                                      "charts": (ui.common.slides, "chart_figure")})
    at = open_app()
    at.number_input(key="k_input").set_value(3).run()
    assert_no_failure(at)
    assert [button.proto.label for button in at.get("download_button")][:4] == ["PNG", "SVG", "PNG", "SVG"]
    assert drawn == {}
