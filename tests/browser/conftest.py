"""The server and browser fixtures of every browser test: one app server and one Chromium context for the whole run,
and a new tab (a new Streamlit session) for each test."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from tests.browser.support import (
    VIEWPORT,
    ExplorerPage,
    RunsPage,
    artifact_prefix,
    chromium_browser,
    chromium_missing_reason,
    running_app,
)


@contextlib.contextmanager
def _browser_context() -> Iterator[object]:
    with chromium_browser() as chromium:
        context = chromium.new_context(viewport=VIEWPORT)
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
    Every test still gets its own tab, hence its own Streamlit session."""
    with _browser_context() as context:
        yield context


@pytest.fixture
def explorer(browser_context, app_url, request) -> Iterator[ExplorerPage]:
    """A new tab (a new Streamlit session) for the explorer page, not yet opened."""
    page = browser_context.new_page()
    try:
        yield ExplorerPage(page, app_url, artifact_prefix=artifact_prefix(request))
    finally:
        page.close()


@pytest.fixture
def runs_page(browser_context, app_url, request) -> Iterator[RunsPage]:
    """A new tab (a new Streamlit session) for the "Evaluate a run" page, not yet opened."""
    page = browser_context.new_page()
    try:
        yield RunsPage(page, app_url, artifact_prefix=artifact_prefix(request))
    finally:
        page.close()
