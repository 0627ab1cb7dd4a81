"""A classroom on one server: many sessions of the app at once, against as many of the minimal page.

A lecturer runs ``make app`` on a laptop and 40 students open it. Each student changes k or moves a document every
10 s for 2 minutes. This starts the app (app.py) and its peer (bench/minimal_page.py?with=move: a k input, a 4-row
table with a "Move document" box and up and down buttons, seven metric cards and one plotly chart) with streamlit on
free ports, and plays the class against each in turn, the same sessions doing the same things at the same times.

The students are clients of Streamlit's websocket protocol, not browser tabs: 40 Chromium tabs would take the two
cores the server needs. Each session sends what the browser sends (a ``rerun_script`` BackMsg with the page's query
string, page hash, the fragment of the widget that changed and every widget's state, the changed one new) and keeps
what the browser keeps from the answers (each widget's value, the query string the app writes). An interaction is
timed from the send until the server's "script run finished" message, with every metric card of the state it leads to
received on the way (the cards of each state are learnt once, untimed, by one session before the class starts). The
browser's own drawing is not in these times: bench_latency.py measures that, one session at a time.

The cycle of each session, one step every ``--period`` seconds, the sessions' steps spread evenly over the period:
k 4 -> 3; move muffin up (choose "3. muffin" in the box, then the up button a second later); k 3 -> 4; move muffin
down. Both the choice and the button are timed (the choice has no card to wait for; its run must finish).

Reported per page: p50 and p95 latency of the card changes (k and the move button) and of each kind; page loads
(all sessions open within one period); the streamlit server's CPU time and resident memory, read from /proc;
errors: an exception on the page, a run that never shows the expected cards within ``--timeout`` s, a closed
connection. The goal of issue 45: the app's p95 within 2x the minimal page's, with no error.

    python bench/bench_classroom.py [--sessions 40] [--period 10] [--duration 120] [--rounds 1]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import numpy as np  # noqa: E402
from bench_latency import MINIMAL_PAGE, machine  # noqa: E402
from rerun_counts import cpu_seconds, server_pid  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.NumberInput_pb2 import NumberInput  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402  (streamlit's own dependency)

from tests.browser.support import running_streamlit  # noqa: E402

#: The goal of issue 45: the app's p95 within this many times the minimal page's, under the same load.
GOAL = 2.0
#: A script run that ends the run before it for a rerun: not the end of an interaction.
EARLY_FOR_RERUN = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")
WHOLE_RUN_FINISHED = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")
FINISHED = {WHOLE_RUN_FINISHED, ForwardMsg.ScriptFinishedStatus.Value("FINISHED_FRAGMENT_RUN_SUCCESSFULLY")}
COMPILE_ERROR = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_WITH_COMPILE_ERROR")


class SessionError(Exception):
    """An interaction that ended in an error page, a missing state or a closed connection."""


# ---- one session -------------------------------------------------------------------------------------------------


def widget_state(kind: str, widget, known: WidgetState | None) -> WidgetState | None:
    """The state the browser holds for a widget the server drew: the value the server set, else the value the
    browser already had, else the widget's default (as Streamlit's frontend does). None for a widget without a
    state of its own (a button holds one only in the message of its click)."""
    state = WidgetState(id=widget.id)
    if kind == "number_input":
        if not widget.set_value and known is not None:
            return known
        value = widget.value if widget.set_value else widget.default
        if widget.data_type == NumberInput.DataType.Value("INT"):
            state.int_value = int(value)
        else:
            state.double_value = value
    elif kind in ("selectbox", "radio"):
        if not widget.set_value and known is not None:
            return known
        if widget.set_value:
            state.string_value = widget.raw_value
        elif widget.HasField("default") and widget.default < len(widget.options):
            state.string_value = widget.options[widget.default]
        else:
            return None
    elif kind == "checkbox":
        if not widget.set_value and known is not None:
            return known
        state.bool_value = widget.value if widget.set_value else widget.default
    elif kind == "button_group":  # a segmented control
        if not widget.set_value and known is not None:
            return known
        values = (list(widget.raw_values) if widget.set_value
                  else [widget.options[index].content for index in widget.default])
        state.string_array_value.data.extend(values)
    elif kind in ("text_area", "text_input"):
        if not widget.set_value and known is not None:
            return known
        state.string_value = widget.value if widget.set_value else widget.default
    elif kind == "file_uploader":
        if known is not None:
            return known
        state.file_uploader_state_value.SetInParent()
    else:
        return None
    return state


#: Element types that are widgets (they have an id and the browser reruns the script when they change).
WIDGETS = ("number_input", "selectbox", "radio", "checkbox", "button_group", "text_area", "text_input",
           "file_uploader", "button", "download_button", "slider", "multiselect", "data_editor")


@dataclass
class Pending:
    """One interaction on its way: what it waits for and what has come back so far."""

    expected: Callable[[dict[str, str]], bool]
    start: float
    cards: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    done: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class Session:
    """One person's page, spoken over Streamlit's websocket protocol: ``open`` loads it, ``set_number``,
    ``choose`` and ``press`` change a widget (found by its key) as the browser would, each returning the seconds
    until the run it causes finished with the cards ``expected`` accepts, and those cards."""

    def __init__(self, base_url: str, query_string: str = "", timeout: float = 60.0) -> None:
        self.base_url = base_url
        self.query_string = query_string
        self.timeout = timeout
        self.page_script_hash = ""
        self.widgets: dict[str, WidgetState] = {}  # widget id -> the state the browser would send
        self.fragment_of: dict[str, str] = {}  # widget id -> the fragment it was drawn in ("" for none)
        self.drawn: set[str] = set()  # widget ids drawn by the run under way
        self.fragments_drawn: set[str] = set()
        self.pending: Pending | None = None
        self.socket = None
        self.reader: asyncio.Task | None = None
        self.exceptions = 0

    # ---- the protocol ----

    async def open(self, expected: Callable[[dict[str, str]], bool] = lambda cards: True) -> tuple[float, dict]:
        parts = urlsplit(self.base_url)
        self.socket = await connect(f"ws://{parts.netloc}/_stcore/stream", subprotocols=["streamlit"],
                                    origin=self.base_url, max_size=None, open_timeout=self.timeout)
        self.reader = asyncio.create_task(self._read())
        return await self._rerun(expected)

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
        if self.reader is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.reader

    def widget_id(self, key: str) -> str:
        matches = [widget_id for widget_id in self.fragment_of if widget_id.endswith(f"-{key}")]
        if len(matches) != 1:
            raise SessionError(f"no widget with key {key!r} on the page (found {matches})")
        return matches[0]

    async def set_number(self, key: str, value: int, expected=lambda cards: True) -> tuple[float, dict]:
        widget_id = self.widget_id(key)
        self.widgets[widget_id] = WidgetState(id=widget_id, int_value=value)
        return await self._rerun(expected, self.fragment_of[widget_id])

    async def choose(self, key: str, option: str, expected=lambda cards: True) -> tuple[float, dict]:
        widget_id = self.widget_id(key)
        self.widgets[widget_id] = WidgetState(id=widget_id, string_value=option)
        return await self._rerun(expected, self.fragment_of[widget_id])

    async def press(self, key: str, expected=lambda cards: True) -> tuple[float, dict]:
        widget_id = self.widget_id(key)
        return await self._rerun(expected, self.fragment_of[widget_id], WidgetState(id=widget_id,
                                                                                   trigger_value=True))

    async def _rerun(self, expected, fragment_id: str = "", trigger: WidgetState | None = None) -> tuple[float, dict]:
        message = BackMsg()
        client = message.rerun_script
        client.query_string = self.query_string
        client.widget_states.SetInParent()
        client.widget_states.widgets.extend(self.widgets.values())
        if trigger is not None:
            client.widget_states.widgets.append(trigger)
        client.page_script_hash = self.page_script_hash
        client.fragment_id = fragment_id
        context = client.context_info
        context.timezone, context.timezone_offset, context.locale = "UTC", 0, "en-US"
        context.url, context.is_embedded, context.color_scheme = self.base_url + "/", False, "light"
        self.pending = pending = Pending(expected, time.perf_counter())
        try:
            await self.socket.send(message.SerializeToString())
            seconds = await asyncio.wait_for(asyncio.shield(pending.done), self.timeout)
        except TimeoutError:
            raise SessionError(f"no finished run with the expected cards within {self.timeout:.0f} s "
                               f"(cards received: {pending.cards})") from None
        finally:
            self.pending = None
        return seconds, pending.cards

    async def _read(self) -> None:
        try:
            async for payload in self.socket:
                self._received(payload)
        except Exception as error:  # noqa: BLE001 (a closed connection fails the interaction waiting)
            self._fail(f"connection lost: {error!r}")
            return
        self._fail("connection closed by the server")

    def _fail(self, reason: str) -> None:
        if self.pending is not None and not self.pending.done.done():
            self.pending.done.set_exception(SessionError(reason))

    def _received(self, payload: bytes) -> None:
        message = ForwardMsg()
        message.ParseFromString(payload)
        kind = message.WhichOneof("type")
        pending = self.pending
        if kind == "new_session":
            self.page_script_hash = message.new_session.page_script_hash
            self.drawn, self.fragments_drawn = set(), set()
        elif kind == "navigation" and message.navigation.page_script_hash:  # the page of a multipage app
            self.page_script_hash = message.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query_string = message.page_info_changed.query_string
        elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            element = message.delta.new_element
            element_kind = element.WhichOneof("type")
            self.fragments_drawn.add(message.delta.fragment_id)
            if element_kind == "metric" and pending is not None:
                pending.cards[element.metric.label] = element.metric.body
            elif element_kind == "exception":
                self.exceptions += 1
                if pending is not None:
                    pending.errors.append(f"{element.exception.type}: {element.exception.message}")
            elif element_kind in WIDGETS:
                widget = getattr(element, element_kind)
                self.fragment_of[widget.id] = message.delta.fragment_id
                self.drawn.add(widget.id)
                state = widget_state(element_kind, widget, self.widgets.get(widget.id))
                if state is not None:
                    self.widgets[widget.id] = state
        elif kind == "script_finished":
            status = message.script_finished
            if status == EARLY_FOR_RERUN:
                return
            self._forget_widgets_not_drawn(whole_page=status == WHOLE_RUN_FINISHED)
            if pending is None or pending.done.done():
                return
            if status == COMPILE_ERROR or pending.errors:
                pending.done.set_exception(SessionError("; ".join(pending.errors) or "the script did not compile"))
            elif status in FINISHED and pending.expected(pending.cards):
                pending.done.set_result(time.perf_counter() - pending.start)

    def _forget_widgets_not_drawn(self, whole_page: bool) -> None:
        """As the browser does after a run: a widget the run did not draw again is gone (after a fragment's run,
        only those of the fragments it drew)."""
        gone = [widget_id for widget_id, fragment in self.fragment_of.items() if widget_id not in self.drawn
                and (whole_page or fragment in self.fragments_drawn)]
        for widget_id in gone:
            self.widgets.pop(widget_id, None)
            self.fragment_of.pop(widget_id, None)


# ---- the class ---------------------------------------------------------------------------------------------------


#: Each session's cycle, one step per period: (name, kind of interaction, what it does). A move is two messages, as
#: in the browser: the document chosen in the box, then the button a second later.
CYCLE = (
    ("k 4 -> 3", "change k", lambda session, expected: session.set_number("k_input", 3, expected)),
    ("muffin up", "move a document", ("3. muffin", "move_up")),
    ("k 3 -> 4", "change k", lambda session, expected: session.set_number("k_input", 4, expected)),
    ("muffin down", "move a document", ("2. muffin", "move_down")),
)
#: Seconds between choosing the document and pressing its button.
CHOOSE_TO_PRESS = 1.0
CARD_CHANGES = ("change k", "move a document")


async def step(session: Session, index: int, states: dict[str, dict[str, str]] | None,
               record: Callable[[str, float], None]) -> None:
    """Step ``index`` of the cycle; with ``states`` (name -> cards) the cards must be those, else they are
    learnt into a new dict returned through ``record``."""
    name, kind, action = CYCLE[index % len(CYCLE)]

    def expected(cards: dict[str, str]) -> bool:
        return states is None or (bool(cards) and all(cards.get(label) == value
                                                      for label, value in states[name].items()))

    if callable(action):
        seconds, cards = await action(session, expected)
    else:
        option, button = action
        seconds, _ = await session.choose("move_doc", option)
        record("choose the document to move", seconds, None)
        await asyncio.sleep(CHOOSE_TO_PRESS)
        seconds, cards = await session.press(button, expected)
    record(kind, seconds, (name, cards))


async def learn_states(base_url: str, query_string: str, timeout: float) -> dict[str, dict[str, str]]:
    """The cards of each state of the cycle, read by one session going round it once (untimed; it also warms every
    cache a first visit fills)."""
    states: dict[str, dict[str, str]] = {}

    def record(kind: str, seconds: float, learnt) -> None:
        if learnt is not None:
            states[learnt[0]] = learnt[1]

    session = Session(base_url, query_string, timeout)
    try:
        await session.open()
        for index in range(len(CYCLE)):
            await step(session, index, None, record)
    finally:
        await session.close()
    for name, cards in states.items():
        if not cards:
            raise SessionError(f"{base_url}: the step {name!r} received no metric card")
    return states


@dataclass
class Phase:
    """What one class on one page measured."""

    page: str
    seconds: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    error_examples: list[str] = field(default_factory=list)
    wall: float = 0.0
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    rss_mb: dict[str, float] = field(default_factory=dict)
    load: str = ""

    def add_error(self, kind: str, error: Exception) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.error_examples) < 5:
            self.error_examples.append(f"{kind}: {error}")

    def card_changes(self) -> list[float]:
        return [value for kind in CARD_CHANGES for value in self.seconds.get(kind, [])]


def resident_mb(pid: int) -> tuple[float, float]:
    """The process's resident memory now and at its peak (VmRSS, VmHWM), in MB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


async def classroom(base_url: str, query_string: str, label: str, args) -> Phase:
    """``args.sessions`` sessions open the page within one period, then each goes round the cycle for
    ``args.duration`` seconds, one step per period, the sessions' steps spread evenly over the period."""
    pid = server_pid(base_url)
    states = await learn_states(base_url, query_string, args.timeout)
    phase = Phase(label)
    phase.rss_mb["before"] = resident_mb(pid)[0]
    offsets = [args.period * index / args.sessions for index in range(args.sessions)]
    sessions = [Session(base_url, query_string, args.timeout) for _ in offsets]

    def record(kind: str, seconds: float, learnt=None) -> None:
        phase.seconds.setdefault(kind, []).append(seconds)

    async def open_one(session: Session, offset: float) -> None:
        await asyncio.sleep(offset)
        try:
            seconds, _ = await session.open()
            record("open the page", seconds)
        except (SessionError, OSError) as error:
            phase.add_error("open the page", error)

    await asyncio.gather(*(open_one(session, offset) for session, offset in zip(sessions, offsets)))
    phase.rss_mb["all open"] = resident_mb(pid)[0]
    peak = [phase.rss_mb["all open"]]

    async def sample_memory() -> None:
        while True:
            peak[0] = max(peak[0], resident_mb(pid)[0])
            await asyncio.sleep(0.5)

    steps = int(args.duration // args.period)

    async def student(session: Session, offset: float, start: float) -> None:
        for index in range(steps):
            await asyncio.sleep(max(0.0, start + offset + index * args.period - time.perf_counter()))
            try:
                await step(session, index, states, record)
            except (SessionError, OSError) as error:
                phase.add_error(CYCLE[index % len(CYCLE)][1], error)

    sampler = asyncio.create_task(sample_memory())
    cpu_before, client_before, start = cpu_seconds(pid), os.times(), time.perf_counter()
    await asyncio.gather(*(student(session, offset, start) for session, offset in zip(sessions, offsets)
                           if session.reader is not None))
    phase.wall = time.perf_counter() - start
    phase.server_cpu = cpu_seconds(pid) - cpu_before
    client_after = os.times()
    phase.client_cpu = (client_after.user - client_before.user) + (client_after.system - client_before.system)
    sampler.cancel()
    phase.rss_mb["peak"] = peak[0]
    phase.rss_mb["end"] = resident_mb(pid)[0]
    exceptions = sum(session.exceptions for session in sessions)
    if exceptions:
        phase.errors["exception on the page"] = exceptions
    await asyncio.gather(*(session.close() for session in sessions))
    phase.load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return phase


# ---- the report --------------------------------------------------------------------------------------------------


def percentiles(values: list[float]) -> tuple[float, float]:
    if not values:
        return float("nan"), float("nan")
    p50, p95 = np.percentile(values, [50, 95])
    return float(p50), float(p95)


def report(phase: Phase, args) -> None:
    print(f"\n{phase.page}: {args.sessions} sessions, one step each per {args.period:g} s for {args.duration:g} s "
          f"(load average after: {phase.load})")
    print(f"  {'interaction':32s} {'n':>5s} {'p50':>9s} {'p95':>9s} {'max':>9s}")
    rows = [("card changes (k, move button)", phase.card_changes()), *phase.seconds.items()]
    for name, values in rows:
        p50, p95 = percentiles(values)
        worst = max(values) if values else float("nan")
        print(f"  {name:32s} {len(values):5d} {p50 * 1000:6.0f} ms {p95 * 1000:6.0f} ms {worst * 1000:6.0f} ms")
    interactions = sum(len(values) for kind, values in phase.seconds.items() if kind != "open the page")
    print(f"  server CPU {phase.server_cpu:.1f} s in {phase.wall:.0f} s: {100 * phase.server_cpu / phase.wall:.0f}% "
          f"of one core, {1000 * phase.server_cpu / max(interactions, 1):.0f} ms per interaction; "
          f"this client {phase.client_cpu:.1f} s")
    print("  server RSS: " + ", ".join(f"{name} {value:.0f} MB" for name, value in phase.rss_mb.items()))
    print(f"  errors: {sum(phase.errors.values())}" + "".join(f", {kind} {count}" for kind, count in
                                                              phase.errors.items()))
    for example in phase.error_examples:
        print(f"    {example[:300]}")


async def run(args, app_url: str, peer_url: str) -> list[tuple[Phase, Phase]]:
    rounds = []
    for number in range(args.rounds):
        # Alternate which page goes first, so a drift in the machine's load falls on both.
        order = [("minimal", peer_url, "with=move"), ("app", app_url, "")]
        if number % 2:
            order.reverse()
        measured = {}
        for name, url, query_string in order:
            label = "app (the explorer, /)" if name == "app" else "minimal page (?with=move)"
            print(f"round {number + 1}: {label} ...", flush=True)
            measured[name] = await classroom(url, query_string, label, args)
            report(measured[name], args)
        rounds.append((measured["app"], measured["minimal"]))
    return rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=40, help="sessions at once (default 40)")
    parser.add_argument("--period", type=float, default=10.0, help="seconds between a session's steps (default 10)")
    parser.add_argument("--duration", type=float, default=120.0, help="seconds of steps per session (default 120)")
    parser.add_argument("--rounds", type=int, default=1, help="classes on each page, alternating (default 1)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds after which an interaction without its state is an error (default 60)")
    parser.add_argument("--app-dir", type=Path, default=REPO,
                        help="the checkout whose app.py is measured (default this one), for a before-and-after")
    parser.add_argument("--peer-post-script-gc", action="store_true",
                        help="run the minimal page with Streamlit's default full collection after every script run "
                             "(runner.postScriptGC), which this checkout's .streamlit/config.toml turns off for both")
    args = parser.parse_args()
    print(f"machine: {machine()}\napp: {args.app_dir.resolve()}")
    peer_options = {"runner.postScriptGC": "true"} if args.peer_post_script_gc else None
    print(f"minimal page: {'a full collection after every run' if peer_options else 'the same server config'}")
    with running_streamlit("app.py", args.app_dir) as app_url, \
            running_streamlit(MINIMAL_PAGE, options=peer_options) as peer_url:
        rounds = asyncio.run(run(args, app_url, peer_url))
    print(f"\n{'round':6s} {'app p50':>9s} {'minimal p50':>12s} {'ratio':>6s} {'app p95':>9s} {'minimal p95':>12s} "
          f"{'ratio':>6s} {'goal':>5s} {'errors':>7s}   (card changes: k and the move button)")
    for number, (app, minimal) in enumerate(rounds, start=1):
        app_p50, app_p95 = percentiles(app.card_changes())
        peer_p50, peer_p95 = percentiles(minimal.card_changes())
        errors = sum(app.errors.values()) + sum(minimal.errors.values())
        print(f"{number:<6d} {app_p50 * 1000:6.0f} ms {peer_p50 * 1000:9.0f} ms {app_p50 / peer_p50:5.2f}x "
              f"{app_p95 * 1000:6.0f} ms {peer_p95 * 1000:9.0f} ms {app_p95 / peer_p95:5.2f}x {GOAL:4.1f}x "
              f"{errors:7d}")


if __name__ == "__main__":
    main()
