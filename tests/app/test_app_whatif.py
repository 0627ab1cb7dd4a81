"""The what-if section of the explorer, through AppTest: every tab draws, callouts come from the data."""

from __future__ import annotations

import base64
import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from tests.app.support import assert_no_failure, open_app, shown
from ui.explore.whatif import TABS


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


def vega_charts(at) -> list[tuple[dict, dict]]:
    """The Vega-Lite charts as the page sent them: each spec, and its named datasets as frames."""
    charts = []
    for chart in at.get("vega_lite_chart"):
        datasets = {dataset.name: pa.ipc.open_stream(dataset.data.data).read_all().to_pandas()
                    for dataset in chart.proto.datasets}
        charts.append((json.loads(chart.proto.spec), datasets))
    return charts


def unescaped(markdown: str) -> str:
    """The text a reader sees of Markdown made literal by ui.common.text.literal."""
    return markdown.replace("\\", "")


def callout_lines(at) -> list[str]:
    blocks = [m.value.replace("\\", "").replace("\u2060", "") for m in at.markdown if m.value.startswith("- ")]
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
    # The online-signals section below the what-if tabs draws charts of its own.
    titles = [figure.layout.title.text for figure in figures(at)
              if not figure.layout.title.text.startswith(("Clicks per rank", "A/B test"))]
    titles += [spec["title"]["text"] for spec, _ in vega_charts(at)]
    assert len(titles) == 1, titles


def test_k_curves_plot_precision_at_every_k_and_a_k_change_changes_only_their_data():
    at = open_app()
    ((spec, datasets),) = vega_charts(at)
    curves = datasets["curves"]
    precision = curves[curves.family == "P"]
    assert precision.k.tolist() == [1, 2, 3, 4] and precision.value.tolist() == pytest.approx([1, 0.5, 2 / 3, 0.5])
    assert precision[precision.current].tip.tolist() == ["current k=4: P@4 = 0.500"]
    assert set(curves[curves.current].k) == {4}
    at.number_input(key="k_input").set_value(3).run()
    ((spec_at_3, datasets_at_3),) = vega_charts(at)
    # The browser updates the drawn chart in place when only its data changed (the point of drawing it this way).
    assert spec_at_3 == spec
    moved = datasets_at_3["curves"]
    assert set(moved[moved.current].k) == {3} and moved.value.tolist() == curves.value.tolist()


def swap_cells(at) -> pd.DataFrame:
    """The swap chart's cells as the page sent them (ui.explore.charts.swap_heatmaps_chart's dataset)."""
    (cells,) = [datasets["swaps"] for _, datasets in vega_charts(at) if "swaps" in datasets]
    return cells


def test_swap_heatmap_shows_ap_gaining_one_ninth_when_ranks_2_and_3_swap():
    at = open_app()
    at.session_state["whatif_tab"] = "Swapping two ranks"
    at.run()
    cells = swap_cells(at)
    (gain,) = cells[cells.panel.str.startswith("AP@4 (now") & (cells.i == 2) & (cells.j == 3)].delta
    assert gain == pytest.approx(1 / 9)


def test_callouts_name_the_best_swap_in_plain_words():
    lines = callout_lines(open_app())
    assert any("swapping ranks 2 and 3 (bagel and muffin) raises AP@4 (+0.111) and nDCG@4 (+0.061)" in line
               for line in lines), lines


def test_the_reader_picks_the_metric_the_best_swap_is_chosen_by_and_the_callout_names_it():
    at = open_app()
    assert at.selectbox(key="whatif_best_by").value == "nDCG"  # the primary metric by default
    assert any(line.startswith("Best single swap for nDCG@4: swapping ranks 2 and 3") for line in callout_lines(at))
    at.selectbox(key="whatif_best_by").select("RR").run()
    assert_no_failure(at)
    assert "No single swap of two ranks raises RR." in callout_lines(at)  # donut already leads


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


def test_a_one_document_list_says_swapping_needs_two_instead_of_an_empty_chart():
    at = open_app(ranking="a", qrels="a:1", k="1")
    at.session_state["whatif_tab"] = "Swapping two ranks"
    at.run()
    assert_no_failure(at)
    assert "Swapping needs at least two documents in the list." in [c.value for c in at.caption]
    assert not [chart for chart in vega_charts(at) if "swaps" in chart[1]]


def test_an_empty_list_explains_instead_of_drawing():
    at = open_app(ranking="", qrels="a:1", k="3")
    assert_no_failure(at)
    assert any("Add documents" in i.value for i in at.info)
    assert shown(at)["P@3"] == "0.000"


# ---- long lists and the confirmation under the chart -------------------------------------------------------------

LONG = {"ranking": ",".join(f"doc{i:03d}" for i in range(500)), "qrels": "doc003:1,doc499:1", "k": "10"}


def test_a_500_item_list_shows_the_swaps_of_its_top_40_ranks_with_rank_1_at_the_top():
    at = open_app(**LONG)
    at.session_state["whatif_tab"] = "Swapping two ranks"
    at.run()
    assert_no_failure(at)
    ((spec, datasets),) = [chart for chart in vega_charts(at) if "swaps" in chart[1]]
    cells = datasets["swaps"]
    assert cells.panel.nunique() == 6 and (cells.groupby("panel").size() == 40 * 39 // 2).all()
    assert (cells.i.min(), cells.j.max()) == (1, 40)
    assert spec["spec"]["layer"][0]["encoding"]["y"]["scale"]["domain"] == [40.5, 0.5]  # rank 1 on top
    assert "Ranks 1-40 of 500" in spec["title"]["subtitle"][1]
    (gain,) = cells[cells.panel.str.startswith("AP@10 ") & (cells.i == 1) & (cells.j == 4)].delta
    assert gain > 0  # swapping the relevant doc003 up from rank 4 to rank 1 raises AP@10


def test_applying_a_move_confirms_it_under_the_chart_with_an_undo_beside_it():
    at = open_app()
    at.session_state["whatif_tab"] = "Moving a document"
    at.run()
    at.selectbox(key="preview_doc").select("3. muffin").run()
    at.number_input(key="preview_rank_4").set_value(2).run()
    at.button(key="apply_preview").click().run()
    assert_no_failure(at)
    assert [unescaped(s.value) for s in at.success if "applied" in s.value] == [
        "Moving muffin from rank 3 to rank 2: applied."]
    keys = [b.key for b in at.button]
    assert keys.index("whatif_undo") == keys.index("apply_preview") + 1  # under the chart, beside the confirmation
    assert not [i.value for i in at.info if "applied" in i.value]  # not (also) at the top of the page
    at.button(key="whatif_undo").click().run()
    assert at.data_editor[0].value["doc"].tolist() == ["donut", "bagel", "muffin", "croissant"]
    assert [unescaped(i.value) for i in at.info if "Undid" in i.value] == ["Undid the last change."]
    at.run()  # said once: the next rerun no longer shows it
    assert not [i for i in at.info if "Undid" in i.value] and not [s for s in at.success if "applied" in s.value]


@pytest.mark.parametrize("tab", TABS)
def test_only_the_open_tab_builds_its_figure(tab, monkeypatch):
    import ui.explore.charts

    built = []
    for name in ("k_curves_chart", "k_curves_figure", "swap_heatmaps_chart", "swap_heatmaps_figure",
                 "move_preview_figure", "removal_bars_figure", "range_figure", "baseline_figure"):
        builder = getattr(ui.explore.charts, name)
        monkeypatch.setattr(ui.explore.charts, name,
                            lambda *a, _b=builder, _n=name, **kw: built.append(_n) or _b(*a, **kw))
    at = open_app(**LONG)
    at.button(key="pin_baseline").click().run()
    built.clear()
    at.session_state["whatif_tab"] = tab
    at.run()
    assert_no_failure(at)
    # The plotly figures of the k chart and the swap heatmaps are made only for a PNG or SVG, when one is clicked.
    expected = {"Changing k": "k_curves_chart", "Swapping two ranks": "swap_heatmaps_chart",
                "Moving a document": "move_preview_figure", "Removing a document": "removal_bars_figure",
                "Range under reordering": "range_figure", "Against the baseline": "baseline_figure"}[tab]
    assert built == [expected]


def test_the_move_preview_starts_on_readmes_move_and_offers_a_real_move_for_any_document():
    at = open_app()
    at.session_state["whatif_tab"] = "Moving a document"
    at.run()
    assert (at.selectbox(key="preview_doc").value, at.number_input(key="preview_rank_4").value) == ("3. muffin", 2)
    assert figures(at)[0].layout.title.text.startswith("Moving muffin from rank 3 to rank 2")
    assert not at.button(key="apply_preview").disabled
    at.selectbox(key="preview_doc").select("1. donut").run()
    assert at.number_input(key="preview_rank_4").value == 2  # never "from rank 1 to rank 1"
    assert_no_failure(at)
