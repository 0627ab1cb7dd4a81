"""Live metric cards, the pinned baseline and per-metric explanations."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from metrics import evaluate_rankings
from metrics.explain import METRIC_GUIDE, ONLINE_CONFIRMATION, Explanation
from metrics.measures.display import card
from metrics.names import Measure, trec_spec
from ui.common import panels, slides, state
from ui.common.text import literal

#: Key of the container of the cards (its CSS class is ``st-key-`` + the key).
CARDS = "metric_cards"
#: The worked formula's container: plain text in the code font. st.code would run the browser's syntax highlighter
#: on every redraw of the panel (0.3 s of main-thread time per page load, for a line that has nothing to highlight).
WORKED = "worked_formula"
#: The style sheet of the cards and the worked formula, drawn once per page (ui/explore/__init__.py):
#: - While a rerun replaces the cards one by one, Streamlit shows the cards it has not replaced yet with the values
#:   of the run before (``data-stale``): once one card of the new run is on the page, the stale ones are hidden
#:   (their space kept), so the row never shows values of two states side by side (RR of one next to AP of the
#:   other).
#: - The cards share the row equally, but none is narrower than its label and value: equal columns alone cut
#:   "Recall@10000" and "Success@10000" to "Recall@100…" and "Success@1…" at 1280 px, the first reading as another
#:   cut-off. A caption under a card (its bracket) wraps to the card's width and never widens it (``contain``).
#:   Where even the labels do not fit, the row wraps, as Streamlit's columns do.
#: - The worked formula's font.
CARD_STYLES = (
    f"<style>.st-key-{CARDS}:has([data-stale=false]) [data-stale=true] {{ visibility: hidden; }} "
    f".st-key-{CARDS} [data-testid=stColumn] {{ flex: 1 1 0; width: auto; min-width: max-content; }} "
    f".st-key-{CARDS} [data-testid=stElementContainer]:has([data-testid=stCaptionContainer]) "
    "{ contain: inline-size; } "
    f".st-key-{WORKED} [data-testid=stText] span {{ font-family: 'Source Code Pro', monospace; font-size: 0.875rem; }}"
    "</style>"
)


def metric_cards(explanations: list[Explanation], baseline: dict[str, float] | None, holes: dict | None = None,
                 ties: dict | None = None) -> None:
    """One card per metric: value, change against the baseline, and under it the bracket of its judgment hole
    (``holes``: ui.explore.holes.CardHole by measure string) with a help text saying what low and high are, and
    when documents tie, the interval over their orders (``ties``: ui.explore.ties.CardTies by measure string).
    During a rerun the row shows one state at a time, and each label whole (CARD_STYLES, which the page draws
    once, outside the panels that rerun with each edit)."""
    with st.container(key=CARDS):
        for column, item in zip(st.columns(len(explanations)), explanations):
            delta, colour, arrow = None, "normal", "auto"
            if baseline is not None and item.measure in baseline:
                change = round(item.value - baseline[item.measure], 3)
                # An unchanged metric gets no arrow: Streamlit would read "±0.000" as a rise.
                delta, colour, arrow = (f"{change:+.3f}", "normal", "auto") if change else ("±0.000", "off", "off")
            column.metric(item.label, card(item.value), delta=delta, delta_color=colour, delta_arrow=arrow,
                          help=item.rewards)
            if holes is not None and item.measure in holes:
                column.caption(holes[item.measure].bracket, help=holes[item.measure].help)
            if ties and item.measure in ties:
                column.caption(ties[item.measure].bracket, help=ties[item.measure].help)


def baseline_values(baseline: dict | None, measures: Sequence[Measure], conventions) -> dict[str, float] | None:
    """The pinned list's values under the current k and conventions, keyed by trec_eval measure string
    (``"P.4"``, a card's ``measure``); the measures come built (metrics.explain.explorer_metrics), not as text."""
    if baseline is None:
        return None
    values = evaluate_rankings([baseline["ranking"]], [baseline["judgments"]], list(measures), conventions)
    return {trec_spec(measure): float(values[measure.key][0]) for measure in measures}


def baseline_controls() -> None:
    baseline = st.session_state.get(state.BASELINE)

    def pin() -> None:
        query = state.current()
        st.session_state[state.BASELINE] = {
            "ranking": list(query.ranking),
            "judgments": dict(query.judgments),
        }

    def clear() -> None:
        st.session_state[state.BASELINE] = None

    # One row of buttons as wide as their labels ("Pin as baseline" whole at 1280 px): one element, not five columns.
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button("Pin as baseline", key="pin_baseline", on_click=panels.follow(pin), icon=":material/push_pin:",
                  help="Every metric then shows its change against this state.")
        st.button("Undo", key="undo", on_click=panels.follow(state.undo), disabled=not state.can_undo(),
                  icon=":material/undo:", help="Take back the last change to the list, k or conventions.")
        if baseline is not None:
            st.button("Clear baseline", key="clear_baseline", on_click=panels.follow(clear), icon=":material/close:")


#: Session keys: the explanation shown (a card's label), and the labels of the last run's choices.
EXPLANATION_TAB = "explanation_tab"
EXPLANATION_LABELS = "explanation_labels"


@st.fragment
def explanations_panel(explanations: list[Explanation]) -> None:
    """One view per metric, chosen above it: its formula, the computation with this list's numbers, and what it
    rewards. Only the chosen one is drawn (each formula is typeset in the browser on every edit); a fragment, so
    choosing another reruns only this panel. A change of k relabels the choices (P@4 becomes P@3): the same metric
    stays chosen."""
    labels = [item.label for item in explanations]
    open_label, before = st.session_state.get(EXPLANATION_TAB), st.session_state.get(EXPLANATION_LABELS, [])
    if open_label not in labels and open_label in before and before.index(open_label) < len(labels):
        st.session_state[EXPLANATION_TAB] = labels[before.index(open_label)]
    st.session_state[EXPLANATION_LABELS] = labels
    chosen = panels.choose_view("Metric", labels, EXPLANATION_TAB, label_visibility="collapsed")
    item = explanations[labels.index(chosen)]
    st.latex(item.formula)
    with st.container(key=WORKED):
        st.text(item.worked)
    st.caption(f"Rewards: {item.rewards}")


def cards_slide(explanations: list[Explanation], query: str, k: int, conventions) -> None:
    """The cards with their formulas and worked formulas as one slide, PNG or SVG, drawn when clicked."""
    cards = [slides.SlideCard(item.label, card(item.value), item.worked, item.formula) for item in explanations]
    title = f"{query} · k = {k}"
    footer = "Conventions: " + conventions.describe()
    st.markdown(f"**The cards for a slide** ({literal(query)}, every formula worked):")
    slides.downloads(lambda: slides.cards_figure(cards, title, footer), f"{query}-cards", key="cards_slide")


#: Session key of the metric guide's expander (True while it is open).
GUIDE = "metric_guide"


def metric_guide(online_shown: bool = True) -> None:
    """The guide to choosing a metric; ``online_shown``: whether the page shows its online section (classroom
    mode hides it unless asked for), which the guide's last line points to."""
    panel = st.expander("Which metric should I use?", key=GUIDE, on_change="rerun")
    if not panel.open:  # drawn only while open: a closed expander's table is sent again on every edit
        return
    with panel:
        guide = pd.DataFrame(METRIC_GUIDE, columns=["If you evaluate…", "use", "because"])
        st.table(guide.set_index("If you evaluate…"))
        st.markdown("**When an offline win needs online confirmation**\n"
                    + "\n".join(f"- **{case}.** {why}" for case, why in ONLINE_CONFIRMATION))
        if online_shown:
            st.caption("*Online signals (simulated)*, further down, shows what a change may do to clicks and how "
                       "many sessions an A/B test needs to see it.")
        else:
            st.caption("*Online signals (simulated)* shows what a change may do to clicks and how many sessions an "
                       "A/B test needs to see it: classroom mode hides it; choose it under *Show in class* in the "
                       "sidebar.")
