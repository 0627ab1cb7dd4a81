"""Chart layout every page shares: one colour per metric family, one font and title style, and literal labels.

Pure plotly: nothing here calls Streamlit.

Figures redrawn on every edit (the k curves, the swap heatmaps) are built as plain traces and layout
(:func:`subplots_layout`, :func:`house_layout`) and wrapped once by :func:`unchecked_figure`: plotly's property
checks cost tenths of a second per figure and each of these runs once, in the tests, which build every figure with
the checks on.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from _plotly_utils.utils import PlotlyJSONEncoder
from plotly.subplots import make_subplots

#: One colour per metric family in every chart (Okabe-Ito palette).
METRIC_COLOURS: dict[str, str] = {
    "P": "#0072B2",
    "Recall": "#E69F00",
    "RR": "#009E73",
    "AP": "#CC79A7",
    "nDCG": "#D55E00",
    "Success": "#56B4E9",
}
FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=13, color="#1f2328")


def metric_colour(family: str) -> str:
    """The colour of a metric family (``"AP"``) in every chart."""
    return METRIC_COLOURS.get(family, "#333333")


def apply_layout(fig: go.Figure, title: str, subtitle: str | None = None, *, height: int | None = None) -> go.Figure:
    """The house look of every figure: white template, one font, the title left-aligned with an optional
    subtitle, a horizontal legend above the plot."""
    fig.update_layout(
        template="plotly_white",
        font=FONT,
        title=dict(text=title, subtitle=dict(text=subtitle or ""), x=0.0, xanchor="left"),
        margin=dict(l=50, r=20, t=110 if subtitle else 70, b=50),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="right", x=1.0),
        hoverlabel=dict(bgcolor="white", font_size=13),
    )
    # Subplot titles are annotations: same font as the rest, a little smaller than the title.
    fig.update_annotations(font=dict(family=FONT["family"], size=13, color=FONT["color"]))
    if height is not None:
        fig.update_layout(height=height)
    return fig


def house_layout(layout: dict[str, Any], title: str, subtitle: str | None = None, *,
                 height: int | None = None) -> dict[str, Any]:
    """:func:`apply_layout` for a plain layout (dicts, as plotly's JSON has them): the same look, unchecked."""
    layout.update(
        template=json.loads(_template_json("plotly_white")),
        font=dict(FONT),
        title=dict(text=title, subtitle=dict(text=subtitle or ""), x=0.0, xanchor="left"),
        margin=dict(l=50, r=20, t=110 if subtitle else 70, b=50),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="right", x=1.0),
        hoverlabel=dict(bgcolor="white", font=dict(size=13)),
    )
    for annotation in layout.get("annotations", ()):
        annotation["font"] = dict(family=FONT["family"], size=13, color=FONT["color"])
    if height is not None:
        layout["height"] = height
    return layout


def subplots_layout(rows: int, columns: int, titles: list[str], **grid: Any) -> dict[str, Any]:
    """The layout plotly's ``make_subplots(rows, columns, subplot_titles=titles, **grid)`` gives (axes, domains
    and title annotations), as plain dicts; computed once per grid shape. Axis ``n`` (row-major from the top
    left, 1-based) is ``xaxis{n}``/``yaxis{n}``, ``xaxis``/``yaxis`` for the first."""
    layout = json.loads(_subplots_json(rows, columns, len(titles), tuple(sorted(grid.items()))))
    for annotation, title in zip(layout.get("annotations", ()), titles):
        annotation["text"] = title
    return layout


def axis_name(letter: str, index: int) -> str:
    """``xaxis``, ``xaxis2``, … for the subplot at 0-based ``index``, as the layout names them."""
    return f"{letter}axis{'' if index == 0 else index + 1}"


def unchecked_figure(data: list[dict[str, Any]], layout: dict[str, Any]) -> go.Figure:
    """A figure of plain traces and layout, without plotly's property checks (see the module's docstring)."""
    return go.Figure({"data": data, "layout": layout}, _validate=False)


@functools.cache
def colorscale(name: str) -> tuple[tuple[float, str], ...]:
    """A named plotly colour scale (``"RdBu"``) as its explicit stops, as plotly's checks would expand it (plotly.js
    has scales of the same names with other colours)."""
    return tuple(tuple(stop) for stop in go.layout.Coloraxis(colorscale=name).colorscale)


@functools.cache
def _template_json(name: str) -> str:
    return json.dumps(pio.templates[name].to_plotly_json(), cls=PlotlyJSONEncoder)


@functools.cache
def _subplots_json(rows: int, columns: int, titles: int, grid: tuple[tuple[str, Any], ...]) -> str:
    figure = make_subplots(rows=rows, cols=columns, subplot_titles=[f"title {i}" for i in range(titles)],
                           **dict(grid))
    layout = figure.to_plotly_json()["layout"]
    layout.pop("template", None)
    return json.dumps(layout, cls=PlotlyJSONEncoder)


def plain(text: str) -> str:
    """User text (a doc id) shown literally in plotly labels, which would otherwise read some HTML tags."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
