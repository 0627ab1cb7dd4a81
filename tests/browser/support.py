"""Real-browser support: the app in a subprocess, Debian's Chromium driven by Playwright, and the app's pages
described in the words a person would use ("edit bagel's grade", "move muffin up one rank", "click the heatmap
cell for ranks 2 and 3", "upload a run").

Used by tests/browser/ (whose conftest.py makes pytest fixtures of it) and by docs/make_screenshots.py (as plain
context managers).
We never download a browser: Playwright drives /usr/bin/chromium (``make browser`` installs it from Debian).
"""

from __future__ import annotations

import base64
import contextlib
import math
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Self
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect, sync_playwright
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "tests" / "artifacts"
#: Pictures of the tests' steps for a look by eye (in ARTIFACTS) are taken when BROWSER_SCREENSHOTS=1 asks for them:
#: a whole-page picture grows the viewport to the page's height and draws it all again, and no test reads one. A
#: failing test always leaves a picture of where it stopped (conftest.py).
SCREENSHOTS = os.environ.get("BROWSER_SCREENSHOTS", "") not in ("", "0")
#: Debian's Chromium; the CHROMIUM environment variable names another build (or, naming a missing file, shows what
#: a machine without one does: the browser tests skip).
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 1100}
#: How long a server may take to answer its health check (a bound only: the wait ends when it answers).
SERVER_START_SECONDS = 90
#: Two cores shared with other test runs: a rerun can take many seconds under load, so waits are generous (a wait
#: ends as soon as the page is in the state waited for; this bound only decides when to give up). At a load average
#: of 30 a page that opens in 12 s idle missed 120 s.
WAIT_MS = 300_000
#: How long rerun_after looks for the run its action caused; a loaded page can skip showing the state change.
RERUN_SEEN_MS = 20_000
#: How often a wait on a JavaScript condition looks again (Playwright's default, every animation frame, makes the
#: tab draw frames for as long as it waits).
POLL_MS = 100

#: How many of the last messages the page keeps for SentMessages (a rerun sends a few hundred at most).
KEPT_FRAMES = 5_000

#: Counts the script runs the page has finished and shown, so a test can wait for the rerun its own action caused
#: rather than for a page that merely has not started it yet. ``data-test-script-state`` turning to ``notRunning``
#: alone is not a finished run: a run the server stops for a rerun (a second request while the first runs, or
#: ``st.rerun``) turns it to ``notRunning`` for a moment with the old elements still on the page, and a read there
#: saw the last run's table. So the app's own messages are read too: each ForwardMsg whose ``script_finished``
#: (field 6) is not FINISHED_EARLY_FOR_RERUN (2) counts as received, and a turn to ``notRunning`` shows every run
#: received by then (the frontend handles each message in the task that delivers it, before the page draws). A run
#: whose messages all arrive at once (a fast rerun: every message within a few ms) never turns the state to
#: ``running`` at all: React draws the whole run in one go, from ``notRunning`` to ``notRunning``. Such a run counts
#: as shown in a task of background priority queued when its last message arrives, which runs once the page has
#: done the work of normal priority queued before it (React's drawing of that run included), if the state is then
#: ``notRunning``. Counted by the turn alone, such a run was never seen, and rerun_after waited its whole
#: RERUN_SEEN_MS (20 s) for it. It keeps the messages themselves too, for SentMessages.
COUNT_SCRIPT_RUNS = """
window.__scriptRunsFinished = 0;
window.__scriptRunsReceived = 0;
window.__framesKept = [];
(() => {
    const KEPT_FRAMES = {KEPT_FRAMES};
    const varint = (bytes, at) => {
        let value = 0, shift = 0, byte;
        do { byte = bytes[at++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
        return [value, at];
    };
    const finishStatus = bytes => {  // the script_finished field of a ForwardMsg, or -1
        let at = 0;
        while (at < bytes.length) {
            let tag, value;
            [tag, at] = varint(bytes, at);
            const field = Math.floor(tag / 8), wire = tag & 7;
            if (wire === 0) { [value, at] = varint(bytes, at); if (field === 6) return value; }
            else if (wire === 2) { [value, at] = varint(bytes, at); at += value; }
            else if (wire === 1) at += 8;
            else if (wire === 5) at += 4;
            else return -1;
        }
        return -1;
    };
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
        constructor(...args) {
            super(...args);
            this.addEventListener('message', event => {  // added before the app's own listener: it runs first
                if (!(event.data instanceof ArrayBuffer)) return;
                window.__framesKept.push(event.data);  // for SentMessages, the last KEPT_FRAMES only
                if (window.__framesKept.length > KEPT_FRAMES) window.__framesKept.shift();
                const status = finishStatus(new Uint8Array(event.data));
                if (status >= 0 && status !== 2) {
                    const received = ++window.__scriptRunsReceived;
                    afterDrawing(() => {
                        const app = document.querySelector('[data-testid=stApp]');
                        if (app && app.getAttribute('data-test-script-state') === 'notRunning')
                            window.__scriptRunsFinished = Math.max(window.__scriptRunsFinished, received);
                    });
                }
            });
        }
    };
    const afterDrawing = task => window.scheduler && window.scheduler.postTask
        ? window.scheduler.postTask(task, {priority: 'background'}) : setTimeout(task, 0);
})();
new MutationObserver(records => {
    for (const record of records) {
        if (record.target.getAttribute('data-test-script-state') === 'notRunning'
                && record.oldValue !== 'notRunning')
            window.__scriptRunsFinished = Math.max(window.__scriptRunsFinished, window.__scriptRunsReceived);
    }
}).observe(document, {attributes: true, subtree: true, attributeOldValue: true,
                      attributeFilter: ['data-test-script-state']});
"""

#: A data frame's text twin (its accessibility table) as a list of ``{column header: cell text}``.
READ_CELLS = """grid => {
    const headers = [...grid.querySelectorAll('thead th')].map(cell => cell.textContent.trim());
    return [...grid.querySelectorAll('tbody tr')].map(row => Object.fromEntries(
        [...row.querySelectorAll('td')].map((cell, column) => [headers[column], cell.textContent.trim()])));
}"""
#: Whether that table shows the cells asked for (``AppPage.table_rows``'s ``showing``).
SHOWS_CELLS = f"""([grid, showing]) => {{
    const rows = ({READ_CELLS})(grid);
    return Object.entries(showing).every(([first, cells]) => rows.some(row =>
        Object.values(row)[0] === first && Object.entries(cells).every(([column, want]) =>
            typeof want === 'number' ? Math.abs(Number(row[column]) - want) <= 1e-9 * Math.max(1, Math.abs(want))
                                     : row[column] === want)));
}}"""

#: Scroll a select box to the middle of the view unless its list has room below it, and wait two frames for the
#: scroll's event to pass (AppPage._select_box).
ROOM_FOR_THE_LIST = """async box => {
    const {top, bottom} = box.getBoundingClientRect();
    if (top >= 0 && bottom + 320 <= innerHeight) return;  // a list shows up to about 300 px of options
    box.scrollIntoView({block: 'center', behavior: 'instant'});
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
}"""

#: The ranked-list editor's columns, left to right (ui/explore/editor.py), and the grid's geometry in CSS pixels.
RANKING_COLUMNS = ("rank", "document", "score", "grade", "judged", "removed")
HEADER_HEIGHT = 36
ROW_HEIGHT = 35
FIRST_COLUMN_X = 70  # inside the "rank" column, right of the row-marker column


def chromium_missing_reason() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is absent; install Debian's chromium (as root: make browser, or apt-get install chromium)"
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_streamlit(script: str = "app.py", folder: Path = REPO, log_path: Path | None = None,
                      options: dict[str, str] | None = None) -> Iterator[str]:
    """``streamlit run script`` in ``folder`` on a free localhost port; yields its base URL once the server answers
    its health check, and stops it afterwards. Its output goes to ``log_path``, kept only when something failed.
    ``options`` are configuration options on the command line (``{"runner.postScriptGC": "true"}``), over
    ``folder``'s .streamlit/config.toml. Used by the browser tests (the app) and bench/ (the app of any checkout, and
    its minimal peer)."""
    port = free_port()
    log_path = log_path or ARTIFACTS / f"streamlit-{port}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable, "-m", "streamlit", "run", script,
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
        "--server.headless", "true",
        # Other people edit the tree while tests run: a file change must not rerun the page under a test.
        "--server.fileWatcherType", "none",
        "--server.runOnSave", "false",
        "--browser.gatherUsageStats", "false",
        *(argument for name, value in (options or {}).items() for argument in (f"--{name}", value)),
    ]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=folder, stdout=log, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            base_url = f"http://127.0.0.1:{port}"
            _wait_until_healthy(base_url, process, log_path)
            yield base_url
            log_path.unlink(missing_ok=True)  # kept only when something failed before the end
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def running_app(log_path: Path | None = None) -> contextlib.AbstractContextManager[str]:
    """``streamlit run app.py`` of this checkout on a free localhost port (see running_streamlit)."""
    return running_streamlit("app.py", REPO, log_path)


def _wait_until_healthy(base_url: str, process: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {process.returncode}; its log:\n{log_path.read_text()}")
        try:
            with urllib.request.urlopen(f"{base_url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"streamlit did not answer on {base_url} within {SERVER_START_SECONDS} s; see {log_path}")


def new_context(browser, viewport: dict[str, int] = VIEWPORT):
    """A browser context (its own cookies and caches) whose tabs prefer reduced motion: Streamlit's spinners and
    loading shimmer stand still, which took Chromium's compositor 4-9 CPU-s per page opened (0.5-1 s without);
    nothing a test reads is animated."""
    return browser.new_context(viewport=viewport, reduced_motion="reduce")


def _prepared(page) -> list[str]:
    """Make ``page`` count its script runs and wait as long as a loaded machine needs, once however many page
    objects wrap it (a tab reused across tests); returns the list its JavaScript errors go to."""
    errors = getattr(page, "_app_page_errors", None)
    if errors is None:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.add_init_script(COUNT_SCRIPT_RUNS.replace("{KEPT_FRAMES}", str(KEPT_FRAMES)))
        page.set_default_timeout(WAIT_MS)
        page._app_page_errors = errors
    return errors


@contextlib.contextmanager
def chromium_browser() -> Iterator[object]:
    """Debian's Chromium, headless, driven by Playwright (never a downloaded browser)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


class SentMessages:
    """The forward messages a tab's websocket receives, decoded with Streamlit's own protobuf classes: what a rerun
    sends, to count. The page keeps them itself (COUNT_SCRIPT_RUNS), as its app handles them: Playwright's
    ``framereceived`` events reach Python later than the page shows their run, so under load frames of the run
    before a :meth:`clear` were still arriving after it (and counted with the next interaction's), and a count
    taken right after a run could miss its last frames. What the page keeps starts again with each document it
    loads; used as a context manager (kept for the tests written so)."""

    def __init__(self, page) -> None:
        self.page = page
        _prepared(page)

    def __enter__(self) -> SentMessages:
        return self

    def __exit__(self, *exc_info) -> None:
        pass

    def clear(self) -> None:
        """Forget every message the page has received so far."""
        self.page.evaluate("window.__framesKept.length = 0")

    def frames(self) -> list[bytes]:
        """The messages received since the last :meth:`clear` (or since the document loaded)."""
        encoded = self.page.evaluate("""() => window.__framesKept.map(frame => {
            const bytes = new Uint8Array(frame);
            let text = '';
            for (let at = 0; at < bytes.length; at += 0x8000)
                text += String.fromCharCode.apply(null, bytes.subarray(at, at + 0x8000));
            return btoa(text);
        })""")
        return [base64.b64decode(frame) for frame in encoded]

    def deltas(self) -> list:
        """The deltas received since the last :meth:`clear` (each draws or replaces one element or block)."""
        messages = []
        for payload in self.frames():
            message = ForwardMsg()
            message.ParseFromString(payload)
            if message.WhichOneof("type") == "delta":
                messages.append(message)
        return messages

    def bytes(self) -> int:
        return self.page.evaluate("window.__framesKept.reduce((total, frame) => total + frame.byteLength, 0)")


class AppPage:
    """What every page of the app shares: waiting for a script run to finish, metric cards, messages, tabs,
    tables, charts and pictures."""

    def __init__(self, page, base_url: str, artifact_prefix: str = "page") -> None:
        self.page = page
        self.base_url = base_url
        self.artifact_prefix = artifact_prefix
        self.page_errors: list[str] = _prepared(page)
        self.page_errors.clear()  # a tab reused by the next test starts with no errors of the last one
        expect.set_options(timeout=WAIT_MS)

    # ---- waiting ------------------------------------------------------------------------------------

    def wait_until_idle(self) -> None:
        """Wait until the script run finished, no element is left from an earlier run, and no element still shows
        its loading placeholder (grids and charts load their code on first use)."""
        self.page.locator("[data-testid=stApp][data-test-script-state=notRunning]").wait_for()
        expect(self.page.locator("[data-stale=true]")).to_have_count(0)
        expect(self.page.locator("[data-testid=stSkeleton]")).to_have_count(0)

    def script_runs_finished(self) -> int:
        return self.page.evaluate("window.__scriptRunsFinished")

    def rerun_after(self, action: Callable[[], object]) -> None:
        """Do ``action``, which makes the page rerun, and wait until that rerun has finished and the page is idle.
        (Waiting for idle alone can pass before the rerun starts, while the old elements are still on the page.)"""
        self.wait_until_idle()
        # Every run received is counted by now (one whose count is still queued would pass the wait below at once).
        self.page.wait_for_function("() => window.__scriptRunsFinished === window.__scriptRunsReceived",
                                    polling=POLL_MS)
        before = self.script_runs_finished()
        action()
        try:
            # A count only grows, so a poll every 100 ms cannot miss it (polling on every frame kept the tab drawing).
            self.page.wait_for_function("before => window.__scriptRunsFinished > before", arg=before,
                                        timeout=RERUN_SEEN_MS, polling=POLL_MS)
        except PlaywrightTimeout:
            pass  # the page drew the whole run at once (no state change to see): the idle wait below decides
        self.wait_until_idle()

    # ---- reading the page ---------------------------------------------------------------------------

    def metric_card(self, label: str):
        return self.page.get_by_test_id("stMetric").filter(
            has=self.page.get_by_test_id("stMetricLabel").get_by_text(label, exact=True)
        )

    def expect_metrics(self, values: dict[str, float]) -> None:
        """Wait until every card shows its value with three decimals, as the page rounds them."""
        for label, value in values.items():
            expect(self.metric_card(label).get_by_test_id("stMetricValue")).to_have_text(f"{value:.3f}")

    def shown_metrics(self) -> dict[str, str]:
        cards = self.page.get_by_test_id("stMetric")
        return {
            cards.nth(i).get_by_test_id("stMetricLabel").inner_text().strip():
                cards.nth(i).get_by_test_id("stMetricValue").inner_text().strip()
            for i in range(cards.count())
        }

    def url_parameters(self) -> dict[str, str]:
        return url_parameters(self.page.url)

    def wait_for_url_parameter(self, name: str, value: str | None) -> None:
        """Wait until the address bar holds ``name=value`` (``None``: no such parameter); the page writes the URL
        at the end of its run, after the metric cards."""
        self.page.wait_for_url(lambda url: url_parameters(url).get(name) == value)

    def wait_for_url_ranking(self, docs: list[str]) -> None:
        """Wait until the address bar's ``ranking`` lists ``docs`` in this order (scores may follow each doc)."""
        self.page.wait_for_url(lambda url: url_ranking(url) == docs)

    def expect_message(self, text: str):
        """The message box (info, success, warning or error) that says ``text``."""
        message = self.page.get_by_test_id("stAlert").filter(has_text=text)
        expect(message).to_be_visible()
        return message

    def expect_error_message(self, text: str):
        alert = self.page.get_by_test_id("stAlert").filter(has_text=text)
        expect(alert).to_be_visible()
        return alert

    def expect_no_traceback(self) -> None:
        expect(self.page.get_by_test_id("stException")).to_have_count(0)
        expect(self.page.get_by_text("Traceback")).to_have_count(0)
        assert not self.page_errors, f"JavaScript errors on the page: {self.page_errors}"

    def wait_for_charts(self) -> None:
        """Wait until every visible plotly chart has drawn its SVG."""
        self.wait_until_idle()
        charts = self.page.get_by_test_id("stPlotlyChart")
        for index in range(charts.count()):
            if charts.nth(index).is_visible():
                charts.nth(index).locator("svg.main-svg").first.wait_for()

    def expect_heading(self, text: str) -> None:
        expect(self.page.get_by_role("heading", name=text)).to_be_visible()

    # ---- tabs, tables and charts --------------------------------------------------------------------

    def open_tab(self, name: str) -> None:
        """Click the tab called ``name`` and wait for the run that draws it: every tab of the app is lazy, and
        opening one reruns the page (or its fragment). Waiting for idle alone passed before that run had started
        on a loaded machine, and the next interaction's messages were counted with it."""
        self.wait_until_idle()
        tab = self.page.get_by_role("tab", name=name, exact=True)
        if tab.get_attribute("aria-selected") != "true":
            self.rerun_after(tab.click)
        expect(tab).to_have_attribute("aria-selected", "true")

    def visible_tables(self):
        """The data frames on screen (those of closed tabs are hidden), top to bottom."""
        return self.page.get_by_test_id("stDataFrame").filter(visible=True)

    def table_rows(self, table, showing: dict[str, dict[str, str | float]] | None = None) -> list[dict[str, str]]:
        """The rows of a data frame as ``{column header: cell text}``. The grid is drawn on a canvas; its
        accessibility table holds the same cells as text (each cell's full value, not its rounded display).

        That text twin follows the grid's data 200 ms late (glide-data-grid debounces it), so a table read just
        after a rerun can be the last run's even on an idle page; ``showing`` waits for the run's own cells first:
        ``{first cell of a row: {column: text}}``, a number standing for a cell within 1e-9 of it."""
        table.locator("[role=gridcell]").first.wait_for(state="attached")  # the text twin is never shown
        grid = table.locator("table[role=grid]").first
        if showing:
            self.page.wait_for_function(SHOWS_CELLS, arg=[grid.element_handle(), showing], polling=POLL_MS)
        return grid.evaluate(f"grid => ({READ_CELLS})(grid)")

    def chart(self, title: str) -> PlotlyChart:
        """The visible plotly chart whose title starts with ``title``, once drawn."""
        graph = self.page.locator(".js-plotly-plot:visible").filter(
            has=self.page.locator(".gtitle", has_text=title))
        expect(graph).to_have_count(1)
        return PlotlyChart(self.page, graph).wait_until_drawn()

    # ---- pictures -----------------------------------------------------------------------------------

    def screenshot(self, name: str, *, whole_page: bool = False) -> Path | None:
        """A picture of this step in ARTIFACTS, when BROWSER_SCREENSHOTS=1 asks for one (else None)."""
        if not SCREENSHOTS:
            return None
        path = ARTIFACTS / f"{self.artifact_prefix}-{name}.png"
        save_screenshot(self.page, path, whole_page=whole_page)
        return path

    # ---- select boxes -------------------------------------------------------------------------------

    def _select_box(self, container_key: str):
        """The select box with key ``container_key``, with room below it for its list, as a person brings it
        before clicking it. Clicked at the edge of the view, where Playwright scrolls it, it opened its list below
        the edge; the page scrolled to show the list, and the scroll closed it again: the list stayed shut and the
        wait for it (3 s) ran out before the second click opened it. A box too low is scrolled to the middle of the
        view, and the click waits for that scroll's event (dispatched at the next frame; a click before it had its
        list closed by it)."""
        box = self.page.locator(f".st-key-{container_key} [role=combobox]")
        box.evaluate(ROOM_FOR_THE_LIST)
        return box

    def _pick(self, container_key: str, option: str) -> None:
        """Open the select box with key ``container_key`` and click ``option`` (the whole shown text)."""
        box = self._select_box(container_key)
        choice = self.page.get_by_role("option", name=option, exact=True)
        for _ in range(3):  # a click that lands while the page redraws can be lost; the list then stays shut
            box.click()
            try:
                choice.wait_for(timeout=3_000)
                break
            except PlaywrightTimeout:
                self.page.keyboard.press("Escape")
        choice.click()

    def _option_texts(self, container_key: str) -> list[str]:
        """The options of a select box, read by opening and closing it."""
        box = self._select_box(container_key)
        for _ in range(3):
            box.click()
            try:
                self.page.get_by_role("option").first.wait_for(timeout=3_000)
                break
            except PlaywrightTimeout:
                pass
        texts = self.page.get_by_role("option").all_inner_texts()
        self.page.keyboard.press("Escape")
        return texts


class ExplorerPage(AppPage):
    """The "Explore a query" page, driven the way a person uses it."""

    def __init__(self, page, base_url: str, artifact_prefix: str = "explorer") -> None:
        super().__init__(page, base_url, artifact_prefix)

    def open(self, query_string: str = "", path: str = "/") -> ExplorerPage:
        """Load the explorer at ``path`` (``/``, or an address that leads there) with ``query_string``."""
        url = self.base_url + path + (f"?{query_string}" if query_string else "")
        self.page.goto(url)
        self.page.get_by_test_id("stMetric").first.wait_for()
        self.wait_until_idle()
        return self

    # ---- the ranked-list grid (a canvas: cells are reached by position and keyboard) ----------------

    def _ranking_grid(self):
        return self.page.get_by_test_id("stDataFrame").first

    def _grid_canvas(self):
        return self._ranking_grid().get_by_test_id("data-grid-canvas")

    def _grid_pixels(self) -> str:
        return self._grid_canvas().evaluate("canvas => canvas.toDataURL()")

    def _wait_for_steady_grid(self) -> str:
        """The grid measures its columns after it mounts; wait until two pictures of it in a row agree."""
        picture = self._grid_pixels()
        deadline = time.monotonic() + WAIT_MS / 1000
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(100)
            again = self._grid_pixels()
            if again == picture:
                return picture
            picture = again
        raise AssertionError("the ranked-list grid kept redrawing; it never settled")

    def _grid_action(self, action, what: str) -> None:
        """Do ``action`` and wait until the grid draws its result, so no key press lands before the last one
        took effect (a canvas has no DOM to wait on; its pixels are what changes)."""
        before = self._wait_for_steady_grid()
        action()
        deadline = time.monotonic() + WAIT_MS / 1000
        while self._grid_pixels() == before:
            if time.monotonic() > deadline:
                raise AssertionError(f"the ranked-list grid did not respond to {what}")
            self.page.wait_for_timeout(50)

    def _select_cell(self, row: int, column: str) -> None:
        """Select the cell at 1-based ``row`` in ``column``: click the first cell, then walk with the arrow keys,
        which stays right whatever width the columns get."""
        self.wait_until_idle()
        grid = self._ranking_grid()
        grid.scroll_into_view_if_needed()
        self._grid_action(
            lambda: grid.locator(".dvn-scroller").click(
                position={"x": FIRST_COLUMN_X, "y": HEADER_HEIGHT + ROW_HEIGHT // 2}),
            "a click on the first cell",
        )
        for _ in range(RANKING_COLUMNS.index(column)):
            self._grid_action(lambda: self.page.keyboard.press("ArrowRight"), "ArrowRight")
        for _ in range(row - 1):
            self._grid_action(lambda: self.page.keyboard.press("ArrowDown"), "ArrowDown")

    def type_in_cell(self, row: int, column: str, text: str) -> None:
        """Select the cell, open its editor with Enter, type ``text`` and commit it with Enter."""
        self._select_cell(row, column)
        self.page.keyboard.press("Enter")
        cell_editor = self.page.locator("#portal input.gdg-input, #portal textarea.gdg-input")
        cell_editor.fill(text)
        cell_editor.press("Enter")

    def toggle_removed(self, row: int) -> None:
        self._select_cell(row, "removed")
        self.page.keyboard.press("Space")

    # ---- move controls ------------------------------------------------------------------------------

    def choose_document_to_move(self, shown_as: str) -> None:
        """Pick e.g. "3. muffin" in the "Move document" box."""
        self.wait_until_idle()
        box = self.page.get_by_role("combobox", name="Move document")
        if box.input_value() != shown_as:
            # A new choice reruns the page, which replaces the "to rank" box: wait for that run to end.
            self.rerun_after(lambda: self._pick("move_doc", shown_as))
        expect(box).to_have_value(shown_as)

    def choose_sample(self, title: str) -> None:
        """Pick a built-in sample by its title in the sidebar."""
        self.wait_until_idle()
        if self.page.locator(".st-key-sample_picker [role=combobox]").input_value() != title:
            self.rerun_after(lambda: self._pick("sample_picker", title))

    def card_bracket(self, label: str) -> str:
        """The caption under a metric card: its judgment hole, e.g. "bounds [0.500, 1.000] whatever the top 4's 2
        unjudged get"."""
        column = self.page.get_by_test_id("stColumn").filter(has=self.metric_card(label))
        return column.get_by_test_id("stCaptionContainer").first.inner_text().strip()

    def ranking_rows(self) -> list[dict[str, str]]:
        """The ranked-list grid's rows as ``{column header: cell text}`` (from its accessibility table)."""
        self.wait_until_idle()
        return self.table_rows(self._ranking_grid())

    def ranked_documents(self) -> list[str]:
        """The list as the page numbers it, read from the "Move document" box: ``["1. donut", "2. bagel", …]``."""
        self.wait_until_idle()
        return self._option_texts("move_doc")

    def document_to_move(self) -> str:
        """The text the "Move document" box shows, e.g. "1. donut"."""
        return self.page.get_by_role("combobox", name="Move document").input_value()

    def press_move_button(self, key: str) -> None:
        """``key`` is ``move_up``, ``move_down``, ``move_top`` or ``move_to`` (ui/explore/editor.py)."""
        button = self.page.locator(f".st-key-{key} button:visible")
        expect(button).to_be_enabled()
        button.click()

    def move_to_rank(self, rank: int) -> None:
        self.wait_until_idle()
        box = self.page.get_by_role("spinbutton", name="to rank")
        if box.input_value() != str(rank):
            self.rerun_after(lambda: (box.fill(str(rank)), box.press("Enter")))
        self.rerun_after(lambda: self.press_move_button("move_to"))

    # ---- data in ------------------------------------------------------------------------------------

    def load_trec_files(self, qrels: Path, run: Path, query: str) -> None:
        """Open "Load your own data", upload both files, pick ``query`` and open it in the editor."""
        self.page.get_by_text("Load your own data").click()
        for key, path in (("upload_qrels", qrels), ("upload_run", run)):
            # Each upload reruns the page; the next waits for that run to end. A file given to the run's uploader
            # while the page was still drawing the qrels' run was dropped: the uploader stayed empty, and the wait
            # for its file name ran out (WAIT_MS) on a loaded machine.
            files = self.page.locator(f".st-key-{key} input[type=file]")
            self.rerun_after(lambda files=files, path=path: files.set_input_files(path))
            expect(self.page.locator(f".st-key-{key}").get_by_text(path.name)).to_be_visible()
        loaded = re.compile(r"[1-9]\d* judged quer\w+, [1-9]\d* quer\w+ in the run")
        expect(self.page.get_by_text(loaded)).to_be_visible()
        self.wait_until_idle()
        self._pick("pick_query", next(
            text for text in self._option_texts("pick_query") if text.split(" (")[0] == query
        ))
        self.wait_until_idle()
        self.page.locator(".st-key-open_query button:visible").click()

    # ---- k and Undo -------------------------------------------------------------------------------

    def set_k(self, k: int) -> None:
        """Type ``k`` in the "k (cut-off)" box and commit it with Enter."""
        self.wait_until_idle()
        box = self.page.get_by_role("spinbutton", name="k (cut-off)")
        box.fill(str(k))
        box.press("Enter")
        expect(self.metric_card(f"P@{k}")).to_be_visible()
        self.wait_until_idle()

    def press_undo(self) -> None:
        self.wait_until_idle()
        button = self.page.locator(".st-key-undo button:visible")  # a button with help text has a hidden twin
        expect(button).to_be_enabled()
        button.click()

    # ---- the what-if charts -------------------------------------------------------------------------

    def open_whatif_tab(self, name: str) -> None:
        """Show one of the "What if…" views (ui/explore/whatif.py TABS), e.g. "Swapping two ranks"."""
        self.choose_view("whatif_tab", name)

    def choose_view(self, key: str, name: str) -> None:
        """Choose ``name`` in the segmented control ``key`` that picks a panel's view (ui.common.panels.choose_view),
        and wait for the run that draws it."""
        self.wait_until_idle()
        option = self.page.locator(f".st-key-{key}").get_by_role("radio", name=name, exact=True)
        if option.get_attribute("aria-checked") != "true":
            self.rerun_after(option.click)
        expect(option).to_have_attribute("aria-checked", "true")

    def whatif_confirmation(self):
        """The confirmation shown under the what-if chart that was just clicked, with its Undo button."""
        return self.page.locator(".st-key-whatif_confirmation")

    def press_whatif_undo(self) -> None:
        """The Undo beside that confirmation."""
        self.wait_until_idle()
        button = self.page.locator(".st-key-whatif_undo button:visible")  # a button with help text has a hidden twin
        expect(button).to_be_enabled()
        button.click()

    def k_curves(self) -> KChart:
        """The k chart (Vega-Lite), once drawn."""
        chart = self.page.locator("[data-testid=stVegaLiteChart]:visible").filter(
            has=self.page.locator("svg text", has_text="Every metric at every cut-off k"))
        expect(chart).to_have_count(1)
        return KChart(self.page, chart).wait_until_drawn()

    def swap_heatmaps(self) -> SwapChart:
        """The swap heatmaps (Vega-Lite), once drawn."""
        chart = self.page.locator("[data-testid=stVegaLiteChart]:visible").filter(
            has=self.page.locator("svg text", has_text="What swapping two ranks does to each metric"))
        expect(chart).to_have_count(1)
        return SwapChart(self.page, chart).wait_until_drawn()

    def removal_bars(self) -> PlotlyChart:
        return self.chart("What removing one item does to each metric")

    # ---- online signals (ui/explore/online.py) --------------------------------------------------------

    def open_online_signals(self) -> None:
        """Open the section's expander (closed, the section computes and shows nothing); nothing if it is open."""
        self.wait_until_idle()
        section = self.page.locator(".st-key-online_open")
        if section.locator("details[open]").count() == 0:
            summary = section.locator("summary")
            summary.scroll_into_view_if_needed()
            self.rerun_after(summary.click)
        expect(self.page.locator(".st-key-online_controls")).to_be_visible()

    def choose_click_model(self, label: str) -> None:
        """Pick a click model by its shown name, e.g. "PBM (position-based)"."""
        self.open_online_signals()
        option = self.page.locator(".st-key-online_model").get_by_text(label, exact=True)
        option.scroll_into_view_if_needed()
        self.rerun_after(option.click)
        expect(self.page.locator(".st-key-online_model").get_by_role("radio", name=label)).to_be_checked()

    def type_position_bias(self, text: str) -> None:
        """Type PBM's θ for the first ranks (``"1, 0.7, 0.5"``) and commit it with Enter."""
        self.open_online_signals()
        box = self.page.locator(".st-key-online_bias input")
        self.rerun_after(lambda box=box, text=text: (box.fill(text), box.press("Enter")))

    def online_signals(self, showing: dict[str, dict[str, str | float]] | None = None) -> dict[str, dict[str, str]]:
        """The signals table: ``{signal: {"closed form": …, "simulated": …, "standard error": …}}`` (full values),
        once it shows the cells in ``showing`` (see table_rows)."""
        self.open_online_signals()
        table = self.page.locator(".st-key-online_signals [data-testid=stDataFrame]")
        table.scroll_into_view_if_needed()
        return {row["signal"]: row for row in self.table_rows(table, showing)}

    def online_click_chart(self) -> PlotlyChart:
        self.open_online_signals()
        return self.chart("Clicks per rank against attractiveness per rank")


class VegaChart:
    """A Vega-Lite chart on the page (``chart``, also ``graph`` as a plotly chart's element is named), once drawn."""

    def __init__(self, page, chart) -> None:
        self.page = page
        self.chart = self.graph = chart

    def wait_until_drawn(self) -> Self:
        self.chart.locator("svg.marks").first.wait_for()
        return self

    def scroll_into_view(self) -> Self:
        self.chart.scroll_into_view_if_needed()
        return self


class KChart(VegaChart):
    """The explorer's k chart, drawn by Vega-Lite in SVG: each drawn mark is an SVG element bound to its scene item
    (``__data__``), whose ``datum`` is the row of the chart's data it draws (``panel``, ``family``, ``k``, ``value``,
    ``current``, ``tip``); so the dashed lines and rings are found by their data and aimed at where they are drawn."""

    #: The marks of the current k, as ``[family, k, x, y]`` (page pixels, the middle of the mark): ``kind`` "rule",
    #: the dashed lines; "ring", the white-filled points.
    MARKS = """(chart, kind) => [...chart.querySelectorAll('svg.marks *')].filter(element => {
            const item = element.__data__;
            if (!item || !item.mark || !item.datum || !item.datum.current) return false;
            return kind === 'rule' ? item.mark.marktype === 'rule'
                                   : item.mark.marktype === 'symbol' && item.fill === 'white';
        }).map(element => {
            const box = element.getBoundingClientRect();
            return [element.__data__.datum.family, element.__data__.datum.k, box.x + box.width / 2,
                    box.y + box.height / 2];
        })"""

    def title(self):
        return self.chart.locator("svg text", has_text="Every metric at every cut-off k").first

    def marked_k(self, kind: str = "rule") -> list[int]:
        """The k each panel's dashed line (``kind="ring"``: ring) stands at, panel by panel."""
        return [k for _, k, _, _ in self.chart.evaluate(self.MARKS, kind)]

    def wait_for_marked_k(self, k: int, panels: int) -> None:
        """Wait until every one of ``panels`` dashed lines and rings stands at ``k`` (the chart updates its data
        after the page's run)."""
        self.page.wait_for_function(
            f"([chart, k, panels]) => ['rule', 'ring'].every(kind => {{ const marks = ({self.MARKS})(chart, kind); "
            "return marks.length === panels && marks.every(mark => mark[1] === k); })",
            arg=[self.chart.element_handle(), k, panels], polling=POLL_MS)

    def hover_ring(self, family: str):
        """Rest the mouse on the ring of the panel of ``family`` (e.g. "P"); returns the tooltip (a locator)."""
        self.scroll_into_view()
        rings = [mark for mark in self.chart.evaluate(self.MARKS, "ring") if mark[0] == family]
        if len(rings) != 1:
            raise AssertionError(f"{len(rings)} rings for {family}")
        self.page.mouse.move(rings[0][2], rings[0][3])
        return self.page.locator("#vg-tooltip-element.visible")

    def mark(self) -> None:
        """Tag the chart's element, so :meth:`is_marked` tells whether the browser kept it or built a new one."""
        self.chart.locator("svg.marks").first.evaluate("svg => { svg.dataset.kept = '1'; }")

    def is_marked(self) -> bool:
        return self.chart.locator("svg.marks").first.evaluate("svg => svg.dataset.kept === '1'")


class SwapChart(VegaChart):
    """The explorer's swap heatmaps, drawn by Vega-Lite in SVG: each cell is an SVG path bound to its scene item
    (``__data__``), whose ``datum`` is its row of the chart's data (``panel``, ``i``, ``j``, ``delta``, ``tip``); so a
    cell is found by its panel and ranks, and hovered or clicked where it is drawn, as a person aims at it."""

    #: Where the cell of the panel starting with ``panel`` at ranks (i, j) is drawn, in page pixels, after scrolling
    #: it to the middle of the view unless ``stay`` (``{error}`` if it is not drawn).
    CELL = """(chart, {panel, i, j, stay}) => {
        const cells = [...chart.querySelectorAll('svg.marks path')].filter(element => {
            const item = element.__data__;
            return item && item.mark && item.mark.marktype === 'rect' && item.datum && item.datum.tip;
        });
        const cell = cells.find(element => {
            const datum = element.__data__.datum;
            return datum.panel.startsWith(panel + ' ') && datum.i === i && datum.j === j;
        });
        if (!cell) return {error: `no cell at ranks ${i}, ${j} in panel ${panel}; ${cells.length} cells drawn`};
        if (!stay) cell.scrollIntoView({block: 'center', inline: 'center'});
        const box = cell.getBoundingClientRect();
        return {x: box.x + box.width / 2, y: box.y + box.height / 2};
    }"""

    def panel_title(self, starting_with: str):
        """The title above the panel whose title starts with ``starting_with``, e.g. ``"AP@4 (now"``."""
        return self.graph.locator("svg text", has_text=re.compile("^" + re.escape(starting_with)))

    def axis_labels(self) -> list[str]:
        """The tick labels of every rank axis drawn (Vega-Lite draws them on the outer panels of the grid)."""
        return self.graph.locator("g.role-axis-label text").evaluate_all(
            "labels => labels.map(label => label.textContent)")

    def cell_position(self, panel: str, i: int, j: int, *, stay: bool = False) -> tuple[float, float]:
        found = self.graph.evaluate(self.CELL, {"panel": panel, "i": i, "j": j, "stay": stay})
        if "error" in found:
            raise AssertionError(found["error"])
        return found["x"], found["y"]

    def tooltip(self):
        return self.page.locator("#vg-tooltip-element.visible")

    def hover(self, panel: str, *, i: int, j: int):
        """Rest the mouse on the cell swapping ranks i and j in ``panel`` (e.g. "nDCG@4"); returns its tooltip."""
        self.page.mouse.move(*self.cell_position(panel, i, j))
        return self.tooltip()

    def click(self, panel: str, *, i: int, j: int, tooltip_says: str, where_it_is: bool = False) -> None:
        """Hover the cell, check its tooltip says ``tooltip_says`` (so the click lands on the intended cell), then
        click it: in the middle of the view, or ``where_it_is`` (the page not scrolled, as a reader who sees it)."""
        left, top = self.cell_position(panel, i, j, stay=where_it_is)
        self.page.mouse.move(left, top)
        expect(self.tooltip()).to_contain_text(tooltip_says)
        self.page.mouse.click(left, top)


class PlotlyChart:
    """One plotly graph on the page, aimed at the way a person aims: at the heatmap cell in row 2, column 3, or at
    the bar above "1. donut", read off the axes.

    The graph element (``.js-plotly-plot``) holds plotly's state: each drawn point is an SVG element bound to its
    data point (``__data__``), so a point is found by its data coordinates and clicked where it is drawn.
    """

    def __init__(self, page, graph) -> None:
        self.page = page
        self.graph = graph

    def wait_until_drawn(self) -> PlotlyChart:
        self.graph.locator(".main-svg").first.wait_for()
        self.page.wait_for_function(
            "graph => Boolean(graph._fullLayout && graph.calcdata && graph.querySelector('.hoverlayer'))",
            arg=self.graph.element_handle(), polling=POLL_MS,
        )
        return self

    def scroll_into_view(self) -> PlotlyChart:
        self.graph.scroll_into_view_if_needed()
        return self

    def title(self):
        """The chart's title (a locator: read it, or wait on it with ``expect``)."""
        return self.graph.locator(".gtitle").first

    def panel_title(self, starting_with: str):
        """The title above the panel whose title starts with ``starting_with`` (plotly draws them as
        annotations), e.g. ``"AP@4 (now"``."""
        return self.graph.locator(".annotation-text", has_text=re.compile("^" + re.escape(starting_with)))

    def bars(self):
        """Every bar drawn, whatever its trace."""
        return self.graph.locator(".barlayer .point")

    def point_position(self, trace: str, x, y=None) -> tuple[float, float]:
        """Where the point of ``trace`` at data ``(x, y)`` is drawn, in page pixels, after scrolling it into view.
        ``y`` None: the first point at ``x`` (a bar above a category)."""
        found = self.graph.evaluate(
            """(graph, {trace, x, y}) => {
                const groups = [...graph.querySelectorAll('g.trace')];
                const group = groups.find(g => g.__data__ && g.__data__[0] && g.__data__[0].trace
                                               && g.__data__[0].trace.name === trace);
                if (!group) {
                    const names = groups.map(g => g.__data__ && g.__data__[0] && g.__data__[0].trace
                                                  && g.__data__[0].trace.name);
                    return {error: `no trace named ${trace}; the chart has ${names.join(', ')}`};
                }
                const data = group.__data__[0].trace;
                const index = Array.from(data.x).findIndex(
                    (value, i) => String(value) === String(x) && (y === null || String(data.y[i]) === String(y)));
                if (index < 0) return {error: `${trace} has no point at x=${x}, y=${y}`};
                const point = [...group.querySelectorAll('.point')].find(p => p.__data__ && p.__data__.i === index);
                if (!point) return {error: `${trace}: point ${index} is not drawn`};
                point.scrollIntoView({block: 'center', inline: 'center'});
                const box = point.getBoundingClientRect();
                return {x: box.x + box.width / 2, y: box.y + box.height / 2};
            }""",
            {"trace": trace, "x": x, "y": y},
        )
        if "error" in found:
            raise AssertionError(found["error"])
        return found["x"], found["y"]

    def tooltip(self):
        return self.graph.locator(".hoverlayer .hovertext")

    def hover(self, trace: str, x, y=None):
        """Rest the mouse on a point; returns its tooltip (a locator: wait on it with ``expect``)."""
        left, top = self.point_position(trace, x, y)
        self.page.mouse.move(left, top)
        return self.tooltip()

    def click(self, trace: str, x, y=None, *, tooltip_says: str) -> None:
        """Hover the point, check its tooltip says ``tooltip_says`` (so the click lands on the intended point),
        then click it."""
        left, top = self.point_position(trace, x, y)
        self.page.mouse.move(left, top)
        expect(self.tooltip()).to_contain_text(tooltip_says)
        self.page.mouse.click(left, top)

    def marked_x(self) -> list[float]:
        """The x data value of every vertical line drawn on the chart (dashed "current k" lines), read back from
        where each line is drawn."""
        return self.graph.evaluate("""graph => {
            const layout = graph._fullLayout;
            return [...graph.querySelectorAll('.shapelayer path[data-index]')].flatMap(path => {
                const ends = path.getAttribute('d').match(/^M([-\\d.]+),[-\\d.]+L([-\\d.]+),[-\\d.]+$/);
                if (!ends || Math.abs(Number(ends[1]) - Number(ends[2])) > 0.5) return [];
                const shape = layout.shapes[Number(path.dataset.index)];
                const axis = layout[shape.xref.split(' ')[0].replace(/^x/, 'xaxis')];
                return [axis.p2l(Number(ends[1]) - axis._offset)];
            });
        }""")


class RunsPage(AppPage):
    """The "Evaluate a run" page, driven the way a person uses it."""

    def __init__(self, page, base_url: str, artifact_prefix: str = "runs") -> None:
        super().__init__(page, base_url, artifact_prefix)

    def open(self) -> RunsPage:
        self.page.goto(self.base_url + "/runs")
        self._wait_for_page()
        return self

    def open_from_the_sidebar(self) -> RunsPage:
        """Start at the explorer, then click "Evaluate a run" in the sidebar's page list."""
        self.page.goto(self.base_url + "/")
        self.page.get_by_test_id("stMetric").first.wait_for()
        self.wait_until_idle()
        self.page.get_by_test_id("stSidebarNav").get_by_role("link", name="Evaluate a run").click()
        self.page.wait_for_url(re.compile(r"/runs(\?|$)"))
        self._wait_for_page()
        return self

    def _wait_for_page(self) -> None:
        expect(self.page.get_by_role("heading", name="Evaluate a run")).to_be_visible()
        self.wait_until_idle()

    def upload(self, qrels: Path, *runs: Path) -> None:
        """Give the qrels and run uploaders their files; the page evaluates once both are there."""
        self.rerun_after(lambda: self.page.locator(".st-key-runs_qrels input[type=file]").set_input_files(qrels))
        expect(self.page.locator(".st-key-runs_qrels").get_by_text(qrels.name)).to_be_visible()
        self.rerun_after(lambda: self.page.locator(".st-key-runs_runs input[type=file]").set_input_files(list(runs)))
        for run in runs:
            expect(self.page.locator(".st-key-runs_runs").get_by_text(run.name)).to_be_visible()

    def use_built_in_collection(self) -> None:
        self.rerun_after(lambda: self.page.locator(".st-key-runs_use_samples")
                         .get_by_text("Use the built-in sample collection instead").click())
        expect(self.page.locator(".st-key-runs_use_samples input")).to_be_checked()

    def use_dl20(self) -> None:
        """Switch on the built-in TREC DL 2020 passage collection."""
        switch = self.page.locator(".st-key-runs_use_dl20")
        self.rerun_after(lambda: switch.get_by_text("Use TREC DL 2020 passage instead", exact=False).click())
        expect(switch.locator("input")).to_be_checked()

    def open_lint(self) -> None:
        """Open the "Preflight lint" expander (closed, it computes nothing) and wait until it shows every run's
        report."""
        panel = self.page.locator(".st-key-runs_lint_open")
        if panel.locator("details[open]").count() == 0:
            summary = panel.locator("summary").first
            summary.scroll_into_view_if_needed()
            self.rerun_after(summary.click)
        expect(panel.get_by_text("Linting the runs…")).to_have_count(0)

    def means_table(self, showing: dict[str, str | float] | None = None) -> dict[str, str]:
        """The one row of means in the open "Per-query results" tab, ``{measure: value}``, once it shows the cells
        in ``showing`` (see table_rows)."""
        table = self.visible_tables().nth(0)
        if showing:
            (row,) = self.table_rows(table)
            self.table_rows(table, {next(iter(row.values())): showing})
        (row,) = self.table_rows(table)
        return row

    def per_query_table(self) -> list[dict[str, str]]:
        return self.table_rows(self.visible_tables().nth(1))

    def check_reported_score(self, measure: str, value: str) -> None:
        """In "Check a reported score": type the measure and the value someone reported."""
        for key, text in (("check_measure", measure), ("check_value", value)):
            box = self.page.locator(f".st-key-{key} input")
            self.wait_until_idle()
            if box.input_value() != text:
                self.rerun_after(lambda box=box, text=text: (box.fill(text), box.press("Enter")))

    def grade_the_chosen_document(self, grade: int) -> None:
        """In "Judge the holes": type ``grade`` for the document in the "Document" box and add the judgment; wait
        until the page says the judgment was added."""
        box = self.page.locator(".st-key-judge_grade input")
        self.wait_until_idle()
        if box.input_value() != str(grade):
            self.rerun_after(lambda: (box.fill(str(grade)), box.press("Enter")))
        self.rerun_after(lambda: self.page.locator(".st-key-judge_add button").click())
        expect(self.page.locator(".st-key-judge_discard")).to_be_visible()

    def chosen_document(self) -> str:
        """The text of the "Document" box in "Judge the holes" (``query · doc (influence)``)."""
        return self.page.locator(".st-key-judge_pick [role=combobox]").input_value()

    def choose(self, container_key: str, option: str) -> None:
        """Pick ``option`` in the select box with key ``container_key`` (e.g. ``compare_measure``)."""
        box = self.page.locator(f".st-key-{container_key} [role=combobox]")
        self.wait_until_idle()
        if box.input_value() != option:
            self.rerun_after(lambda: self._pick(container_key, option))
        expect(box).to_have_value(option)


def url_parameters(url: str) -> dict[str, str]:
    return {name: values[-1] for name, values in parse_qs(urlsplit(url).query).items()}


def url_ranking(url: str) -> list[str]:
    """Doc ids of the ``ranking`` URL parameter, without their scores (``donut:0.95,bagel`` -> donut, bagel)."""
    values = parse_qs(urlsplit(url).query).get("ranking")
    if not values:
        return []
    return [token.rpartition(":")[0] if ":" in token else token for token in values[-1].split(",")]


def save_screenshot(page, path: Path, *, whole_page: bool = True) -> None:
    """A picture of the page. Streamlit scrolls inside its own container, so Playwright's ``full_page`` stops at
    the viewport; for the whole page the viewport grows to the content's height for the shot."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not whole_page:
        page.screenshot(path=path)
        return
    viewport = page.viewport_size
    content = page.get_by_test_id("stMainBlockContainer")
    height = math.ceil(content.evaluate("element => element.scrollHeight")) if content.count() else viewport["height"]
    if height > viewport["height"]:
        page.set_viewport_size({"width": viewport["width"], "height": height})
        page.wait_for_timeout(300)  # one layout pass of the grids after the resize; nothing to wait on
    try:
        page.screenshot(path=path)
    finally:
        page.set_viewport_size(viewport)


def artifact_prefix(request) -> str:
    """The file-name prefix of a test's screenshots and logs: its name without ``test_``, parameters joined by ``-``."""
    return request.node.name.removeprefix("test_").replace("[", "-").replace("]", "")
