"""The sentence that says why a convention change moved no card is a claim: each reason's fact, wherever it holds,
leaves every card as it was (checked on random lists with ties, graded and negative judgments and unjudged
documents, for every convention and pair of its values); on the page it comes after such a change only."""

from __future__ import annotations

import itertools

import numpy as np

from metrics import CONVENTION_INFO
from metrics.explain import explain
from tests.app.support import assert_no_failure, open_app, open_conventions, shown
from ui.common.query_state import ORDER_CONVENTIONS, Item, QueryState, set_order_convention, sort_by_score
from ui.explore.controls import QUERY_CONVENTIONS
from ui.explore.unchanged import unchanged_reason

FALLBACK = "no card of this list depends on the choice"


def random_state(rng: np.random.Generator) -> QueryState:
    size = int(rng.integers(1, 8))
    items = tuple(Item(f"d{i}", float(rng.integers(0, 4)) + (1e-9 if rng.random() < 0.2 else 0.0))
                  for i in range(size))
    judgments = {f"d{i}": int(rng.integers(-1, 3)) for i in range(size) if rng.random() < 0.7}
    judgments.update({f"u{i}": int(rng.integers(0, 3)) for i in range(int(rng.integers(0, 3)))})
    state = QueryState(items, judgments, int(rng.integers(1, 9)))
    state = state.replace(conventions=state.conventions.replace(relevance_level=int(rng.integers(1, 3))))
    return sort_by_score(state)


def cards(state: QueryState) -> list[float]:
    return [e.value for e in explain(state.ranking, dict(state.judgments), state.k, state.conventions)]


def changed(state: QueryState, name: str, value: str) -> QueryState:
    if name in ORDER_CONVENTIONS:
        return set_order_convention(state, name, value)
    return state.replace(conventions=state.conventions.replace(**{name: value}))


def test_every_reason_s_fact_leaves_every_card_as_it_was():
    rng = np.random.default_rng(44)
    said = set()
    for _ in range(150):
        state = random_state(rng)
        for info in CONVENTION_INFO:
            if info.name not in QUERY_CONVENTIONS:
                continue
            for old, new in itertools.permutations([choice.value for choice in info.choices], 2):
                before = changed(state, info.name, old)
                after = changed(before, info.name, new)
                reason = unchanged_reason(info.name, before, after)
                if not reason.startswith(FALLBACK):
                    said.add(info.name)
                    assert cards(before) == cards(after), (info.name, old, new, reason, before)
    assert said == set(QUERY_CONVENTIONS)  # every convention has a reason that was put to the test


def test_a_gain_change_on_sweet_pastry_says_why_no_card_moved():
    at = open_app()
    before = shown(at)
    open_conventions(at).selectbox(key="convention_gain").select("exponential").run()
    assert_no_failure(at)
    assert shown(at) == before
    assert [info.value for info in at.info if "No card changed" in info.value] == [
        "Gain of a graded judgment\\: exponential\\. No card changed\\, because the only grade here is 1\\, and "
        "2\\^g \\- 1 equals g for 0 and 1\\: the gains are the same\\."]


def test_a_change_that_moves_a_card_says_nothing_of_the_kind():
    at = open_app()
    at.selectbox(key="sample_picker").select("dunk-in-coffee").run()
    open_conventions(at).selectbox(key="convention_tie_order").select("docid_ascending").run()
    assert shown(at)["RR"] == "1.000"
    assert not [info for info in at.info if "No card changed" in info.value]
