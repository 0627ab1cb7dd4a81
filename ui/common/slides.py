"""Figures for slides, drawn on the server with matplotlib (no browser): the metric cards with their worked formulas,
and any of the pages' plotly charts, as PNG or SVG.

Plain data in, bytes out, so each is tested without Streamlit; :func:`downloads` is the one Streamlit call, whose
buttons make their file only when clicked. User text (doc ids, qids) is drawn literally: every text is drawn with
matplotlib's math parsing off, and the formulas, which are the engine's own LaTeX, go through mathtext alone.
SVG keeps its text as text (``svg.fonttype = none``), so a slide's numbers can be read, searched and edited.
"""

from __future__ import annotations

import base64
import html
import io
import math
import re
import textwrap
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib
import numpy as np
import streamlit as st
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import LinearSegmentedColormap, to_rgba
from matplotlib.figure import Figure
from matplotlib.mathtext import MathTextParser
from matplotlib.patches import FancyBboxPatch
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from .chart_layout import FONT

#: 16:9, the shape of a slide; PNGs at :data:`PNG_DPI` are 1920 x 1080.
SLIDE_INCHES = (12.8, 7.2)
PNG_DPI = 150
CARDS_PER_ROW = 4
#: Characters of a worked formula's line on a card (8.5 pt monospace in a quarter of the slide's width).
WORKED_CHARS = 38
#: The longest file-name stem a download gets (ASCII letters, digits and ``-`` only).
MAX_STEM = 40
INK = FONT["color"]
MUTED = "#57606a"
CARD_EDGE = "#d0d7de"
#: savefig reads the SVG font type from matplotlib's global settings: one figure saved at a time.
_SAVING = threading.Lock()


@dataclass(frozen=True, slots=True)
class SlideCard:
    """One metric card as the page shows it: its label, its value as shown (``0.556``), its worked formula (plain
    text, the engine's ``Explanation.worked``) and its formula (the engine's LaTeX)."""

    label: str
    value: str
    worked: str
    formula: str = ""


# ---- files ------------------------------------------------------------------------------------------------------


def png(figure: Figure) -> bytes:
    return _save(figure, "png")


def svg(figure: Figure) -> bytes:
    return _save(figure, "svg")


def _save(figure: Figure, kind: str) -> bytes:
    buffer = io.BytesIO()
    with _SAVING, matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "ir-metrics-explorer"}):
        figure.savefig(buffer, format=kind, dpi=PNG_DPI, facecolor="white", metadata=_metadata(kind))
    return buffer.getvalue()


def _metadata(kind: str) -> dict[str, Any]:
    # No creation date, so the same figure gives the same file.
    return {"Software": "IR Metrics Explorer"} if kind == "png" else {"Date": None, "Creator": "IR Metrics Explorer"}


def safe_stem(text: str, fallback: str = "figure") -> str:
    """A file-name stem from user text (a qid): ASCII letters and digits kept, runs of anything else one ``-``, at
    most :data:`MAX_STEM` characters; ``fallback`` when nothing is left."""
    stem = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:MAX_STEM].strip("-")
    return stem or fallback


FIGURE_SUFFIXES = ("_png", "_svg")


def is_slide_figure(key: str | None) -> bool:
    """Whether a download button's key is one of :func:`downloads`' two: a figure drawn only when clicked, hence a
    callable (a Streamlit deferred file), unlike the page's other downloads, which hold their files."""
    return bool(key) and key.endswith(FIGURE_SUFFIXES)


def downloads(build: Callable[[], Figure], stem: str, *, key: str) -> None:
    """PNG and SVG buttons for the figure ``build`` makes, called only when one is clicked (nothing is drawn for a
    rerun) and without a rerun; ``stem``: the file name before its extension (:func:`safe_stem` is applied)."""
    name = safe_stem(stem)
    with st.container(horizontal=True, key=f"{key}_slides"):
        st.download_button("PNG", lambda: png(build()), f"{name}.png", "image/png", key=f"{key}{FIGURE_SUFFIXES[0]}",
                           on_click="ignore", icon=":material/image:", help="For slides: 1920 × 1080 pixels")
        st.download_button("SVG", lambda: svg(build()), f"{name}.svg", "image/svg+xml",
                           key=f"{key}{FIGURE_SUFFIXES[1]}", on_click="ignore", icon=":material/draw:",
                           help="For slides: a vector figure whose text stays text")


def chart_downloads(plotly_figure: Any, stem: str, *, key: str) -> None:
    """PNG and SVG buttons for a chart the page draws (:func:`chart_figure` of it, made when one is clicked)."""
    downloads(lambda: chart_figure(plotly_figure), stem, key=key)


# ---- the cards --------------------------------------------------------------------------------------------------


def cards_figure(cards: Sequence[SlideCard], title: str, footer: str = "") -> Figure:
    """The cards on one 16:9 slide, :data:`CARDS_PER_ROW` to a row: each with its label, its value as the page shows
    it, its formula and its worked formula. ``title`` and ``footer`` (the conventions) are drawn literally."""
    figure = Figure(figsize=SLIDE_INCHES)
    FigureCanvasAgg(figure)  # measures the texts, so each card stacks them by their drawn heights
    figure.text(0.03, 0.96, title, fontsize=20, fontweight="bold", color=INK, va="top", parse_math=False)
    rows = max(1, math.ceil(len(cards) / CARDS_PER_ROW))
    top, bottom, gap = 0.88, 0.075, 0.02
    height = (top - bottom - gap * (rows - 1)) / rows
    width = (0.94 - gap * (CARDS_PER_ROW - 1)) / CARDS_PER_ROW
    for index, card in enumerate(cards):
        row, column = divmod(index, CARDS_PER_ROW)
        left = 0.03 + column * (width + gap)
        low = top - (row + 1) * height - row * gap
        _card(figure, card, left, low, width, height)
    if footer:
        figure.text(0.03, 0.025, textwrap.fill(footer, 170), fontsize=9, color=MUTED, va="bottom", parse_math=False)
    return figure


def _card(figure: Figure, card: SlideCard, left: float, low: float, width: float, height: float) -> None:
    """One card, its texts stacked from the top by their drawn heights (a formula of three lines pushes the worked
    formula down)."""
    figure.patches.append(FancyBboxPatch((left, low), width, height, boxstyle="round,pad=0,rounding_size=0.012",
                                         transform=figure.transFigure, facecolor="#f6f8fa", edgecolor=CARD_EDGE,
                                         linewidth=1.2))
    renderer = figure.canvas.get_renderer()
    x, y = left + 0.012, low + height - 0.02

    def below(text, gap: float = 0.012) -> float:
        return text.get_window_extent(renderer).transformed(figure.transFigure.inverted()).y0 - gap

    y = below(figure.text(x, y, card.label, fontsize=15, fontweight="bold", color=INK, va="top", parse_math=False),
              0.008)
    y = below(figure.text(x, y, card.value, fontsize=30, fontweight="bold", color=INK, va="top", parse_math=False),
              0.016)
    for line in formula_lines(card.formula):
        y = below(figure.text(x, y, f"${line}$", fontsize=10, color=INK, va="top"), 0.006)
    worked = "\n".join(textwrap.fill(line, WORKED_CHARS, subsequent_indent="  ") for line in card.worked.splitlines())
    figure.text(x, y - 0.004, worked, fontsize=8.5, family="monospace", color=MUTED, va="top", linespacing=1.25,
                parse_math=False)


def formula_lines(latex: str) -> list[str]:
    """The engine's LaTeX formula as mathtext lines: an ``aligned`` block becomes one line per line of it (a
    continuation line indented), ``\\text`` becomes upright text, ``\\le`` ``\\leq``. A formula mathtext
    cannot draw gives no lines (the worked formula is still drawn)."""
    if not latex:
        return []
    body = re.fullmatch(r"\\begin\{aligned\}(.*)\\end\{aligned\}", latex, re.S)
    lines: list[str] = []
    for part in re.split(r"\\\\(?:\[[^\]]*\])?", body.group(1) if body else latex):
        continued = part.strip().startswith(r"&\phantom{=}")
        part = part.replace(r"&\phantom{=}\ ", "").replace("&", "").strip()
        part = re.sub(r"\\text\{([^}]*)\}", lambda m: r"\mathrm{" + m.group(1).replace(" ", r"\ ") + "}", part)
        part = re.sub(r"\\([lg]e)(?![A-Za-z])", r"\\\1q", part)  # mathtext knows \leq and \geq, not \le and \ge
        lines.append((r"\quad " if continued else "") + part)
    try:
        parser = MathTextParser("path")
        for line in lines:
            parser.parse(f"${line}$")
    except ValueError:
        return []
    return lines


# ---- plotly charts ----------------------------------------------------------------------------------------------


def chart_figure(plotly_figure: Any) -> Figure:
    """A plotly figure (a ``go.Figure`` or its JSON dict) redrawn with matplotlib for a slide: its scatter, bar, heatmap
    and box traces on its own subplot grid (axis domains, log, category and reversed axes, ranges and tick values),
    its title and subtitle, subplot titles, axis titles, line shapes and legend. Hover text and clicks are not
    drawn; labels are drawn literally (plotly's ``<br>`` a line break, its entities as the characters)."""
    spec = plotly_figure.to_plotly_json() if hasattr(plotly_figure, "to_plotly_json") else plotly_figure
    data, layout = list(spec.get("data", ())), dict(spec.get("layout", {}))
    # As wide as a slide, as tall as the page draws it (a chart about 1,100 px wide on the page), at most 9 inches.
    inches = min(9.0, max(4.0, SLIDE_INCHES[0] * float(layout.get("height") or 450) / 1100))
    figure = Figure(figsize=(SLIDE_INCHES[0], inches))
    title = layout.get("title") or {}
    head = 0.35  # inches above the plots: the title, the subtitle's lines, the subplot titles
    if isinstance(title, Mapping) and title.get("text"):
        figure.text(0.02, 1 - 0.2 / inches, plain_text(title["text"]), fontsize=15, fontweight="bold", color=INK,
                    va="top", parse_math=False)
        head += 0.45
        subtitle = plain_text((title.get("subtitle") or {}).get("text") or "")
        if subtitle:
            figure.text(0.02, 1 - 0.62 / inches, subtitle, fontsize=10, color=MUTED, va="top", parse_math=False,
                        linespacing=1.3)
            head += 0.2 * (subtitle.count("\n") + 1) + 0.1
    frame = (0.7 / inches, 1 - head / inches)  # plotly's paper (0 to 1) in figure fractions: bottom, top
    axes = _axes(figure, data, layout, frame, _left_margin(data))
    categories: dict[str, list] = {}
    bars = [trace for trace in data if trace.get("type", "scatter") == "bar"]
    mappables = []
    for trace in data:
        kind = trace.get("type", "scatter")
        ax = axes[(trace.get("xaxis", "x"), trace.get("yaxis", "y"))]
        x, y = _values(trace.get("x")), _values(trace.get("y"))
        if kind == "scatter":
            _scatter(ax, trace, x, y, categories)
        elif kind == "bar":
            _bar(ax, trace, x, y, bars, layout, categories)
        elif kind == "heatmap":
            mappables.append(_heatmap(ax, trace, layout))
        elif kind == "box":
            _box(ax, trace, y, categories)
    for (x_name, y_name), ax in axes.items():
        _axis(ax, "x", layout.get(_layout_name(x_name), {}), categories.get(x_name))
        _axis(ax, "y", layout.get(_layout_name(y_name), {}), categories.get(y_name))
        # A legend for the named traces of a chart of one or two plots (small multiples carry subplot titles).
        if len(axes) <= 2 and layout.get("showlegend", True) is not False and ax.get_legend_handles_labels()[1]:
            for text in ax.legend(fontsize=8, frameon=False, loc="best").get_texts():
                text.set_parse_math(False)
    _shapes(axes, layout.get("shapes") or ())
    for annotation in layout.get("annotations") or ():
        _annotation(figure, annotation, frame)
    if mappables and mappables[0] is not None:
        colorbar = figure.colorbar(mappables[0], ax=list(axes.values()), fraction=0.02, pad=0.02)
        bar_title = (((layout.get("coloraxis") or {}).get("colorbar") or {}).get("title") or {}).get("text")
        if bar_title:
            colorbar.set_label(plain_text(bar_title), fontsize=9, parse_math=False)
    return figure


def plain_text(text: object) -> str:
    """Plotly label markup as plain text: ``<br>`` a line break, other tags dropped, entities read."""
    with_breaks = re.sub(r"<br\s*/?>", "\n", str(text), flags=re.I)
    return html.unescape(re.sub(r"</?(?:b|i|em|strong|sup|sub|span)(?:\s[^>]*)?>", "", with_breaks, flags=re.I))


def _layout_name(axis: str) -> str:
    """``x2`` -> ``xaxis2``."""
    return f"{axis[0]}axis{axis[1:]}"


def _values(values: Any) -> list:
    if values is None:
        return []
    if isinstance(values, Mapping) and "bdata" in values:  # plotly's typed array: {"dtype", "bdata", "shape"}
        array = np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
        if values.get("shape"):
            array = array.reshape([int(n) for n in str(values["shape"]).split(",")])
        return array.tolist()
    return list(np.asarray(values).tolist()) if isinstance(values, np.ndarray) else list(values)


def _left_margin(data: list) -> float:
    """Room left of the plots, in figure fractions: wider for names on a y axis (plotly's automargin)."""
    names = [str(value) for trace in data for value in _values(trace.get("y"))
             if isinstance(value, str) and trace.get("type", "scatter") != "box"]
    return 0.07 + min(0.25, 0.0055 * max((len(plain_text(name)) for name in names), default=0))


def _axes(figure: Figure, data: list, layout: dict, frame: tuple[float, float],
          margin: float) -> dict[tuple[str, str], Any]:
    """One matplotlib axes per (xaxis, yaxis) pair the traces use, placed at the plotly axes' domains."""
    pairs = list(dict.fromkeys((trace.get("xaxis", "x"), trace.get("yaxis", "y")) for trace in data)) or [("x", "y")]
    axes = {}
    for x_name, y_name in pairs:
        x_domain = (layout.get(_layout_name(x_name)) or {}).get("domain") or [0, 1]
        y_domain = (layout.get(_layout_name(y_name)) or {}).get("domain") or [0, 1]
        left, right = margin + (0.93 - margin) * x_domain[0], margin + (0.93 - margin) * x_domain[1]
        bottom, top = (_paper_y(frame, y_domain[0]), _paper_y(frame, y_domain[1]))
        ax = figure.add_axes((left, bottom, max(right - left, 0.01), max(top - bottom, 0.01)))
        ax.tick_params(labelsize=8, colors=INK)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        axes[(x_name, y_name)] = ax
    return axes


def _colour(value: Any, default: str = "#333333") -> Any:
    if value is None:
        return default
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_colour(item, default) for item in value]
    try:
        return to_rgba(_css_colour(str(value)))
    except ValueError:
        return default


def _css_colour(text: str) -> str:
    """``rgb(1,2,3)`` / ``rgba(1,2,3,0.5)`` as matplotlib reads colours; other names unchanged."""
    match = re.fullmatch(r"rgba?\(([^)]*)\)", text.strip())
    if not match:
        return text
    parts = [float(part) for part in match.group(1).split(",")]
    rgb = "#" + "".join(f"{int(round(min(max(c, 0), 255))):02x}" for c in parts[:3])
    return rgb if len(parts) == 3 else rgb + f"{int(round(min(max(parts[3], 0), 1) * 255)):02x}"


def _positions(ax_categories: dict[str, list], axis: str, values: list) -> list:
    """Numeric positions of ``values``: category names get 0, 1, … in the order first seen on that axis."""
    if not values or all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return values
    seen = ax_categories.setdefault(axis, [])
    for value in values:
        if value not in seen:
            seen.append(value)
    return [seen.index(value) for value in values]


def _scatter(ax, trace: dict, x: list, y: list, categories: dict[str, list]) -> None:
    marker = trace.get("marker") or {}
    if marker.get("opacity") == 0 or trace.get("visible") is False:
        return  # plotly's invisible click targets
    xs = _positions(categories, trace.get("xaxis", "x"), x or list(range(len(y))))
    ys = _positions(categories, trace.get("yaxis", "y"), y)
    mode = trace.get("mode", "lines+markers")
    line = trace.get("line") or {}
    colour = _colour(line.get("color") or marker.get("color"), "#0072B2")
    label = plain_text(trace["name"]) if trace.get("name") and trace.get("showlegend", True) is not False else None
    if "lines" in mode:
        dash = {"dash": "--", "dot": ":", "dashdot": "-."}.get(line.get("dash"), "-")
        ax.plot(xs, ys, color=colour if not isinstance(colour, list) else None, linestyle=dash,
                linewidth=float(line.get("width", 2)) * 0.8, label=label)
        label = None
    if "markers" in mode:
        edge = (marker.get("line") or {}).get("color")
        fill = marker.get("color") or line.get("color")  # plotly draws a line's markers in the line's colour
        # A size or edge width is one number or one per point (a plotly array, maybe typed).
        size, edge_width = marker.get("size", 6), (marker.get("line") or {}).get("width")
        sizes = np.asarray(_values(size) if isinstance(size, (Mapping, list, tuple, np.ndarray)) else size, float)
        ax.scatter(xs, ys, s=sizes ** 2 * 0.6, c=[_colour(fill, "#0072B2")]
                   if not isinstance(fill, (list, tuple)) else _colour(fill),
                   edgecolors=_colour(edge) if edge else "none", zorder=3, label=label,
                   linewidths=None if edge_width is None else np.asarray(
                       _values(edge_width) if isinstance(edge_width, (Mapping, list, tuple, np.ndarray))
                       else edge_width, float) * 0.8)
    for name, direction in (("error_y", "y"), ("error_x", "x")):
        error = trace.get(name) or {}
        if error.get("visible") is False or error.get("array") is None:
            continue
        plus = np.asarray(_values(error["array"]), dtype=float)
        minus = np.asarray(_values(error.get("arrayminus", error["array"])), dtype=float)
        spread = np.vstack([minus, plus])
        ax.errorbar(xs, ys, **{f"{direction}err": spread}, fmt="none", ecolor=_colour(error.get("color"), "#333333"),
                    elinewidth=1, capsize=3)
    if "text" in mode and trace.get("text") is not None:
        for xv, yv, text in zip(xs, ys, _values(trace["text"])):
            ax.annotate(plain_text(text), (xv, yv), fontsize=8, textcoords="offset points", xytext=(0, 6),
                        ha="center", annotation_clip=False, parse_math=False)


def _bar(ax, trace: dict, x: list, y: list, bars: list, layout: dict, categories: dict[str, list]) -> None:
    horizontal = trace.get("orientation") == "h"
    where, length = (y, x) if horizontal else (x, y)
    axis = trace.get("yaxis", "y") if horizontal else trace.get("xaxis", "x")
    positions = np.asarray(_positions(categories, axis, where), dtype=float)
    lengths = np.asarray([np.nan if v is None else v for v in length], dtype=float)
    group = [b for b in bars if (b.get("xaxis", "x"), b.get("yaxis", "y")) ==
             (trace.get("xaxis", "x"), trace.get("yaxis", "y"))]
    grouped = layout.get("barmode", "group") == "group" and len(group) > 1
    size = 0.8 / len(group) if grouped else 0.8
    offset = (group.index(trace) - (len(group) - 1) / 2) * size if grouped else 0.0
    base = trace.get("base")
    marker = trace.get("marker") or {}
    colour = _colour(marker.get("color"), "#0072B2")
    label = plain_text(trace["name"]) if trace.get("name") and trace.get("showlegend", True) is not False else None
    draw = ax.barh if horizontal else ax.bar
    drawn = draw(positions + offset, lengths, size * 0.95, base, color=colour, label=label)
    texts = trace.get("text")
    if texts is not None and trace.get("textposition") in ("outside", "auto", "inside", None):
        labels = [plain_text(t) for t in (texts if isinstance(texts, (list, tuple, np.ndarray)) else
                                          [texts] * len(positions))]
        ax.bar_label(drawn, labels=labels, fontsize=7, padding=2, parse_math=False)


def _heatmap(ax, trace: dict, layout: dict):
    z = np.asarray([[np.nan if v is None else v for v in row] for row in _values(trace.get("z"))], dtype=float)
    if z.size == 0:
        return None
    x = _values(trace.get("x")) or list(range(z.shape[1]))
    y = _values(trace.get("y")) or list(range(z.shape[0]))
    axis = (layout.get("coloraxis") or {}) if trace.get("coloraxis") else trace
    stops = axis.get("colorscale") or [[0, "#2166ac"], [0.5, "#f7f7f7"], [1, "#b2182b"]]
    colormap = LinearSegmentedColormap.from_list("plotly", [(float(s), _css_colour(str(c))) for s, c in stops])
    low = axis.get("cmin", trace.get("zmin", np.nanmin(z) if np.isfinite(z).any() else 0))
    high = axis.get("cmax", trace.get("zmax", np.nanmax(z) if np.isfinite(z).any() else 1))
    step_x = (float(x[-1]) - float(x[0])) / max(len(x) - 1, 1) if len(x) > 1 else 1.0
    step_y = (float(y[-1]) - float(y[0])) / max(len(y) - 1, 1) if len(y) > 1 else 1.0
    extent = (float(x[0]) - step_x / 2, float(x[-1]) + step_x / 2, float(y[-1]) + step_y / 2, float(y[0]) - step_y / 2)
    return ax.imshow(np.ma.masked_invalid(z), cmap=colormap, vmin=low, vmax=high, extent=extent, origin="upper",
                     aspect="equal" if (layout.get(_layout_name(trace.get("yaxis", "y"))) or {}).get("scaleanchor")
                     else "auto", interpolation="nearest")


def _box(ax, trace: dict, y: list, categories: dict[str, list]) -> None:
    """A vertical box of ``y`` at its name's place on the x axis (plotly's default for named boxes)."""
    values = [v for v in y if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not values:
        return
    position = _positions(categories, trace.get("xaxis", "x"), [plain_text(trace.get("name", ""))])[0]
    colour = _colour((trace.get("line") or {}).get("color") or (trace.get("marker") or {}).get("color"), "#0072B2")
    drawn = ax.boxplot([values], positions=[position], widths=0.5, patch_artist=True, showmeans=bool(
        trace.get("boxmean")), manage_ticks=False)
    for patch in drawn["boxes"]:
        patch.set_facecolor(colour)
        patch.set_alpha(0.45)
    if trace.get("boxpoints") == "all":
        ax.scatter(np.full(len(values), position - 0.45), values, s=10, color=colour, alpha=0.6, zorder=3)


def _axis(ax, letter: str, spec: Mapping, categories: list | None) -> None:
    set_label = ax.set_xlabel if letter == "x" else ax.set_ylabel
    title = spec.get("title")
    text = title.get("text") if isinstance(title, Mapping) else title
    if text:
        set_label(plain_text(text), fontsize=9, color=INK, parse_math=False)
    if spec.get("type") == "log":
        (ax.set_xscale if letter == "x" else ax.set_yscale)("log")
        axis = ax.xaxis if letter == "x" else ax.yaxis
        # plotly's dtick on a log axis is the log10 of the step between ticks (0.301: 1, 2, 4, 8, …)
        axis.set_major_locator(LogLocator(base=10 ** float(spec.get("dtick") or 1)))
        axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.10g}"))
        axis.set_minor_formatter(NullFormatter())
    limits = spec.get("range")
    if limits and spec.get("type") != "log" and None not in limits:
        (ax.set_xlim if letter == "x" else ax.set_ylim)(*limits)
    elif limits and spec.get("type") == "log" and None not in limits:
        (ax.set_xlim if letter == "x" else ax.set_ylim)(10 ** limits[0], 10 ** limits[1])
    if spec.get("autorange") == "reversed" and not ax.images:
        (ax.invert_xaxis if letter == "x" else ax.invert_yaxis)()
    ticks = _values(spec.get("tickvals")) if spec.get("tickvals") is not None else None
    if categories:
        set_ticks = ax.set_xticks if letter == "x" else ax.set_yticks
        set_ticks(range(len(categories)), [plain_text(c) for c in categories], fontsize=7, parse_math=False,
                  rotation=30 if letter == "x" and len(categories) > 6 else 0,
                  ha="right" if letter == "x" and len(categories) > 6 else "center")
    elif ticks is not None:
        labels = _values(spec.get("ticktext"))
        set_ticks = ax.set_xticks if letter == "x" else ax.set_yticks
        if labels:
            set_ticks(ticks, [plain_text(t) for t in labels], parse_math=False)
        else:
            set_ticks(ticks)
    if spec.get("showgrid", True) is not False:
        ax.grid(True, axis=letter, color="#eaeef2", linewidth=0.8)
        ax.set_axisbelow(True)


def _shapes(axes: dict[tuple[str, str], Any], shapes: Sequence[Mapping]) -> None:
    """Plotly's line shapes (the current k, the top-k edge) on the axes they refer to."""
    by_x = {x_name: ax for (x_name, _), ax in axes.items()}
    by_y = {y_name: ax for (_, y_name), ax in axes.items()}
    for shape in shapes:
        if shape.get("type") != "line":
            continue
        xref, yref = str(shape.get("xref", "x")), str(shape.get("yref", "y"))
        line = shape.get("line") or {}
        style = dict(color=_colour(line.get("color"), "#444444"), linewidth=float(line.get("width", 1)),
                     linestyle={"dash": "--", "dot": ":", "dashdot": "-."}.get(line.get("dash"), "-"))
        if xref.endswith("domain") and yref in by_y:  # a horizontal line across the axes
            by_y[yref].axhline(float(shape["y0"]), **style)
        elif yref.endswith("domain") and xref in by_x:  # a vertical line
            by_x[xref].axvline(float(shape["x0"]), **style)
        elif xref in by_x:
            by_x[xref].plot([shape["x0"], shape["x1"]], [shape["y0"], shape["y1"]], **style)


def _paper_y(frame: tuple[float, float], y: float) -> float:
    """Plotly's paper height ``y`` (0 at the bottom of the plots, 1 at their top) as a fraction of the figure."""
    bottom, top = frame
    return bottom + (top - bottom) * y


def _annotation(figure: Figure, annotation: Mapping, frame: tuple[float, float]) -> None:
    """Paper-anchored annotations (plotly's subplot titles) at their place on the figure."""
    if annotation.get("xref", "paper") != "paper" or annotation.get("yref", "paper") != "paper":
        return
    x = 0.07 + 0.86 * float(annotation.get("x", 0.5))
    y = _paper_y(frame, float(annotation.get("y", 1.0)))
    figure.text(x, y, plain_text(annotation.get("text", "")), fontsize=9, color=INK, ha="center", va="bottom",
                parse_math=False)
