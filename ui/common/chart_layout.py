"""Chart layout every page shares: one colour per metric family, one font and title style, and literal labels.

Pure plotly: nothing here calls Streamlit.
"""

from __future__ import annotations

import plotly.graph_objects as go

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


def plain(text: str) -> str:
    """User text (a doc id) shown literally in plotly labels, which would otherwise read some HTML tags."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
