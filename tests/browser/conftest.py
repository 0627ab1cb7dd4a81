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


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    reason = chromium_missing_reason()
    if reason:
        pytest.skip(reason)
    with running_app() as base_url:
        yield base_url


@pytest.fixture(scope="session")
def browser_context() -> Iterator[object]:
    """One Chromium context for the whole run: its HTTP and code caches make each later page load cheaper.
    Every test still gets its own tab, hence its own Streamlit session."""
    reason = chromium_missing_reason()
    if reason:
        pytest.skip(reason)
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
