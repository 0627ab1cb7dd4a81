"""Several people use the app at once: their sessions never see each other's state or an error.

Each tab of the browser is its own Streamlit session. The tabs rerun their pages at the same moment, many times
over, and every one of them must end on its own page, drawn, with no error. (Page objects shared by every session
raced here: the loser's page was blank with "This app has encountered an error".) The race is in the router every
run passes through, so one tab holds the explorer and the others the run page before an upload, the app's lightest
run: four sessions start each round together at a fraction of four explorers' cost (172 worker-s under load with
two explorers and eight rounds).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.support import AppPage

pytestmark = [
    pytest.mark.browser,
]

#: The page of each session (its path and heading): both pages' scripts run side by side.
PAGES = (("/", "Explore a query"), ("/runs", "Evaluate a run"), ("/runs", "Evaluate a run"),
         ("/runs", "Evaluate a run"))
ROUNDS = 6


def expect_drawn_without_error(tab: AppPage, heading: str) -> None:
    tab.wait_until_idle()
    expect(tab.page.get_by_role("heading", name=heading)).to_be_visible()
    expect(tab.page.get_by_text("This app has encountered an error")).to_have_count(0)
    expect(tab.page.get_by_text("cannot be called directly")).to_have_count(0)
    tab.expect_no_traceback()


def test_sessions_rerunning_at_the_same_moment_never_see_an_error(tab, browser_context, app_url) -> None:
    opened = [browser_context.new_page() for _ in range(len(PAGES) - 1)]  # and the shared tab: a session each
    pages = [tab, *opened]
    try:
        tabs = [AppPage(page, app_url, artifact_prefix=f"sessions-{number}") for number, page in enumerate(pages)]
        headings = [heading for _, heading in PAGES]
        for tab, (path, heading) in zip(tabs, PAGES):
            tab.page.goto(app_url + path)
            expect(tab.page.get_by_role("heading", name=heading)).to_be_visible()
            tab.wait_until_idle()
        for _ in range(ROUNDS):
            for tab in tabs:
                # "r" reruns the page (Streamlit's shortcut); sent to every tab before any of them is waited on.
                tab.page.locator("body").press("r")
            for tab, heading in zip(tabs, headings):
                expect_drawn_without_error(tab, heading)
    finally:
        for page in opened:
            page.close()
