"""One lesson drawn: the prepared lists (grades, no numbers), predict, reveal, now try, predict again, reveal.

Progress is a stage in session state: 0 asked, 1 revealed, 2 changed and asked again, 3 revealed again. The
numbers appear only from the stage that reveals them; a pair of lists is then the explorer's two-list view.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import evaluate_rankings
from metrics.explain import explorer_metrics
from ui.common import tables, two_lists
from ui.common.numbers import number_box
from ui.common.text import literal

from .catalog import BY_SLUG
from .model import Facts, Lesson, Question, Scene, render, shown_fact

ASKED, REVEALED, CHANGED, REVEALED_AGAIN = range(4)
#: The most relevant documents missing from a list that the caption under it names (a real query misses dozens).
MAX_NAMED = 5


@st.cache_data(show_spinner=False, max_entries=32)
def _scenes(slug: str) -> tuple[Scene, Scene]:
    return BY_SLUG[slug].scenes()


@st.cache_data(show_spinner=False, max_entries=32)
def _facts(slug: str) -> dict[str, object]:
    before, after = _scenes(slug)
    return BY_SLUG[slug].facts(before, after)


def _key(lesson: Lesson, name: str) -> str:
    return f"lesson_{lesson.slug}_{name}"


def stage(lesson: Lesson) -> int:
    return st.session_state.get(_key(lesson, "stage"), ASKED)


def current_scene(lesson: Lesson) -> Scene:
    before, after = _scenes(lesson.slug)
    return after if stage(lesson) >= CHANGED else before


def pair_of(scene: Scene) -> two_lists.ListPair:
    first, second = scene.lists
    return two_lists.ListPair(first.docs, second.docs, dict(first.judgments), scene.k, scene.conventions,
                              (f"List A ({first.name})", f"List B ({second.name})"))


def restart(lesson: Lesson) -> None:
    st.session_state[_key(lesson, "stage")] = ASKED
    for name in ("answer_0", "answer_1"):
        st.session_state.pop(_key(lesson, name), None)


def _advance(lesson: Lesson, to: int) -> None:
    st.session_state[_key(lesson, "stage")] = to
    scene = current_scene(lesson)
    if scene.is_pair:
        two_lists.put_pair(_key(lesson, "pair"), pair_of(scene))


def lesson(lesson: Lesson, number: int) -> None:
    facts = _facts(lesson.slug)
    at = stage(lesson)
    st.subheader(f"{number}. {lesson.title}")
    st.caption(lesson.goal)
    scene = current_scene(lesson)
    shows_numbers = at in (REVEALED, REVEALED_AGAIN)
    if scene.is_pair and shows_numbers:
        if two_lists.get_pair(_key(lesson, "pair")) is None:
            two_lists.put_pair(_key(lesson, "pair"), pair_of(scene))
        two_lists.view(_key(lesson, "pair"))
    else:
        lists(scene)
        if shows_numbers:
            numbers(scene)

    _question(lesson, lesson.ask, facts, 0, answered=at >= REVEALED)
    if at < REVEALED:
        return
    st.markdown("**Now try.** " + render(lesson.now_try, facts))
    if at < CHANGED:
        st.button("Make the change", key=_key(lesson, "change"), type="primary", icon=":material/edit:",
                  on_click=_advance, args=(lesson, CHANGED))
        return
    _question(lesson, lesson.ask_again, facts, 1, answered=at >= REVEALED_AGAIN)


def _question(lesson: Lesson, question: Question, facts: Facts, index: int, *, answered: bool) -> None:
    key = _key(lesson, f"answer_{index}")
    with st.container(border=True, key=_key(lesson, f"question_{index}")):
        st.markdown("**Predict.** " + render(question.prompt, facts))
        if question.choices:
            given = st.radio("Your answer", question.choices, index=None, key=key, disabled=answered)
        else:
            given = number_box("Your answer", key=key, min_value=0.0, max_value=1_000.0, name="an answer",
                               value=None, step=0.01, format="%.2f", disabled=answered)
        if not answered:
            st.button("Check my answer", key=_key(lesson, f"check_{index}"), type="primary",
                      disabled=given is None, on_click=_advance,
                      args=(lesson, REVEALED if index == 0 else REVEALED_AGAIN))
            return
        right = question.is_right(given, facts)
        verdict = "Right." if right else f"Not quite: the answer is {shown_fact(question.answer(facts))}."
        (st.success if right else st.warning)(verdict + " " + render(question.reveal, facts))


def lists(scene: Scene) -> None:
    """Each list of the scene as rank, document, grade (and score): what a student predicts from."""
    columns = st.columns(len(scene.lists)) if len(scene.lists) <= 3 else [st.container() for _ in scene.lists]
    level = scene.conventions.relevance_level
    for column, listing in zip(columns, scene.lists):
        frame = {"rank": list(range(1, len(listing.docs) + 1)), "document": list(listing.docs),
                 "grade": [("unjudged" if listing.grade(doc) is None else str(listing.grade(doc)))
                           for doc in listing.docs]}
        if listing.scores is not None:
            frame["score"] = [f"{score:g}" for score in listing.scores]
        with column:
            st.markdown(f"**{literal(listing.name)}**")
            tables.table(pd.DataFrame(frame), hide_index=True)
            missed = [doc for doc, grade in listing.judgments.items() if grade >= level and doc not in listing.docs]
            if missed:
                named = ": " + ", ".join(literal(doc) for doc in missed) if len(missed) <= MAX_NAMED else ""
                st.caption(f"{len(missed):,} relevant (grade ≥ {level}) not in the list{named}")
            st.caption(f"k = {scene.k}")


def numbers(scene: Scene) -> None:
    """The explorer's metrics at the scene's k for each list, four decimals (the tables' rounding)."""
    measures = explorer_metrics(scene.k)
    values = evaluate_rankings([list(listing.docs) for listing in scene.lists],
                               [dict(listing.judgments) for listing in scene.lists],
                               [measure for _, measure in measures], scene.conventions)
    table = pd.DataFrame({"list": [listing.name for listing in scene.lists],
                          **{label: [f"{x:.4f}" for x in values[measure.key]] for label, measure in measures}})
    tables.table(table, hide_index=True)
