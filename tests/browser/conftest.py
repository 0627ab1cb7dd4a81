"""The server and browser fixtures of every browser test: one app server, one Chromium context and one tab for the
whole run (per pytest-xdist worker), and a new Streamlit session for each test: its page object loads the page anew
in that tab, which costs Chromium about half the CPU of opening a new tab."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from tests.browser.support import (
    ARTIFACTS,
    VIEWPORT,
    ExplorerPage,
    RunsPage,
    artifact_prefix,
    chromium_browser,
    chromium_missing_reason,
    new_context,
    running_app,
    save_screenshot,
)

#: Where pytest_runtest_makereport keeps a test's outcome for its tab's teardown.
CALL_REPORT = pytest.StashKey()


@contextlib.contextmanager
def _browser_context() -> Iterator[object]:
    with chromium_browser() as chromium:
        context = new_context(chromium)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="session", autouse=True)
def chromium() -> None:
    """Skip every browser test, from this one place, when Debian's Chromium is absent: the rest of the suite runs."""
    reason = chromium_missing_reason()
    if reason:
        pytest.skip(_skipped(reason))


def _skipped(reason: str) -> str:
    return f"browser tests skipped: {reason} to run them"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Report every browser test skipped for want of Chromium at this file, not at the test: pytest's summary
    (``-ra``) folds skips by place and reason, so the reason and the fix show as one line, whatever the count (a
    module's own skip for the same reason included)."""
    report = yield
    if report.when == "call":
        item.stash[CALL_REPORT] = report
    reason = chromium_missing_reason()
    if reason and report.skipped and isinstance(report.longrepr, tuple) and reason in report.longrepr[2]:
        report.longrepr = (__file__, 1, f"Skipped: {_skipped(reason)}")
    return report


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    with running_app() as base_url:
        yield base_url


@pytest.fixture(scope="session")
def browser_context() -> Iterator[object]:
    """One Chromium context for the whole run: its HTTP and code caches make each later page load cheaper.
    Every test still gets its own Streamlit session (a page loaded anew in the shared tab)."""
    with _browser_context() as context:
        yield context


class _SharedTab:
    """The one tab the tests share, replaced by a new one after a test that failed (whatever state that test left
    it in, a crashed page included, goes with it)."""

    def __init__(self, context) -> None:
        self.context = context
        self.page = context.new_page()

    def replace(self) -> None:
        with contextlib.suppress(Exception):
            self.page.close()
        self.page = self.context.new_page()


@pytest.fixture(scope="session")
def shared_tab(browser_context) -> Iterator[_SharedTab]:
    shared = _SharedTab(browser_context)
    try:
        yield shared
    finally:
        with contextlib.suppress(Exception):
            shared.page.close()


@pytest.fixture
def tab(shared_tab, request) -> Iterator[object]:
    """The shared tab as a test starts, at the default viewport (a test may have narrowed it). Loading a page in it
    ends the last test's Streamlit session and starts a new one. A test that fails leaves a picture of the tab in
    tests/artifacts/ (the pictures of every step only with BROWSER_SCREENSHOTS=1), and the next test a new tab."""
    page = shared_tab.page
    page.set_viewport_size(VIEWPORT)
    yield page
    report = request.node.stash.get(CALL_REPORT, None)
    if report is not None and report.failed:
        with contextlib.suppress(Exception):  # a tab too broken for a picture must not hide the failure
            save_screenshot(page, ARTIFACTS / f"{artifact_prefix(request)}-failed.png", whole_page=False)
        shared_tab.replace()


@pytest.fixture
def explorer(tab, app_url, request) -> ExplorerPage:
    """The explorer page in the shared tab, not yet opened (a new Streamlit session once it is)."""
    return ExplorerPage(tab, app_url, artifact_prefix=artifact_prefix(request))


@pytest.fixture
def runs_page(tab, app_url, request) -> RunsPage:
    """The "Evaluate a run" page in the shared tab, not yet opened (a new Streamlit session once it is)."""
    return RunsPage(tab, app_url, artifact_prefix=artifact_prefix(request))
