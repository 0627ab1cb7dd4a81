"""What one interaction costs, counted rather than timed: what the server sends, what the browser holds and does.

For the interactions of bench_latency.py on the explorer, the run and the ANN pages (and the minimal page's k change
beside them), in one headless Chromium: the forward messages the websocket carries (decoded with Streamlit's own
protobuf classes: deltas, bytes, and the elements they draw by type), the elements in the page's document afterwards,
Chromium's ``Performance.getMetrics`` TaskDuration spent on it, and the CPU time (user + sys) of the streamlit server
that answered. Counts do not depend on the machine's load, so a before-and-after is meaningful on a busy machine.

    python bench/rerun_counts.py [--repeats 3] [--only explorer|runs|ann] [--app-dir /tmp/before]
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import sys
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_latency import MINIMAL_PAGE, STUCK_MS, Ann, Explorer, Minimal, Runs, machine  # noqa: E402

from tests.browser.support import (  # noqa: E402
    VIEWPORT,
    ExplorerPage,
    RunsPage,
    SentMessages,
    chromium_browser,
    running_streamlit,
)

TICKS = os.sysconf("SC_CLK_TCK")


def server_pid(base_url: str) -> int:
    """The streamlit process listening on ``base_url``'s port (found by its command line)."""
    port = str(urlparse(base_url).port)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in b" ".join(arguments) and port.encode() in arguments:
            return int(entry.name)
    raise RuntimeError(f"no streamlit process on port {port}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Watched:
    """A tab whose websocket messages are kept, with Chromium's performance counters."""

    def __init__(self, context) -> None:
        self.page = context.new_page()
        self.sent = SentMessages(self.page).__enter__()  # for the tab's whole life (the context closes it)
        self.cdp = context.new_cdp_session(self.page)
        self.cdp.send("Performance.enable")

    def metrics(self) -> dict[str, float]:
        return {entry["name"]: entry["value"] for entry in self.cdp.send("Performance.getMetrics")["metrics"]}


def element_kinds(deltas: list) -> collections.Counter:
    """The elements and blocks the deltas draw, by type."""
    kinds: collections.Counter = collections.Counter()
    for message in deltas:
        delta = message.delta
        kind = delta.WhichOneof("type")
        if kind == "new_element":
            kinds[delta.new_element.WhichOneof("type")] += 1
        elif kind == "add_block":
            kinds["block:" + (delta.add_block.WhichOneof("type") or "vertical")] += 1
        else:
            kinds[kind] += 1
    return kinds


def measure(watched: Watched, pid: int, interaction) -> dict:
    watched.sent.clear()
    before, cpu_before = watched.metrics(), cpu_seconds(pid)
    interaction()
    after, cpu_after = watched.metrics(), cpu_seconds(pid)
    deltas = watched.sent.deltas()
    return {"deltas": len(deltas), "bytes": watched.sent.bytes(), "kinds": element_kinds(deltas),
            # Chromium's "Nodes" counts detached nodes not yet collected too: the document's own count instead.
            "nodes": watched.page.evaluate("document.getElementsByTagName('*').length"),
            "task_ms": (after["TaskDuration"] - before["TaskDuration"]) * 1000,
            "server_cpu_ms": (cpu_after - cpu_before) * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="counted repeats of each interaction (default 3)")
    parser.add_argument("--app-dir", type=Path, default=REPO, help="the checkout whose app.py is measured")
    parser.add_argument("--only", default="", help="only the interactions whose name starts with this")
    args = parser.parse_args()
    print(f"machine: {machine()}\napp: {args.app_dir.resolve()}")
    with running_streamlit("app.py", args.app_dir) as app_url, running_streamlit(MINIMAL_PAGE) as peer_url, \
            chromium_browser() as chromium:
        context = chromium.new_context(viewport=VIEWPORT)
        tabs = {name: Watched(context) for name in ("peer", "explorer", "runs", "ann")}
        for tab in tabs.values():
            tab.page.set_default_timeout(STUCK_MS)
        app_pid = server_pid(app_url)
        pids = {"peer": server_pid(peer_url), "explorer": app_pid, "runs": app_pid, "ann": app_pid}
        peer = Minimal(tabs["peer"].page, peer_url).open()
        interactions = [("minimal page: change k", "peer", lambda: peer.change_k())]
        def wanted(prefix: str) -> bool:
            return not args.only or prefix.startswith(args.only) or args.only.startswith(prefix)

        if wanted("explorer"):
            explorer = Explorer(ExplorerPage(tabs["explorer"].page, app_url))
            grades, gains = iter(range(10**9)), iter(range(10**9))  # each goes back and forth between two states
            interactions += [("explorer: change k", "explorer", explorer.change_k),
                             ("explorer: change k, your own list", "explorer", explorer.change_k_own_list),
                             ("explorer: edit a grade", "explorer", lambda: explorer.edit_grade(next(grades))),
                             ("explorer: change a convention", "explorer",
                              lambda: explorer.change_convention(next(gains)))]
        if wanted("runs"):
            runs = Runs(RunsPage(tabs["runs"].page, app_url))
            interactions += [("runs: change k (value in the finder)", "runs", runs.change_k),
                             ("runs: change the relevance threshold", "runs", runs.change_level)]
        if wanted("ann"):
            ann = Ann(tabs["ann"].page, app_url).open()
            interactions += [("ann: change k", "ann", ann.change_k)]
        interactions = [entry for entry in interactions if entry[1] == "peer" or entry[0].startswith(args.only)]
        results: dict[str, list[dict]] = {}
        for repeat in range(args.repeats + 2):  # two passes first warm every cache
            for name, tab, interaction in interactions:
                tabs[tab].page.bring_to_front()
                counted = measure(tabs[tab], pids[tab], interaction)
                if repeat >= 2:
                    results.setdefault(name, []).append(counted)
        context.close()
    print(f"after the run: load average {', '.join(f'{value:.1f}' for value in os.getloadavg())}\n")
    print(f"{'interaction':40s} {'deltas':>6s} {'kB':>6s} {'elements':>9s} {'task ms':>8s} {'server CPU ms':>13s}"
          f"   (medians of {args.repeats})")
    for name, rows in results.items():
        median = {field: statistics.median(row[field] for row in rows)
                  for field in ("deltas", "bytes", "nodes", "task_ms", "server_cpu_ms")}
        print(f"{name:40s} {median['deltas']:6.0f} {median['bytes'] / 1000:6.1f} {median['nodes']:9.0f} "
              f"{median['task_ms']:8.0f} {median['server_cpu_ms']:13.0f}")
        print(f"{'':40s} " + ", ".join(f"{kind} {count}" for kind, count in rows[-1]["kinds"].most_common()))


if __name__ == "__main__":
    main()
