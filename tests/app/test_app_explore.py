"""The explorer page driven through Streamlit's AppTest, the way a person uses its controls."""

from __future__ import annotations

import pytest
from streamlit.proto.Metric_pb2 import Metric as MetricProto

import metrics
from metrics.samples import load_samples
from tests.app.support import (
    JAM_URL,
    PASTRY,
    PASTRY_URL,
    assert_no_failure,
    deltas,
    open_app,
    open_conventions,
    param,
    shown,
)
from ui.common.query_state import remove_active
from ui.common.slides import is_slide_figure
from ui.common.text import shown as as_shown  # what the page shows of a literal() message
from ui.explore.data_io import DOWNLOADS
from ui.explore.scores import EXPLANATION_TAB


def test_default_page_shows_the_sweet_pastry_numbers_and_agrees_with_trec_eval():
    at = open_app()
    assert_no_failure(at)
    assert shown(at) == PASTRY
    assert any("computes the same numbers" in s.value for s in at.success)
    assert not at.query_params  # the bare address shows the sample as opened: the first edit writes the link
    at.number_input(key="k_input").set_value(3).run()
    assert param(at, "k") == "3"


def test_url_with_muffin_second_raises_ap_and_ndcg_only():
    at = open_app(**PASTRY_URL)
    assert_no_failure(at)
    values = shown(at)
    assert values["AP@4"] == "0.667" and values["nDCG@4"] == "0.765"
    assert (values["P@4"], values["Recall@4"], values["RR"]) == ("0.500", "0.667", "1.000")


def test_graded_jam_url_gives_ndcg_0_467():
    at = open_app(**JAM_URL)
    assert shown(at)["nDCG@4"] == "0.467"


@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"ranking": "a,a", "qrels": "a:1"}, "again at rank 2"),
        ({"ranking": "a,b", "qrels": "a:x"}, "grade has to be a whole number"),
        ({"ranking": "a,b", "qrels": "a:1", "k": "0"}, "k has to be a whole number"),
        ({"ranking": "a," * 15_000, "qrels": "a:1"}, "the limit is 8,000"),
        ({"ranking": "a,b", "qrels": "a:1", "gain": "cubic"}, "gain"),
        ({"ranking": "a:NaNx", "qrels": "a:1"}, "score has to be a number"),
    ],
)
def test_malformed_link_explains_the_problem_and_falls_back_to_the_default_sample(params, fragment):
    at = open_app(**params)
    assert_no_failure(at)
    assert any(fragment in as_shown(e.value) for e in at.error), [e.value for e in at.error]
    assert shown(at) == PASTRY


def test_odd_unicode_doc_ids_from_a_link_are_kept_exactly():
    at = open_app(ranking="café:2,naïve%2Cdoc:1,日本", qrels="café:1,日本:1", k="3")
    assert_no_failure(at)
    assert shown(at)["P@3"] == "0.667"
    assert at.data_editor[0].value["doc"].tolist() == ["café", "naïve,doc", "日本"]


#: What each sample's description claims, as the cards must show it when the sample loads (and, where the claim
#: is about a convention, after choosing it).
SAMPLE_CLAIMS = {
    "sweet-pastry": ({}, {"P@4": "0.500", "Recall@4": "0.667", "RR": "1.000"}),
    "suitable-for-lunch": ({}, {"RR": "0.333", "P@4": "0.500"}),
    "goes-well-with-jam": ({}, {"nDCG@4": "0.467"}),
    "goes-well-with-jam-binary": ({}, {"nDCG@4": "0.610"}),
    "dunk-in-coffee": ({}, {"RR": "0.500"}),
    "gluten-free-breakfast": ({"unjudged": "removed"}, {"RR": "1.000"}),
    "sourdough-starter-rag": ({}, {"Recall@5": "0.667"}),
    "laminating-butter-temperature": ({}, {"P@10": "0.500", "Recall@10": "0.556"}),
}


@pytest.mark.parametrize("sample", load_samples(), ids=lambda s: s.slug)
def test_every_sample_opens_in_its_score_order_with_the_engines_numbers_and_what_its_description_says(sample):
    """One app run per sample (each AppTest run executes the whole page): its order and the engine's numbers, its
    description, then what the description claims, after the convention it names."""
    at = open_app()
    at.selectbox(key="sample_picker").select(sample.slug).run()
    assert_no_failure(at)
    ranking = sample.ordered(sample.conventions.tie_order)
    assert at.data_editor[0].value["doc"].tolist() == ranking
    k = sample.k
    expected = metrics.evaluate_rankings([ranking], [dict(sample.judgments)],
                                         [f"P.{k}", f"ndcg_cut.{k}", f"map_cut.{k}", "map"], sample.conventions)
    values = shown(at)
    assert values[f"P@{k}"] == f"{expected[f'P_{k}'][0]:.3f}"
    assert values[f"nDCG@{k}"] == f"{expected[f'ndcg_cut_{k}'][0]:.3f}"
    assert values[f"AP@{k}"] == f"{expected[f'map_cut_{k}'][0]:.3f}"
    assert values["AP"] == f"{expected['map'][0]:.3f}"
    assert any(sample.description in c.value for c in at.caption)
    if sample.slug == "laminating-butter-temperature":  # read as TREC DL reads it: relevant from grade 2
        assert at.number_input(key="level_input").value == 2
        assert param(at, "level") == "2"
    if sample.slug == "gluten-free-breakfast":  # RR is one half before unjudged documents are removed
        assert values["RR"] == "0.500"
    assert set(SAMPLE_CLAIMS) == {each.slug for each in load_samples()}
    conventions, claims = SAMPLE_CLAIMS[sample.slug]
    if conventions:
        open_conventions(at)
    for name, value in conventions.items():
        at.selectbox(key=f"convention_{name}").select(value).run()
    assert {label: shown(at)[label] for label in claims} == claims


def test_the_jam_samples_differ_in_ndcg_only():
    at = open_app()
    at.selectbox(key="sample_picker").select("goes-well-with-jam").run()
    graded = shown(at)
    at.selectbox(key="sample_picker").select("goes-well-with-jam-binary").run()
    binary = shown(at)
    assert {label for label in graded if graded[label] != binary[label]} == {"nDCG@4"}
    assert at.data_editor[0].value["doc"].tolist()[0] == "pretzel"


def test_changing_k_relabels_and_recomputes_every_metric():
    at = open_app()
    at.number_input(key="k_input").set_value(2).run()
    values = shown(at)
    assert values["P@2"] == "0.500" and values["Recall@2"] == "0.333" and values["AP@2"] == "0.333"
    assert param(at, "k") == "2"
    at.number_input(key="k_input").set_value(8).run()  # k beyond the list pads with non-relevant ranks
    assert shown(at)["P@8"] == "0.250"


def test_raising_the_relevance_threshold_on_graded_judgments():
    at = open_app(**JAM_URL)
    at.number_input(key="level_input").set_value(2).run()
    values = shown(at)
    assert values["P@4"] == "0.250" and values["RR"] == "0.500"
    assert values["nDCG@4"] == "0.467"  # nDCG uses the grades themselves, as in trec_eval


def test_each_convention_changes_the_number_it_should_and_the_reset_undoes_it():
    at = open_conventions(open_app(**JAM_URL))  # one app: each convention is chosen, checked, then reset
    for convention, value, label, expected in [("gain", "exponential", "nDCG@4", "0.414"),
                                               ("ideal_from", "retrieved", "nDCG@4", "0.700"),
                                               ("unjudged", "removed", "nDCG@4", "0.667")]:
        at.selectbox(key=f"convention_{convention}").select(value).run()
        assert_no_failure(at)
        assert shown(at)[label] == expected, convention
        assert any(f"{convention}={value}" in c.value for c in at.caption), convention
        at.button(key="reset_conventions").click().run()
        assert shown(at)["nDCG@4"] == "0.467", convention
        assert not any(f"{convention}={value}" in c.value for c in at.caption), convention


def test_ap_denominator_and_short_list_conventions():
    at = open_app(ranking="a,b", qrels="a:1,c:1,d:1", k="4")
    assert shown(at)["AP@4"] == "0.333" and shown(at)["P@4"] == "0.250"
    open_conventions(at)
    at.selectbox(key="convention_ap_denominator").select("retrieved_relevant").run()
    assert shown(at)["AP@4"] == "1.000"
    at.selectbox(key="convention_precision_short_list").select("retrieved").run()
    assert shown(at)["P@4"] == "0.500"


def test_moving_muffin_up_teaches_the_seed_lesson_and_the_baseline_shows_deltas_and_arrows():
    at = open_app()
    at.button(key="pin_baseline").click().run()
    at.selectbox(key="move_doc").select("3. muffin").run()
    at.button(key="move_up").click().run()
    assert_no_failure(at)
    assert at.data_editor[0].value["doc"].tolist() == ["donut", "muffin", "bagel", "croissant"]
    values, changes = shown(at), deltas(at)
    assert values["AP@4"] == "0.667" and values["nDCG@4"] == "0.765"
    assert changes["AP@4"] == "+0.111" and changes["P@4"] == "±0.000" and changes["RR"] == "±0.000"
    # Against the baseline only the changed metrics get an arrow.
    arrows = {metric.label: MetricProto.MetricDirection.Name(metric.proto.direction) for metric in at.metric}
    assert arrows == {"P@4": "NONE", "Recall@4": "NONE", "RR": "NONE", "AP@4": "UP", "AP": "UP", "nDCG@4": "UP",
                      "Success@4": "NONE"}
    assert param(at, "ranking").split(",")[1].startswith("muffin")
    # The hand-made order contradicts the scores: the page says so in the status box and offers both ways out.
    assert any("The scores contradict this order" in w.value for w in at.warning)
    assert {"sort_by_score", "use_this_order"} <= {b.key for b in at.button}
    at.button(key="clear_baseline").click().run()
    assert all(not d for d in deltas(at).values())


def test_move_to_top_down_and_to_a_typed_rank():
    at = open_app()
    at.selectbox(key="move_doc").select("4. croissant").run()
    at.button(key="move_top").click().run()
    assert at.data_editor[0].value["doc"].tolist()[0] == "croissant"
    at.selectbox(key="move_doc").select("1. croissant").run()
    at.button(key="move_down").click().run()
    assert at.data_editor[0].value["doc"].tolist()[:2] == ["donut", "croissant"]
    at.selectbox(key="move_doc").select("1. donut").run()
    rank_input = [n for n in at.number_input if str(n.key).startswith("move_rank_")][0]
    rank_input.set_value(4).run()
    at.button(key="move_to").click().run()
    assert at.data_editor[0].value["doc"].tolist()[-1] == "donut"


def test_sort_by_score_restores_trec_evals_order():
    at = open_app()
    at.selectbox(key="move_doc").select("4. croissant").run()
    at.button(key="move_top").click().run()
    at.button(key="sort_by_score").click().run()
    assert at.data_editor[0].value["doc"].tolist() == ["donut", "bagel", "muffin", "croissant"]
    assert shown(at) == PASTRY


def test_tied_scores_from_a_link_arrive_in_trec_evals_order_and_the_tie_setting_reorders_them():
    at = open_app(ranking="a:0.5,b:0.5", qrels="a:1", k="2")
    assert at.data_editor[0].value["doc"].tolist() == ["b", "a"]  # doc id descending, as trec_eval
    assert shown(at)["RR"] == "0.500"
    open_conventions(at).selectbox(key="convention_tie_order").select("docid_ascending").run()
    assert at.data_editor[0].value["doc"].tolist() == ["a", "b"]
    assert shown(at)["RR"] == "1.000"
    assert not at.warning  # the order follows the scores under the chosen tie order


def test_the_tie_sample_shows_scone_first_and_rr_one_half_as_its_description_says():
    at = open_app()
    at.selectbox(key="sample_picker").select("dunk-in-coffee").run()
    assert at.data_editor[0].value["doc"].tolist()[:2] == ["scone", "biscotti"]
    assert shown(at)["RR"] == "0.500"
    open_conventions(at).selectbox(key="convention_tie_order").select("docid_ascending").run()
    assert at.data_editor[0].value["doc"].tolist()[:2] == ["biscotti", "scone"]
    assert shown(at)["RR"] == "1.000"
    at.selectbox(key="convention_tie_order").select("trec_eval").run()
    assert shown(at)["RR"] == "0.500"


def test_use_this_order_rewrites_the_scores_to_follow_the_ranks_and_keeps_the_numbers():
    at = open_app()
    at.selectbox(key="move_doc").select("3. muffin").run()
    at.button(key="move_up").click().run()
    moved = shown(at)
    at.button(key="use_this_order").click().run()
    assert_no_failure(at)
    assert shown(at) == moved
    assert at.data_editor[0].value["score"].tolist() == ["4", "3", "2", "1"]
    assert not any("contradict" in w.value for w in at.warning)
    assert any("computes the same numbers" in s.value for s in at.success)


def test_removing_donut_renumbers_the_active_list_and_shows_donut_apart():
    at = open_app()
    query = at.session_state["query_state"]
    at.session_state["query_state"] = remove_active(query, 0)
    at.run()
    frame = at.data_editor[0].value
    assert frame["doc"].tolist() == ["bagel", "muffin", "croissant", "donut"]
    assert frame["rank"].tolist() == ["1", "2", "3", "—"]
    assert at.selectbox(key="move_doc").options == ["1. bagel", "2. muffin", "3. croissant"]
    assert shown(at)["RR"] == "0.500"  # muffin, rank 2 in the table and in the explanation
    at = open_explanation(at, "RR")
    assert any("muffin at rank 2" in text for text in worked(at))


def test_unjudged_documents_read_unjudged_in_the_grade_column():
    at = open_app(ranking="a,b", qrels="a:1,c:2", k="2")
    assert at.data_editor[0].value["grade"].tolist() == ["1", "unjudged"]


def open_explanation(at, label: str):
    """Open the explanation tab of one card, as a click on it does (only the open tab is drawn)."""
    at.session_state[EXPLANATION_TAB] = label
    return at.run()


def worked(at) -> list[str]:
    """The worked formula of the open explanation (plain text, in the code font), as the page shows it."""
    return [text.value for text in at.text]


def test_explanations_show_the_computation_with_this_lists_numbers():
    at = open_app()
    codes = worked(at)
    assert "P@4 = 2 / 4 = 0.500" in codes  # the first tab, the only one drawn
    assert not any(code.startswith("AP@4 = ") for code in codes) and len(at.latex) == 1
    at = open_explanation(at, "AP@4")
    assert "AP@4 = (1/1 + 2/3) / 3 = 0.556" in worked(at)
    at.number_input(key="k_input").set_value(3).run()  # the tabs are relabelled; AP stays open
    assert at.session_state[EXPLANATION_TAB] == "AP@3"
    assert any(text.startswith("AP@3 = ") for text in worked(at))


QRELS_TREC = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 x 1\n"
RUN_TREC = b"q1 Q0 d2 1 0.9 mine\nq1 Q0 d1 2 0.8 mine\nq1 Q0 d9 3 0.7 mine\nq2 Q0 x 1 1.0 mine\n"


def test_uploaded_trec_files_open_a_query_in_the_editor():
    at = open_app()
    at.file_uploader(key="upload_qrels").set_value(("q.qrels", QRELS_TREC, "text/plain"))
    at.file_uploader(key="upload_run").set_value(("r.run", RUN_TREC, "text/plain"))
    at.run()
    at.selectbox(key="pick_query").select("q1 (3 retrieved, 3 judged)").run()
    at.button(key="open_query").click().run()
    assert_no_failure(at)
    assert at.data_editor[0].value["doc"].tolist() == ["d2", "d1", "d9"]
    assert at.data_editor[1].value["doc"].tolist() == ["d3"]
    assert any("Opened query 'q1'" in as_shown(i.value) for i in at.info)


def test_pasted_json_in_pytrec_eval_shape_is_accepted():
    at = open_app()
    at.text_area(key="paste_qrels").input('{"q": {"a": 1, "b": 0}}')
    at.text_area(key="paste_run").input('{"q": {"a": 0.2, "b": 0.9}}')
    at.run()
    at.button(key="open_query").click().run()
    assert at.data_editor[0].value["doc"].tolist() == ["b", "a"]
    assert shown(at)["RR"] == "0.500"


#: Bad qrels uploads and a fragment of the message each gets; neighbours' messages differ, so a message left over
#: from the upload before cannot pass for the next one's.
BAD_UPLOADS = [
    (b"q1 0 d1\n", "line 1"),
    (b"", "empty"),
    (b"q1 0 d1 x\n", "line 1"),
    (b'{"q": {"a": 1.5}}', "grade must be an integer"),
    (b"{not json", "not valid JSON"),
]


def test_bad_uploads_say_what_is_wrong_and_keep_the_list():
    at = open_app()  # one app, one bad file after another, each under its own name
    for number, (qrels, fragment) in enumerate(BAD_UPLOADS):
        at.file_uploader(key="upload_qrels").set_value((f"bad{number}.qrels", qrels, "text/plain")).run()
        assert_no_failure(at)
        errors = [as_shown(e.value) for e in at.error]
        assert any(fragment in error for error in errors), (qrels, errors)
        assert len(errors) == 1, (qrels, errors)
        assert shown(at) == PASTRY, qrels


def test_downloads_offer_trec_json_csv_and_a_snippet_each_a_file_named_by_its_content():
    files = {"dl_qrels", "dl_run", "dl_json", "dl_csv", "dl_python"}
    at = open_app()
    # Built only once their expander is opened (the slides' buttons beside the formulas and charts make nothing
    # until clicked: tests/app/test_slides.py).
    assert not files & {button.key for button in at.get("download_button")}
    at.session_state[DOWNLOADS] = True  # the expander opened, as a click on it does
    at.run()
    keys = {button.key for button in at.get("download_button")}
    assert files <= keys
    snippet = [c.value for c in at.code if "pytrec_eval.RelevanceEvaluator" in c.value]
    assert snippet
    namespace: dict = {}
    # The snippet is our own generated code, run here to prove it reproduces the page's numbers.
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(snippet[0], "snippet", "exec"), namespace)  # noqa: S102
    assert "map_cut_4\tsweet pastry\t0.5556" in out.getvalue()

    # Issue 22: a callable's file id is new on every run and forgotten when the next run ends, so a download
    # clicked while a rerun starts asked for an id the server had just dropped. A file is named by a hash of its
    # content (the same URL across reruns while it does not change) and outlives the run that replaced it. A figure
    # for slides (PNG/SVG) is the exception: it is drawn only when clicked, so it stays a callable.
    buttons = {button.key: button.proto for button in at.get("download_button") if not is_slide_figure(button.key)}
    assert {"dl_run", "dl_qrels", "dl_csv"} <= set(buttons)
    assert all(proto.url and not proto.HasField("deferred_file_id") and proto.ignore_rerun
               for proto in buttons.values()), buttons
    urls = {key: proto.url for key, proto in buttons.items()}
    at.number_input(key="k_input").set_value(3).run()
    after = {button.key: button.proto.url for button in at.get("download_button")}
    assert after["dl_run"] == urls["dl_run"] and after["dl_qrels"] == urls["dl_qrels"]  # k is not in these files
    assert after["dl_csv"] != urls["dl_csv"]  # the metrics at k = 3


def test_the_rr_card_has_no_cut_off_and_says_what_the_k_charts_rr_at_k_is():
    at = open_app()
    at.selectbox(key="sample_picker").select("suitable-for-lunch").run()
    at.number_input(key="k_input").set_value(2).run()
    assert shown(at)["RR"] == "0.333"
    at = open_explanation(at, "RR")
    assert any("RR@2 (the k chart's RR@k) is 0.000" in text for text in worked(at))
