"""Pure figure builders for the what-if charts: data from :mod:`metrics.whatif` in, ``go.Figure`` out (and for the
k chart on the page, a Vega-Lite spec: :func:`k_curves_chart`).

Nothing here calls Streamlit, so every figure can be tested by reading its traces. Each metric keeps one colour
in every chart (``METRIC_COLOURS``, Okabe-Ito, readable on a light background and for colour-blind readers), and
every swap heatmap shares one zero-centred diverging scale: blue raises a metric, red lowers it.

Direct manipulation: each removal bar carries the change it stands for as ``customdata`` (``("remove", i)``,
0-based positions); render with ``st.plotly_chart(fig, on_select="rerun", selection_mode="points", key=...)`` and
pass the returned event to :func:`decode_selection`. The swap heatmaps are drawn with Vega-Lite
(:func:`swap_heatmaps_chart`): a click selects a cell's two ranks, which :func:`decode_selection` reads as well.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from metrics.whatif import (
    SAME,
    BaselineComparison,
    Change,
    Curves,
    MetricSet,
    MovePreview,
    RemovalDeltas,
    SwapDeltas,
    ValueRange,
    format_delta,
    join_words,
)
from ui.common.chart_layout import (
    METRIC_COLOURS,
    apply_layout,
    axis_name,
    colorscale,
    house_layout,
    metric_colour,
    plain,
    subplots_layout,
    unchecked_figure,
)

BASELINE_COLOUR = "#A0A4AB"
#: Swap heatmaps of windows up to this many ranks take clicks (beyond, the cells are too small to aim at).
CLICKABLE_SWAPS_UP_TO = 40
#: Removal bars are drawn for the top this many items (six bars each); a longer list shows its top.
REMOVAL_BARS_UP_TO = 40
CURRENT_K_COLOUR = "#444444"
#: Red for a drop, white for no change, blue for a gain.
DIVERGING_SCALE = "RdBu"

#: What to look for in each panel of the k chart.
CURVE_HINTS: dict[str, str] = {
    "P": "falls when a non-relevant rank enters",
    "Recall": "never falls, often flat",
    "RR": "0 until the first hit (card RR: uncut)",
    "Success": "0 until the first hit, then 1",
}

def rank_ticks(n: int) -> list[int]:
    """The ranks labelled on an axis of ranks 1..n: every rank up to 15; beyond, at most about ten, from rank 1 on,
    at the smallest round step that allows it (1, 3, 5, …; 1, 5, 10, …; 1, 10, 20, …; 1, 20, 40, …)."""
    if n <= 15:
        return list(range(1, n + 1))
    step = next(base * 10 ** power for power in range(len(str(n))) for base in (1, 2, 5) if n / (base * 10 ** power)
                <= 10)
    if step == 2:  # 1, 3, 5, …: a tick at 2 would crowd the one at 1
        return list(range(1, n + 1, 2))
    return [1, *range(step, n + 1, step)]


def _grid(count: int, columns: int) -> tuple[int, int]:
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
        raise ValueError(f"Argument `columns` has to be a positive integer, but got {columns!r}")
    columns = min(columns, count)
    return math.ceil(count / columns), columns


def _cell(index: int, columns: int) -> tuple[int, int]:
    return index // columns + 1, index % columns + 1


def _axis_suffix(index: int) -> str:
    return "" if index == 0 else str(index + 1)


# Shapes are added in one layout update: plotly's add_vline(row="all") re-validates the layout once per subplot.
def _vertical_line(index: int, x: float, line: dict) -> dict:
    suffix = _axis_suffix(index)
    return dict(type="line", xref=f"x{suffix}", yref=f"y{suffix} domain", x0=x, x1=x, y0=0, y1=1, line=line)


def _horizontal_line(index: int, y: float, line: dict) -> dict:
    suffix = _axis_suffix(index)
    return dict(type="line", xref=f"x{suffix} domain", yref=f"y{suffix}", x0=0, x1=1, y0=y, y1=y, line=line)


# ---- 1. changing k -----------------------------------------------------------------------------------------------


def _k_panel_titles(specs) -> list[str]:
    """Each panel's title in the k chart: the metric's curve label, and what to look for in it."""
    return [f"{spec.curve_label}: {CURVE_HINTS[spec.family]}" if spec.family in CURVE_HINTS else spec.curve_label
            for spec in specs]


def k_curves_figure(curves: Curves, *, columns: int = 3) -> go.Figure:
    """Small multiples, one per metric, of its value at every k; a dashed line and a ring mark the current k.

    Traces: ``data[m]`` is metric m's curve (``y`` = values at ``x`` = k); its point at the current k is the ring
    (a larger white marker with the metric's colour as its edge, and its own hover text). One trace per metric, not
    a curve and a marker: the figure is redrawn in the browser on every edit, so built unchecked
    (ui.common.chart_layout).
    """
    specs = curves.metrics.specs
    rows, columns = _grid(len(specs), columns)
    titles = _k_panel_titles(specs)
    layout = subplots_layout(rows, columns, titles, shared_xaxes="all", shared_yaxes="all",
                             horizontal_spacing=0.05, vertical_spacing=0.16)
    ks = np.asarray(curves.ks)
    k = curves.current_k
    at_k = int(np.searchsorted(ks, k))
    # A long curve is drawn as a line: only its ring is a marker.
    sizes = np.full(ks.size, 5 if ks.size <= 100 else 0)
    sizes[at_k] = 13
    edges = np.zeros(ks.size)
    edges[at_k] = 3
    data = []
    for m, spec in enumerate(specs):
        values = curves.values[m]
        colour = metric_colour(spec.family)
        fills = [colour] * ks.size
        fills[at_k] = "white"
        hover = [spec.curve_label.replace("@k", "@%{x}") + " = %{y:.3f}<extra></extra>"] * ks.size
        hover[at_k] = f"current k={k}: {spec.curve_label.replace('@k', f'@{k}')} = %{{y:.3f}}<extra></extra>"
        data.append(dict(
            type="scatter", x=ks, y=values, mode="lines+markers", name=spec.curve_label, legendgroup=spec.family,
            line=dict(color=colour, width=2.5, shape="linear"),
            marker=dict(color=fills, size=sizes, line=dict(color=colour, width=edges)),
            hovertemplate=hover, showlegend=False, xaxis=f"x{_axis_suffix(m)}", yaxis=f"y{_axis_suffix(m)}",
        ))
    line = dict(color=CURRENT_K_COLOUR, dash="dash", width=1.5)
    layout["shapes"] = [_vertical_line(m, k, line) for m in range(len(specs))]
    for index in range(rows * columns):
        layout[axis_name("y", index)].update(range=[-0.04, 1.08], tickformat=".1f")
        layout[axis_name("x", index)].update(range=[0.5, float(ks[-1]) + 0.5] if ks.size else None)
    for col in range(columns):
        layout[axis_name("x", (rows - 1) * columns + col)]["title"] = dict(text="cut-off k")
    return unchecked_figure(data, house_layout(
        layout,
        f"Every metric at every cut-off k (dashed line: current k = {k})",
        "P@k can fall as non-relevant documents enter, Recall@k never falls, RR@k is flat after the first hit",
        height=260 * rows + 120,
    ))


#: The k chart's small multiples, as the page draws them: each panel's size in CSS pixels (three to a row fit the
#: what-if section at 1280 px).
K_PANEL_WIDTH, K_PANEL_HEIGHT = 230, 170


def k_curves_chart(curves: Curves, *, columns: int = 3) -> dict[str, Any]:
    """The k chart as the page draws it: a Vega-Lite spec of the same small multiples as :func:`k_curves_figure`
    (which draws the chart's PNG and SVG for slides), a dashed line and a ring at the current k.

    Its data, the named dataset ``curves`` (one row per metric and k: ``panel``, ``family``, ``k``, ``value``,
    ``current`` true at the current k, ``tip`` its hover text), is the only part that changes with k or an edit;
    the rest of the spec changes only with the metrics and the list's last k. Streamlit then updates the chart
    drawn in the browser in place, where a plotly figure that changed in any way is a new chart to build (its
    identity is the figure).
    """
    specs = curves.metrics.specs
    ks = np.asarray(curves.ks)
    k = curves.current_k
    titles = _k_panel_titles(specs)
    rows = {"panel": [], "family": [], "k": [], "value": [], "current": [], "tip": []}
    for m, spec in enumerate(specs):
        for c, at in enumerate(ks.tolist()):
            value = float(curves.values[m][c])
            label = spec.curve_label.replace("@k", f"@{at}")
            rows["panel"].append(titles[m])
            rows["family"].append(spec.family)
            rows["k"].append(int(at))
            rows["value"].append(value)
            rows["current"].append(at == k)
            rows["tip"].append(f"current k={k}: {label} = {value:.3f}" if at == k else f"{label} = {value:.3f}")
    families = [spec.family for spec in specs]
    colour = {"field": "family", "type": "nominal", "legend": None,
              "scale": {"domain": families, "range": [metric_colour(family) for family in families]}}
    last = float(ks[-1]) if ks.size else 1.0
    x = {"field": "k", "type": "quantitative", "title": "cut-off k",
         "scale": {"domain": [0.5, last + 0.5], "nice": False}, "axis": {"tickMinStep": 1, "format": "d"}}
    y = {"field": "value", "type": "quantitative", "title": None, "scale": {"domain": [-0.04, 1.08], "nice": False},
         "axis": {"format": ".1f"}}
    tip = {"field": "tip", "type": "nominal"}
    at_k = [{"filter": "datum.current"}]
    return {
        "datasets": {"curves": pd.DataFrame(rows)},
        "data": {"name": "curves"},
        "title": {"text": "Every metric at every cut-off k (dashed line and ring: the current k)", "anchor": "start",
                  "subtitle": "P@k can fall as non-relevant documents enter, Recall@k never falls, RR@k is flat "
                              "after the first hit"},
        "facet": {"field": "panel", "type": "nominal", "sort": titles, "title": None,
                  "header": {"labelFontSize": 12, "labelLimit": 0}},
        "columns": columns,
        "spec": {
            "width": K_PANEL_WIDTH, "height": K_PANEL_HEIGHT,
            "layer": [
                # A long curve is drawn as a line: only its ring is a marker.
                {"mark": {"type": "line", "strokeWidth": 2.5, "point": {"size": 25} if ks.size <= 100 else False},
                 "encoding": {"x": x, "y": y, "color": colour, "tooltip": tip}},
                {"transform": at_k, "mark": {"type": "rule", "strokeDash": [5, 4], "strokeWidth": 1.5,
                                             "color": CURRENT_K_COLOUR},
                 "encoding": {"x": {"field": "k", "type": "quantitative"}}},
                {"transform": at_k, "mark": {"type": "point", "filled": True, "fill": "white", "fillOpacity": 1,
                                             "size": 170, "strokeWidth": 3, "opacity": 1},
                 "encoding": {"x": x, "y": y, "stroke": colour, "tooltip": tip}},
            ],
        },
    }


# ---- 2. reordering -----------------------------------------------------------------------------------------------


def swap_heatmaps_figure(swaps: SwapDeltas, *, columns: int = 3) -> go.Figure:
    """The swap heatmaps as a plotly figure, for the chart's PNG and SVG (the page draws
    :func:`swap_heatmaps_chart`, the same cells in Vega-Lite): one heatmap per metric, side by side, cell (row i,
    column j), i < j, the change in that metric if ranks i and j swap, rank 1 at the top left. All heatmaps share
    one zero-centred diverging colour scale (``layout.coloraxis``). A list longer than the swaps' window shows the
    swaps among its top ``swaps.window`` ranks, and the subtitle says so.

    Traces: ``data[m]`` is metric m's heatmap (``z[i-1][j-1]`` for ranks i < j, NaN elsewhere). Built unchecked, as
    the k curves are (ui.common.chart_layout).
    """
    specs = swaps.metrics.specs
    n = swaps.window
    rows, columns = _grid(len(specs), columns)
    titles = [f"{spec.label} (now {value:.3f})" for spec, value in zip(specs, swaps.current)]
    layout = subplots_layout(rows, columns, titles, horizontal_spacing=0.06, vertical_spacing=0.14)
    upper_i, upper_j = np.triu_indices(n, 1)
    scale = _swap_scale(swaps)
    ranks = np.arange(1, n + 1)
    data = []
    for m, spec in enumerate(specs):
        suffix = _axis_suffix(m)
        axes = dict(xaxis=f"x{suffix}", yaxis=f"y{suffix}")
        z = np.full((n, n), np.nan)
        z[upper_i, upper_j] = swaps.deltas[m, upper_i, upper_j]
        data.append(dict(type="heatmap", z=z, x=ranks, y=ranks, coloraxis="coloraxis", name=spec.label,
                         xgap=1 if n <= 30 else 0, ygap=1 if n <= 30 else 0,
                         hovertemplate=f"Swap ranks %{{y}} and %{{x}}: {spec.label} %{{z:+.3f}}<extra></extra>",
                         **axes))
        # Square cells with rank 1 at the top left, however long the list.
        layout[axis_name("y", m)].update(autorange="reversed", scaleanchor=f"x{suffix}", constrain="domain")
        layout[axis_name("x", m)].update(constrain="domain")
    # Every rank is labelled on short lists; long lists get about ten ticks, from rank 1 (plotly's own ticks
    # started at 0, a rank no list has).
    ticks = dict(tickmode="array", tickvals=rank_ticks(n))
    for index in range(rows * columns):
        for letter in "xy":
            layout[axis_name(letter, index)].update(showgrid=False, zeroline=False, **ticks)
    for r in range(rows):
        layout[axis_name("y", r * columns)]["title"] = dict(text="rank i")
    for c in range(columns):
        layout[axis_name("x", (rows - 1) * columns + c)]["title"] = dict(text="swapped with rank j")
    k = swaps.metrics.k
    if 0 < k < n:
        # The edge of the top k: swaps that cross it change what the @k metrics can see.
        edge = dict(color=CURRENT_K_COLOUR, dash="dot", width=1)
        layout["shapes"] = [shape for m in range(len(specs)) for shape in
                            (_vertical_line(m, k + 0.5, edge), _horizontal_line(m, k + 0.5, edge))]
    layout["coloraxis"] = dict(
        colorscale=colorscale(DIVERGING_SCALE), cmin=-scale, cmax=scale, cmid=0.0,
        colorbar=dict(title=dict(text="change"), tickformat="+.2f", thickness=14),
    )
    title, subtitle = _swap_titles(swaps)
    layout = house_layout(layout, title, "<br>".join(subtitle), height=330 * rows + 130)
    layout["margin"]["t"] = 130  # room for the two-line subtitle
    return unchecked_figure(data, layout)


def _without_field(channel: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in channel.items() if name != "field"}


def _swap_scale(swaps: SwapDeltas) -> float:
    """The largest change any swap makes to any metric: the colour scale runs from minus it to it (1 if none)."""
    finite = swaps.deltas[np.isfinite(swaps.deltas)]
    scale = float(np.abs(finite).max()) if finite.size else 0.0
    return scale if scale > SAME else 1.0


def swaps_take_clicks(swaps: SwapDeltas) -> bool:
    """Whether the swap chart of these swaps takes clicks: a window up to :data:`CLICKABLE_SWAPS_UP_TO` ranks."""
    return swaps.window <= CLICKABLE_SWAPS_UP_TO


def _swap_titles(swaps: SwapDeltas) -> tuple[str, list[str]]:
    """The swap chart's title and its subtitle's two lines, the same on the page and on a slide."""
    n, k = swaps.window, swaps.metrics.k
    shown = (f"Ranks 1-{n} of {len(swaps.ranking):,}: the swaps among the top {n}." if swaps.windowed
             else f"All {n} ranks.")
    action = ("Click a cell to apply the swap." if swaps_take_clicks(swaps) else
              f"Windows over {CLICKABLE_SWAPS_UP_TO} ranks: hover shows ranks; apply moves from the move preview.")
    return ("What swapping two ranks does to each metric",
            ["Cell (i, j): the change if ranks i and j swap. Blue raises, red lowers, white changes nothing"
             + (f"; dotted lines mark the top k = {k}." if 0 < k < n else "."), f"{shown} {action}"])


#: The swap chart's panels, as the page draws them, in CSS pixels (three to a row fit the what-if section at 1280 px).
SWAP_PANEL_SIZE = 200
#: The Vega-Lite selection a click on a swap cell makes (its fields: the two ranks, 1-based).
SWAP_SELECTION = "swap_cell"


def swap_heatmaps_chart(swaps: SwapDeltas, *, columns: int = 3) -> dict[str, Any]:
    """The swap heatmaps as the page draws them: a Vega-Lite spec of the same small multiples as
    :func:`swap_heatmaps_figure` (which draws the chart's PNG and SVG for slides). Cell (row i, column j), i < j, is
    the change in that panel's metric if ranks i and j swap, rank 1 at the top left, on one zero-centred diverging
    scale shared by every panel (blue raises, red lowers); dotted lines mark the top k.

    Its data, the named dataset ``swaps``, has one row per metric and cell: ``panel``, ``i``, ``j`` (ranks),
    ``delta``, ``tip`` the hover text (doc ids as typed: Vega's tooltips show text, never markup), and ``edge``,
    true on one row per panel (it draws the panel's lines at the top k). A click on a cell of a window up to
    :data:`CLICKABLE_SWAPS_UP_TO` ranks selects it (:data:`SWAP_SELECTION`, read back by :func:`decode_selection`).
    Six panels of rectangles draw in the browser in a fraction of the time the plotly figure's six heatmaps, each
    under a layer of invisible markers to click, took.
    """
    specs = swaps.metrics.specs
    ranking = swaps.ranking
    n = swaps.window
    titles = [f"{spec.label} (now {value:.3f})" for spec, value in zip(specs, swaps.current)]
    upper_i, upper_j = np.triu_indices(n, 1)
    scale = _swap_scale(swaps)
    clickable = swaps_take_clicks(swaps)
    k = swaps.metrics.k
    rows: dict[str, list] = {"panel": [], "i": [], "j": [], "delta": [], "tip": [], "edge": []}
    for m, spec in enumerate(specs):
        before = swaps.current[m]
        first = True
        for i, j in zip(upper_i.tolist(), upper_j.tolist()):
            delta = float(swaps.deltas[m, i, j])
            if not math.isfinite(delta):
                continue
            rows["panel"].append(titles[m])
            rows["i"].append(i + 1)
            rows["j"].append(j + 1)
            rows["delta"].append(delta)
            rows["tip"].append(f"Swap rank {i + 1} ({ranking[i]}) and rank {j + 1} ({ranking[j]}) · {spec.label}: "
                               f"{before:.3f} → {before + delta:.3f} "
                               f"({format_delta(delta) if abs(delta) > SAME else 'no change'})")
            rows["edge"].append(first)  # one row per panel carries its lines at the top k
            first = False
    ticks = rank_ticks(n)
    position = {"type": "quantitative", "axis": {"values": ticks, "format": "d", "grid": False, "labelOverlap": False}}
    x = {"field": "j", "title": "swapped with rank j", "scale": {"domain": [0.5, n + 0.5], "nice": False,
                                                               "zero": False}, **position}
    y = {"field": "i", "title": "rank i", "scale": {"domain": [n + 0.5, 0.5], "nice": False, "zero": False},
         **position}
    cell = {
        "mark": {"type": "rect", "stroke": "#111111", "cursor": "pointer" if clickable else "default"},
        "transform": [{"calculate": "datum.j - 0.5", "as": "j0"}, {"calculate": "datum.j + 0.5", "as": "j1"},
                      {"calculate": "datum.i - 0.5", "as": "i0"}, {"calculate": "datum.i + 0.5", "as": "i1"}],
        "encoding": {
            "x": {**x, "field": "j0"}, "x2": {"field": "j1"}, "y": {**y, "field": "i0"}, "y2": {"field": "i1"},
            "color": {"field": "delta", "type": "quantitative", "title": "change",
                      "scale": {"scheme": "redblue", "domain": [-scale, scale], "domainMid": 0},
                      "legend": {"format": "+.2f", "gradientLength": SWAP_PANEL_SIZE}},
            "tooltip": {"field": "tip", "type": "nominal"},
            "strokeWidth": {"value": 0.5 if n <= 30 else 0},
        },
    }
    if clickable:
        cell["params"] = [{"name": SWAP_SELECTION, "select": {"type": "point", "fields": ["i", "j"], "on": "click",
                                                               "clear": False, "toggle": False}}]
        cell["encoding"]["strokeWidth"] = {"condition": {"param": SWAP_SELECTION, "empty": False, "value": 2.5},
                                           "value": 0.5 if n <= 30 else 0}
    layers = [cell]
    if 0 < k < n:
        edge = {"type": "rule", "strokeDash": [2, 3], "color": CURRENT_K_COLOUR, "strokeWidth": 1}
        # The same axes as the cells' (a layer without them would merge Vega-Lite's default ticks into them).
        layers += [{"transform": [{"filter": "datum.edge"}], "mark": edge,
                    "encoding": {"x": {**_without_field(x), "datum": k + 0.5}}},
                   {"transform": [{"filter": "datum.edge"}], "mark": edge,
                    "encoding": {"y": {**_without_field(y), "datum": k + 0.5}}}]
    title, subtitle = _swap_titles(swaps)
    return {
        "datasets": {"swaps": pd.DataFrame(rows)},
        "data": {"name": "swaps"},
        "title": {"text": title, "anchor": "start", "subtitle": subtitle},
        "facet": {"field": "panel", "type": "nominal", "sort": titles, "title": None,
                  "header": {"labelFontSize": 12, "labelLimit": 0}},
        "columns": columns,
        "resolve": {"scale": {"color": "shared"}},
        "spec": {"width": SWAP_PANEL_SIZE, "height": SWAP_PANEL_SIZE, "layer": layers},
    }


def _before_after_bars(specs, before, after, names: tuple[str, str], after_hover: str,
                       customdata=None) -> go.Figure:
    """Grey bars for ``before`` and bars in each metric's colour for ``after``, grouped by metric."""
    labels = [spec.label for spec in specs]
    fig = go.Figure()
    fig.add_trace(go.Bar(
        x=labels, y=before, name=names[0], marker=dict(color=BASELINE_COLOUR),
        text=[f"{v:.3f}" for v in before], textposition="outside",
        hovertemplate=f"%{{x}} {names[0].lower()}: %{{y:.3f}}<extra></extra>",
    ))
    fig.add_trace(go.Bar(
        x=labels, y=after, name=names[1], marker=dict(color=[metric_colour(s.family) for s in specs]),
        text=[f"{v:.3f}" for v in after], textposition="outside", customdata=customdata,
        hovertemplate=after_hover,
    ))
    fig.update_layout(barmode="group", bargap=0.25, bargroupgap=0.05)
    fig.update_yaxes(range=[0, 1.15], title_text="value")
    return fig


def move_preview_figure(preview: MovePreview) -> go.Figure:
    """Before and after bars for every metric when one item moves (or any other change is previewed).

    Traces: ``data[0]`` before (grey), ``data[1]`` after (each metric's colour); ``y`` are the values.
    """
    specs = preview.metrics.specs
    fig = _before_after_bars(specs, preview.before, preview.after, ("Before", "After"),
                             "%{x} after: %{y:.3f}<extra></extra>",
                             customdata=[preview.change.customdata] * len(specs))
    return apply_layout(fig, plain(f"{preview.change.describe(preview.ranking_before)}: before and after"),
                        plain(preview.sentence), height=380)


# ---- 3. removing items -------------------------------------------------------------------------------------------


def removal_bars_figure(removals: RemovalDeltas, *, window: int = REMOVAL_BARS_UP_TO) -> go.Figure:
    """Grouped bars, one group per item of the top ``window`` ranks: how much each metric changes if that item is
    removed. A longer list shows its top ``window`` items, and the subtitle says so.

    Traces: ``data[m]`` is metric m, with ``y[i]`` its change when item i goes and ``customdata[i]`` =
    ``("remove", i)``.
    """
    specs = removals.metrics.specs
    ranking = removals.ranking[:window]
    items = [f"{rank}. {plain(doc)}" for rank, doc in enumerate(ranking, start=1)]
    fig = go.Figure()
    for m, spec in enumerate(specs):
        deltas = removals.deltas[: len(ranking), m]
        before = removals.current[m]
        text = [
            f"Remove {plain(doc)} (rank {i + 1})<br>{spec.label}: {before:.3f} → {before + d:.3f} "
            f"({format_delta(d) if abs(d) > SAME else 'no change'})"
            for i, (doc, d) in enumerate(zip(ranking, deltas))
        ]
        fig.add_trace(go.Bar(
            x=items, y=deltas, name=spec.label, marker=dict(color=metric_colour(spec.family)),
            customdata=[("remove", i) for i in range(len(ranking))], hovertext=text,
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    fig.update_layout(barmode="group", bargap=0.2)
    fig.update_xaxes(title_text="item removed (rank. doc)", type="category")
    fig.update_yaxes(title_text="change", zeroline=True, zerolinecolor="#888", zerolinewidth=1.5,
                     tickformat="+.2f")
    subtitle = "Above zero the list is better without that item. Click a bar to remove the item."
    if len(ranking) < len(removals.ranking):
        subtitle += f"<br>Ranks 1-{len(ranking)} of {len(removals.ranking):,}."
    figure = apply_layout(fig, "What removing one item does to each metric", subtitle, height=420)
    if len(ranking) < len(removals.ranking):
        figure.update_layout(margin=dict(t=130))  # room for the two-line subtitle
    return figure


# ---- 4. range and random baseline --------------------------------------------------------------------------------


def range_figure(ranges: ValueRange) -> go.Figure:
    """Per metric: a bar from the worst to the best value any ordering of these documents can reach, a diamond at
    the expected value of a random order, and a ring at the current value.

    Traces: ``data[0]`` the range bars (``base`` = minimum, ``y`` = maximum - minimum), ``data[1]`` the random-order
    means (``y``), ``data[2]`` the current values (``y``).
    """
    specs = ranges.metrics.specs
    labels = [spec.label for spec in specs]
    colours = [metric_colour(spec.family) for spec in specs]
    fig = go.Figure()
    fig.add_trace(go.Bar(
        x=labels, base=ranges.minimum, y=ranges.maximum - ranges.minimum, name="Worst to best order",
        marker=dict(color=colours, opacity=0.3, line=dict(color=colours, width=1.5)), width=0.5,
        customdata=np.column_stack([ranges.minimum, ranges.maximum]),
        hovertemplate="%{x}: worst order %{customdata[0]:.3f}, best order %{customdata[1]:.3f}<extra></extra>",
    ))
    sampled = ranges.method == "sampled"
    fig.add_trace(go.Scatter(
        x=labels, y=ranges.expected, mode="markers", name=f"Random order ({ranges.describe_method()})",
        marker=dict(symbol="diamond", size=12, color="#333333"),
        error_y=dict(type="data", array=2 * ranges.standard_error, visible=sampled, color="#333333"),
        hovertemplate="%{x}: a random order scores %{y:.3f} on average<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=labels, y=ranges.current, mode="markers", name="Current",
        marker=dict(symbol="circle", size=15, color=colours, line=dict(color="#111111", width=2)),
        hovertemplate="%{x}: current %{y:.3f}<extra></extra>",
    ))
    fig.update_yaxes(range=[-0.04, 1.08], title_text="value")
    at_best = [label for label, now, top in zip(labels, ranges.current, ranges.maximum) if now >= top - SAME]
    subtitle = (f"{join_words(at_best)} {'is' if len(at_best) == 1 else 'are'} already at the best this order "
                f"can reach" if at_best else "Every metric could still rise by reordering")
    return apply_layout(fig, "How good is this order? Worst, random and best orders of the same documents", subtitle,
                        height=400)


# ---- 5. baseline against current ---------------------------------------------------------------------------------


def baseline_figure(comparison: BaselineComparison) -> go.Figure:
    """Bars for the pinned baseline (grey) and the current ranking (each metric's colour), side by side.

    Traces: ``data[0]`` baseline values, ``data[1]`` current values (``y``).
    """
    specs = comparison.metrics.specs
    fig = _before_after_bars(specs, comparison.baseline, comparison.current, ("Baseline", "Current"),
                             "%{x} current: %{y:.3f} (%{customdata:+.3f} against the baseline)<extra></extra>",
                             customdata=comparison.deltas)
    changed = [f"{spec.label} {format_delta(d)}" for spec, d in zip(specs, comparison.deltas) if abs(d) > SAME]
    subtitle = "Changed: " + join_words(changed) if changed else "No metric changed since the baseline was pinned"
    return apply_layout(fig, "Current ranking against the pinned baseline", subtitle, height=380)


def baseline_from_values(metrics: MetricSet, baseline: Mapping[str, float],
                         current: Mapping[str, float]) -> BaselineComparison:
    """A comparison from two ``{metric: value}`` mappings keyed by label (``"AP@4"``) or measure (``"map_cut.4"``
    or its trec_eval output name ``"map_cut_4"``)."""

    def pick(values: Mapping[str, float], which: str) -> np.ndarray:
        picked = []
        for spec in metrics.specs:
            for key in (spec.label, spec.measure, spec.parsed.key):
                if key in values:
                    picked.append(float(values[key]))
                    break
            else:
                raise ValueError(f"{which} values have no entry for {spec.label} (or {spec.measure}); "
                               f"got {', '.join(map(str, values)) or 'none'}")
        return np.array(picked)

    return BaselineComparison(metrics, pick(baseline, "baseline"), pick(current, "current"))


# ---- 6. direct manipulation --------------------------------------------------------------------------------------


def decode_selection(event: Any) -> Change | None:
    """The change a Streamlit chart selection event asks for, or None.

    Accepts what ``st.plotly_chart(..., on_select="rerun")`` returns (or the value stored under its key): a
    mapping with ``selection.points``, or the ``selection`` mapping itself. The first selected point whose
    ``customdata`` is ``("swap", i, j)``, ``("move", i, t)`` or ``("remove", i)`` wins; points without one (a
    curve, a range bar) are ignored. From ``st.vega_lite_chart`` (the swap heatmaps), the cell selected under
    :data:`SWAP_SELECTION` (``{"i": 1, "j": 3}``, ranks) is the swap of those ranks.

    Streamlit keeps a selection across reruns, so a page should apply a decoded change once, e.g. by giving the
    chart a key that changes after every applied edit (``f"swaps-{edit_count}"``).
    """
    if event is None:
        return None
    selection = _get(event, "selection")
    if selection is None:
        selection = event
    points = _get(selection, "points") or []
    for point in points:
        data = _get(point, "customdata")
        if data is None:
            continue
        try:
            return Change.from_customdata(data)
        except ValueError:
            continue
    # A clicked cell of the swap heatmaps (swap_heatmaps_chart): the Vega-Lite selection's fields, ranks i < j.
    for cell in _get(selection, SWAP_SELECTION) or []:
        try:
            return Change.from_customdata(("swap", _get(cell, "i") - 1, _get(cell, "j") - 1))
        except (TypeError, ValueError):
            continue
    return None


def _get(container: Any, key: str) -> Any:
    if isinstance(container, Mapping):
        return container.get(key)
    return getattr(container, key, None)


__all__ = [
    "BASELINE_COLOUR", "CLICKABLE_SWAPS_UP_TO", "CURVE_HINTS", "DIVERGING_SCALE", "REMOVAL_BARS_UP_TO",
    "SWAP_PANEL_SIZE", "SWAP_SELECTION",
    "METRIC_COLOURS",
    "baseline_figure", "baseline_from_values",
    "decode_selection", "k_curves_chart", "k_curves_figure", "metric_colour", "move_preview_figure", "range_figure",
    "rank_ticks", "removal_bars_figure", "swap_heatmaps_chart", "swap_heatmaps_figure", "swaps_take_clicks",
]
