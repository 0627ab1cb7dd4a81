"""Pure plotly figure builders for the explorer's online signals: numbers in, ``go.Figure`` out (no Streamlit).

The click chart puts, rank by rank, the probability of a click beside the relevance the click model reads from the
grades (the attractiveness): where the bars fall below the dots as the rank grows, that is position bias. The A/B
chart shows the simulated difference of each signal with its confidence interval, and the closed-form difference
it estimates.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.common.chart_layout import apply_layout, plain

#: The click chart shows the top this many ranks; a longer list is named in the subtitle.
CLICK_RANKS_SHOWN = 30
CLICK_COLOUR = "#0072B2"
RELEVANCE_COLOUR = "#E69F00"
BIAS_COLOUR = "#555555"
SIMULATED_COLOUR = "#D55E00"


def _finite(name: str, values: Sequence[float], length: int) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.shape != (length,):
        raise ValueError(f"Argument `{name}` has to hold one value per rank ({length}), but got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"Argument `{name}` has to hold finite numbers, but got {array.tolist()}")
    return array


def click_figure(docs: Sequence[str], click_probability: Sequence[float], attractiveness: Sequence[float], *,
                 grades: Sequence[int | None] | None = None, position_bias: Sequence[float] | None = None,
                 simulated: Sequence[float] | None = None, sessions: int | None = None, model: str = "cascade",
                 window: int = CLICK_RANKS_SHOWN) -> go.Figure:
    """P(click at rank r) (bars) against the attractiveness at rank r (dots), for the top ``window`` ranks.

    Optional: the position bias θ_r of the PBM (a line), and the click rate per rank of ``sessions`` simulated
    sessions (dots with ±2 binomial standard errors, sqrt(p (1 - p) / N)).
    Traces in this order: ``P(click)``, ``attractiveness``, then ``position bias`` and ``simulated`` when given.
    """
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"Argument `window` has to be a positive integer, but got {window!r}")
    length = len(docs)
    clicks = _finite("click_probability", click_probability, length)
    relevance = _finite("attractiveness", attractiveness, length)
    shown = min(length, window)
    ranks = list(range(1, shown + 1))
    labels = [plain(str(doc)) for doc in docs[:shown]]
    grade_text = ["unjudged" if grades is None or grades[i] is None else f"grade {grades[i]}" for i in range(shown)]
    fig = go.Figure()
    fig.add_trace(go.Bar(
        x=ranks, y=clicks[:shown], name="P(click) at the rank", marker_color=CLICK_COLOUR, customdata=labels,
        hovertemplate="rank %{x} (%{customdata}): P(click) %{y:.3f}<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=ranks, y=relevance[:shown], name="attractiveness (from the grade)", mode="markers",
        marker=dict(color=RELEVANCE_COLOUR, size=11, symbol="diamond", line=dict(width=1, color="white")),
        customdata=np.column_stack([labels, grade_text]) if shown else None,
        hovertemplate="rank %{x} (%{customdata[0]}, %{customdata[1]}): attractiveness %{y:.3f}<extra></extra>"))
    if position_bias is not None:
        bias = _finite("position_bias", position_bias, length)
        fig.add_trace(go.Scatter(
            x=ranks, y=bias[:shown], name="position bias θ (P(examined))", mode="lines+markers",
            line=dict(color=BIAS_COLOUR, dash="dot"), marker=dict(size=5),
            hovertemplate="rank %{x}: examined with probability %{y:.3f}<extra></extra>"))
    if simulated is not None:
        if isinstance(sessions, bool) or not isinstance(sessions, int) or sessions < 1:
            raise ValueError(f"Argument `sessions` has to be a positive integer with `simulated`, but got {sessions!r}")
        rate = _finite("simulated", simulated, length)[:shown]
        error = 2 * np.sqrt(np.clip(rate * (1 - rate), 0, None) / sessions)
        fig.add_trace(go.Scatter(
            x=ranks, y=rate, name=f"simulated ({sessions:,} sessions, ±2 SE)", mode="markers",
            marker=dict(color=SIMULATED_COLOUR, size=7), error_y=dict(type="data", array=error, thickness=1.2),
            hovertemplate="rank %{x}: clicked in %{y:.3f} of the sessions<extra></extra>"))
    subtitle = ("Bars below the dots: the click model's user does not examine every rank (position bias)"
                + (f" · top {shown} of {length} ranks" if length > shown else ""))
    fig.update_xaxes(title_text="rank", tickmode="array", tickvals=ranks,
                     ticktext=[str(rank) for rank in ranks])
    fig.update_yaxes(title_text="probability", range=[0, 1.05])
    return apply_layout(fig, f"Clicks per rank against attractiveness per rank ({model})", subtitle, height=420)


def ab_figure(rows: Sequence[tuple[str, float, float, float, float]], sessions: int, *,
              baseline: str = "baseline", current: str = "current") -> go.Figure:
    """The simulated A/B difference of each signal (``current - baseline``) with its confidence interval, and the
    closed-form difference (a diamond) it estimates. ``rows``: (signal, expected, simulated, low, high).

    Traces: ``data[0]`` simulated differences (``x``, error bars to low and high), ``data[1]`` expected ones.
    """
    if not rows:
        raise ValueError("Argument `rows` has to hold at least one signal, but got none")
    names = [row[0] for row in rows]
    expected, simulated, low, high = (np.array([float(row[i]) for row in rows]) for i in (1, 2, 3, 4))
    if not np.all(np.isfinite(np.concatenate([expected, simulated, low, high]))) or np.any(low > high):
        raise ValueError(f"Argument `rows` has to hold finite differences with low <= high, but got {list(rows)}")
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        y=names, x=simulated, name=f"simulated, {sessions:,} sessions per arm (95% CI)", mode="markers",
        marker=dict(color=SIMULATED_COLOUR, size=10),
        error_x=dict(type="data", symmetric=False, array=high - simulated, arrayminus=simulated - low),
        hovertemplate="%{y}: %{x:+.4f}<extra>simulated</extra>"))
    fig.add_trace(go.Scatter(
        y=names, x=expected, name="expected (closed form)", mode="markers",
        marker=dict(color=CLICK_COLOUR, size=11, symbol="diamond-open", line=dict(width=2)),
        hovertemplate="%{y}: %{x:+.4f}<extra>expected</extra>"))
    fig.add_vline(x=0, line=dict(color="#444444", width=1))
    fig.update_xaxes(title_text=f"{plain(current)} − {plain(baseline)}", zeroline=False)
    fig.update_yaxes(autorange="reversed")
    return apply_layout(fig, "A/B test against the baseline", "An interval that crosses 0: these sessions cannot tell "
                        "the two lists apart", height=300)
