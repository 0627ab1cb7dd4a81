"""Panels: parts of a page that rerun only when what they show changed.

A panel is a keyed ``st.fragment`` with a *view*: a cheap function of the session state that is equal from one
moment to the next exactly when the panel would draw the same thing (its inputs, or the text it shows). Each time a
panel is drawn, its view is recorded. A widget callback that changes what a page shows goes through
:func:`follow`, which, once the change is made, reruns exactly the panels whose view no longer equals the one
recorded, all in one run (``st.rerun([...keys])``), and nothing else: a change of k does not send the ranked list's
grid again, and a grade typed in the grid keeps the grid the person typed in (:func:`now_shows` records that the
grid already shows the new state).

Two nets keep a panel from ever showing a stale state:

- a change that reaches the session without :func:`follow` (a callback that commits through :func:`changed` but
  does not say which panels follow it) makes the next panel that runs rerun the whole page instead;
- with :data:`WHOLE_PAGE` set in the session, :func:`follow` never narrows a rerun (AppTest shows only the elements a
  keyed rerun drew, so its tests ask for whole-page reruns; the browser tests check the narrowed ones).

A followed callback must not write a widget's value into the session: Streamlit does not send a value written there
to the browser when the rerun it asks for is a keyed one. It records what the widget should show, and the panel
sets the widget's value where it draws it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Any, ParamSpec

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

P = ParamSpec("P")

#: Session key: the view each panel drew last (panel key -> view).
DRAWN = "panels_drawn"
#: Session key: set by :func:`changed` when the state a page shows changed, cleared by :func:`follow` once it has
#: said which panels follow the change.
PENDING = "panels_pending"
#: Session key: when true, :func:`follow` leaves every rerun whole (AppTest sets it; see the module's text).
WHOLE_PAGE = "panels_whole_page"

#: Every panel's view function by key, filled where the panels are defined (code, not per-session state).
_VIEWS: dict[str, Callable[[], Hashable]] = {}


def panel(key: str, view: Callable[[], Any]) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Make the decorated function a panel named ``key`` (a keyed fragment) whose view is ``view()``. Streamlit
    refuses two fragments of one key in a run; a page script that defines its panels again on every run replaces
    their views."""
    _VIEWS[key] = view

    def decorate(draw: Callable[P, None]) -> Callable[P, None]:
        @functools.wraps(draw)
        def body(*args: P.args, **kwargs: P.kwargs) -> None:
            if _in_fragment_run() and st.session_state.pop(PENDING, False):
                st.rerun()  # a change no callback followed: every panel may depend on it
            st.session_state.setdefault(DRAWN, {})[key] = view()
            draw(*args, **kwargs)

        return st.fragment(body, key=key)

    return decorate


def _in_fragment_run() -> bool:
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def changed() -> None:
    """Say that the state a page shows changed (state.commit and the like call it)."""
    st.session_state[PENDING] = True


def stale() -> list[str]:
    """The keys of the panels drawn on this page whose view changed since they were drawn, in the page's order."""
    drawn = st.session_state.get(DRAWN, {})
    return [key for key, shown in drawn.items() if key in _VIEWS and _VIEWS[key]() != shown]


def now_shows(key: str, view: Any) -> None:
    """Record that panel ``key`` shows ``view`` without being drawn again (a grid shows what was typed in it)."""
    st.session_state.setdefault(DRAWN, {})[key] = view


def drawn(key: str) -> Any:
    """The view panel ``key`` recorded when it was drawn last (None if it never was)."""
    return st.session_state.get(DRAWN, {}).get(key)


def follow(change: Callable[P, object]) -> Callable[P, None]:
    """A widget callback that makes ``change`` and then reruns the panels whose view it changed, and only those.
    When it changed none, the interaction's own rerun stands (the panel of the widget)."""

    @functools.wraps(change)
    def callback(*args: P.args, **kwargs: P.kwargs) -> None:
        change(*args, **kwargs)
        st.session_state.pop(PENDING, None)
        keys = stale()
        if keys and not st.session_state.get(WHOLE_PAGE):
            st.rerun(keys)

    return callback


def forget_drawn() -> None:
    """A whole-page run draws every panel again: the views recorded for another page's panels go."""
    st.session_state[DRAWN] = {}
    st.session_state.pop(PENDING, None)


def choose_view(label: str, options: list[str], key: str, **kwargs: Any) -> str:
    """Which of a panel's views to draw: one segmented control (the panel then draws the chosen view alone). Lighter
    than ``st.tabs`` on every rerun: a tab bar is one block per tab, which the browser builds again each time the
    panel reruns (7 tabs about 11 ms of main-thread time against about 1 ms for a segmented control); each choice
    reruns the panel it sits in. The first option is chosen until another is."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = options[0]
    return st.segmented_control(label, options, key=key, required=True, **kwargs)
