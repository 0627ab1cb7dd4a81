"""ui.common.panels on a page of two panels: a change reruns the panels whose view it changed and no other, a change
no callback followed reruns the whole page, and with WHOLE_PAGE set every change does (as the app's AppTests ask).
(An interaction that changes no view keeps its widget's own rerun, which AppTest runs as a whole page: the browser
tests see that one.)

AppTest runs a keyed fragment rerun as the browser's server does and shows only what it drew, so the elements on
the page after an interaction say which panels ran; the session's ``runs`` says it too, in order.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ui.common import panels

TWO_PANELS = '''
import streamlit as st
from ui.common import panels

st.session_state.setdefault("count", {"a": 0, "b": 0})
st.session_state.setdefault("runs", [])
panels.forget_drawn()
st.session_state.runs.append("page")


def bump(name):
    st.session_state.count[name] += 1


@panels.panel("toy_a", lambda: st.session_state.count["a"])
def panel_a():
    st.session_state.runs.append("a")
    st.markdown(f"a = {st.session_state.count['a']}")
    st.button("a + 1", key="a_from_a", on_click=panels.follow(bump), args=("a",))
    # A change made without follow, whose callback reruns one panel (as a widget's own rerun does in a browser).
    st.button("a + 1, not followed", key="a_unfollowed", on_click=unfollowed, args=(True,))
    st.button("a + 1, not followed nor said", key="a_unsaid", on_click=unfollowed, args=(False,))


@panels.panel("toy_b", lambda: st.session_state.count["b"])
def panel_b():
    st.session_state.runs.append("b")
    st.markdown(f"b = {st.session_state.count['b']}")
    st.button("a + 1 from b", key="a_from_b", on_click=panels.follow(bump), args=("a",))


def unfollowed(said):
    bump("a")
    if said:
        panels.changed()  # as state.commit says every change
    st.rerun(["toy_a"])


panel_a()
panel_b()
'''


def _page(whole_page: bool = False) -> AppTest:
    at = AppTest.from_string(TWO_PANELS, default_timeout=60)
    if whole_page:
        at.session_state[panels.WHOLE_PAGE] = True
    return at.run()


def _drawn(at: AppTest) -> list[str]:
    return [markdown.value for markdown in at.markdown]


def test_a_change_reruns_the_panel_whose_view_it_changed_and_no_other():
    at = _page()
    assert at.session_state["runs"] == ["page", "a", "b"] and _drawn(at) == ["a = 0", "b = 0"]
    at.button(key="a_from_b").click().run()  # a widget of panel b changes what panel a shows: a alone reruns
    assert at.session_state["runs"][3:] == ["a"] and _drawn(at) == ["a = 1"]
    at.button(key="a_from_a").click().run()
    assert at.session_state["runs"][4:] == ["a"] and _drawn(at) == ["a = 2"]
    assert not at.exception


def test_a_change_no_callback_followed_reruns_the_whole_page_at_the_next_panel_run():
    at = _page()
    at.button(key="a_unsaid").click().run()  # the rerun the callback asked for: panel a alone
    assert at.session_state["runs"][3:] == ["a"] and _drawn(at) == ["a = 1"]
    at.button(key="a_unfollowed").click().run()  # said but not followed: panel a starts, then the whole page runs
    assert at.session_state["runs"][4:] == ["page", "a", "b"], at.session_state["runs"]
    assert _drawn(at) == ["a = 2", "b = 0"] and not at.exception


def test_with_whole_page_set_every_change_reruns_the_whole_page():
    at = _page(whole_page=True)
    at.button(key="a_from_b").click().run()
    assert at.session_state["runs"][3:] == ["page", "a", "b"] and _drawn(at) == ["a = 1", "b = 0"]
