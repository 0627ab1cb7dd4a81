"""Shared AppTest helpers: open the app (optionally from a link), read what it shows, and check it never failed."""

from __future__ import annotations

import functools
from collections import Counter

import streamlit as st
from streamlit.components.v2 import manifest_scanner
from streamlit.testing.v1 import AppTest

from tests.support.paths import REPO
from ui.common import panels
from ui.runs import TAB as RUNS_TAB
from ui.runs.data import CONVENTIONS_OPEN as RUN_CONVENTIONS_OPEN

APP = str(REPO / "app.py")
#: How long one AppTest script run may take before the test gives up: a bound for a page that hangs, never a timing
#: assertion. The two cores are shared: at a load average of 30 (eight people's tests) pages took about ten times as
#: long as on an idle machine.
RUN_TIMEOUT_S = 300
PASTRY = {
    "P@4": "0.500", "Recall@4": "0.667", "RR": "1.000", "AP@4": "0.556", "AP": "0.556", "nDCG@4": "0.704",
    "Success@4": "1.000",
}
PASTRY_URL = {"ranking": "donut,muffin,bagel,croissant", "qrels": "donut:1,muffin:1,scone:1", "k": "4"}
JAM_URL = {
    "ranking": "pretzel:0.9,bagel:0.85,muffin:0.7,donut:0.6",
    "qrels": "bagel:2,croissant:2,roll:2,scone:1,muffin:1,donut:1",
    "k": "4",
}


def _scanned_once(scan):
    """``scan`` (Streamlit's search of the installed packages for component manifests) done once per process.

    Every AppTest searches the installed packages when it first runs, reading the metadata of each of them (about
    180 here): 233 searches took 55 CPU-s of tests/app's 117 (measured with a counting wrapper), half of it. The
    packages do not change while the suite runs, so each AppTest gets the same list the first search found (a
    copy), and registers its components from it as before."""
    found: list | None = None

    @functools.wraps(scan)
    def scan_once(*args, **kwargs):
        nonlocal found
        if found is None:
            found = scan(*args, **kwargs)
        return list(found)

    return scan_once


manifest_scanner.scan_component_manifests = _scanned_once(manifest_scanner.scan_component_manifests)


def app_test(script: str = APP) -> AppTest:
    """An AppTest of ``script`` (not run yet) whose panels rerun with the whole page: AppTest shows only the elements
    a keyed fragment rerun draws, so a test that reads the page after an interaction needs the whole page drawn
    (ui.common.panels; the browser tests check the narrowed reruns)."""
    at = AppTest.from_file(script, default_timeout=RUN_TIMEOUT_S)
    at.session_state[panels.WHOLE_PAGE] = True
    return at


def open_app(**params: str) -> AppTest:
    at = app_test()
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


def shown(at: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in at.metric}


def deltas(at: AppTest) -> dict[str, str]:
    return {metric.label: metric.delta for metric in at.metric}


def param(at: AppTest, name: str) -> str:
    value = at.query_params[name]
    return value[-1] if isinstance(value, list) else value


def assert_no_failure(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not [e.value for e in at.error if "Something went wrong" in e.value]


def open_run_conventions(at: AppTest) -> AppTest:
    """Open the run page's conventions panel in the sidebar, as a click on it does (its select boxes are drawn only
    while it is open)."""
    at.session_state[RUN_CONVENTIONS_OPEN] = True
    return at.run()


def open_conventions(at: AppTest) -> AppTest:
    """Open the explorer's Conventions panel in the sidebar, as a click on it does (its select boxes are drawn only
    while it is open)."""
    at.session_state["conventions_panel_open"] = True
    return at.run()


def open_runs_page() -> AppTest:
    return app_test().run().switch_page("ui/runs/entry.py").run()


def open_tab(at: AppTest, label: str) -> AppTest:
    """Open one tab of the run page, as a click on it does (only the open tab is computed and drawn)."""
    at.session_state[RUNS_TAB] = label
    return at.run()


def count_calls(monkeypatch, heavy: dict) -> Counter:
    """How often each function of ``heavy`` (name -> (module, attribute)) runs, spied on through ``monkeypatch``;
    the caches are emptied first, so that a call is never skipped by a result another test computed."""
    st.cache_data.clear()
    counted: Counter = Counter()
    for name, (module, attribute) in heavy.items():
        original = getattr(module, attribute)

        def spy(*args, _name=name, _original=original, **kwargs):
            counted[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, attribute, spy)
    return counted
