"""The what-if figure builders plot the numbers they are given: checked trace by trace on the pastry example."""

from __future__ import annotations

import ast
import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from metrics import Conventions
from metrics.whatif import (
    Change,
    MetricSet,
    Scenario,
    compare_to_baseline,
    metric_curves,
    move_preview,
    removal_deltas,
    swap_deltas,
    value_range,
)
from tests.support.paths import REPO
from ui.ann.charts import sweep_figure, waterfall_figure
from ui.explore.charts import (
    BASELINE_COLOUR,
    METRIC_COLOURS,
    SWAP_SELECTION,
    baseline_figure,
    baseline_from_values,
    decode_selection,
    k_curves_chart,
    k_curves_figure,
    move_preview_figure,
    range_figure,
    rank_ticks,
    removal_bars_figure,
    swap_heatmaps_chart,
    swap_heatmaps_figure,
)

PASTRY = Scenario(["donut", "bagel", "muffin", "croissant"], {"donut": 1, "muffin": 1, "scone": 1}, k=4)
LABELS = ["P@4", "Recall@4", "RR", "AP@4", "nDCG@4", "Success@4"]


def trace(fig, name):
    matches = [t for t in fig.data if t.name == name]
    assert len(matches) == 1, f"expected one trace named {name!r}, found {[t.name for t in fig.data]}"
    return matches[0]


# ---- 1. changing k ----------------------------------------------------------------------------------------------


def test_k_curves_plot_precision_one_half_two_thirds_half_and_mark_k_4():
    fig = k_curves_figure(metric_curves(PASTRY))
    precision = trace(fig, "P@k")
    assert list(precision.x) == [1, 2, 3, 4]
    assert list(precision.y) == pytest.approx([1, 0.5, 2 / 3, 0.5])
    assert list(trace(fig, "Recall@k").y) == pytest.approx([1 / 3, 1 / 3, 2 / 3, 2 / 3])
    assert list(trace(fig, "RR@k").y) == pytest.approx([1, 1, 1, 1])
    assert precision.hovertemplate[0].startswith("P@%{x} = %{y:.3f}")
    # The point at k = 4 is the ring: a larger white marker edged in the metric's colour, hovering "current k".
    assert list(precision.marker.size) == [5, 5, 5, 13] and list(precision.marker.line.width) == [0, 0, 0, 3]
    assert list(precision.marker.color) == [precision.line.color] * 3 + ["white"]
    assert precision.hovertemplate[3].startswith("current k=4: P@4 = ")
    assert len(fig.data) == len(metric_curves(PASTRY).metrics.specs), "one trace per metric"
    k_lines = [shape for shape in fig.layout.shapes if shape.x0 == 4 and shape.x1 == 4]
    assert len(k_lines) == 6, "every panel marks the current k"
    assert "current k = 4" in fig.layout.title.text


@pytest.mark.parametrize("length, k", [(4, 4), (4, 6), (150, 10)])  # k beyond the list; a curve thinned and unmarked
def test_the_k_chart_the_page_draws_holds_the_values_and_marks_of_its_slide_figure(length, k):
    """The page draws the k chart with Vega-Lite and its PNG/SVG from the plotly figure: the same curves, colours,
    hover texts and current k, and a spec that is the same for every k within the list (only the data changes)."""
    docs = [f"d{i}" for i in range(length)]
    scenario = Scenario(docs, {doc: i % 3 for i, doc in enumerate(docs[::3])}, k=k)
    curves = metric_curves(scenario)
    chart, figure = k_curves_chart(curves), k_curves_figure(curves)
    rows = chart["datasets"]["curves"]
    for spec, drawn in zip(curves.metrics.specs, figure.data):
        panel = rows[rows.family == spec.family]
        assert panel.k.tolist() == list(drawn.x) and panel.value.tolist() == list(drawn.y)
        assert panel[panel.current].k.tolist() == [k]
        assert panel[panel.current].tip.tolist() == [drawn.hovertemplate[list(drawn.x).index(k)].replace(
            "%{y:.3f}<extra></extra>", f"{panel[panel.current].value.iloc[0]:.3f}")]
        scale = chart["spec"]["layer"][0]["encoding"]["color"]["scale"]
        assert scale["range"][scale["domain"].index(spec.family)] == drawn.line.color
    same_list_other_k = k_curves_chart(metric_curves(Scenario(docs, scenario.judgments, k=max(1, k - 1))))
    if k <= length:
        assert {**same_list_other_k, "datasets": None} == {**chart, "datasets": None}
    assert chart["spec"]["layer"][0]["mark"]["point"] == (False if len(curves.ks) > 100 else {"size": 25})


def test_each_metric_keeps_its_colour_across_charts():
    curves = k_curves_figure(metric_curves(PASTRY))
    removals = removal_bars_figure(removal_deltas(PASTRY))
    assert trace(curves, "AP@k").line.color == trace(removals, "AP@4").marker.color == METRIC_COLOURS["AP"]
    assert trace(curves, "nDCG@k").line.color == trace(removals, "nDCG@4").marker.color == METRIC_COLOURS["nDCG"]


# ---- 2. reordering ----------------------------------------------------------------------------------------------


def test_swap_heatmaps_show_ap_gaining_a_ninth_when_ranks_2_and_3_swap():
    fig = swap_heatmaps_figure(swap_deltas(PASTRY))
    ap = np.array(trace(fig, "AP@4").z, dtype=float)
    assert ap[1, 2] == pytest.approx(1 / 9)  # row rank 2, column rank 3
    assert np.isnan(ap[2, 1]) and np.isnan(ap[1, 1])  # each pair is drawn once, above the diagonal


def test_precision_and_recall_heatmaps_are_flat_everywhere_on_pastry_at_k_4():
    fig = swap_heatmaps_figure(swap_deltas(PASTRY))
    for label in ("P@4", "Recall@4"):
        z = np.array(trace(fig, label).z, dtype=float)
        assert np.all(z[np.isfinite(z)] == 0)
        assert np.isfinite(z).sum() == 6  # the 6 pairs of 4 ranks


def test_all_swap_heatmaps_share_one_zero_centred_diverging_scale():
    fig = swap_heatmaps_figure(swap_deltas(PASTRY))
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    assert [t.name for t in heatmaps] == LABELS
    assert {t.coloraxis for t in heatmaps} == {"coloraxis"}
    axis = fig.layout.coloraxis
    assert axis.cmin == -axis.cmax
    assert axis.cmax == pytest.approx(2 / 3)  # RR drops by 2/3 when donut and croissant swap
    assert axis.colorscale[0][1] != axis.colorscale[-1][1]


def test_a_long_lists_heatmaps_label_their_ranks_from_1_never_0():
    sixty = Scenario([f"d{i}" for i in range(1, 61)], {"d1": 1, "d5": 2, "d30": 1}, k=10)
    fig = swap_heatmaps_figure(swap_deltas(sixty))  # the top 40 ranks
    axes = [fig.layout[name] for name in fig.layout if name.startswith(("xaxis", "yaxis"))]
    assert len(axes) == 12  # six heatmaps, each with its rank i and rank j axis
    assert all(list(axis.tickvals) == [1, 5, 10, 15, 20, 25, 30, 35, 40] for axis in axes)


def test_rank_axes_label_every_rank_up_to_15_then_about_ten_from_rank_1():
    assert rank_ticks(4) == [1, 2, 3, 4]
    assert rank_ticks(15) == list(range(1, 16))
    assert rank_ticks(20) == [1, 3, 5, 7, 9, 11, 13, 15, 17, 19]
    assert rank_ticks(60) == [1, 10, 20, 30, 40, 50, 60]
    assert rank_ticks(1000) == [1, *range(100, 1001, 100)]


def swap_cells(scenario: Scenario) -> pd.DataFrame:
    """The swap chart's cells as the page sends them (its named dataset)."""
    return swap_heatmaps_chart(swap_deltas(scenario))["datasets"]["swaps"]


def test_the_pages_swap_chart_shows_the_slides_numbers_cell_for_cell_on_one_zero_centred_scale():
    for scenario in (PASTRY, Scenario([f"d{i}" for i in range(1, 61)], {"d1": 1, "d5": 2, "d30": 1}, k=10)):
        swaps = swap_deltas(scenario)
        spec, figure = swap_heatmaps_chart(swaps), swap_heatmaps_figure(swaps)
        cells = spec["datasets"]["swaps"]
        for heatmap, title in zip(figure.data, spec["facet"]["sort"]):
            panel = cells[cells.panel == title]
            z = np.array(heatmap.z, dtype=float)
            assert title.startswith(heatmap.name + " (now ")
            assert len(panel) == np.isfinite(z).sum() == swaps.window * (swaps.window - 1) // 2
            assert (panel.i < panel.j).all()
            assert panel.delta.tolist() == z[panel.i - 1, panel.j - 1].tolist()
        colour = spec["spec"]["layer"][0]["encoding"]["color"]["scale"]
        assert colour["domain"] == [figure.layout.coloraxis.cmin, figure.layout.coloraxis.cmax]
        assert colour["domainMid"] == 0 and colour["scheme"] == "redblue"  # ColorBrewer's RdBu: red lowers
        assert spec["title"]["subtitle"] == figure.layout.title.subtitle.text.split("<br>")


def test_a_long_lists_swap_chart_numbers_its_ranks_from_1_with_rank_1_at_the_top():
    sixty = Scenario([f"d{i}" for i in range(1, 61)], {"d1": 1, "d5": 2, "d30": 1}, k=10)
    encoding = swap_heatmaps_chart(swap_deltas(sixty))["spec"]["layer"][0]["encoding"]
    for axis in ("x", "y"):
        assert encoding[axis]["axis"]["values"] == [1, 5, 10, 15, 20, 25, 30, 35, 40]
    assert encoding["y"]["scale"]["domain"] == [40.5, 0.5]  # reversed: rank 1 on top


def test_hovering_a_swap_cell_names_both_documents_and_clicking_it_carries_the_swap():
    cells = swap_cells(PASTRY)
    cell = cells[cells.panel.str.startswith("AP@4 ") & (cells.i == 2) & (cells.j == 3)]
    (tip,) = cell.tip
    assert tip == "Swap rank 2 (bagel) and rank 3 (muffin) · AP@4: 0.556 → 0.667 (+0.111)"
    (layer,) = [layer for layer in swap_heatmaps_chart(swap_deltas(PASTRY))["spec"]["layer"] if "params" in layer]
    assert layer["params"][0]["name"] == SWAP_SELECTION and layer["params"][0]["select"]["fields"] == ["i", "j"]


def test_a_window_too_long_to_aim_at_takes_no_clicks():
    long = Scenario([f"d{i}" for i in range(1, 61)], {"d1": 1}, k=10)
    assert all("params" not in layer for layer in
               swap_heatmaps_chart(swap_deltas(long, window=60))["spec"]["layer"])


def test_move_preview_plots_before_and_after_for_every_metric():
    fig = move_preview_figure(move_preview(PASTRY, doc_index=2, new_rank=2))
    before, after = trace(fig, "Before"), trace(fig, "After")
    assert list(before.x) == list(after.x) == LABELS
    assert list(before.y) == pytest.approx([0.5, 2 / 3, 1, 5 / 9, 0.7039180890341347, 1])
    assert list(after.y) == pytest.approx([0.5, 2 / 3, 1, 2 / 3, 0.7653606369886217, 1])
    assert before.marker.color == BASELINE_COLOUR
    assert fig.layout.title.text == "Moving muffin from rank 3 to rank 2: before and after"
    assert "raises AP@4 (+0.111) and nDCG@4 (+0.061)" in fig.layout.title.subtitle.text


# ---- 3. removing items ------------------------------------------------------------------------------------------


def test_removal_bars_have_one_group_per_item_and_one_bar_per_metric():
    fig = removal_bars_figure(removal_deltas(PASTRY))
    assert [t.name for t in fig.data] == LABELS
    assert list(fig.data[0].x) == ["1. donut", "2. bagel", "3. muffin", "4. croissant"]
    assert list(trace(fig, "AP@4").y) == pytest.approx([-7 / 18, 1 / 9, -2 / 9, 0])
    assert list(trace(fig, "RR").y) == pytest.approx([-0.5, 0, 0, 0])
    assert [tuple(c) for c in trace(fig, "RR").customdata] == [("remove", i) for i in range(4)]


# ---- 4. range ---------------------------------------------------------------------------------------------------


def test_range_figure_plots_worst_best_random_and_current_values():
    ranges = value_range(PASTRY)
    fig = range_figure(ranges)
    bars = fig.data[0]
    assert list(bars.base) == pytest.approx(ranges.minimum)
    assert list(np.add(bars.base, bars.y)) == pytest.approx(ranges.maximum)
    assert bars.base[3] + bars.y[3] == pytest.approx(2 / 3)  # the best order puts muffin second: AP@4 = 2/3
    assert list(fig.data[1].y) == pytest.approx(ranges.expected)
    assert fig.data[1].y[2] == pytest.approx(13 / 18)  # E[RR] over the 24 orders
    assert "exact mean over all 24 orders" in fig.data[1].name
    assert list(fig.data[2].y) == pytest.approx([0.5, 2 / 3, 1, 5 / 9, 0.7039180890341347, 1])


# ---- 5. baseline ------------------------------------------------------------------------------------------------


def test_baseline_figure_plots_both_rankings_side_by_side():
    comparison = compare_to_baseline(PASTRY, ["bagel", "donut", "croissant", "muffin"])
    fig = baseline_figure(comparison)
    assert [t.name for t in fig.data] == ["Baseline", "Current"]
    assert list(fig.data[0].y) == pytest.approx(comparison.baseline)
    assert list(fig.data[1].y) == pytest.approx(comparison.current)
    assert fig.data[0].y[2] == 0.5 and fig.data[1].y[2] == 1.0
    assert "RR +0.500" in fig.layout.title.subtitle.text


def test_baseline_from_stored_values_accepts_labels_or_trec_eval_names():
    comparison = baseline_from_values(
        MetricSet(4),
        {"P_4": 0.25, "recall_4": 1 / 3, "recip_rank": 0.5, "map_cut_4": 0.1, "ndcg_cut_4": 0.3, "success_4": 1.0},
        dict(zip(LABELS, [0.5, 2 / 3, 1, 5 / 9, 0.704, 1])),
    )
    assert list(baseline_figure(comparison).data[0].y) == pytest.approx([0.25, 1 / 3, 0.5, 0.1, 0.3, 1.0])
    with pytest.raises(ValueError, match=r"baseline values have no entry for Recall@4 \(or recall.4\); got P@4"):
        baseline_from_values(MetricSet(4), {"P@4": 0.5}, {})


# ---- 6. direct manipulation -------------------------------------------------------------------------------------


def test_a_clicked_heatmap_cell_decodes_to_its_swap():
    # What Streamlit stores under the chart's key once a cell is clicked: the selection's fields, ranks.
    event = {"selection": {SWAP_SELECTION: [{"i": 2, "j": 3}]}}
    change = decode_selection(event)
    assert change == Change("swap", 1, 2)
    assert change.apply(PASTRY.ranking) == ["donut", "muffin", "bagel", "croissant"]


def test_a_clicked_removal_bar_decodes_to_its_removal_from_an_attribute_style_event():
    event = SimpleNamespace(selection=SimpleNamespace(points=[{"x": "2. bagel", "customdata": ["remove", 1]}]))
    assert decode_selection(event) == Change("remove", 1)


@pytest.mark.parametrize("event", [
    None,
    {},
    {"selection": {"points": [], "point_indices": [], "box": [], "lasso": []}},
    {"selection": {"points": [{"x": 3, "y": 0.5}]}},  # a point on a curve: no change attached
    {"selection": {"points": [{"customdata": 0.42}]}},
    {"selection": {SWAP_SELECTION: {}}},  # nothing clicked yet
    {"selection": {SWAP_SELECTION: [{"i": "2", "j": 3}]}},
    {"selection": {SWAP_SELECTION: [{"i": 0.5, "j": 3}]}},
    {"selection": {SWAP_SELECTION: [{"j": 3}]}},
])
def test_selections_without_a_change_decode_to_none(event):
    assert decode_selection(event) is None


def test_the_figure_builders_never_import_streamlit():
    imported = set()
    for source in (REPO / "ui" / "explore" / "charts.py", REPO / "ui" / "common" / "chart_layout.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module.split(".")[0])
    assert "streamlit" not in imported


# ---- figures built unchecked -------------------------------------------------------------------------------------


@pytest.mark.parametrize("length", [4, 60])  # clickable cells, and a window too long for them
def test_figures_built_without_plotlys_checks_are_what_the_checks_make_of_them(length):
    """The k curves, the swap heatmaps and the ANN page's two charts skip plotly's property checks on every edit; here
    they pass them, and the checks change nothing the browser receives."""
    docs = [f"d{i}" for i in range(length)]
    scenario = Scenario(tuple(docs), {doc: i % 3 for i, doc in enumerate(docs[::2])}, 3, Conventions())
    sweep = sweep_figure("efSearch", [1, 2, 4, 8], [0.2, 0.5, 0.9, 1.0], [0.3, 0.4, 0.5, 0.5], [0.3, 0.35, 0.4, 0.4],
                         [9e4, 5e4, 2e4, 1e4], 0.5, 0.4, 10, length)
    assert [trace["xaxis"] for trace in sweep.to_dict()["data"]] == ["x"] * 5 + ["x2"]  # the qps trace: below
    waterfall = waterfall_figure(["exact top k", "ANN top k"], [length, length - 1], [2, 1], [0, length % 3],
                                 length + 2)
    for figure in (k_curves_figure(metric_curves(scenario)), swap_heatmaps_figure(swap_deltas(scenario)), sweep,
                   waterfall):
        checked = go.Figure(figure.to_dict())  # raises on any invalid property
        assert json.loads(pio.to_json(figure, validate=False)) == json.loads(pio.to_json(checked, validate=False))
