"""What each explorer interaction costs, counted rather than timed: the deltas and bytes the server sends, the DOM
nodes the page holds after it, Chromium's main-thread task time and layouts (``Performance.getMetrics``), and the
server's CPU time; side by side with the minimal page's k change (bench/minimal_page.py), in one Chromium.

Counts do not depend on the machine's load, so this is the tool for a loaded machine; wall time is
bench_latency.py's. It drives the same interactions as bench_latency.py (its Explorer and Minimal classes), each
``--repeats`` times after one untimed pass, and prints the median of each figure.

    python bench/bench_weight.py [--repeats 4] [--app-dir /tmp/before]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import bench_latency  # noqa: E402
from bench_latency import MINIMAL_PAGE, Explorer, Minimal, machine  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from tests.browser.support import VIEWPORT, ExplorerPage, chromium_browser, running_streamlit  # noqa: E402

FIGURES = ("deltas", "kB", "elements", "DOM nodes", "task ms", "layouts", "server CPU ms")


def server_pid(base_url: str) -> int:
    """The process of the streamlit server this run started on ``base_url``'s port (found by its command line)."""
    port = base_url.rsplit(":", 1)[1]
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                argv = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"streamlit" in b" ".join(argv) and port.encode() in argv:
                return int(name)
    raise RuntimeError(f"no streamlit process on port {port}")


def cpu_ms(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far, in ms."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


class Meter:
    """Counts the forward messages a tab receives and reads Chromium's performance metrics over the timed part of
    an interaction (bench_latency's ``timed``: from the input that commits it until the page shows its state)."""

    def __init__(self, page, pid: int) -> None:
        self.page, self.pid, self.frames, self.last, self.kinds = page, pid, [], {}, Counter()
        page.on("websocket", lambda socket: socket.on("framereceived", self._received))
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Performance.enable")

    def _received(self, payload) -> None:
        if isinstance(payload, bytes):
            self.frames.append(payload)

    def _metrics(self) -> dict[str, float]:
        return {entry["name"]: entry["value"] for entry in self.cdp.send("Performance.getMetrics")["metrics"]}

    def measure(self, action: Callable[[], float]) -> float:
        self.frames.clear()
        before, cpu_before = self._metrics(), cpu_ms(self.pid)
        seconds = action()
        after, cpu_after = self._metrics(), cpu_ms(self.pid)
        deltas, self.kinds = 0, Counter()
        for payload in self.frames:
            message = ForwardMsg()
            message.ParseFromString(payload)
            if message.WhichOneof("type") == "delta":
                deltas += 1
                delta = message.delta
                kind = delta.WhichOneof("type")
                if kind == "new_element":
                    kind = delta.new_element.WhichOneof("type")
                elif kind == "add_block":
                    kind = "block:" + (delta.add_block.WhichOneof("type") or "")
                self.kinds[kind] += 1
        self.last = {
            "deltas": deltas, "kB": sum(map(len, self.frames)) / 1000,
            "elements": self.page.evaluate("document.getElementsByTagName('*').length"),
            "DOM nodes": after["Nodes"], "task ms": (after["TaskDuration"] - before["TaskDuration"]) * 1000,
            "layouts": after["LayoutCount"] - before["LayoutCount"], "server CPU ms": cpu_after - cpu_before,
        }
        return seconds


def metered(meters: dict[object, Meter]) -> Callable[..., float]:
    """bench_latency's ``timed``, with the page's meter around the timed part (the page is idle before it)."""
    timed = bench_latency.timed

    def metered_timed(page, action, shown, arg=None) -> float:
        page.wait_until_idle()
        return meters[page.page].measure(lambda: timed(page, action, shown, arg))

    return metered_timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=4, help="measured repeats of each interaction (default 4)")
    parser.add_argument("--detail", action="store_true", help="also print what each interaction's last repeat sent, "
                        "by element type")
    parser.add_argument("--app-dir", type=Path, default=REPO, help="the checkout whose app.py is measured")
    args = parser.parse_args()
    print(f"machine: {machine()}\napp: {args.app_dir.resolve()}")
    results: dict[str, list[dict[str, float]]] = {}
    kinds: dict[str, Counter] = {}
    with running_streamlit("app.py", args.app_dir) as app_url, running_streamlit(MINIMAL_PAGE) as peer_url, \
            chromium_browser() as chromium:
        context = chromium.new_context(viewport=VIEWPORT)
        # Each meter listens before its page opens: a tab's websocket is announced only when it connects.
        peer_meter = Meter(context.new_page(), server_pid(peer_url))
        peer = Minimal(peer_meter.page, peer_url).open()
        meter = Meter(context.new_page(), server_pid(app_url))
        explorer = Explorer(ExplorerPage(meter.page, app_url))
        bench_latency.timed = metered({peer_meter.page: peer_meter, meter.page: meter})
        interactions: list[tuple[str, Meter, Callable[[int], float]]] = [
            ("minimal page: change k", peer_meter, lambda r: peer.change_k()),
            ("explorer: change k", meter, lambda r: explorer.change_k()),
            ("explorer: change k, your own list", meter, lambda r: explorer.change_k_own_list()),
            ("explorer: edit a grade", meter, explorer.edit_grade),
            ("explorer: move a document", meter, explorer.move_document),
            ("explorer: open the swap heatmaps", meter, lambda r: explorer.open_swap_heatmaps()),
            ("explorer: change a convention", meter, explorer.change_convention),
        ]
        for repeat in range(args.repeats + 2):  # two passes first: each state's cards are learnt, caches warm
            for name, page_meter, interaction in interactions:
                page_meter.page.bring_to_front()
                page_meter.last = {}
                interaction(repeat)
                if repeat >= 2 and page_meter.last:
                    results.setdefault(name, []).append(page_meter.last)
                    kinds[name] = page_meter.kinds
        context.close()
    print(f"after the run: load average {', '.join(f'{value:.1f}' for value in os.getloadavg())}\n")
    print(f"{'interaction (medians)':36s}" + "".join(f"{figure:>15s}" for figure in FIGURES))
    for name, rows in results.items():
        print(f"{name:36s}" + "".join(f"{statistics.median(row[f] for row in rows):15.1f}" for f in FIGURES))
    if args.detail:
        for name, counts in kinds.items():
            print(f"\n{name}: " + ", ".join(f"{kind} {count}" for kind, count in counts.most_common()))


if __name__ == "__main__":
    main()
