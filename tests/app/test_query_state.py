"""The explorer's state without Streamlit: the URL codec and every edit the editor and the charts apply."""

from __future__ import annotations

import pytest

from metrics import CONVENTION_INFO, Conventions, InputError
from metrics.samples import load_samples
from metrics.whatif import Change
from ui.common.query_state import (
    CONVENTION_PARAMS,
    MAX_URL_CHARS,
    ORDER_CONVENTIONS,
    Item,
    QueryState,
    View,
    apply_judgment_edits,
    apply_ranking_edits,
    decode_url,
    decode_view,
    encode_url,
    encode_view,
    move,
    remove_active,
    reorder_active,
    scores_contradict_order,
    set_order_convention,
    set_tie_order,
    sort_by_score,
    unretrieved_judgments,
    url_length,
    use_this_order,
)

PASTRY = QueryState(
    (Item("donut", 0.95), Item("bagel", 0.9), Item("muffin", 0.8), Item("croissant", 0.7)),
    {"donut": 1, "muffin": 1, "scone": 1}, 4, query="sweet pastry",
)


def test_url_round_trip_keeps_scores_removals_conventions_and_odd_doc_ids():
    state = QueryState(
        (Item("a,b:c%", 1.5), Item("é", None, removed=True), Item("日本", -2.0)),
        {"a,b:c%": 2, "unretrieved": 1}, 7, Conventions(relevance_level=2, gain="exponential"), query="q 1",
    )
    params = encode_url(state)
    assert params["gain"] == "exponential" and params["level"] == "2" and params["removed"] == "2"
    assert decode_url(params) == state


def test_classroom_mode_round_trips_through_the_link_and_the_usual_page_writes_nothing():
    assert encode_view(View()) == {} and decode_view({"k": "3"}) == View()
    view = View(True, frozenset({"online", "holes"}))
    assert encode_view(view) == {"mode": "class", "show": "holes,online"}
    assert decode_view(encode_view(view)) == view and decode_view({"mode": ["x", "class"]}) == View(True)
    assert not view.shows("conventions") and view.shows("holes") and View().shows("conventions")


@pytest.mark.parametrize("params, message", [
    ({"mode": "projector"}, "'mode': 'projector' is not 'class'"),
    ({"mode": "x" * 5_000}, r"'mode': 'x{20}' is not"),  # quoted at most 20 characters
    ({"show": "holes"}, "'show' needs mode=class"),
    ({"mode": "class", "show": "holes,bounds"}, "'show': 'bounds' is not one of conventions, holes, online"),
])
def test_a_view_the_link_cannot_give_is_named(params, message):
    with pytest.raises(InputError, match=message):
        decode_view(params)


def test_url_without_ranking_or_qrels_describes_no_state():
    assert decode_url({"k": "3"}) is None


def test_url_for_the_seed_example():
    state = decode_url({"ranking": "donut,muffin,bagel,croissant", "qrels": "donut:1,muffin:1,scone:1", "k": "4"})
    assert state.ranking == ["donut", "muffin", "bagel", "croissant"] and state.k == 4
    assert all(item.score is None for item in state.items)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"ranking": "a,a"}, "again at rank 2"),
        ({"ranking": "a", "qrels": "a"}, "has no grade"),
        ({"ranking": "a", "qrels": "a:1.5"}, "whole number"),
        ({"ranking": "a", "qrels": "a:1,a:2"}, "judged twice"),
        ({"ranking": "a", "k": "-1"}, "k has to be"),
        ({"ranking": "a", "k": "99999999"}, "k has to be"),
        ({"ranking": "a b"}, "white space"),
        ({"ranking": "a\u200b"}, "invisible"),
        ({"ranking": "a:inf"}, "finite"),
        ({"ranking": "a", "removed": "3"}, "not a rank"),
        ({"ranking": "a", "ties": "random"}, "tie_order"),
        ({"ranking": "a:1", "order": "mine"}, "'order': 'mine' is not 'shown'"),
        ({"ranking": "x" * 20_001}, "limit"),
        ({"ranking": ",".join(f"d{i}" for i in range(1_001))}, "at most 1000"),
    ],
)
def test_bad_url_parameters_are_named(params, message):
    with pytest.raises(InputError, match=message):
        decode_url(params)


def test_renaming_a_document_carries_its_judgment():
    state = apply_ranking_edits(PASTRY, {0: {"doc": "glazed-donut"}}, [], [])
    assert state.ranking[0] == "glazed-donut" and state.judgments["glazed-donut"] == 1
    assert "donut" not in state.judgments


def test_clearing_a_grade_makes_the_document_unjudged_and_typing_one_judges_it():
    state = apply_ranking_edits(PASTRY, {0: {"grade": None}, 1: {"grade": 2}}, [], [])
    assert "donut" not in state.judgments and state.judgments["bagel"] == 2


def test_typing_a_rank_moves_the_document():
    assert apply_ranking_edits(PASTRY, {2: {"rank": 2}}, [], []).ranking == ["donut", "muffin", "bagel", "croissant"]


def test_deleting_a_row_keeps_its_judgment_as_judged_but_not_retrieved():
    state = apply_ranking_edits(PASTRY, {}, [], [0])
    assert state.ranking == ["bagel", "muffin", "croissant"]
    assert ("donut", 1) in unretrieved_judgments(state)


def test_added_rows_get_a_fresh_name_when_left_empty():
    state = apply_ranking_edits(PASTRY, {}, [{"score": 0.1}, {"doc": "scone", "grade": 1}], [])
    assert state.ranking[-2:] == ["new-doc-1", "scone"]


@pytest.mark.parametrize(
    "edited, added, message",
    [
        ({1: {"doc": "donut"}}, [], "again at rank"),
        ({0: {"doc": ""}}, [], "empty"),
        ({0: {"score": "high"}}, [], "score has to be a number"),
        ({0: {"grade": "relevant"}}, [], "whole number"),
        ({0: {"rank": 0}}, [], "rank has to be"),
        ({}, [{"doc": "bagel"}], "again at rank"),
    ],
)
def test_bad_edits_are_refused_with_a_reason(edited, added, message):
    with pytest.raises(InputError, match=message):
        apply_ranking_edits(PASTRY, edited, added, [])


def test_judgment_table_edits_add_change_and_delete_judgments():
    rows = [doc for doc, _ in unretrieved_judgments(PASTRY)]
    state = apply_judgment_edits(PASTRY, rows, {0: {"grade": 3}}, [{"doc": "eclair", "grade": 2}], [])
    assert state.judgments["scone"] == 3 and state.judgments["eclair"] == 2
    state = apply_judgment_edits(state, ["scone", "eclair"], {}, [], [1])
    assert "eclair" not in state.judgments
    with pytest.raises(InputError, match="already judged"):
        apply_judgment_edits(PASTRY, rows, {}, [{"doc": "donut", "grade": 1}], [])


def test_move_clamps_to_the_list():
    assert move(PASTRY, 3, 0).ranking[0] == "croissant"
    assert move(PASTRY, 0, 99).ranking[-1] == "donut"


def test_chart_changes_apply_to_the_not_removed_documents_only():
    state = PASTRY.replace(items=(PASTRY.items[0], Item("bagel", 0.9, removed=True), *PASTRY.items[2:]))
    swapped = reorder_active(state, Change("swap", 0, 1).apply(state.ranking))
    assert [item.doc for item in swapped.items] == ["muffin", "bagel", "donut", "croissant"]
    assert swapped.items[1].removed
    removed = remove_active(state, 1)  # the second visible document is muffin
    assert removed.ranking == ["donut", "croissant"]


# ---- table cells are text: what cannot be read is refused, never rounded, clamped or cleared ------------


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"score": "abc"}, r"row 2 \(bagel\): score has to be a number, got 'abc'"),
        ({"score": "nan"}, "score has to be a number"),
        ({"grade": "1.5"}, r"row 2 \(bagel\): grade has to be a whole number .* got '1.5'"),
        ({"grade": "5000"}, r"grade 5000 is out of range \(-1000 to 1000\)"),
        ({"rank": "two"}, "rank has to be a whole number"),
    ],
)
def test_a_typed_value_that_cannot_be_read_is_refused_with_the_row_and_the_value(changes, message):
    with pytest.raises(InputError, match=message):
        apply_ranking_edits(PASTRY, {1: changes}, [], [])


def test_typed_text_values_are_read_as_typed():
    state = apply_ranking_edits(PASTRY, {1: {"score": "0.85", "grade": "2"}, 3: {"grade": "unjudged"}}, [], [])
    assert state.items[1].score == 0.85 and state.judgments["bagel"] == 2
    assert apply_ranking_edits(PASTRY, {0: {"grade": "—"}}, [], []).judgments.get("donut") is None
    assert apply_ranking_edits(PASTRY, {2: {"rank": " 2 "}}, [], []).ranking[1] == "muffin"


# ---- one numbering: the active list's ranks, removed documents apart --------------------------------


DONUT_REMOVED = PASTRY.replace(items=(Item("donut", 0.95, removed=True), *PASTRY.items[1:]))


def test_removed_documents_are_listed_after_the_active_list():
    assert [DONUT_REMOVED.items[i].doc for i in DONUT_REMOVED.table_order] == ["bagel", "muffin", "croissant", "donut"]


def test_table_rows_and_typed_ranks_address_the_active_list():
    # Row 2 of the table is muffin (active rank 2); typing rank 1 puts it first among the active documents.
    state = apply_ranking_edits(DONUT_REMOVED, {1: {"rank": "1"}}, [], [])
    assert state.ranking == ["muffin", "bagel", "croissant"]
    # Row 4 is the removed donut: unticking "removed" brings it back to its place.
    assert apply_ranking_edits(DONUT_REMOVED, {3: {"removed": False}}, [], []).ranking[0] == "donut"
    with pytest.raises(InputError, match="a removed document has no rank"):
        apply_ranking_edits(DONUT_REMOVED, {3: {"rank": "1"}}, [], [])


def test_move_uses_active_ranks():
    assert move(DONUT_REMOVED, 2, 1).ranking == ["croissant", "bagel", "muffin"]


# ---- one list, one order ------------------------------------------------------------------------------


def test_a_link_with_scores_arrives_in_score_order_ties_by_the_tie_convention():
    assert decode_url({"ranking": "a:1,b:2,c:2", "qrels": "a:1"}).ranking == ["c", "b", "a"]
    assert decode_url({"ranking": "a:1,b:2,c:2", "qrels": "a:1", "ties": "as_given"}).ranking == ["b", "c", "a"]
    assert decode_url({"ranking": "a:1,b,c:2", "qrels": "a:1"}).ranking == ["a", "b", "c"]  # not every score: as given


def test_a_hand_move_contradicts_the_scores_until_sorted_or_the_order_is_kept():
    moved = move(PASTRY, 2, 2)
    assert scores_contradict_order(moved) and not scores_contradict_order(PASTRY)
    assert sort_by_score(moved).ranking == PASTRY.ranking
    kept = use_this_order(moved)
    assert kept.ranking == moved.ranking and not scores_contradict_order(kept)
    assert [item.score for item in kept.items] == [4.0, 3.0, 2.0, 1.0]


def test_changing_the_tie_order_reorders_tied_documents_of_a_list_that_follows_its_scores():
    tied = decode_url({"ranking": "biscotti:0.8,scone:0.8,donut:0.5", "qrels": "biscotti:1"})
    assert tied.ranking == ["scone", "biscotti", "donut"]
    assert set_tie_order(tied, "docid_ascending").ranking == ["biscotti", "scone", "donut"]
    hand_made = move(PASTRY, 3, 1)
    assert set_tie_order(hand_made, "docid_ascending").ranking == hand_made.ranking  # a hand-made order stays


def test_score_precision_decides_whether_near_equal_doubles_tie():
    # As C floats (trec_eval 9, pytrec_eval) 0.1 + 1e-9 and 0.1 tie, and y goes first (doc id descending).
    near = decode_url({"ranking": "x:0.100000001,y:0.1", "qrels": "y:1"})
    assert near.ranking == ["y", "x"]
    assert set_order_convention(near, "score_precision", "float64").ranking == ["x", "y"]
    assert encode_url(set_order_convention(near, "score_precision", "float64"))["precision"] == "float64"


# ---- the link reproduces what is shown -------------------------------------------------------------------


def test_a_link_keeps_a_hand_made_order_that_the_scores_contradict():
    muffin_up = move(PASTRY, 2, 2)  # donut, muffin, bagel, croissant; the scores say bagel before muffin
    params = encode_url(muffin_up)
    assert params["order"] == "shown"
    assert decode_url(params) == muffin_up
    assert "order" not in encode_url(PASTRY)  # a list that follows its scores needs no such parameter
    without_order = {name: value for name, value in params.items() if name != "order"}
    assert decode_url(without_order).ranking == PASTRY.ranking  # without it a link is ordered by its scores


def reachable_states(state: QueryState) -> list[QueryState]:
    """What a person can make of ``state`` in the explorer: hand moves, removals, each convention value, k."""
    moved = move(state, len(state.ranking) - 1, 1)
    states = [state, moved, remove_active(state, 0), remove_active(moved, 1), use_this_order(moved),
              state.replace(k=1), moved.replace(k=10_000),
              state.replace(conventions=state.conventions.replace(relevance_level=0))]
    for info in CONVENTION_INFO:
        if info.name not in CONVENTION_PARAMS:
            continue
        for choice in info.choices:
            for base in (state, moved):
                if info.name in ORDER_CONVENTIONS:
                    states.append(set_order_convention(base, info.name, choice.value))
                else:
                    states.append(base.replace(conventions=base.conventions.replace(**{info.name: choice.value})))
    return states


@pytest.mark.parametrize("sample", load_samples(), ids=lambda s: s.slug)
def test_every_state_the_explorer_reaches_from_a_sample_comes_back_from_its_link(sample):
    loaded = sort_by_score(QueryState(tuple(Item(doc, score) for doc, score in sample.ranking), dict(sample.judgments),
                                      sample.k, sample.conventions, query=sample.query))  # as the page loads it
    for state in reachable_states(loaded):
        params = encode_url(state)
        back = decode_url(params)
        assert back == state, params
        assert back.ranking == state.ranking and back.k == state.k and back.conventions == state.conventions


def test_one_bound_holds_a_link_the_state_too_long_for_it_gets_none_and_the_same_link_is_refused():
    # 500 documents of a real run: TREC-style ids with scores, about 700 judgments.
    items = tuple(Item(f"clueweb09-en0000-{i:02d}-{i * 7 % 10_000:05d}", 20.0 - i / 100) for i in range(500))
    judgments = {f"clueweb09-en0001-{i:02d}-{i:05d}": i % 3 for i in range(700)}
    long_state = QueryState(items, judgments, 10, query="wt09-1")
    params = encode_url(long_state)
    assert url_length(params) > MAX_URL_CHARS
    with pytest.raises(InputError, match="characters long; the limit is 8,000"):
        decode_url(params)
    # The bound is on the whole link as the address bar writes it (`,` and `:` percent-encoded), not per parameter.
    fits = QueryState(items[:60], {}, 10)
    assert url_length(encode_url(fits)) <= MAX_URL_CHARS and decode_url(encode_url(fits)) == fits
    assert url_length({"ranking": "a,b"}) == len("ranking=a%2Cb")


def test_the_missed_relevant_documents_follow_the_threshold_and_an_edit_of_that_table_reaches_its_document():
    state = QueryState((Item("donut"),), {"donut": 1, "stale": 0, "scone": 1, "eclair": 2, "pretzel": -1}, 1)
    assert unretrieved_judgments(state, relevant=True) == [("scone", 1), ("eclair", 2)]
    assert unretrieved_judgments(state, relevant=False) == [("stale", 0), ("pretzel", -1)]
    at_2 = state.replace(conventions=Conventions(relevance_level=2))
    assert unretrieved_judgments(at_2, relevant=True) == [("eclair", 2)]
    rows = [doc for doc, _ in unretrieved_judgments(state, relevant=True)]  # what the table shows
    edited = apply_judgment_edits(state, rows, {1: {"grade": "0"}}, [], [0])
    assert edited.judgments == {"donut": 1, "stale": 0, "eclair": 0, "pretzel": -1}
