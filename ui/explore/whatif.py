"""What-if charts under the metrics: changing k, swapping, moving and removing items, the range under reordering,
and the pinned baseline. Clicking a swap cell or a removal bar applies that change; the confirmation and its Undo
appear right under the chart that was clicked, where the reader is looking, and stay in sight while the chart is.

Only the open tab builds its figure (and computes its data, apart from what the callouts read), and the chart data
of the current list is kept for the next rerun (one entry per session), so switching tabs does not recompute it.
"""

from __future__ import annotations

import streamlit as st

from metrics import InputError
from metrics.whatif import (
    Change,
    ChartData,
    Scenario,
    callouts,
    chart_data,
    compare_to_baseline,
    move_preview,
)
from ui.common import panels, slides, state
from ui.common.numbers import number_box
from ui.common.query_state import QueryState, remove_active, reorder_active
from ui.common.text import escape_markdown, literal

from . import charts

SHOWN_CALLOUTS = 4
#: Width of the "Best single swap for" box, in CSS pixels.
BEST_BY_WIDTH = 330
#: The section's views, and the session key of the one shown.
TAB = "whatif_tab"
TABS = ("Changing k", "Swapping two ranks", "Moving a document", "Removing a document", "Range under reordering",
        "Against the baseline")
#: Session keys: the confirmation of the last change applied from a chart, and the chart data of the current list.
CONFIRMATION = "whatif_confirmation"
CHART_DATA = "whatif_chart_data"
#: The panel that draws the section (ui.explore).
PANEL = "explore_whatif"
#: The swap chart's height in the browser, whatever the page's width or the list's length (its panels have a fixed
#: size): the floor of its container. The chart is drawn anew after each edit (its key changes, see _swap_chart),
#: and Vega draws it after the page has laid out; without the floor the page shrank under the reader meanwhile,
#: and the confirmation under the chart (an Undo's, say) ended up out of sight.
SWAP_CHART_HEIGHT = 615
SWAP_CHART = "swap_chart"
STEADY_SWAP_CHART = f"<style>.st-key-{SWAP_CHART} {{ min-height: {SWAP_CHART_HEIGHT}px; }}</style>"
#: Key of the confirmation's container.
CONFIRMATION_BOX = "whatif_confirmation"
#: The confirmation and its Undo stay in sight while the chart above them is: a reader who sees the whole swap chart
#: (615 px) at 900 px sees nothing under it, and clicked a cell with its confirmation below the fold. Where its place
#: under the chart is out of view, it stands at the foot of the view over the chart (sticky), until scrolling
#: brings its place in. Each ancestor takes the app's background (they are transparent: nothing else changes), so
#: the stuck box is opaque in either theme.
CONFIRMATION_IN_SIGHT = (
    f"<style>[data-testid=stLayoutWrapper]:has(> .st-key-{CONFIRMATION_BOX}) "
    "{ position: sticky; bottom: 0; z-index: 2; padding-bottom: 0.5rem; } "
    f".stApp :has(.st-key-{CONFIRMATION_BOX}) {{ background-color: inherit; }}</style>"
)


def _apply(change: Change) -> None:
    query = state.current()
    ranking = query.ranking
    try:
        change.check(len(ranking))
        if change.kind == "remove":
            new_state = remove_active(query, change.index)
        else:
            new_state = reorder_active(query, change.apply(ranking))
    except (InputError, ValueError) as error:
        _confirmed("error", f"That change could not be applied: {error}")
        return
    state.commit(new_state)
    # Said under the chart that was clicked: the message box at the top of the page is out of sight from here.
    _confirmed("success", f"{change.describe(ranking)}: applied.")


def _undo_here() -> None:
    state.undo()
    state.pop_message()  # said under the chart instead of at the top of the page
    _confirmed("info", "Undid the last change.")


def _confirmation(confirmation: tuple[str, str] | None) -> None:
    """The change just applied from a chart, with an Undo beside it."""
    if confirmation is None:
        return
    kind, text = confirmation
    with st.container(key=CONFIRMATION_BOX):  # in sight while its chart is (CONFIRMATION_IN_SIGHT)
        message, button = st.columns([5, 1], vertical_alignment="center")
        show = {"success": message.success, "error": message.error}.get(kind, message.info)
        show(literal(text))
        if kind != "error":
            button.button("Undo", key="whatif_undo", on_click=panels.follow(_undo_here),
                          disabled=not state.can_undo(),
                          icon=":material/undo:", width="stretch", help="Take back the last change to the list.")


def _confirmed(kind: str, text: str) -> None:
    st.session_state[CONFIRMATION] = (kind, text)
    panels.now_shows(PANEL, None)  # the section shows the confirmation: it is drawn again, whatever else changed


def _on_chart_select(key: str) -> None:
    change = charts.decode_selection(st.session_state.get(key))
    if change is not None:
        _apply(change)


def _chart_data(scenario: Scenario) -> ChartData:
    """The chart data of this list, reused from the previous rerun when the list, k and conventions are the same."""
    key = (scenario.ranking, tuple(sorted(scenario.judgments.items())), scenario.k, scenario.conventions)
    cached = st.session_state.get(CHART_DATA)
    if cached is not None and cached[0] == key:
        return cached[1]
    data = chart_data(scenario)
    st.session_state[CHART_DATA] = (key, data)
    return data


def _chart(figure, name: str, clickable: bool = False) -> None:
    """The chart, and under it its PNG and SVG for slides (drawn when clicked). A chart that takes clicks gets a new
    key after each edit (a selection left from the list before is dropped); the others keep theirs, so an edit
    redraws them in place instead of building a new chart."""
    if clickable:
        key = state.editor_key(name)
        st.plotly_chart(figure, key=key, on_select=panels.follow(lambda: _on_chart_select(key)),
                        selection_mode="points", config={"displaylogo": False})
    else:
        st.plotly_chart(figure, key=name, config={"displaylogo": False})
    slides.chart_downloads(figure, _slide_stem(name), key=name)


def _slide_stem(name: str) -> str:
    """The file name (before its extension) of chart ``name``'s PNG and SVG: the query, then the chart."""
    return f"{state.current().query}-{name.removeprefix('chart_')}"


def _k_chart(data: ChartData) -> None:
    """The k chart, drawn with Vega-Lite: k and every edit change only its data, which the browser updates in place
    (a plotly chart is built anew whenever its figure changes). Its PNG and SVG are the plotly figure's, made when
    one is clicked."""
    st.vega_lite_chart(charts.k_curves_chart(data.curves), key="chart_k_curves", width="content")
    slides.downloads(lambda: slides.chart_figure(charts.k_curves_figure(data.curves)), _slide_stem("chart_k_curves"),
                     key="chart_k_curves")


def _swap_chart(data: ChartData) -> None:
    """The swap heatmaps, drawn with Vega-Lite: six panels of cells draw in the browser in a fraction of the time
    the plotly figure's heatmaps and their invisible click targets took. A click on a cell applies that swap (its
    key is new after each edit, as a plotly chart's that takes clicks). Its PNG and SVG are the plotly figure's,
    made when one is clicked."""
    if data.swaps.window < 2:
        st.caption("Swapping needs at least two documents in the list.")
        return
    spec = charts.swap_heatmaps_chart(data.swaps)
    key = state.editor_key("chart_swaps")
    clickable = charts.swaps_take_clicks(data.swaps)
    with st.container(key=SWAP_CHART):  # its height kept while the browser draws it (STEADY_SWAP_CHART)
        st.vega_lite_chart(spec, key=key, width="content",
                           on_select=panels.follow(lambda: _on_chart_select(key)) if clickable else "ignore",
                           selection_mode=charts.SWAP_SELECTION if clickable else None)
    slides.downloads(lambda: slides.chart_figure(charts.swap_heatmaps_figure(data.swaps)), _slide_stem("chart_swaps"),
                     key="chart_swaps")


def whatif_section(query: QueryState, baseline: dict | None) -> None:
    """The section, drawn by its panel; a change applied from it (a clicked cell or bar, Apply this move, Undo)
    reruns every panel that shows the list."""
    st.header("What if…")
    if not query.ranking:
        # e.g. the last item was removed from its bar: its confirmation and Undo stay at hand
        _confirmation(st.session_state.pop(CONFIRMATION, None))
        st.info("Add documents to the list to see how each metric reacts to changes.")
        return
    scenario = Scenario(tuple(query.ranking), dict(query.judgments), query.k, query.conventions)
    data = _chart_data(scenario)
    comparison = None
    if baseline is not None:
        comparison = compare_to_baseline(scenario, baseline["ranking"], baseline["judgments"])
    best_by = _best_swap_metric(scenario)
    sentences = [f"- {escape_markdown(sentence)}" for sentence in callouts(data, comparison, best_by)]
    st.markdown("\n".join(sentences[:SHOWN_CALLOUTS]))
    if len(sentences) > SHOWN_CALLOUTS:
        with st.expander(f"{len(sentences) - SHOWN_CALLOUTS} more observations"):
            st.markdown("\n".join(sentences[SHOWN_CALLOUTS:]))

    _views(scenario, data, comparison)


@st.fragment
def _views(scenario: Scenario, data: ChartData, comparison) -> None:
    """The chosen view, and under it the confirmation of a change applied from it (shown once). A fragment, so
    choosing another view or moving the preview's controls redraws this part alone, not the callouts above it. Only
    the chosen view builds its figure, which keeps a rerun fast on long lists."""
    confirmation = st.session_state.pop(CONFIRMATION, None)
    chosen = panels.choose_view("What-if view", list(TABS), TAB, label_visibility="collapsed")
    drawers = {
        "Changing k": lambda: _k_chart(data),
        "Swapping two ranks": lambda: _swap_chart(data),
        "Moving a document": lambda: _move_preview(scenario),
        "Removing a document": lambda: _chart(charts.removal_bars_figure(data.removals), "chart_removals",
                                              clickable=True),
        "Range under reordering": lambda: _chart(charts.range_figure(data.ranges), "chart_range"),
        "Against the baseline": lambda: _baseline_chart(comparison),
    }
    drawers[chosen]()
    _confirmation(confirmation)


def _best_swap_metric(scenario: Scenario) -> str:
    """The metric the best single swap is chosen by (a family: it stays chosen when k changes); the primary metric,
    nDCG@k, unless the reader picks another."""
    metrics = scenario.metrics
    labels = dict(zip(metrics.families, metrics.labels))
    # A fixed width (2/7 of the page at 1280 px), not a column of two: one element where columns took three.
    return st.selectbox("Best single swap for", list(labels), index=metrics.families.index(metrics.primary.family),
                          key="whatif_best_by", format_func=labels.get,
                          help=f"The swap that raises this metric most; {metrics.primary.label}, the primary metric, "
                               "unless you pick another.", width=BEST_BY_WIDTH)


def _baseline_chart(comparison) -> None:
    if comparison is None:
        st.caption("Pin a baseline above, make changes, and compare them here.")
    else:
        _chart(charts.baseline_figure(comparison), "chart_baseline")


def _first_move(scenario: Scenario) -> int:
    """Position of the document the preview starts with: the first relevant one right below a non-relevant one
    (moving it up one rank changes something, as muffin in README's example), else the first document."""
    level = scenario.conventions.relevance_level
    relevant = [scenario.judgments.get(doc, 0) >= level for doc in scenario.ranking]
    return next((i for i in range(1, len(relevant)) if relevant[i] and not relevant[i - 1]), 0)


def _neighbour_rank(index: int) -> int:
    """The rank a document at position ``index`` is first offered: one up, or rank 2 for the first document."""
    return index if index > 0 else 2


def _move_preview(scenario: Scenario) -> None:
    ranking = scenario.ranking
    if len(ranking) < 2:
        st.caption("Moving needs at least two documents in the list.")
        return
    left, right, button = st.columns([3, 2, 2], vertical_alignment="bottom")
    labels = [f"{rank}. {doc}" for rank, doc in enumerate(ranking, start=1)]
    target_key = f"preview_rank_{len(ranking)}"
    if st.session_state.get("preview_doc") not in labels:
        start = _first_move(scenario)
        st.session_state["preview_doc"] = labels[start]
        st.session_state[target_key] = _neighbour_rank(start)

    def retarget() -> None:  # a newly chosen document is first offered a real move, never "to its own rank"
        st.session_state[target_key] = _neighbour_rank(labels.index(st.session_state["preview_doc"]))

    index = labels.index(left.selectbox("Move document", labels, key="preview_doc", on_change=retarget))
    st.session_state.setdefault(target_key, _neighbour_rank(index))
    new_rank = number_box("to rank", key=target_key, min_value=1, max_value=len(ranking), name="the rank",
                          target=right, step=1)
    preview = move_preview(scenario, index, int(new_rank))
    button.button("Apply this move", key="apply_preview", on_click=panels.follow(_apply), args=(preview.change,),
                  disabled=index == int(new_rank) - 1)
    _chart(charts.move_preview_figure(preview), "chart_move_preview")
