"""Pure plotly figure builders for the ANN page: data in, go.Figure out (built unchecked: both are redrawn on
every k change, see ui.common.chart_layout)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from ui.common.chart_layout import house_layout, metric_colour, subplots_layout, unchecked_figure

ANN_COLOUR, EXACT_COLOUR, QPS_COLOUR = "#CC79A7", "#555555", "#009E73"


def sweep_figure(parameter: str, values: Sequence[int], ann_recall: Sequence[float], recall_ann: Sequence[float],
                 ndcg_ann: Sequence[float], qps: Sequence[float], recall_exact: float, ndcg_exact: float,
                 k: int, current: int) -> go.Figure:
    """ANN recall@k, and recall@k and nDCG@k of the ANN list, at every value of the search parameter, over the
    exact list's recall@k and nDCG@k (dashed: what the index converges to as the search widens, not a bound);
    queries per second below.

    Traces: ``data[0]`` ANN recall, ``data[1]`` the ANN list's recall, ``data[2]`` its nDCG, ``data[3]`` and
    ``data[4]`` the exact list's recall and nDCG (flat), ``data[5]`` queries per second.
    """
    # Redrawn on every k change: built as plain traces and layout, unchecked (ui.common.chart_layout), the
    # picture make_subplots and the checked traces gave.
    layout = subplots_layout(2, 1, [], shared_xaxes=True, row_heights=(0.7, 0.3), vertical_spacing=0.06)
    x = list(values)
    lines = [
        (f"ANN recall@{k} (the index)", ann_recall, ANN_COLOUR, "solid"),
        (f"Recall@{k} of the ANN list (the system)", recall_ann, metric_colour("Recall"), "solid"),
        (f"nDCG@{k} of the ANN list", ndcg_ann, metric_colour("nDCG"), "solid"),
        (f"Recall@{k} of the exact list (where the index converges)", [recall_exact] * len(x),
         metric_colour("Recall"), "dash"),
        (f"nDCG@{k} of the exact list (where the index converges)", [ndcg_exact] * len(x), metric_colour("nDCG"),
         "dash"),
    ]
    data = [dict(type="scatter", x=x, y=list(y), name=name, mode="lines" if dash == "dash" else "lines+markers",
                 line=dict(color=colour, dash=dash, width=2), xaxis="x", yaxis="y",
                 hovertemplate=f"{parameter}=%{{x}}: %{{y:.3f}}<extra>{name}</extra>")
            for name, y, colour, dash in lines]
    data.append(dict(type="scatter", x=x, y=list(qps), name="queries per second (one thread)", mode="lines+markers",
                     line=dict(color=QPS_COLOUR, width=2), showlegend=True, xaxis="x2", yaxis="y2",
                     hovertemplate=f"{parameter}=%{{x}}: %{{y:,.0f}} queries/s<extra></extra>"))
    layout["shapes"] = [dict(type="line", xref=f"x{suffix}", yref=f"y{suffix} domain", x0=current, x1=current,
                             y0=0, y1=1, line=dict(color="#999999", dash="dot", width=1)) for suffix in ("", "2")]
    log_x = dict(type="log", dtick=0.30102999566)
    layout["xaxis"].update(log_x)
    layout["xaxis2"].update(log_x, title=dict(text=parameter))
    layout["yaxis"].update(range=[0, 1.05], title=dict(text="value"))
    layout["yaxis2"].update(type="log", dtick=1, title=dict(text="queries/s"))
    layout = house_layout(layout, f"What {parameter} buys",
                          "ANN recall reaches 1 as the search widens; the system's recall converges to the exact "
                          f"list's (dashed), which is not a bound. Dotted: {parameter}={current}", height=620)
    # Six series: the legend goes under the chart, where it cannot cover the subtitle.
    layout["legend"] = dict(orientation="h", yanchor="top", y=-0.14, xanchor="left", x=0.0)
    layout["margin"]["b"] = 140
    return unchecked_figure(data, layout)


def waterfall_figure(stages: Sequence[str], kept: Sequence[int], lost: Sequence[int], gained: Sequence[int],
                     relevant: int) -> go.Figure:
    """Relevant documents kept after each stage of the pipeline, with how many each stage lost and gained.

    Traces: ``data[0]`` bars, ``x`` = stage names (first "judged relevant"), ``y`` = documents kept.
    """
    names = ["judged relevant", *stages]
    counts = [relevant, *kept]
    notes = ["all judged relevant documents"] + [
        f"lost {lost_here:,}" + (f", gained {gained_here:,}" if gained_here else "")
        for lost_here, gained_here in zip(lost, gained)
    ]
    colours = [EXACT_COLOUR] + [ANN_COLOUR if name.startswith("ANN") else metric_colour("Recall") for name in stages]
    bars = dict(type="bar", x=names, y=counts, marker=dict(color=colours), text=[f"{c:,}" for c in counts],
                textposition="outside", customdata=notes,
                hovertemplate="%{x}: %{y:,} relevant documents (%{customdata})<extra></extra>")
    layout = dict(xaxis=dict(tickmode="array", tickvals=names,
                             ticktext=[names[0]] + [f"{name}<br>{note}" for name, note in zip(names[1:], notes[1:])]),
                  yaxis=dict(title=dict(text="relevant documents"), rangemode="tozero"), showlegend=False)
    # Redrawn on every k change, like the sweep: unchecked.
    return unchecked_figure([bars], house_layout(
        layout, "Relevant documents after each stage",
        "Each bar: the relevant documents still present after that stage, over all queries", height=420))
