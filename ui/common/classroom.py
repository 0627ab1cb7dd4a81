"""Classroom mode, the one switch every page calls: large type for a projector, the list and the cards first, and
the panels a first lesson does not need (conventions, judgment holes, online signals) hidden unless asked for.

:func:`apply` draws the sidebar's switch and the panels it shows, puts the larger type on the page, keeps
``mode=class`` (and ``show=…``) in the link, and returns the :class:`~ui.common.query_state.View` the page follows.
"""

from __future__ import annotations

import streamlit as st

from . import state
from .query_state import PANELS, View

TOGGLE = "classroom_toggle"
PANELS_PICKER = "classroom_panels"
#: What the sidebar calls each panel classroom mode hides.
PANEL_LABELS = {"conventions": "Conventions", "holes": "Judgment holes", "online": "Online signals"}
#: Room the page's header takes above the content in classroom mode (Streamlit's own is 6rem).
TOP_PADDING = "3rem"
#: The root font size in classroom mode (the browser's is 16 px): Streamlit sizes its text, widgets and tables in
#: rem, so they all grow by this much.
ROOT_FONT_PX = 18

#: Larger type for a projector at 1280 x 720: a larger root size, so that every text, widget and table grows with
#: it, larger card values and formulas, and less padding around the page (seven cards fit in a row beside the
#: sidebar). Only the page's own text is here, no user text.
LARGE_TYPE = f"""
<style>
html {{ font-size: {ROOT_FONT_PX}px; }}
[data-testid="stMainBlockContainer"] {{ padding: {TOP_PADDING} 1.5rem 3rem 1.5rem; }}
[data-testid="stMain"] h1 {{ font-size: 1.9rem; padding-top: 0; padding-bottom: 0.25rem; }}
[data-testid="stMain"] h2 {{ font-size: 1.55rem; }}
[data-testid="stMain"] h3 {{ font-size: 1.3rem; padding-top: 0.25rem; }}
[data-testid="stMetricValue"] {{ font-size: 2.3rem; line-height: 1.15; }}
[data-testid="stMetricLabel"] p {{ font-size: 1.05rem; font-weight: 600; }}
[data-testid="stMain"] [data-testid="stCaptionContainer"] {{ font-size: 0.95rem; }}
[data-testid="stMain"] .katex {{ font-size: 1.3em; }}
</style>
"""

def apply(panels: tuple[str, ...] = ()) -> View:
    """The switch in the sidebar (and, when it is on, which of this page's hidden ``panels`` to show), the larger
    type when it is on, and the link's ``mode``: call it first on every page. A page without any of :data:`PANELS`
    gets no picker; a choice made on one page keeps the other pages' panels as they were."""
    view = state.view()
    panels = tuple(panel for panel in PANELS if panel in panels)
    with st.sidebar:
        _bind(st.toggle, TOGGLE, view.classroom, lambda on: state.set_view(View(bool(on), state.view().shown)),
              label="Classroom mode",
              help="Large type for a projector, the list and the cards first; conventions, judgment holes and "
                   "online signals stay hidden unless you show them. The link keeps it (mode=class).")
        if view.classroom and panels:
            _bind(st.pills, PANELS_PICKER, [panel for panel in panels if panel in view.shown],
                  lambda chosen: state.set_view(View(True, frozenset(chosen or ()) | (state.view().shown
                                                                                      - frozenset(panels)))),
                  label="Show in class", options=list(panels), format_func=PANEL_LABELS.__getitem__,
                  selection_mode="multi", help="The panels classroom mode hides: show the ones this lesson needs.")
    if view.classroom:
        st.html(LARGE_TYPE)
    state.sync_view()
    return view


def _bind(widget, key: str, value, on_change, **kwargs) -> None:
    """Draw ``widget`` showing ``value`` (the view's, whatever page drew it last); a change goes to ``on_change``
    first, so the view stays the one source of truth and every page follows it. The value is written on every run:
    each page's widget is another widget to Streamlit, which would give it its default."""
    st.session_state[key] = value
    widget(key=key, on_change=lambda: on_change(st.session_state[key]), **kwargs)
