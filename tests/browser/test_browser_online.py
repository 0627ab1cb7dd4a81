"""The explorer's online signals in a real browser: a person picks a click model, shapes PBM's position bias, pins
a baseline, moves a document and reads what users would do. The list is "sweet pastry" (donut, bagel, muffin,
croissant; donut and muffin relevant at grade 1 of 1, so each is clicked with probability (2^1 - 1) / 2^1 when
examined)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.support import ExplorerPage, RunsPage

pytestmark = [
    pytest.mark.browser,
]


def closed_form(table: dict[str, dict[str, str]], signal: str) -> float:
    return float(table[signal]["closed form"])


def test_pbm_with_every_rank_examined_abandons_like_the_cascade_but_clicks_more(explorer: ExplorerPage) -> None:
    explorer.open()
    cascade = explorer.online_signals()
    assert closed_form(cascade, "CTR@1") == pytest.approx(0.5)
    assert closed_form(cascade, "Abandonment (no click)") == pytest.approx(0.5 * 0.5)
    for row in cascade.values():  # the seeded simulation lies within 4 standard errors of each closed form
        assert abs(float(row["simulated"]) - float(row["closed form"])) <= 4 * float(row["standard error"])

    explorer.choose_click_model("PBM (position-based)")
    expect(explorer.online_click_chart().title()).to_contain_text("PBM")
    # theta = 1 / r: muffin at rank 3 is examined a third of the time.
    abandonment = 0.5 * (1 - 0.5 / 3)
    pbm = explorer.online_signals(showing={"Abandonment (no click)": {"closed form": abandonment}})
    assert closed_form(pbm, "Abandonment (no click)") == pytest.approx(abandonment)

    explorer.type_position_bias("1, 1, 1, 1")
    pbm = explorer.online_signals(showing={"Abandonment (no click)": {"closed form": 0.25}})
    assert closed_form(pbm, "Abandonment (no click)") == pytest.approx(0.25)
    assert closed_form(pbm, "Expected clicks") == pytest.approx(1.0)  # a click does not end a PBM session
    explorer.screenshot("pbm")
    assert not explorer.page_errors


def test_moving_muffin_up_against_the_pinned_baseline_wins_the_interleaving(explorer: ExplorerPage) -> None:
    explorer.open()
    explorer.open_online_signals()
    expect(explorer.page.get_by_text("Pin a baseline with Pin as baseline")).to_be_visible()
    explorer.rerun_after(lambda: explorer.page.locator(".st-key-pin_baseline button:visible").click())
    explorer.choose_document_to_move("3. muffin")
    explorer.rerun_after(lambda: explorer.press_move_button("move_up"))
    summary = explorer.page.get_by_text("In team-draft interleaving the current list wins")
    expect(summary).to_contain_text("a clear win")
    expect(summary).to_contain_text("no A/B test on CTR or abandonment can tell them apart")
    expect(summary).to_contain_text("AP@4 +0.111")
    explorer.chart("A/B test against the baseline").scroll_into_view()
    explorer.screenshot("against-baseline")
    assert not explorer.page_errors


def test_the_run_pages_online_signals_tab_gives_the_built_in_runs_rates(runs_page: RunsPage) -> None:
    runs_page.open()
    runs_page.use_built_in_collection()
    runs_page.open_tab("Online signals")
    # Every sample retrieves something; the cascade user abandons 0.158 of the sessions, averaged over the samples.
    expect(runs_page.metric_card("Zero-result rate").get_by_test_id("stMetricValue")).to_have_text("0.000")
    expect(runs_page.metric_card("Abandonment rate").get_by_test_id("stMetricValue")).to_have_text("0.158")
    assert not runs_page.page_errors
