"""The explorer's online signals and the metric guide's advice on online confirmation, through AppTest."""

from __future__ import annotations

import re

import pytest

import metrics
import metrics.online
from tests.app.support import assert_no_failure, open_app, open_runs_page, open_tab
from tests.app.test_app_runs import upload
from tests.app.test_app_whatif import figures
from ui.common.query_state import reorder_active
from ui.common.text import shown as as_shown  # what the page shows of a literal() message
from ui.explore import online, scores

PASTRY_QRELS = {"sweet pastry": {"donut": 1, "muffin": 1, "scone": 1}}
PASTRY_RUN = {"sweet pastry": {"donut": 0.95, "bagel": 0.9, "muffin": 0.8, "croissant": 0.7}}


def test_the_metric_guide_lists_when_an_offline_win_needs_online_confirmation():
    at = open_app()
    at.session_state[scores.GUIDE] = True  # as a click on the closed guide does (closed, it draws nothing)
    at.run()
    assert_no_failure(at)
    guide = next(e for e in at.expander if e.label == "Which metric should I use?")
    text = "\n".join(m.value for m in guide.markdown)
    assert "When an offline win needs online confirmation" in text
    assert "below the fold" in text and "unjudged" in text


# ---- the explorer's online signals -----------------------------------------------------------------------------
# Sweet pastry (donut, bagel, muffin, croissant; donut and muffin relevant, grade 1 of 1): the cascade user clicks
# donut with probability (2^1 - 1) / 2^1 = 0.5, never bagel, muffin with 0.5 * 0.5, so abandonment is 0.5 * 0.5.


def open_online(**params: str):
    """The explorer with its online signals section open, as a click on its expander does (closed, the section
    computes nothing)."""
    at = open_app(**params)
    at.session_state[online.OPEN] = True
    return at.run()


def signals(at) -> dict[str, dict[str, float]]:
    """The signals table: {signal label: {"closed form", "simulated", "standard error": value}}."""
    frame = next(f.value for f in at.dataframe if "closed form" in f.value.columns)
    return {label: {column: frame.loc[label, column] for column in ("closed form", "simulated", "standard error")}
            for label in frame.index}


def online_figure(at):
    return next(f for f in figures(at) if f.layout.title.text.startswith("Clicks per rank"))


def number_input(at, key):
    return next(n for n in at.number_input if n.key == key)


def test_the_cascade_model_clicks_donut_half_the_time_and_abandons_a_quarter_of_the_sessions():
    at = open_online()
    assert_no_failure(at)
    table = signals(at)
    assert table["CTR@1"]["closed form"] == pytest.approx(0.5)
    assert table["Abandonment (no click)"]["closed form"] == pytest.approx(0.25)
    assert table["CTR of the page"]["closed form"] == pytest.approx(0.75)
    assert table["Expected first-click rank"]["closed form"] == pytest.approx((1 * 0.5 + 3 * 0.25) / 0.75)
    assert table["Expected clicks"]["closed form"] == pytest.approx(0.75)
    for row in table.values():  # the seeded simulation agrees within 4 standard errors
        assert abs(row["simulated"] - row["closed form"]) <= 4 * row["standard error"]
    assert list(online_figure(at).data[0].y) == pytest.approx([0.5, 0, 0.25, 0])


def test_the_err_link_shows_the_offline_err_and_the_cascade_users_stopping_rank_equal():
    at = open_online()
    text = next(m.value for m in at.markdown if m.value.startswith("ERR = expected reciprocal rank"))
    values = re.findall(r"\*\*([0-9.]+)\*\*", text)
    err = metrics.evaluate(PASTRY_QRELS, PASTRY_RUN, ["ERR@4"])["sweet pastry"]["ERR@4"]
    assert values == [f"{err:.3f}", f"{err:.3f}"]  # a value in a sentence: the cards' three decimals
    own = next(m.value for m in at.markdown if m.value.startswith("- the cascade user above"))
    assert "**0.583**" in own  # 0.5 / 1 + 0.25 / 3: ERR with R = the default attractiveness
    # ERR@4 far below RR = 1.000 is said in one sentence, with the engine's numbers: grade 1 is worth 1/16.
    rr = metrics.evaluate(PASTRY_QRELS, PASTRY_RUN, ["recip_rank"])["sweet pastry"]["recip_rank"]
    why = next(c.value for c in at.caption if c.value.startswith("ERR@4 = "))
    assert why.startswith(f"ERR@4 = {err:.3f} beside RR = {rr:.3f}: gdeval's top grade is 4")
    assert "this list's highest grade, 1, is worth 1/16" in why


def test_raising_grade_1s_attractiveness_to_one_makes_every_session_click_donut():
    at = open_online()
    number_input(at, "online_attractiveness_1_of_1").set_value(1.0).run()
    table = signals(at)
    assert table["CTR@1"]["closed form"] == 1.0 and table["Abandonment (no click)"]["closed form"] == 0.0


def test_an_attractive_unjudged_document_draws_clicks_the_offline_metrics_never_see():
    at = open_online(ranking="donut,mystery,muffin", qrels="donut:1,muffin:1", k="3")
    number_input(at, "online_attractiveness_unjudged_of_1").set_value(0.5).run()
    assert list(online_figure(at).data[0].y) == pytest.approx([0.5, 0.25, 0.125])


def test_a_negative_grade_is_unjudged_for_the_click_model_as_in_trec_eval_and_the_list():
    from ui.explore.online import UNJUDGED, Settings, grade_levels

    assert grade_levels({"a": 1, "b": -1}, ["a", "b"]) == [0, 1, UNJUDGED]
    settings = Settings("cascade", 1, ((0, 0.4), (1, 0.5), (UNJUDGED, 0.1)), (), 1.0, (), 0.9, 100, 0)
    assert settings.model(["a", "b"], {"a": 1, "b": -1}).attractiveness.tolist() == [0.5, 0.1]
    at = open_online(ranking="donut,mystery,muffin", qrels="donut:1,mystery:-1,muffin:1", k="3")
    number_input(at, "online_attractiveness_unjudged_of_1").set_value(0.5).run()
    assert_no_failure(at)
    assert list(online_figure(at).data[0].y) == pytest.approx([0.5, 0.25, 0.125])


def test_pbm_examines_rank_r_with_probability_one_over_r_to_the_eta():
    at = open_online()
    at.radio(key="online_model").set_value("pbm").run()
    assert_no_failure(at)
    figure = online_figure(at)
    assert list(figure.data[2].y) == pytest.approx([1, 1 / 2, 1 / 3, 1 / 4])
    assert list(figure.data[0].y) == pytest.approx([0.5, 0, 0.5 / 3, 0])
    at.slider(key="online_eta").set_value(2.0).run()
    assert list(online_figure(at).data[2].y) == pytest.approx([1, 1 / 4, 1 / 9, 1 / 16])


def test_pbm_with_every_rank_examined_abandons_as_often_as_the_cascade():
    at = open_online()
    at.radio(key="online_model").set_value("pbm").run()
    at.text_input(key="online_bias").set_value("1, 1, 1, 1").run()
    table = signals(at)
    assert table["Abandonment (no click)"]["closed form"] == pytest.approx(0.25)
    assert table["Expected clicks"]["closed form"] == pytest.approx(1.0)  # but clicks do not stop the user


def test_a_position_bias_that_is_not_a_probability_gets_one_message():
    at = open_online()
    at.radio(key="online_model").set_value("pbm").run()
    at.text_input(key="online_bias").set_value("1, 1.5").run()
    assert_no_failure(at)
    assert any("value 2: 1.5 is not a probability" in as_shown(e.value) for e in at.error)
    at.text_input(key="online_bias").set_value("1, x").run()
    assert any("'x' is not a number" in as_shown(e.value) for e in at.error)


def test_dbn_with_full_continuation_and_satisfaction_is_the_cascade():
    at = open_online()
    at.radio(key="online_model").set_value("dbn").run()
    at.slider(key="online_continuation").set_value(1.0).run()
    assert number_input(at, "online_satisfaction_1_of_1").value == 1.0
    assert signals(at)["Abandonment (no click)"]["closed form"] == pytest.approx(0.25)
    at.slider(key="online_continuation").set_value(0.5).run()  # half the users give up after bagel
    assert signals(at)["Abandonment (no click)"]["closed form"] == pytest.approx(1 - 0.5 - 0.5 * 0.5 * 0.5 * 0.5)
    number_input(at, "online_satisfaction_1_of_1").set_value(0.0).run()  # nobody is satisfied: clicks go on
    assert signals(at)["Expected clicks"]["closed form"] > signals(at)["CTR of the page"]["closed form"]


def test_sessions_and_seed_set_the_simulation():
    at = open_online()
    number_input(at, "online_sessions").set_value(1_000).run()
    assert any("1,000 sessions, seed 0" in c.value for c in at.caption)
    first = signals(at)["CTR@1"]["simulated"]
    number_input(at, "online_seed").set_value(7).run()
    assert any("1,000 sessions, seed 7" in c.value for c in at.caption)
    assert signals(at)["CTR@1"]["simulated"] != first
    number_input(at, "online_seed").set_value(0).run()
    assert signals(at)["CTR@1"]["simulated"] == first  # the same seed gives the same sessions


def test_an_empty_list_says_what_to_do():
    at = open_online(ranking="", qrels="donut:1", k="4")
    assert_no_failure(at)
    assert any("see the clicks a user would make" in i.value for i in at.info)


# ---- against the pinned baseline ---------------------------------------------------------------------------------


def test_without_a_baseline_the_section_says_how_to_pin_one():
    at = open_online()
    assert any("Pin a baseline with *Pin as baseline*" in i.value for i in at.info)


def pinned_then_muffin_up(**params):
    at = open_online(**params)
    at.button(key="pin_baseline").click().run()
    at.session_state["query_state"] = reorder_active(at.session_state["query_state"],
                                                     ["donut", "muffin", "bagel", "croissant"])
    return at.run()


def table(at, key_column):
    return next(f.value for f in at.dataframe if key_column in f.value.columns)


def test_moving_muffin_up_wins_offline_and_in_interleaving_but_no_ab_test_on_ctr_sees_it():
    at = pinned_then_muffin_up()
    assert_no_failure(at)
    offline = table(at, "change")
    assert offline.loc["AP@4", "change"] == pytest.approx(1 / 9)
    assert offline.loc["P@4", "change"] == 0
    ab = table(at, "expected change")
    assert ab.loc["CTR of the page", "expected change"] == 0  # the cascade user clicks donut or muffin either way
    assert ab.loc["CTR of the page", "sessions needed per arm"] == "never (no expected change)"
    summary = next(m.value for m in at.markdown if m.value.startswith("Offline: "))
    assert "AP@4 +0.111" in summary and "no A/B test on CTR or abandonment can tell them apart" in summary
    assert "the current list wins" in summary and "a clear win" in summary
    chart = next(f for f in figures(at) if f.layout.title.text == "A/B test against the baseline")
    assert list(chart.data[1].x) == [0, 0]


def test_a_change_that_moves_ctr_says_how_many_sessions_an_ab_test_needs():
    at = open_online(ranking="bagel,croissant,donut,muffin", qrels="donut:1,muffin:1", k="2")
    at.button(key="pin_baseline").click().run()
    at.session_state["query_state"] = reorder_active(at.session_state["query_state"],
                                                     ["donut", "muffin", "bagel", "croissant"])
    at.run()
    ab = table(at, "expected change")
    assert ab.loc["CTR of the page", "expected change"] == pytest.approx(0.75)
    assert ab.loc["Abandonment (no click)", "expected change"] == pytest.approx(-0.75)
    needed = int(ab.loc["CTR of the page", "sessions needed per arm"].replace(",", ""))
    assert needed == metrics.online.sessions_needed(0.0, 0.75)
    assert ab.loc["CTR of the page", "seen at N?"] == "yes"


# ---- the run page ------------------------------------------------------------------------------------------------
# q1 is sweet pastry's list; q2 is judged but not in the run (zero results); q3 retrieves only an unjudged document.
QRELS = b"q1 0 donut 1\nq1 0 muffin 1\nq2 0 x 1\nq3 0 y 1\n"
RUN = (b"q1 Q0 donut 1 4 r\nq1 Q0 bagel 2 3 r\nq1 Q0 muffin 3 2 r\nq1 Q0 croissant 4 1 r\n"
       b"q3 Q0 z 1 1 r\n")


def online_cards(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric if m.label in (
        "Zero-result rate", "Abandonment rate", "Mean CTR", "Mean expected clicks")}


def test_the_run_page_counts_zero_result_queries_and_abandons_them_for_certain():
    at = open_tab(upload(open_runs_page(), ("qrels", QRELS), ("run", RUN)), "Online signals")
    assert_no_failure(at)
    assert online_cards(at) == {"Zero-result rate": "0.333", "Abandonment rate": "0.750",  # (0.25 + 1 + 1) / 3
                                "Mean CTR": "0.375", "Mean expected clicks": "0.375"}
    assert any("1 of 3 queries of the qrels retrieve nothing (q2)" in c.value for c in at.caption)
    frame = next(f.value for f in at.dataframe if "first-click rank" in f.value.columns)
    assert list(frame.index) == ["q1", "q3"]
    assert frame.loc["q1", "abandonment"] == pytest.approx(0.25)
    assert frame.loc["q3", "first-click rank"] != frame.loc["q3", "first-click rank"]  # no click, no rank (NaN)


def test_the_run_pages_click_model_and_its_parameters_change_the_rates():
    at = open_tab(upload(open_runs_page(), ("qrels", QRELS), ("run", RUN)), "Online signals")
    at.radio(key="runs_online_model").set_value("pbm").run()
    # q1: P(no click) = (1 - 0.5) (1 - 0.5 / 3); q2 and q3 abandon.
    assert online_cards(at)["Abandonment rate"] == f"{((0.5 * (1 - 0.5 / 3)) + 2) / 3:.3f}"  # a fraction, as CTR
    at.slider(key="runs_online_eta").set_value(0.0).run()  # every rank examined: the cascade's 0.25 for q1
    assert online_cards(at)["Abandonment rate"] == "0.750"
    at.radio(key="runs_online_model").set_value("dbn").run()
    at.slider(key="runs_online_continuation").set_value(0.0).run()  # nobody goes past rank 1
    assert online_cards(at)["Abandonment rate"] == f"{(0.5 + 2) / 3:.3f}"
    assert_no_failure(at)


def test_a_long_page_caps_the_simulated_sessions_and_says_so():
    docs = ",".join(f"d{i}" for i in range(50))
    at = open_online(ranking=docs, qrels="d0:1,d3:2", k="50")
    number_input(at, "online_sessions").set_value(100_000).run()
    assert_no_failure(at)
    assert any("A page of 50 ranks simulates at most 40,000 sessions" in c.value for c in at.caption)
    assert any("40,000 sessions, seed 0" in c.value for c in at.caption)


def test_a_zero_result_query_id_is_shown_as_typed():
    hostile = "**q2**[x](https://e.vil)"
    qrels = QRELS.replace(b"q2", hostile.encode())
    at = open_tab(upload(open_runs_page(), ("qrels", qrels), ("run", RUN)), "Online signals")
    caption = next(c.value for c in at.caption if "retrieve nothing" in c.value)
    assert f"({hostile})" in as_shown(caption)
    assert "**q2**" not in caption  # escaped: no bold, no link


def test_pinning_a_baseline_never_changes_the_current_lists_own_click_numbers():
    # The baseline judged bagel 3; the current list does not know bagel: its gmax stays 1, donut's CTR@1 stays 0.5
    # (what `python -m metrics.online` says of the current list alone), and the baseline arm uses its own gmax 3.
    at = open_online(ranking="donut,bagel,muffin,croissant", qrels="donut:1,muffin:1,scone:1", k="4")
    alone = signals(at)
    baseline = {"ranking": ["donut", "bagel", "muffin", "croissant"],
                "judgments": {"donut": 1, "muffin": 1, "scone": 1, "bagel": 3}}
    at.session_state["baseline"] = baseline
    at.run()
    assert_no_failure(at)
    table_now = signals(at)
    assert table_now["CTR@1"]["closed form"] == pytest.approx(0.5)
    assert {label: row["closed form"] for label, row in table_now.items()} == pytest.approx(
        {label: row["closed form"] for label, row in alone.items()}, nan_ok=True)
    own = {name: metrics.online.expected_signals(metrics.online.ClickModel(
        "cascade", metrics.online.default_attractiveness([judged.get(d) for d in page], max(judged.values()))))
        for name, page, judged in (("baseline", baseline["ranking"], baseline["judgments"]),
                                   ("current", baseline["ranking"], {"donut": 1, "muffin": 1, "scone": 1}))}
    ab = table(at, "expected change")
    assert ab.loc["CTR of the page", "expected change"] == pytest.approx(own["current"].ctr - own["baseline"].ctr)


def test_interleaving_uses_the_typed_position_bias_and_claims_no_win_when_no_click_is_possible():
    at = pinned_then_muffin_up()
    at.radio(key="online_model").set_value("pbm").run()
    at.text_input(key="online_bias").input("0, 0, 0, 0").run()
    assert_no_failure(at)
    summary = next(m.value for m in at.markdown if m.value.startswith("Offline: "))
    assert "wins" not in summary and "Interleaving decided no session." in summary
    assert any(m.value.startswith("No session of") for m in at.markdown)
    assert not any("ignores typed values" in c.value for c in at.caption)


def test_interleaving_uses_the_typed_attractiveness():
    # Grade 1 attracts never, an unjudged document always: the cascade user clicks the first of bagel and
    # croissant, mostly bagel from the baseline's team (it ranks bagel 2nd, the current list 3rd): a clear loss.
    at = pinned_then_muffin_up()
    number_input(at, "online_attractiveness_1_of_1").set_value(0.0).run()
    number_input(at, "online_attractiveness_unjudged_of_1").set_value(1.0).run()
    assert_no_failure(at)
    summary = next(m.value for m in at.markdown if m.value.startswith("Offline: "))
    assert "a clear loss" in summary
