"""Pure plotly figure builders for the "Evaluate a run" page: data in, go.Figure out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ui.common.chart_layout import apply_layout, metric_colour, plain

#: The explorer's metric families by measure name, so that a metric has one colour on every page.
_FAMILY = {"P": "P", "recall": "Recall", "recip_rank": "RR", "recip_rank_cut": "RR", "map": "AP", "map_cut": "AP",
           "ndcg": "nDCG", "ndcg_cut": "nDCG", "success": "Success", "R": "Recall", "RR": "RR", "AP": "AP",
           "nDCG": "nDCG", "Success": "Success"}


def _colour(key: str) -> str:
    name = key.split("@")[0].split("(")[0]
    family = _FAMILY.get(name) or _FAMILY.get(name.rsplit("_", 1)[0] if name[-1:].isdigit() else name)
    return metric_colour(family) if family else "#555555"


WIN, LOSS, TIE = "#0072B2", "#D55E00", "#A0A4AB"


def distribution_figure(values: Mapping[str, np.ndarray], qids: Sequence[str]) -> go.Figure:
    """One box with every query as a point per measure; hovering a point names its query.

    Traces: ``data[m]`` is measure m, ``y`` its per-query values.
    """
    fig = go.Figure()
    names = [plain(str(qid)) for qid in qids]
    for name, column in values.items():
        fig.add_trace(go.Box(
            # The dots sit in a strip left of their box (pointpos -1.8 box half-widths, jitter 0.5 of that strip),
            # not on its whiskers and quartile lines, where a query at the median or an extreme was hidden.
            y=column, name=name, boxpoints="all", jitter=0.5, pointpos=-1.8, boxmean=True, text=names,
            marker=dict(size=5, opacity=0.6, color=_colour(name)), line=dict(width=1.5, color=_colour(name)),
            hovertemplate="query %{text}: %{y:.4f}<extra>" + plain(name) + "</extra>",
        ))
    fig.update_layout(showlegend=False)
    fig.update_yaxes(title_text="value per query", rangemode="tozero")
    return apply_layout(fig, "Per-query distribution of each measure",
                        "Each dot left of a box is a query; the box spans the middle half, the dashed line is the mean",
                        height=420)


def difference_figure(qids: Sequence[str], deltas: Sequence[float], measure: str, name_a: str,
                      name_b: str) -> go.Figure:
    """Per-query differences B - A sorted from the largest gain to the largest loss.

    Traces: ``data[0]`` bars with ``x`` = position, ``y`` = delta, ``text`` = query id.
    """
    deltas = np.asarray(deltas, dtype=float)
    colours = np.where(deltas > 1e-12, WIN, np.where(deltas < -1e-12, LOSS, TIE))
    fig = go.Figure(go.Bar(
        x=np.arange(1, len(deltas) + 1), y=deltas, marker=dict(color=colours),
        text=[plain(str(q)) for q in qids], textposition="none",
        hovertemplate="query %{text}: %{y:+.4f}<extra></extra>",
    ))
    if len(deltas) <= 30:  # few enough to name every query under its bar
        fig.update_xaxes(tickmode="array", tickvals=np.arange(1, len(deltas) + 1),
                         ticktext=[plain(str(q)) for q in qids], tickangle=-30)
    else:
        fig.update_xaxes(showticklabels=False)
    fig.update_xaxes(title_text="queries, sorted by difference")
    # A short axis title: the chart's title names the runs, and a long one ran into the subtitle above the plot.
    fig.update_yaxes(title_text=f"Δ {plain(measure)}", zeroline=True,
                     zerolinecolor="#888", tickformat="+.2f")
    wins = int((deltas > 1e-12).sum())
    losses = int((deltas < -1e-12).sum())
    return apply_layout(fig, f"Where {plain(name_b)} beats {plain(name_a)}, query by query",
                        f"Blue: {plain(name_b)} better ({wins}); orange: worse ({losses}); grey: tied", height=400)
