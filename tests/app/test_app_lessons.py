"""The Lessons page: every lesson's numbers against trec_eval (through pytrec_eval) or the tool it names, no number
typed into a text, and every lesson walked in AppTest (predict, reveal, now try, predict again, reveal)."""

from __future__ import annotations

import math
import re

import pytest
from streamlit.testing.v1 import AppTest

from metrics import order_documents
from metrics.online import sessions_needed
from metrics.online.models import default_position_bias
from metrics.profiles import PROFILES
from tests.app.support import app_test, assert_no_failure, shown
from tests.support.paths import REPO
from ui.common.two_lists import EXPLORER_PREFIX, SECTION
from ui.lessons import PICK, catalog
from ui.lessons.model import Scene, placeholders, render, typed_text

pytrec_eval = pytest.importorskip("pytrec_eval")

LESSONS_PAGE = str(REPO / "ui" / "lessons" / "entry.py")
#: What a text may hold that looks like a number: a name (P@1, baking-faq#7, TREC DL 2020, Judged≥0@k), never a
#: value.
NAMES = re.compile(r"\S*[@#][0-9]\S*|TREC DL 2020|Judged≥0@")

#: Each lesson's right answers, first question then second: what the reveals' wording assumes.
ANSWERS = {
    "precision-recall": ("P@k", "P falls, recall rises"),
    "order-blindness": (0.5, "AP@k and nDCG@k only"),
    "tie-on-p10": ("they tie", "yes"),
    "rr-mrr": ((1 + 1 / 2 + 1 / 4) / 3, "MRR only"),
    "ap-map": ("a zero", "uncut AP only"),
    "ndcg-graded": ("nDCG@k", "nDCG@k"),
    "rag-recall": (2 / 3, 1.0),
    "holes": (0.8, 0.6),
    "online": (3.0, "no number of sessions"),
    "ann-recall": ("yes", 0.5),
    "ties-and-tools": ("scone", "two"),
    "which-metric": ("nDCG@10", "Recall@k"),
}

#: Facts that are trec_eval measures of one list: fact -> (scene, list index, trec_eval measure at the scene's k).
TREC_FACTS = {
    "precision-recall": {"precision": ("before", 0, "P.1"), "recall": ("before", 0, "recall.1"),
                         "precision_after": ("after", 0, "P.4"), "recall_after": ("after", 0, "recall.4")},
    "order-blindness": {"precision": ("before", 0, "P.4"), "ap": ("before", 0, "map_cut.4"),
                        "ap_after": ("after", 0, "map_cut.4"), "ndcg": ("before", 0, "ndcg_cut.4"),
                        "ndcg_after": ("after", 0, "ndcg_cut.4"), "recall_after": ("after", 0, "recall.4")},
    "tie-on-p10": {"precision_a": ("before", 0, "P.10"), "precision_b": ("before", 1, "P.10"),
                   "rr_a": ("before", 0, "recip_rank"), "rr_b": ("before", 1, "recip_rank"),
                   "ndcg_a": ("before", 0, "ndcg_cut.10"), "ndcg_b": ("before", 1, "ndcg_cut.10"),
                   "rr_b_after": ("after", 1, "recip_rank"), "ndcg_b_after": ("after", 1, "ndcg_cut.10")},
    "rr-mrr": {"rr_first": ("before", 0, "recip_rank"), "rr_second": ("before", 1, "recip_rank"),
               "rr_third": ("before", 2, "recip_rank")},
    "ap-map": {"ap": ("before", 0, "map"), "ap_k": ("before", 0, "map_cut.4"), "ap_after": ("after", 0, "map"),
               "ap_k_after": ("after", 0, "map_cut.4"), "precision_second": ("before", 0, "P.3")},
    "ndcg-graded": {"ndcg_k": ("before", 0, "ndcg_cut.4"), "ndcg": ("before", 0, "ndcg"),
                    "ndcg_k_after": ("after", 0, "ndcg_cut.4"), "ap_after": ("after", 0, "map_cut.4")},
    "rag-recall": {"recall": ("before", 0, "recall.5"), "recall_after": ("after", 0, "recall.5"),
                   "ndcg": ("before", 0, "ndcg_cut.5"), "ndcg_after": ("after", 0, "ndcg_cut.5")},
    "holes": {"precision": ("before", 0, "P.5"), "precision_after": ("after", 0, "P.5")},
    "online": {"ap": ("before", 0, "map_cut.4"), "ap_after": ("after", 0, "map_cut.4")},
    "which-metric": {"ndcg": ("before", 0, "ndcg_cut.10"), "recall": ("before", 0, "recall.10"),
                     "recall_after": ("after", 0, "recall.5"), "ndcg_after": ("after", 0, "ndcg_cut.5"),
                     "rr_after": ("after", 0, "recip_rank")},
}


def trec_eval(scene: Scene, index: int, measure: str, judgments=None) -> float:
    """pytrec_eval (trec_eval's code) on one list of a scene, scored n, n-1, ..., 1 so that it keeps the order."""
    listing = scene.lists[index]
    run = {"q": {doc: float(len(listing.docs) - rank) for rank, doc in enumerate(listing.docs)}}
    qrels = {"q": dict(judgments if judgments is not None else listing.judgments)}
    name, _, cutoff = measure.partition(".")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure if cutoff else name},
                                               relevance_level=scene.conventions.relevance_level)
    return evaluator.evaluate(run)["q"][f"{name}_{cutoff}" if cutoff else name]


def lesson_facts(lesson):
    before, after = lesson.scenes()
    return {"before": before, "after": after}, lesson.facts(before, after)


def test_there_are_at_least_twelve_lessons_in_the_articles_order():
    assert [lesson.slug for lesson in catalog.LESSONS] == list(ANSWERS)


@pytest.mark.parametrize("lesson", catalog.LESSONS, ids=lambda lesson: lesson.slug)
def test_every_text_names_facts_and_types_no_number_of_its_own(lesson):
    scenes, facts = lesson_facts(lesson)
    for template in (lesson.ask.prompt, lesson.ask.reveal, lesson.now_try, lesson.ask_again.prompt,
                     lesson.ask_again.reveal):
        assert placeholders(template) <= set(facts), placeholders(template) - set(facts)
        assert not re.search(r"[0-9]", NAMES.sub("", typed_text(template))), template
        assert "nan" not in render(template, facts).lower().split()
    for reveal in (lesson.ask.reveal, lesson.ask_again.reveal):  # the reason in two or three sentences
        assert 2 <= len(re.findall(r"[.!?](?:\s|$)", render(reveal, facts))) <= 3, reveal


@pytest.mark.parametrize("lesson", catalog.LESSONS, ids=lambda lesson: lesson.slug)
def test_each_lessons_answers_are_the_ones_its_reveals_explain(lesson):
    _, facts = lesson_facts(lesson)
    for question, expected in zip((lesson.ask, lesson.ask_again), ANSWERS[lesson.slug]):
        answer = question.answer(facts)
        if question.choices:
            assert answer == expected and answer in question.choices
        else:
            assert math.isclose(float(answer), expected, abs_tol=1e-12)
            assert question.is_right(round(expected, 2), facts)


@pytest.mark.parametrize("slug", list(TREC_FACTS))
def test_the_reveals_numbers_are_trec_evals(slug):
    scenes, facts = lesson_facts(catalog.BY_SLUG[slug])
    for fact, (scene, index, measure) in TREC_FACTS[slug].items():
        assert math.isclose(facts[fact], trec_eval(scenes[scene], index, measure), abs_tol=1e-12), fact


def test_the_words_of_each_reveal_follow_the_direction_of_its_numbers():
    facts = {lesson.slug: lesson_facts(lesson)[1] for lesson in catalog.LESSONS}
    order, mrr, ap, rag = facts["order-blindness"], facts["rr-mrr"], facts["ap-map"], facts["rag-recall"]
    assert order["ap_after"] > order["ap"] and order["ndcg_after"] > order["ndcg"]  # "rises"
    assert mrr["mrr_after"] > mrr["mrr"] and ap["ap_after"] > ap["ap"]  # "rises"
    assert rag["ndcg_after"] - rag["ndcg"] < rag["recall_after"] - rag["recall"]  # "nDCG@5 moves less"
    online = facts["online"]
    assert online["ap_after"] > online["ap"] and online["first_click_after"] < online["first_click"]  # "earlier"
    holes = facts["holes"]
    assert holes["bounded"] and holes["width_after"] < holes["width"]  # true bounds, "the range shrinks"
    tie = facts["tie-on-p10"]
    assert tie["rr_b_after"] > tie["rr_b"] and tie["ndcg_a"] > tie["ndcg_b"]
    tools = facts["ties-and-tools"]
    assert tools["trec_after"] == tools["ranx_after"] != tools["sklearn_after"]  # "agree", "still says"


def test_mrr_is_the_mean_of_the_three_reciprocal_ranks_and_mean_p1_ignores_rank_two():
    scenes, facts = lesson_facts(catalog.BY_SLUG["rr-mrr"])
    before, after = scenes["before"], scenes["after"]
    assert math.isclose(facts["mrr"], sum(trec_eval(before, i, "recip_rank") for i in range(3)) / 3)
    assert math.isclose(facts["mrr_after"], sum(trec_eval(after, i, "recip_rank") for i in range(3)) / 3)
    assert facts["p_one"] == facts["p_one_after"] == sum(trec_eval(before, i, "P.1") for i in range(3)) / 3


def test_the_two_systems_tie_on_p10_in_the_real_runs_as_trec_eval_scores_them():
    from metrics.real import DL20
    qrels = {catalog.TIE_QUERY: DL20.qrels().query(catalog.TIE_QUERY)}
    values = []
    for name in catalog.TIE_RUNS:
        run = {catalog.TIE_QUERY: DL20.run(name).query(catalog.TIE_QUERY)}
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"P.10", "recip_rank"}, relevance_level=2)
        values.append(evaluator.evaluate(run)[catalog.TIE_QUERY])
    _, facts = lesson_facts(catalog.TIE_ON_P10)
    assert values[0]["P_10"] == values[1]["P_10"] == facts["precision_a"] == facts["precision_b"]
    assert (values[0]["recip_rank"], values[1]["recip_rank"]) == (facts["rr_a"], facts["rr_b"])


def test_the_holes_bounds_are_p5_with_the_unjudged_dishes_judged_each_way():
    scenes, facts = lesson_facts(catalog.HOLES)
    before = scenes["before"]
    listing = before.lists[0]
    holes = [doc for doc in listing.docs[:5] if doc not in listing.judgments]
    assert len(holes) == facts["unjudged"] == 2
    all_relevant = {**listing.judgments, **{doc: 1 for doc in holes}}
    assert facts["low"] == trec_eval(before, 0, "P.5") == facts["precision"]
    assert facts["high"] == trec_eval(before, 0, "P.5", all_relevant)
    assert facts["low_after"] == trec_eval(scenes["after"], 0, "P.5")


def test_cascade_ctr_ignores_the_order_and_position_bias_divides_by_the_rank():
    scenes, facts = lesson_facts(catalog.ONLINE)
    attractiveness = [0.5 if grade == 1 else 0.0
                      for grade in (scenes["before"].lists[0].judgments.get(d) for d in scenes["before"].lists[0].docs)]
    assert facts["ctr"] == facts["ctr_after"]
    assert math.isclose(facts["ctr"], 1 - math.prod(1 - a for a in attractiveness))
    assert sessions_needed(facts["ctr"], facts["ctr_after"]) is None
    assert math.isclose(facts["click_top"], 0.5) and math.isclose(facts["click_low"], 0.5 / 3)
    assert list(default_position_bias(3)) == [1.0, 1 / 2, 1 / 3]  # "a chance of one in r"


def test_the_ann_list_beats_the_exact_list_on_retrieval_recall():
    scenes, facts = lesson_facts(catalog.ANN)
    exact, ann = scenes["before"].lists
    assert facts["ann_recall"] == len(set(exact.docs) & set(ann.docs)) / len(exact.docs)
    assert facts["recall_exact"] == trec_eval(scenes["before"], 0, "recall.5")
    assert facts["recall_ann"] == trec_eval(scenes["before"], 1, "recall.5") > facts["recall_exact"]
    assert facts["recall_after"] == facts["recall_exact"] and facts["ann_recall_after"] == 1.0


def _ndcg_at_4_ideal_from_retrieved_ties_averaged(grades: list[int], scores: list[float]) -> float:
    """scikit-learn's ndcg_score (ignore_ties=False) written out: tied documents share the mean of their discounted
    gains, and the ideal DCG sorts the retrieved documents' grades only."""
    discounts = [1 / math.log2(rank + 2) for rank in range(4)]
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    dcg, start = 0.0, 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and scores[order[end + 1]] == scores[order[start]]:
            end += 1
        group = [grades[order[i]] for i in range(start, end + 1)]
        dcg += sum(group) / len(group) * sum(discounts[start:end + 1])
        start = end + 1
    ideal = sum(g * d for g, d in zip(sorted(grades, reverse=True), discounts))
    return dcg / ideal


def test_three_tools_give_three_numbers_on_the_tie_and_two_without_it():
    scenes, facts = lesson_facts(catalog.TOOLS_LESSON)
    for scene, suffix in ((scenes["before"], ""), (scenes["after"], "_after")):
        listing = scene.lists[0]
        run = {"q": dict(zip(listing.docs, listing.scores))}
        qrels = {"q": dict(listing.judgments)}
        trec = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.4"}).evaluate(run)["q"]["ndcg_cut_4"]
        kept_order = trec_eval(scene, 0, "ndcg_cut.4")  # the run's own order, as ranx keeps it
        sklearn = _ndcg_at_4_ideal_from_retrieved_ties_averaged(
            [listing.judgments.get(doc, 0) for doc in listing.docs], list(listing.scores))
        assert math.isclose(facts["trec" + suffix], trec, abs_tol=1e-12)
        assert math.isclose(facts["ranx" + suffix], kept_order, abs_tol=1e-12)
        assert math.isclose(facts["sklearn" + suffix], sklearn, abs_tol=1e-12)
    assert (facts["distinct"], facts["distinct_after"]) == (3, 2)
    # What the reveal says of each tool is its profile's setting.
    trec, ranx, sklearn = (next(p for p in PROFILES if p.name == name) for name in catalog.TIE_TOOLS)
    assert trec.settings["tie_order"] == "trec_eval" and ranx.settings["tie_order"] == "ranx"
    listing = scenes["before"].lists[0]
    scores = dict(zip(listing.docs, listing.scores))
    assert order_documents(scores, "ranx") == order_documents(scores, "as_given")  # a short list: as given
    assert (sklearn.settings["tied_gains"], sklearn.settings["ideal_from"]) == ("averaged", "retrieved")


# ---- the page ----------------------------------------------------------------------------------------------


def open_lesson(slug: str) -> AppTest:
    at = app_test(LESSONS_PAGE)
    at.query_params["lesson"] = slug
    return at.run()


def answer(at: AppTest, slug: str, index: int, value) -> AppTest:
    key = f"lesson_{slug}_answer_{index}"
    if isinstance(value, str):
        at.radio(key=key).set_value(value).run()
    else:
        at.number_input(key=key).set_value(round(value, 2)).run()
    return at.button(key=f"lesson_{slug}_check_{index}").click().run()


@pytest.mark.parametrize("lesson", catalog.LESSONS, ids=lambda lesson: lesson.slug)
def test_each_lesson_asks_before_any_number_then_reveals_then_asks_again(lesson):
    slug = lesson.slug
    _, facts = lesson_facts(lesson)
    at = open_lesson(slug)
    assert_no_failure(at)
    assert at.button(key=f"lesson_{slug}_check_0").disabled  # nothing to check before an answer
    assert not at.success and not at.warning and not any("B − A" in t.value.columns for t in at.dataframe)
    assert not any("P@" in column for table in at.dataframe for column in table.value.columns)
    at = answer(at, slug, 0, ANSWERS[slug][0])
    assert [box.value for box in at.success] == ["Right. " + render(lesson.ask.reveal, facts)]
    assert render(lesson.now_try, facts) in [m.value.removeprefix("**Now try.** ") for m in at.markdown]
    at = at.button(key=f"lesson_{slug}_change").click().run()
    wrong = next((c for c in lesson.ask_again.choices if c != ANSWERS[slug][1]), None)
    at = answer(at, slug, 1, wrong if wrong is not None else ANSWERS[slug][1] + 0.5)
    assert_no_failure(at)
    warning = at.warning[0].value
    assert warning.startswith("Not quite: the answer is ") and warning.endswith(render(lesson.ask_again.reveal, facts))
    if lesson.prepare().is_pair:
        assert any("B − A" in table.value.columns for table in at.dataframe)  # the two-list view, with its numbers


def test_a_link_to_no_lesson_says_so_once_and_opens_the_first():
    at = open_lesson("no-such-lesson" + "x" * 500)
    errors = [error.value for error in at.error]
    assert len(errors) == 1 and errors[0].startswith("The link names no lesson called")
    assert len(errors[0]) < 700 and "…" in errors[0]
    assert at.session_state[PICK] == catalog.LESSONS[0].slug
    assert at.query_params["lesson"] in (catalog.LESSONS[0].slug, [catalog.LESSONS[0].slug])


def test_open_in_the_explorer_carries_the_lessons_lists_and_opens_the_two_list_view():
    at = app_test().run()
    at.switch_page("ui/lessons/entry.py").run()
    at.selectbox(key=PICK).set_value("tie-on-p10").run()
    at.button(key="lesson_tie-on-p10_explore").click().run()  # this run switches to the explorer and draws it
    assert_no_failure(at)
    _, facts = lesson_facts(catalog.TIE_ON_P10)
    assert shown(at)["P@10"] == f"{facts['precision_a']:.3f}" and shown(at)["RR"] == f"{facts['rr_a']:.3f}"
    assert at.session_state[SECTION] is True and at.session_state[EXPLORER_PREFIX].list_b[0] != \
        at.session_state[EXPLORER_PREFIX].list_a[0]
    assert any(table.value.columns[-1] == "B − A" for table in at.dataframe)


def test_docs_lessons_lists_every_lesson_with_its_link_and_goal_in_order():
    text = (REPO / "docs" / "lessons.md").read_text(encoding="utf-8")
    rows = [line.split(" | ") for line in text.splitlines() if re.match(r"\| [0-9]+ \| ", line)]
    assert [(row[1], row[2], row[3].removesuffix(" |")) for row in rows] == [
        (lesson.title, f"`?lesson={lesson.slug}`", lesson.goal) for lesson in catalog.LESSONS]
    assert f"query {catalog.TIE_QUERY}" in text and all(name in text for name in catalog.TIE_RUNS)
    assert all(name in text for name in catalog.TIE_TOOLS)


def test_a_scored_lesson_opens_in_the_explorer_in_trec_evals_order():
    at = app_test().run()
    at.switch_page("ui/lessons/entry.py").run()
    at.selectbox(key=PICK).set_value("ties-and-tools").run()
    at.button(key="lesson_ties-and-tools_explore").click().run()
    assert_no_failure(at)
    _, facts = lesson_facts(catalog.TOOLS_LESSON)
    assert shown(at)["nDCG@4"] == f"{facts['trec']:.3f}"  # trec_eval's number: scone, then biscotti
    assert at.session_state["query_state"].ranking[0] == facts["trec_first"]


def test_start_again_clears_the_answers_and_next_lesson_opens_the_following_one():
    first, second = catalog.LESSONS[:2]
    at = answer(open_lesson(first.slug), first.slug, 0, ANSWERS[first.slug][0])
    assert at.success
    at = at.button(key=f"lesson_{first.slug}_restart").click().run()
    assert not at.success and at.radio(key=f"lesson_{first.slug}_answer_0").value is None
    at = at.button(key=f"lesson_{first.slug}_next").click().run()
    assert_no_failure(at)
    assert at.session_state[PICK] == second.slug and at.query_params["lesson"] in (second.slug, [second.slug])
    last = catalog.LESSONS[-1].slug
    assert open_lesson(last).button(key=f"lesson_{last}_next").disabled
