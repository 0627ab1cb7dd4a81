"""Several people use the app at once: their sessions never see each other's state or an error.

Each tab of the browser is its own Streamlit session. The tabs rerun their pages at the same moment, many times
over, and every one of them must end on its own page, drawn, with no error. (Page objects shared by every session
raced here: the loser's page was blank with "This app has encountered an error".)
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.support import AppPage

pytestmark = [
    pytest.mark.browser,
]

SESSIONS = 4
ROUNDS = 8


def expect_drawn_without_error(tab: AppPage, heading: str) -> None:
    tab.wait_until_idle()
    expect(tab.page.get_by_role("heading", name=heading)).to_be_visible()
    expect(tab.page.get_by_text("This app has encountered an error")).to_have_count(0)
    expect(tab.page.get_by_text("cannot be called directly")).to_have_count(0)
    tab.expect_no_traceback()


def test_sessions_rerunning_at_the_same_moment_never_see_an_error(tab, browser_context, app_url) -> None:
    opened = [browser_context.new_page() for _ in range(SESSIONS - 1)]  # and the shared tab: a session each
    pages = [tab, *opened]
    try:
        tabs = [AppPage(page, app_url, artifact_prefix=f"sessions-{number}") for number, page in enumerate(pages)]
        headings = []
        for number, tab in enumerate(tabs):
            # Half the tabs on each page, so both pages' scripts run side by side.
            path, heading = ("/runs", "Evaluate a run") if number % 2 else ("/", "Explore a query")
            tab.page.goto(app_url + path)
            expect(tab.page.get_by_role("heading", name=heading)).to_be_visible()
            tab.wait_until_idle()
            headings.append(heading)
        for _ in range(ROUNDS):
            for tab in tabs:
                # "r" reruns the page (Streamlit's shortcut); sent to every tab before any of them is waited on.
                tab.page.locator("body").press("r")
            for tab, heading in zip(tabs, headings):
                expect_drawn_without_error(tab, heading)
    finally:
        for page in opened:
            page.close()
