"""Lessons: the article taught by doing. Each lesson opens by link (``?lesson=<slug>``), asks before it shows a
number, reveals the numbers with the reason, then changes the list and asks again (ui.lessons.catalog)."""

from __future__ import annotations

import streamlit as st

from ui.common import classroom, pages, state, two_lists
from ui.common.query_state import Item, QueryState, sort_by_score
from ui.common.text import literal

from . import views
from .catalog import BY_SLUG, LESSONS
from .model import Lesson

INTRO = ("Each lesson prepares a list, asks you to predict a number before it shows any, then reveals the numbers "
         "and why. Then it changes the list and asks again. Every number comes from the same engine as the rest "
         "of the app, with trec_eval's conventions unless the lesson says otherwise.")
#: The URL parameter naming the lesson, the select box that holds it, and the longest name a link may give.
PARAM = "lesson"
PICK = "lesson_pick"
MAX_SLUG_CHARS = 64
#: Set by "Open in the explorer": the next run switches page (st.switch_page cannot run inside a callback).
SWITCH = "lesson_switch_to_explorer"


def page() -> None:
    if st.session_state.pop(SWITCH, False):
        st.switch_page(pages.EXPLORE)
    classroom.apply()
    st.title("Lessons")
    st.caption(INTRO)
    state.show_message()  # a link's view that could not be opened (a bad mode=) says so, as on every page
    _pick_from_link()
    slug = st.selectbox("Lesson", [lesson.slug for lesson in LESSONS], key=PICK,
                        format_func=lambda slug: f"{_number(slug)}. {BY_SLUG[slug].title}")
    if st.query_params.get(PARAM) != slug:
        st.query_params[PARAM] = slug
    lesson = BY_SLUG[slug]
    views.lesson(lesson, _number(slug))
    _footer(lesson)


def _number(slug: str) -> int:
    return [lesson.slug for lesson in LESSONS].index(slug) + 1


def _pick_from_link() -> None:
    """The first run of a session takes the lesson from the link; a name that is no lesson leaves one message."""
    if PICK in st.session_state:
        return
    asked = st.query_params.get(PARAM)
    st.session_state[PICK] = LESSONS[0].slug
    if asked is None or asked in BY_SLUG:
        st.session_state[PICK] = asked or LESSONS[0].slug
        return
    shown = asked if len(asked) <= MAX_SLUG_CHARS else asked[:MAX_SLUG_CHARS] + "…"
    st.error(f"The link names no lesson called {literal(repr(shown))}; showing the first one. The lessons are: "
             + ", ".join(lesson.slug for lesson in LESSONS) + ".")


def _footer(lesson: Lesson) -> None:
    left, middle, right = st.columns(3)
    left.button("Start this lesson again", key=f"lesson_{lesson.slug}_restart", icon=":material/restart_alt:",
                on_click=views.restart, args=(lesson,), width="stretch")
    middle.button("Open in the explorer", key=f"lesson_{lesson.slug}_explore", icon=":material/search:",
                  on_click=_open_in_explorer, args=(lesson,), width="stretch",
                  help="The explorer opens with this lesson's list as it is now; edit it there freely.")
    later = [other.slug for other in LESSONS[_number(lesson.slug):]]
    right.button("Next lesson", key=f"lesson_{lesson.slug}_next", icon=":material/arrow_forward:",
                 disabled=not later, on_click=lambda: st.session_state.update({PICK: later[0]}), width="stretch")


def _open_in_explorer(lesson: Lesson) -> None:
    """Make the lesson's current list the explorer's (with the second list in its two-list view for a pair)."""
    scene = views.current_scene(lesson)
    listing = scene.lists[lesson.explore_list]
    scores = listing.scores or (None,) * len(listing.docs)
    state.init()
    query = QueryState(tuple(Item(doc, score) for doc, score in zip(listing.docs, scores)), dict(listing.judgments),
                       scene.k, scene.conventions, query=listing.name)
    # A scored list opens in the order its scores and tie order give: the order trec_eval scores.
    state.commit(sort_by_score(query))
    st.session_state[state.SAMPLE] = None
    st.session_state[state.BASELINE] = None
    if scene.is_pair:
        two_lists.put_pair(two_lists.EXPLORER_PREFIX, views.pair_of(scene))
        st.session_state[two_lists.SECTION] = True
    state.say("info", f"Opened the list of the lesson “{lesson.title}”.")
    st.session_state[SWITCH] = True

