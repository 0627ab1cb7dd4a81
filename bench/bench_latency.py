"""Latency of the app's interactions against a minimal Streamlit page, side by side in one headless Chromium.

Starts the app (app.py) and its peer (bench/minimal_page.py: a k input, a 4-row table, seven metric cards and one
plotly chart) with streamlit on free ports (tests/browser/support.py's running_streamlit, as the browser tests do),
and times each interaction from the input that commits it (the key press, the click) until the page shows the
state it leads to and is idle again: no script running, no element left from an earlier run, no chart or grid still
loading. It never waits for a fixed time.

Interactions, each repeated and alternated with the peer's k change: on the explorer (/), change k, edit a grade,
move a document, open the swap heatmaps, change a convention; on the run page (/runs), with the built-in collection
loaded and a reported value typed in the finder, change k (the "Judge the holes" tab's cut-off) and change the
relevance threshold; on the run page with TREC DL 2020 (a session of its own), the big switches: switch the
collection on in a new session (all five runs evaluated and the per-query results drawn; also in a new session
whose tab has drawn the built-in samples first, so the browser has the code of every element already), open the
preflight lint panel, and type a reported value into the finder ("Check a reported score"); on the ANN page (/ann),
change k.

Two ratios per interaction: against the peer's k change (the issue's denominator for every interaction), and, for
the explorer's interactions that are not a k change, against the same interaction on the peer with the one control
it needs (bench/minimal_page.py's ``with``: an editable grid, move buttons, a gain box, a lazy tab with a heatmap),
timed alternately in the same run: what Streamlit itself takes for that kind of interaction. The big switches are
held to 2x the peer's k change plus the engine time of what they show, measured in this process before the servers
start (the engine functions the page calls, on the same files, measures and conventions, no cache in between).

    python bench/bench_latency.py [--repeats 7] [--only ann,runs]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402

from metrics import Conventions  # noqa: E402
from metrics.bulk import evaluate_tables  # noqa: E402
from metrics.check import find_conventions  # noqa: E402
from metrics.check.lint import lint_runs, read_run_lines  # noqa: E402
from metrics.io.read import read_qrels, read_run  # noqa: E402
from metrics.real import DL20  # noqa: E402
from tests.browser.support import (  # noqa: E402  (the page objects of the browser tests, reused)
    FIRST_COLUMN_X,
    HEADER_HEIGHT,
    ROW_HEIGHT,
    VIEWPORT,
    AppPage,
    ExplorerPage,
    RunsPage,
    chromium_browser,
    running_streamlit,
)
from ui.runs.data import DEFAULT_MEASURES  # noqa: E402  (what the run page evaluates unless told otherwise)

MINIMAL_PAGE = "bench/minimal_page.py"
#: The targets of issue 22: the explorer within 1.5x of the minimal page, the run and ANN pages within 2x.
TARGETS = {"explorer": 1.5, "runs": 2.0, "ann": 2.0}

#: An interaction that has not reached its state after this long is stuck: it is reported and left out.
STUCK_MS = 120_000
#: True once the page is idle: its script run finished, no element is left from an earlier run, and no grid or
#: chart still shows its loading placeholder. Checked on every animation frame, with the state waited for.
IDLE = """(document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-stale=true]') && !document.querySelector('[data-testid=stSkeleton]'))"""
#: True once every metric card shows the value given (label -> shown text): the state an action leads to.
CARDS_ARE = """expected => {
    const shown = {};
    for (const card of document.querySelectorAll('[data-testid=stMetric]')) {
        const label = card.querySelector('[data-testid=stMetricLabel]');
        const value = card.querySelector('[data-testid=stMetricValue]');
        if (label && value) shown[label.innerText.trim()] = value.innerText.trim();
    }
    return Object.entries(expected).every(([label, value]) => shown[label] === value);
}"""


def timed(page: AppPage, action: Callable[[], object], shown: str, arg: object = None) -> float:
    """Seconds from ``action`` until the JavaScript predicate ``shown`` (of ``arg``: the state the action leads
    to) holds on a page that is idle, checked on every animation frame."""
    page.wait_until_idle()
    start = time.perf_counter()
    action()
    page.page.wait_for_function(f"arg => ({shown})(arg) && {IDLE}", arg=arg, polling="raf")
    return time.perf_counter() - start


#: Predicates for ``timed``: a metric card with this label is on the page; a chart with this title is drawn.
CARD_SHOWN = """label => [...document.querySelectorAll('[data-testid=stMetricLabel]')]
    .some(element => element.innerText.trim() === label)"""
CHART_DRAWN = """title => [...document.querySelectorAll('.js-plotly-plot')].some(graph => graph.offsetParent !== null
    && graph.querySelector('svg.main-svg') && graph.querySelector('.gtitle')?.textContent.startsWith(title))
    || [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].some(chart => chart.offsetParent !== null
    && chart.querySelector('svg.marks') && [...chart.querySelectorAll('svg text')].some(
        text => text.textContent.startsWith(title)))"""
#: Resolves once an element has kept the same position and size for two animation frames running.
STILL = """element => new Promise(resolve => {
    let last = '';
    const check = () => {
        const box = JSON.stringify(element.getBoundingClientRect());
        if (box === last) resolve(true); else { last = box; requestAnimationFrame(check); }
    };
    requestAnimationFrame(check);
})"""
#: More script runs have finished than the count given (tests/browser/support.py counts them).
RUNS_AFTER = "before => window.__scriptRunsFinished > before"


# ---- the peer ----------------------------------------------------------------------------------------------------


class Minimal(AppPage):
    def open(self) -> Minimal:
        self.page.goto(self.base_url + "/")
        self.page.get_by_test_id("stMetric").first.wait_for()
        self.wait_for_charts()
        self.k = 4
        return self

    def change_k(self) -> float:
        self.k = 3 if self.k == 4 else 4
        box = self.page.get_by_role("spinbutton", name="k (cut-off)")
        box.fill(str(self.k))
        return timed(self, lambda: box.press("Enter"), CARD_SHOWN, f"P@{self.k}")


# ---- the explorer ------------------------------------------------------------------------------------------------


class Explorer:
    """Each interaction goes back and forth between two states, so every repeat does real work; the cards of each
    state are read once, untimed, and the timed repeats wait until the cards show them."""

    def __init__(self, page: ExplorerPage) -> None:
        self.page = page
        page.open()
        page.wait_for_charts()
        self.k = 4
        self.states: dict[str, dict[str, str]] = {}

    def _to(self, name: str, action: Callable[[], object], settle: Callable[[], object] | None = None) -> float:
        """Do ``action``; the first time, wait for its run and remember the cards; later, time it."""
        page = self.page
        if name not in self.states:
            page.rerun_after(action)
            if settle is not None:
                settle()
            page.wait_until_idle()
            self.states[name] = page.shown_metrics()
            return float("nan")
        seconds = timed(page, action, CARDS_ARE, self.states[name])
        if settle is not None:
            settle()
        return seconds

    def change_k(self) -> float:
        self.k = 3 if self.k == 4 else 4
        box = self.page.page.get_by_role("spinbutton", name="k (cut-off)")
        box.fill(str(self.k))
        return timed(self.page, lambda: box.press("Enter"), CARD_SHOWN, f"P@{self.k}")

    def change_k_own_list(self) -> float:
        """k 2 -> 3, timed: the list is not its sample as loaded (whose k is 4) before or after, so the sidebar shows
        no change and only the query panels rerun. k is set to 2 before and back afterwards, untimed."""
        self.page.set_k(2)
        box = self.page.page.get_by_role("spinbutton", name="k (cut-off)")
        box.fill("3")
        seconds = timed(self.page, lambda: box.press("Enter"), CARD_SHOWN, "P@3")
        if self.k != 3:
            self.page.set_k(self.k)
        return seconds

    def edit_grade(self, repeat: int) -> float:
        """Give the first document (donut, grade 0) grade 2, then 0 again."""
        grade = "2" if repeat % 2 == 0 else "0"
        page = self.page
        # A click on a cell already selected opens its editor: select another one and leave it first.
        page._ranking_grid().locator(".dvn-scroller").click(position={"x": FIRST_COLUMN_X,
                                                                      "y": HEADER_HEIGHT + ROW_HEIGHT * 3 // 2})
        page.page.keyboard.press("Escape")
        page._select_cell(1, "grade")
        page.page.keyboard.press("Enter")
        cell_editor = page.page.locator("#portal input.gdg-input, #portal textarea.gdg-input")
        cell_editor.fill(grade)
        return self._to(f"grade {grade}", lambda: cell_editor.press("Enter"))

    def move_document(self, repeat: int) -> float:
        """Move muffin (3rd) up one rank, then down again, with the list's move buttons."""
        page = self.page
        if repeat % 2 == 0:
            page.choose_document_to_move("3. muffin")
            return self._to("muffin up", lambda: page.press_move_button("move_up"))
        page.choose_document_to_move("2. muffin")
        return self._to("muffin down", lambda: page.press_move_button("move_down"))

    def open_swap_heatmaps(self) -> float:
        page = self.page
        page.open_whatif_tab("Changing k")
        page.wait_for_charts()
        tab = self.whatif_view("Swapping two ranks")
        tab.scroll_into_view_if_needed()
        seconds = timed(page, tab.click, CHART_DRAWN, "What swapping two ranks does to each metric")
        # Back to the view the page opens on, untimed: every other interaction is timed on the page as it opens.
        page.open_whatif_tab("Changing k")
        page.wait_for_charts()
        return seconds

    def whatif_view(self, name: str):
        """The control that shows the what-if view ``name``."""
        return self.page.page.locator(".st-key-whatif_tab").get_by_role("radio", name=name, exact=True)

    def change_convention(self, repeat: int) -> float:
        """The gain convention: exponential nDCG (2^g - 1), then trec_eval's linear gain again. (On the sample's
        binary grades no card changes, so this times little more than the page becoming idle: see bench/README.)"""
        page = self.page
        panel = page.page.get_by_test_id("stExpander").filter(has_text="Conventions").first
        if not panel.locator("[data-testid=stSelectbox]").first.is_visible():
            panel.locator("summary").click()
        box = page.page.locator(".st-key-convention_gain [role=combobox]")
        # A click while the expander still opens (its height animates) focuses the box without opening its list.
        box.evaluate(STILL)
        box.click()
        options = page.page.get_by_role("option")
        options.first.wait_for()
        choice = options.nth(1 if repeat % 2 == 0 else 0)
        return self._to(f"gain {repeat % 2}", choice.click)


class PeerExplorer(Explorer):
    """The minimal page with the control one explorer interaction needs (``with``), driven by the same code: its
    grid has the explorer's six columns, its move box and buttons, gain box and tabs the explorer's names."""

    def __init__(self, page: ExplorerPage, extra: str) -> None:
        self.page = page
        page.open(f"with={extra}")
        page.wait_for_charts()
        self.k = 4
        self.states = {}

    def whatif_view(self, name: str):
        return self.page.page.get_by_role("tab", name=name, exact=True)

    def open_swap_heatmaps(self) -> float:
        page = self.page
        page.open_tab("Changing k")
        page.wait_for_charts()
        tab = self.whatif_view("Swapping two ranks")
        seconds = timed(page, tab.click, CHART_DRAWN, "What swapping two ranks does to each metric")
        page.open_tab("Changing k")
        page.wait_for_charts()
        return seconds


#: The peer variant that does the same kind of thing as each explorer interaction (bench/minimal_page.py's ``with``).
SAME_ON_THE_PEER = {
    "explorer: edit a grade": ("grid", lambda peer, repeat: peer.edit_grade(repeat)),
    "explorer: move a document": ("move", lambda peer, repeat: peer.move_document(repeat)),
    "explorer: open the swap heatmaps": ("tabs", lambda peer, repeat: peer.open_swap_heatmaps()),
    "explorer: change a convention": ("gain", lambda peer, repeat: peer.change_convention(repeat)),
}


# ---- the run and ANN pages -----------------------------------------------------------------------------------------


class Runs:
    def __init__(self, page: RunsPage) -> None:
        self.page = page
        page.open()
        page.use_built_in_collection()
        page.open_tab("Check a reported score")
        page.check_reported_score("nDCG@10", "0.5")
        page.open_tab("Judge the holes")
        self.k = 10
        self.level = 1

    def change_k(self) -> float:
        self.k = 5 if self.k == 10 else 10
        box = self.page.page.locator(".st-key-judge_k input")
        box.fill(str(self.k))
        return timed(self.page, lambda: box.press("Enter"), RUNS_AFTER, self.page.script_runs_finished())

    def change_level(self) -> float:
        box = self.page.page.locator(".st-key-runs_level input")
        self.level = 2 if box.input_value() == "1" else 1  # from what the box shows, even after a failed repeat
        box.fill(str(self.level))
        return timed(self.page, lambda: box.press("Enter"), RUNS_AFTER, self.page.script_runs_finished())


class Dl20:
    """The run page's big switches on TREC DL 2020, each repeat in a new session (the page loaded again), as a new
    visitor meets them: nothing the session computed before helps, only what the server shares between sessions."""

    SWITCH_TEXT = "Use TREC DL 2020 passage instead"
    #: The finder's reported values, alternated (nDCG@10 of BM25 is 0.4796 at -l 2; 0.5 is matched by others).
    VALUES = ("0.5", "0.48")

    def __init__(self, page: RunsPage) -> None:
        self.page = page
        self.value = self.VALUES[1]

    def switch_on(self) -> float:
        """TREC DL 2020 switched on in a new session (the page loaded untimed): five runs evaluated, the per-query
        results drawn."""
        page = self.page
        page.open()
        switch = page.page.locator(".st-key-runs_use_dl20").get_by_text(self.SWITCH_TEXT, exact=False)
        return timed(page, switch.click, RUNS_AFTER, page.script_runs_finished())

    def switch_from_samples(self) -> float:
        """The same switch in a new session whose tab has drawn the run page's elements once (the built-in samples
        switched on untimed): what is left of ``switch_on`` once the browser has the code of every element the
        results need (Streamlit loads each element's code when a page first draws one)."""
        page = self.page
        page.open()
        page.use_built_in_collection()
        switch = page.page.locator(".st-key-runs_use_dl20").get_by_text(self.SWITCH_TEXT, exact=False)
        return timed(page, switch.click, RUNS_AFTER, page.script_runs_finished())

    def open_lint(self) -> float:
        """The preflight lint panel opened (every run's report drawn), then closed again untimed."""
        page = self.page
        summary = page.page.locator(".st-key-runs_lint_open summary").first
        summary.scroll_into_view_if_needed()
        seconds = timed(page, summary.click, RUNS_AFTER, page.script_runs_finished())
        page.rerun_after(summary.click)
        return seconds

    def find(self) -> float:
        """A reported nDCG@10 of BM25 typed into the finder (the tab opened untimed, and left afterwards)."""
        page = self.page
        page.open_tab("Check a reported score")
        box = page.page.locator(".st-key-check_value input")
        self.value = self.VALUES[1] if self.value == self.VALUES[0] else self.VALUES[0]
        box.fill(self.value)
        seconds = timed(page, lambda: box.press("Enter"), RUNS_AFTER, page.script_runs_finished())
        page.open_tab("Per-query results")
        return seconds


def engine_seconds(repeats: int = 3) -> dict[str, float]:
    """The engine time of what each big switch shows, median of ``repeats``, in this process with no cache: the
    six files read and the five runs evaluated (the switch), the runs read as written and linted (the lint panel),
    the convention finder for one value (the finder; the median over the values typed)."""
    conventions = Conventions(relevance_level=DL20.conventions.relevance_level)

    def switch() -> object:
        qrels = read_qrels(DL20.path(), name="qrels")
        return [evaluate_tables(qrels, read_run(DL20.path(name), name=name), DEFAULT_MEASURES, conventions)
                for name in DL20.run_names]

    qrels = DL20.qrels().to_dict()
    bm25 = DL20.run(DL20.run_names[0]).to_dict()

    def lint() -> object:
        return lint_runs(qrels, [read_run_lines(DL20.path(name).read_bytes(), name=name) for name in DL20.run_names],
                         DEFAULT_MEASURES, conventions)

    def find(value: str) -> Callable[[], object]:
        return lambda: find_conventions(qrels, bm25, "nDCG@10", value, base=Conventions())

    def median(work: Callable[[], object]) -> float:
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            work()
            samples.append(time.perf_counter() - start)
        return statistics.median(samples)

    switched = median(switch)
    return {SWITCH: switched, SWITCH_WARM: switched, LINT: median(lint),
            FINDER: statistics.median(median(find(value)) for value in Dl20.VALUES)}


SWITCH = "runs: switch on TREC DL 2020"
SWITCH_WARM = "runs: switch on TREC DL 2020, elements drawn"
LINT = "runs: open the lint panel (DL 2020)"
FINDER = "runs: a value in the finder (DL 2020)"
BIG_SWITCHES = (SWITCH, SWITCH_WARM, LINT, FINDER)


class Ann(AppPage):
    def open(self) -> Ann:
        self.page.goto(self.base_url + "/ann")
        self.page.get_by_test_id("stMetric").first.wait_for()
        self.wait_for_charts()
        self.k = 10
        return self

    def change_k(self) -> float:
        """The k slider, moved one step with the keyboard (10 -> 20 -> 10)."""
        right = self.k == 10
        self.k = 20 if right else 10
        thumb = self.page.locator(".st-key-ann_k input[type=range]")
        return timed(self, lambda: thumb.press("ArrowRight" if right else "ArrowLeft"), CARD_SHOWN,
                     f"ANN recall@{self.k}")


# ---- the run -----------------------------------------------------------------------------------------------------


def machine() -> str:
    cores = os.cpu_count()
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return f"{platform.machine()}, {cores} cores, Python {platform.python_version()}; load average {load}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats of each interaction (default 7)")
    parser.add_argument("--app-dir", type=Path, default=REPO,
                        help="the checkout whose app.py is measured (default this one), e.g. a worktree of an older "
                             "commit for a before-and-after")
    parser.add_argument("--only", default="", help="time only the interactions whose name starts with this, e.g. "
                        "'explorer', or with one of several: 'ann,runs' (the peer is always timed)")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    only = tuple(args.only.split(","))
    engine = engine_seconds() if any(name.startswith(only) for name in BIG_SWITCHES) else {}
    for name, seconds in engine.items():
        print(f"engine time of {name!r}: {seconds * 1000:.0f} ms (median of 3, in this process, no cache)")
    timings: dict[str, list[float]] = {}
    failures: dict[str, int] = {}

    def record(name: str, seconds: float) -> None:
        if seconds == seconds:  # NaN: the untimed first pass of a state
            timings.setdefault(name, []).append(seconds)

    print(f"app: {args.app_dir.resolve()}")
    with running_streamlit("app.py", args.app_dir) as app_url, running_streamlit(MINIMAL_PAGE) as peer_url, \
            chromium_browser() as chromium:
        context = chromium.new_context(viewport=VIEWPORT)
        peer = Minimal(context.new_page(), peer_url).open()
        explorer = Explorer(ExplorerPage(context.new_page(), app_url))
        runs = Runs(RunsPage(context.new_page(), app_url))
        ann = Ann(context.new_page(), app_url).open()
        dl20 = Dl20(RunsPage(context.new_page(), app_url))
        same = {name: (PeerExplorer(ExplorerPage(context.new_page(), peer_url), extra), act)
                for name, (extra, act) in SAME_ON_THE_PEER.items() if name.startswith(only)}
        for page in (peer, explorer.page, runs.page, dl20.page, ann, *(variant.page for variant, _ in same.values())):
            page.page.set_default_timeout(STUCK_MS)
        interactions: list[tuple[str, AppPage, Callable[[int], float]]] = [
            ("explorer: change k", explorer.page, lambda r: explorer.change_k()),
            ("explorer: change k, your own list", explorer.page, lambda r: explorer.change_k_own_list()),
            ("explorer: edit a grade", explorer.page, explorer.edit_grade),
            ("explorer: move a document", explorer.page, explorer.move_document),
            ("explorer: open the swap heatmaps", explorer.page, lambda r: explorer.open_swap_heatmaps()),
            ("explorer: change a convention", explorer.page, explorer.change_convention),
            ("runs: change k (value in the finder)", runs.page, lambda r: runs.change_k()),
            ("runs: change the relevance threshold", runs.page, lambda r: runs.change_level()),
            (SWITCH, dl20.page, lambda r: dl20.switch_on()),
            (SWITCH_WARM, dl20.page, lambda r: dl20.switch_from_samples()),
            (LINT, dl20.page, lambda r: dl20.open_lint()),
            (FINDER, dl20.page, lambda r: dl20.find()),
            ("ann: change k", ann, lambda r: ann.change_k()),
        ]
        interactions = [entry for entry in interactions if entry[0].startswith(only)]
        # Two untimed passes learn each state's cards and warm every cache a first visit fills.
        for repeat in range(args.repeats + 2):
            for name, page, interaction in interactions:
                peer.page.bring_to_front()  # the tab in front, as a person's (pop-up lists close in a tab behind)
                peer_seconds = peer.change_k()
                page.page.bring_to_front()
                try:
                    seconds = interaction(repeat)
                except PlaywrightTimeout:  # said and left out, so one stuck repeat does not lose the whole run
                    failures[name] = failures.get(name, 0) + 1
                    print(f"repeat {repeat}: {name} did not reach its state within {STUCK_MS // 1000} s",
                          flush=True)
                    page.page.reload()
                    page.wait_until_idle()
                    continue
                same_seconds = float("nan")
                if name in same:
                    variant, act = same[name]
                    variant.page.page.bring_to_front()
                    same_seconds = act(variant, repeat)
                if repeat >= 2:
                    record("minimal page: change k", peer_seconds)
                    record(name, seconds)
                    if name in same:
                        record(name.replace("explorer:", "minimal page:"), same_seconds)
        context.close()

    print(f"after the run: load average {', '.join(f'{value:.1f}' for value in os.getloadavg())}")
    peer_median = statistics.median(timings["minimal page: change k"])
    print(f"\n{'interaction':42s} {'median':>8s} {'vs k':>7s} {'vs same':>8s} {'target':>7s}   (n = {args.repeats};"
          " vs k: the minimal page's k change; vs same: the same interaction on the minimal page)")
    for name, values in timings.items():
        median = statistics.median(values)
        target = None if name in BIG_SWITCHES else TARGETS.get(name.split(":")[0])  # theirs: see the table below
        same_name = name.replace("explorer:", "minimal page:")
        versus_same = (f"{median / statistics.median(timings[same_name]):7.2f}x"
                       if name.startswith("explorer:") and same_name in timings else " " * 8)
        print(f"{name:42s} {median * 1000:6.0f} ms {median / peer_median:6.2f}x {versus_same} "
              + (f"{target:6.1f}x" if target else "")
              + (f"   ({failures[name]} repeats stuck, left out)" if name in failures else ""))
    if engine:
        print(f"\n{'big switch':42s} {'median':>8s} {'engine':>9s} {'limit':>9s} {'vs limit':>9s}   (limit: 2x the "
              "minimal page's k change plus the engine time of what the switch shows)")
        for name, seconds in engine.items():
            if name in timings:
                median = statistics.median(timings[name])
                limit = 2 * peer_median + seconds
                print(f"{name:42s} {median * 1000:6.0f} ms {seconds * 1000:6.0f} ms {limit * 1000:6.0f} ms "
                      f"{median / limit:8.2f}x")


if __name__ == "__main__":
    main()
