"""The what-if section of the explorer, through AppTest: every tab draws, callouts come from the data."""

from __future__ import annotations

import base64
import json
from types import SimpleNamespace

import numpy as np
import pytest

from apptest_support import assert_no_failure, open_app, shown
from ui.whatif_panel import TABS


def _decode(value):
    """Plotly's JSON with typed arrays ({"dtype", "bdata", "shape"}) decoded; dicts become attribute namespaces."""
    if isinstance(value, dict) and "bdata" in value and "dtype" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        return array.reshape([int(n) for n in str(shape).split(",")]) if shape else array
    if isinstance(value, dict):
        return SimpleNamespace(**{key: _decode(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_decode(item) for item in value]
    return value


def figures(at) -> list:
    """The figures exactly as the page sent them to the browser."""
    return [_decode(json.loads(chart.proto.spec)) for chart in at.get("plotly_chart")]


def callout_lines(at) -> list[str]:
    blocks = [m.value.replace("\\", "") for m in at.markdown if m.value.startswith("- ")]
    return [line[2:] for block in blocks for line in block.splitlines()]


@pytest.mark.parametrize("tab", TABS)
def test_every_what_if_tab_draws_its_chart_for_the_pastry_example(tab):
    at = open_app()
    at.session_state["whatif_tab"] = tab
    at.run()
    assert_no_failure(at)
    if tab == "Against the baseline":
        assert any("Pin a baseline" in c.value for c in at.caption)
        return
    titles = [figure.layout.title.text for figure in figures(at)]
    assert len(titles) == 1, titles


def test_k_curves_plot_precision_at_every_k():
    at = open_app()
    figure = figures(at)[0]
    precision = next(trace for trace in figure.data if getattr(trace, "name", None) == "P@k")
    assert list(precision.y) == pytest.approx([1, 0.5, 2 / 3, 0.5])


def test_swap_heatmap_shows_ap_gaining_one_ninth_when_ranks_2_and_3_swap():
    at = open_app()
    at.session_state["whatif_tab"] = "Swapping two ranks"
    at.run()
    figure = figures(at)[0]
    ap = next(trace for trace in figure.data if trace.type == "heatmap" and getattr(trace, "name", None) == "AP@4")
    assert ap.z[1][2] == pytest.approx(1 / 9)


def test_callouts_name_the_best_swap_in_plain_words():
    lines = callout_lines(open_app())
    assert any("swapping ranks 2 and 3 (bagel and muffin) raises AP (+0.111) and nDCG (+0.061)" in line
               for line in lines), lines


def test_baseline_tab_compares_the_pinned_list_with_the_current_one_at_the_current_k():
    at = open_app()
    at.button(key="pin_baseline").click().run()
    at.selectbox(key="move_doc").select("3. muffin").run()
    at.button(key="move_up").click().run()
    at.number_input(key="k_input").set_value(3).run()
    at.session_state["whatif_tab"] = "Against the baseline"
    at.run()
    assert_no_failure(at)
    figure = figures(at)[0]
    baseline, current = figure.data[0].y, figure.data[1].y
    assert baseline[3] == pytest.approx(5 / 9) and current[3] == pytest.approx(2 / 3)  # AP@3, both at k=3
    assert shown(at)["AP@3"] == "0.667"


def test_move_preview_can_be_applied_and_undone():
    at = open_app()
    at.session_state["whatif_tab"] = "Moving a document"
    at.run()
    at.selectbox(key="preview_doc").select("3. muffin").run()
    at.number_input(key="preview_rank_4").set_value(2).run()
    preview = figures(at)[0]
    assert preview.data[1].y[3] == pytest.approx(2 / 3)
    at.button(key="apply_preview").click().run()
    assert at.data_editor[0].value["doc"].tolist() == ["donut", "muffin", "bagel", "croissant"]
    at.button(key="undo").click().run()
    assert at.data_editor[0].value["doc"].tolist() == ["donut", "bagel", "muffin", "croissant"]
    assert shown(at)["AP@4"] == "0.556"


def test_an_empty_list_explains_instead_of_drawing():
    at = open_app(ranking="", qrels="a:1", k="3")
    assert_no_failure(at)
    assert any("Add documents" in i.value for i in at.info)
    assert shown(at)["P@3"] == "0.000"
