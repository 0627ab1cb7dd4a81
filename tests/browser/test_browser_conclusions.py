"""Issue 25 in a real browser, as a person uses it: the explorer's disagreement lab finds the swap after which P@4
and nDCG@4 name different winners and applies it; the run page splits a query's difference between two runs over
its documents. Each step waits for the page's state, never for time; screenshots land in tests/artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.support import ExplorerPage, RunsPage

pytestmark = [pytest.mark.browser]


def _open_expander(page, key: str, rerun_after) -> None:
    section = page.locator(f".st-key-{key}")
    summary = section.locator("summary")
    summary.scroll_into_view_if_needed()
    rerun_after(summary.click)
    expect(section.locator("details[open]")).to_have_count(1)


def test_the_disagreement_lab_applies_its_swap_and_the_run_page_splits_a_difference(
        explorer: ExplorerPage, runs_page: RunsPage) -> None:
    explorer.open()
    _open_expander(explorer.page, "disagree_open", explorer.rerun_after)
    lab = explorer.page.locator(".st-key-disagree_open")
    # (literal() puts an invisible word joiner after each "@", so the texts are matched around "P@4".)
    expect(lab.get_by_text("Swapping ranks 1 and 2 of B (donut and bagel): P@")).to_be_visible()
    explorer.rerun_after(lambda: lab.locator(".st-key-disagree_apply button").click())
    expect(lab.get_by_text("disagree already")).to_contain_text("says tie")
    expect(lab.get_by_text("Swapping ranks 1 and 2 of B (donut and bagel): applied to the two-list view."))\
        .to_be_visible()
    explorer.screenshot("lab-applied")
    explorer.expect_no_traceback()

    runs_page.open()
    runs_page.use_built_in_collection()
    _open_expander(runs_page.page, "results_attribution", runs_page.rerun_after)
    runs_page.choose("attribution_measure", "map")
    runs_page.choose("attribution_qid", "sweet-pastry")  # the queries come largest difference first
    panel = runs_page.page.locator(".st-key-results_attribution")
    expect(panel.get_by_text("of query sweet-pastry: 0.5556 in samples, 0.6667 in oracle rerank, a difference of"))\
        .to_be_visible()
    expect(panel.get_by_text("Largest share: bagel moved from rank 2 to rank 3 (+0.1111).")).to_be_visible()
    runs_page.screenshot("attribution")
    runs_page.expect_no_traceback()
