"""The explorer's judgment holes through AppTest: the unjudged marker in the list, each card's bracket with the
help text that says exactly what low and high are, and Judged@k under the cards."""

from __future__ import annotations

from metrics import evaluate_rankings
from tests.app.support import PASTRY, PASTRY_URL, assert_no_failure, open_app, shown


def _brackets(at) -> dict[str, tuple[str, str]]:
    """The caption under each card, in card order, with its help text: {card label: (bracket, help)}."""
    cards = [metric.label for metric in at.metric]
    captions = [(c.value, c.help or "") for c in at.caption if c.value.startswith(("bounds [", "range ["))]
    assert len(captions) == len(cards)
    return dict(zip(cards, captions))


def test_sweet_pastry_cards_show_bounds_and_ranges_with_what_they_mean():
    at = open_app()
    assert_no_failure(at)
    assert shown(at) == PASTRY  # the values themselves are unchanged
    brackets = _brackets(at)
    # Each label names what it covers: which unjudged documents, and for recall that nothing else is judged.
    assert brackets["P@4"][0] == "bounds [0.500, 1.000] whatever the top 4's 2 unjudged get"
    assert brackets["Recall@4"][0] == "bounds [0.667, 0.800] judging only the top 4's 2 unjudged"
    assert brackets["RR"][0] == "bounds [1.000, 1.000] whatever the whole list's 2 unjudged get"
    assert brackets["AP@4"][0] == "range [0.556, 0.800]: the top 4's 2 unjudged all non-relevant or all relevant"
    assert brackets["nDCG@4"][0] == "range [0.704, 1.000]: the top 4's 2 unjudged all non-relevant or all relevant"
    p_help, ap_help = brackets["P@4"][1], brackets["AP@4"][1]
    assert ("2 unjudged documents in the top 4 judged relevant at grade 1, the query's largest grade, at least the "
            "relevance threshold" in p_help)
    assert "These are bounds: whatever grades those documents receive, P@4 stays between them." in p_help
    assert "not a bound: other judgments of those documents may give a value outside it" in ap_help
    assert "in the whole list" in brackets["AP"][1]


def test_judged_at_k_caption_counts_the_unjudged_documents_of_the_top_k():
    at = open_app()
    text = [c.value for c in at.caption if c.value.startswith("Judged≥0@4")]
    assert text == ["Judged≥0@4 = 0.500: 2 of the top 4 documents are unjudged (marked ✗ in the list's judged column). "
                    "Under each value: its bounds or range if the unjudged documents it names were judged (hover "
                    "for what they mean)."]


def test_the_list_marks_each_unjudged_document():
    at = open_app()
    frame = at.get("arrow_data_frame")[0].value if at.get("arrow_data_frame") else at.data_editor[0].value
    marks = dict(zip(frame["doc"], frame["judged"]))
    assert marks == {"donut": "✓", "bagel": "✗", "muffin": "✓", "croissant": "✗"}


def test_a_negative_grade_is_marked_unjudged_and_widens_the_bracket():
    at = open_app(ranking="donut,bagel", qrels="donut:1,bagel:-1", k="2")
    assert_no_failure(at)
    frame = at.data_editor[0].value if at.data_editor else at.get("arrow_data_frame")[0].value
    assert dict(zip(frame["doc"], frame["judged"])) == {"donut": "✓", "bagel": "✗"}
    assert _brackets(at)["P@2"][0] == "bounds [0.500, 1.000] whatever the top 2's 1 unjudged get"


def test_a_fully_judged_top_k_cannot_move():
    at = open_app(ranking="donut,muffin,scone", qrels="donut:1,muffin:1,scone:0", k="3")
    brackets = _brackets(at)
    assert brackets["P@3"][0] == "bounds [0.667, 0.667]: no unjudged in the top 3"
    assert brackets["P@3"][1] == ("Every document in the top 3 is judged: no judgment can move P@3; "
                                  "low = high = the value.")
    assert any(c.value.startswith("Judged≥0@3 = 1.000: 0 of the top 3") for c in at.caption)


def test_recall_bounds_say_they_hold_only_while_nothing_below_k_is_judged():
    # eclair, unjudged at rank 5, judged relevant: R grows to 4 and recall@4 falls to 0.500, below the low end.
    ranking, qrels = "donut,bagel,muffin,croissant,eclair", "donut:1,muffin:1,scone:1"
    at = open_app(ranking=ranking, qrels=qrels, k="4")
    bracket, help_text = _brackets(at)["Recall@4"]
    assert bracket == "bounds [0.667, 0.800] judging only the top 4's 2 unjudged"
    assert "a document below the top 4 (or not retrieved) judged relevant raises R and lowers it" in help_text
    judged = {"donut": 1, "muffin": 1, "scone": 1, "eclair": 1}
    (recall,) = evaluate_rankings([ranking.split(",")], [judged], ["recall.4"])["recall_4"]
    assert recall == 0.5 < 0.667


def test_k_beyond_the_list_says_how_many_are_listed():
    at = open_app(**{**PASTRY_URL, "k": "10"})
    assert any(c.value.startswith("Judged≥0@10 = 0.500: 2 of the 4 listed documents (k = 10 is beyond the list)")
               for c in at.caption)


def test_with_unjudged_documents_removed_precision_is_only_a_range_and_the_help_says_why():
    # -J: judging bagel non-relevant would put it back into the list, pushing muffin out of the top 2.
    at = open_app(ranking="donut,bagel,muffin", qrels="donut:1,muffin:1", k="2", unjudged="removed")
    assert_no_failure(at)
    bracket, help_text = _brackets(at)["P@2"]
    assert bracket == "range [1.000, 1.000]: the top 2's 1 unjudged non-relevant or relevant"
    assert "unjudged documents removed from the list, as the convention chosen says: 1.000" in help_text
    assert "not a bound" in help_text


def test_the_help_names_the_grade_of_the_all_relevant_scenario_by_its_rule_not_as_the_querys_top_grade():
    # Only grade 0 judged: the query's top grade is 0, the scenario judges the hole at the relevance threshold 1.
    from metrics.holes import query_holes, top_grade
    from ui.explore.holes import hole_help

    judgments = {"donut": 0}
    (hole,) = query_holes(["donut", "bagel"], judgments, ["P.2"]).values()
    text = hole_help("P@2", hole, 1, "the top 2", top_grade(judgments, 1))
    assert ("judged relevant at grade 1, the query's largest grade, at least the relevance threshold" in text)
    assert "the query's top grade" not in text


def test_one_unjudged_document_is_written_in_the_singular():
    at = open_app(ranking="donut,bagel", qrels="donut:1", k="2")
    assert_no_failure(at)
    assert any(c.value.startswith("Judged≥0@2 = 0.500: 1 of the top 2 documents is unjudged") for c in at.caption)
    brackets = _brackets(at)
    assert "the 1 unjudged document in the top 2" in brackets["P@2"][1]
    assert "whatever grade that document receives, P@2 stays between them" in brackets["P@2"][1]
    assert "other judgments of that document may give a value outside it" in brackets["AP@2"][1]
