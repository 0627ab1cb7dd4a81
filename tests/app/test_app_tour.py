"""README's two-minute tour, followed step by step through the labels it names: each step does what README says."""

from __future__ import annotations

from tests.app.support import assert_no_failure, open_app, open_conventions, open_runs_page, shown
from tests.support.paths import REPO

#: The tour's text, its line breaks as spaces (a label may wrap).
TOUR = " ".join((REPO / "README.md").read_text(encoding="utf-8")
                .split("## A two-minute tour", 1)[1].split("\n## ", 1)[0].split())


def _texts(at) -> list[str]:
    return [element.value for kind in (at.success, at.info, at.warning, at.caption, at.markdown) for element in kind]


def test_step_1_moving_muffin_up_raises_ap_and_ndcg_and_pytrec_eval_agrees_on_the_order_kept():
    assert "`3. muffin` under *Move document*" in TOUR and "computes the same numbers" in TOUR
    at = open_app()
    assert at.selectbox(key="move_doc").label == "Move document"
    at.selectbox(key="move_doc").select("3. muffin").run()
    at.button(key="move_up").click().run()
    assert_no_failure(at)
    values = shown(at)
    assert (values["AP@4"], values["nDCG@4"]) == ("0.667", "0.765")
    assert (values["P@4"], values["Recall@4"], values["RR"]) == ("0.500", "0.667", "1.000")
    assert any("The scores contradict this order" in text for text in _texts(at))
    use_this_order = at.button(key="use_this_order")
    assert f"*{use_this_order.label}*" in TOUR
    at = use_this_order.click().run()
    assert shown(at)["AP@4"] == "0.667"
    assert any("computes the same numbers" in text for text in _texts(at))


def test_step_2_and_3_the_what_if_views_and_the_conventions_caption_are_where_readme_says():
    at = open_app()
    views = at.button_group(key="whatif_tab").options
    for label in ("Changing k", "Swapping two ranks"):
        assert f"*{label}*" in TOUR and label in views
    open_conventions(at).selectbox(key="convention_gain").select("exponential").run()
    assert any(text.startswith("Conventions: ") and "gain=exponential" in text for text in _texts(at))
    assert at.query_params["gain"] in ("exponential", ["exponential"])
    assert "*Conventions*" in TOUR and "no card moves, and the page says why" in TOUR
    assert any("No card changed" in text and "the only grade here is 1" in text for text in _texts(at))


def test_step_3_the_tie_order_moves_rr_and_ap_on_the_tied_sample():
    at = open_app()
    sample = "something to dunk in coffee (tied scores)"
    assert f"*{sample}*" in TOUR and "RR goes from 0.500 to 1.000 and AP@4 from 0.333 to 0.500" in TOUR
    picker = at.selectbox(key="sample_picker")
    assert sample in picker.options  # the label the tour names
    at = picker.select("dunk-in-coffee").run()
    assert (shown(at)["RR"], shown(at)["AP@4"]) == ("0.500", "0.333")
    assert "`docid_ascending`" in TOUR
    open_conventions(at).selectbox(key="convention_tie_order").select("docid_ascending").run()
    assert_no_failure(at)
    assert (shown(at)["RR"], shown(at)["AP@4"]) == ("1.000", "0.500")


def test_step_4_the_run_page_has_the_sample_switch_and_the_tabs_readme_names():
    at = open_runs_page()
    switch = at.toggle(key="runs_use_samples")
    assert f"*{switch.label}*" in TOUR
    at = switch.set_value(True).run()
    assert_no_failure(at)
    tabs = [tab.label for tab in at.tabs]
    for label in ("Check a reported score", "Compare runs"):
        assert f"*{label}*" in TOUR and label in tabs
