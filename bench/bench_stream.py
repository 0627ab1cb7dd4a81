"""The streamed command line: the 7M-line run against pytrec_eval and the in-memory path, the cost of grouping a
run whose queries are not contiguous, and the 70M-line run's memory and lines per second.

Every figure comes from fresh processes (wall time around the child; user CPU and peak RSS from its own ``wait4``
usage), with the load average beside it: the machine is shared, so ratios measured in the same run matter more
than absolute times.

1. ``msmarco`` (7M lines): ``python -m metrics`` (the run is over 64 MiB, so it streams), the same command line
   with streaming off (the in-memory path) and pytrec_eval, interleaved, ``--repeats`` each, medians. Checked
   first: every per-query value and mean of the streamed path equals the in-memory path's bit for bit, and the
   command lines print the same bytes with ``-q``.
2. ``msmarco.byrank.run``: the same 7M lines ordered by rank, so every query comes back 1,000 times and the run
   is grouped out of core: time and memory against the contiguous run, the output checked equal.
3. ``msmarco70`` (70M lines, 2.6 GB; ``--large``): the streamed command line, peak RSS and lines per second
   against the 7M run's, the two interleaved ``--repeats`` times, medians. Its means are checked against ten
   in-memory evaluations of slices of 6,980 queries each (under a 4 GB address-space cap), combined in sorted-qid
   order.

Usage: ``python bench/bench_stream.py [--repeats 3] [--large]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_cli import cli_command, pytrec_eval_command  # noqa: E402
from generate import (  # noqa: E402
    LARGE_QUERIES,
    MSMARCO_DEPTH,
    MSMARCO_QUERIES,
    generate,
    generate_large,
)
from pipelines import MEASURES  # noqa: E402

#: The command line with streaming off: the in-memory path of the same code.
IN_MEMORY = ("import runpy, sys; import metrics.many_runs as many_runs; many_runs.STREAM_FROM_BYTES = 1 << 62; "
             "sys.argv = ['metrics'] + sys.argv[1:]; runpy.run_module('metrics', run_name='__main__')")

#: The command line streaming on one thread (no parsing of the next chunk while this one is scored).
ONE_THREAD = ("import runpy, sys; import metrics.stream as stream; stream.OVERLAP = False; "
              "sys.argv = ['metrics'] + sys.argv[1:]; runpy.run_module('metrics', run_name='__main__')")

#: In a child: the streamed values and means against the in-memory path's (7M) or against slices of whole queries
#: evaluated in memory one after another (70M), printed as one JSON line.
CHECK = """
import json, sys
import numpy as np
from metrics.bulk import evaluate_files, evaluate_tables
from metrics.engine import aggregate_columns
from metrics.stream import stream_run
from metrics.io.trec import read_qrels, read_run
qrels_path, run_path, measures, slice_lines = sys.argv[1], sys.argv[2], sys.argv[3].split(), int(sys.argv[4])
streamed = stream_run(qrels_path, run_path, measures)
if slice_lines == 0:
    qids, values, means = evaluate_files(qrels_path, run_path, measures)
else:
    qrels = read_qrels(qrels_path)
    qids, columns = [], []
    with open(run_path, "rb") as file:
        while True:
            text = bytearray()
            for _ in range(slice_lines):  # whole queries of MSMARCO_DEPTH lines, without a list of 7M lines
                text += file.readline()
            if not text:
                break
            slice_qids, slice_values, _ = evaluate_tables(qrels, read_run(text), measures)
            qids += slice_qids
            columns.append(slice_values)
    values = {key: np.concatenate([column[key] for column in columns]) for key in columns[0]}
    order = np.asarray(sorted(range(len(qids)), key=qids.__getitem__), dtype=np.int64)
    means = aggregate_columns({key: column[order] for key, column in values.items()})
order = sorted(range(len(qids)), key=qids.__getitem__)
same_values = streamed.qids == [qids[i] for i in order] and all(
    streamed.values[key].tolist() == values[key][order].tolist() for key in values)
print(json.dumps({"queries": len(qids), "same_values": same_values, "same_means": streamed.means == means,
                  "grouped": streamed.grouped}))
"""


def load() -> str:
    return "load " + "/".join(f"{value:.1f}" for value in os.getloadavg())


def measure_child(command: list[str], cap: int | None = None) -> tuple[float, float, float, bytes]:
    """(wall s, user CPU s, peak RSS MB, stdout) of one fresh process, optionally under ``prlimit --as=cap``."""
    if cap is not None:
        command = ["prlimit", f"--as={cap}", *command]
    start = time.perf_counter()
    with open(HERE / "out" / "stream_stdout", "wb") as stdout, open(HERE / "out" / "stream_stderr", "wb") as stderr:
        process = subprocess.Popen(command, cwd=ROOT, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{(HERE / 'out' / 'stream_stderr').read_text()}")
    return wall, usage.ru_utime, usage.ru_maxrss / 1024, (HERE / "out" / "stream_stdout").read_bytes()


def in_memory_command(qrels: Path, run: Path, *options: str, code: str = IN_MEMORY) -> list[str]:
    measures = [arg for name in MEASURES for arg in ("-m", name)]
    return [sys.executable, "-c", code, *options, *measures, str(qrels), str(run)]


def check(qrels: Path, run: Path, slice_lines: int, cap: int) -> dict:
    out = measure_child([sys.executable, "-c", CHECK, str(qrels), str(run), " ".join(MEASURES), str(slice_lines)],
                        cap)[3]
    return json.loads(out)


def interleaved(commands: dict[str, list[str]], repeats: int,
                caps: dict[str, int] | None = None) -> dict[str, list[float]]:
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
    names = list(commands)
    for repeat in range(repeats):
        for name in names if repeat % 2 == 0 else names[::-1]:
            samples[name].append(measure_child(commands[name], (caps or {}).get(name))[:3])
            print(f"  {name}: {samples[name][-1][0]:.2f} s wall, {samples[name][-1][2]:.0f} MB ({load()})", flush=True)
    return {name: [statistics.median(column) for column in zip(*values)] for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--large", action="store_true", help="also the 70M-line run (generates 2.6 GB if missing)")
    args = parser.parse_args()
    (HERE / "out").mkdir(exist_ok=True)
    paths = generate()
    large = generate_large() if args.large else {}
    qrels, run = paths["msmarco_qrels"], paths["msmarco_run_space"]
    lines_7m = MSMARCO_QUERIES * MSMARCO_DEPTH

    verdict = check(qrels, run, 0, 3_000_000_000)
    assert verdict["same_values"] and verdict["same_means"] and not verdict["grouped"], verdict
    streamed_q = measure_child(cli_command(qrels, run)[:3] + ["-q"] + cli_command(qrels, run)[3:])[3]
    in_memory_q = measure_child(in_memory_command(qrels, run, "-q"))[3]
    assert streamed_q == in_memory_q, "the streamed and in-memory command lines print different lines"
    print(f"7M: {verdict['queries']} queries, per-query values and means of the streamed path identical to the "
          f"in-memory path's; -q output identical ({len(streamed_q.splitlines())} lines)", flush=True)

    print(f"7M-line run, {args.repeats} interleaved repeats ({load()} before)", flush=True)
    medians = interleaved({"streamed": cli_command(qrels, run),
                           "streamed, one thread": in_memory_command(qrels, run, code=ONE_THREAD),
                           "in memory": in_memory_command(qrels, run), "pytrec_eval": pytrec_eval_command(qrels, run)},
                          args.repeats)
    peer = medians["pytrec_eval"]
    print("| path | wall | user CPU | peak RSS | wall vs pytrec_eval | CPU vs pytrec_eval | memory vs pytrec_eval |")
    print("|---|---|---|---|---|---|---|")
    for name, (wall, cpu, rss) in medians.items():
        print(f"| {name} | {wall:.2f} s | {cpu:.2f} s | {rss:.0f} MB | {wall / peer[0]:.2f} | {cpu / peer[1]:.2f} | "
              f"{rss / peer[2]:.2f} |")
    print(f"({load()} after)\n", flush=True)

    byrank = large.get("msmarco_run_byrank")
    if byrank is not None:
        assert measure_child(cli_command(qrels, byrank))[3] == measure_child(cli_command(qrels, run))[3]
        print(f"grouping: the 7M lines ordered by rank print the same lines ({load()} before)", flush=True)
        medians = interleaved({"contiguous": cli_command(qrels, run), "by rank (grouped)": cli_command(qrels, byrank)},
                              args.repeats)
        base = medians["contiguous"]
        for name, (wall, cpu, rss) in medians.items():
            print(f"| {name} | {wall:.2f} s | {cpu:.2f} s | {rss:.0f} MB | wall x{wall / base[0]:.2f} | "
                  f"CPU x{cpu / base[1]:.2f} |")
        print(f"({load()} after)\n", flush=True)

    if large:
        qrels70, run70 = large["msmarco70_qrels"], large["msmarco70_run"]
        lines_70m = LARGE_QUERIES * MSMARCO_DEPTH
        print(f"70M-line run ({run70.stat().st_size / 1e9:.2f} GB), {load()} before", flush=True)
        medians = interleaved({"7M": cli_command(qrels, run), "70M": cli_command(qrels70, run70)}, args.repeats,
                              caps={"70M": 3_000_000_000})
        small, big = medians["7M"], medians["70M"]
        print(f"| run | wall | user CPU | peak RSS | lines/s |\n|---|---|---|---|---|\n"
              f"| 7M | {small[0]:.2f} s | {small[1]:.2f} s | {small[2]:.0f} MB | {lines_7m / small[0] / 1e6:.2f}M |\n"
              f"| 70M | {big[0]:.2f} s | {big[1]:.2f} s | {big[2]:.0f} MB | {lines_70m / big[0] / 1e6:.2f}M |")
        print(f"lines/s 70M vs 7M: x{(lines_70m / big[0]) / (lines_7m / small[0]):.2f}; {load()} after", flush=True)
        verdict = check(qrels70, run70, MSMARCO_QUERIES * MSMARCO_DEPTH, 4_000_000_000)
        assert verdict["same_values"] and verdict["same_means"], verdict
        print(f"70M: {verdict['queries']} queries, per-query values and means identical to ten in-memory slices "
              f"combined in sorted-qid order", flush=True)


if __name__ == "__main__":
    main()
