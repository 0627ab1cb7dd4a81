"""Why ``python -m metrics QRELS RUN RUN...`` evaluates its runs in threads: four MS MARCO-scale runs against one
qrels (read once), evaluated one after another, in a thread pool, and in process pools (fork, forkserver, spawn),
each way in a fresh process, two workers (this machine's cores), the official measures.

Threads share the parsed qrels and standard input and can be abandoned cleanly; a forked pool shares the qrels too,
but forks a process whose pyarrow thread pool is already running; forkserver and spawn pools pickle the qrels to
each worker and import numpy and pyarrow again there. Every way must give the same sum of AP over the runs.

Usage: ``python bench/bench_many_runs.py [--repeats 3]`` (prints a Markdown table, with the load average).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MODES = ("serial", "threads", "fork", "forkserver", "spawn")

_QRELS = None  # the worker's qrels (process pools)


def _init(qrels) -> None:
    global _QRELS
    _QRELS = qrels


def _one(path: str) -> float:
    from metrics.cli import select_measures
    from metrics.conventions import Conventions
    from metrics.io.read import read_run_path
    from metrics.many_runs import evaluate_run

    return float(evaluate_run(_QRELS, read_run_path(path), select_measures([]).measures, Conventions())[1]["map"].sum())


def child(mode: str, qrels_path: str, runs: list[str]) -> None:
    """One way of evaluating the runs; prints wall, CPU (self and children), peak RSS (self plus the largest child:
    getrusage gives no sum) and the checksum as JSON. A forkserver's workers are its children, not ours: their CPU
    and memory are not counted."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from metrics.cli import select_measures
    from metrics.conventions import Conventions
    from metrics.io.read import read_checked_qrels
    from metrics.many_runs import evaluate_each

    start = time.perf_counter()
    measures = select_measures([]).measures
    qrels = read_checked_qrels(qrels_path, measures, Conventions())
    if mode in ("serial", "threads"):
        results = evaluate_each(qrels, [(p, p) for p in runs], measures, Conventions(),
                                workers=1 if mode == "serial" else 2)
        total = sum(float(result.values["map"].sum()) for result in results)
    else:
        context = multiprocessing.get_context(mode)
        with ProcessPoolExecutor(2, mp_context=context, initializer=_init, initargs=(qrels,)) as pool:
            total = sum(pool.map(_one, runs))
    wall = time.perf_counter() - start
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    print(json.dumps({"wall": wall, "cpu": cpu, "rss": (own.ru_maxrss + children.ru_maxrss) / 1024, "map": total}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from generate import generate

    paths = generate()
    runs = [str(paths["msmarco_run_space"]), str(paths["msmarco_run_tab"])] * 2
    samples: dict[str, list[dict]] = {mode: [] for mode in MODES}
    loads = []
    for repeat in range(args.repeats):
        for mode in MODES if repeat % 2 == 0 else MODES[::-1]:
            loads.append(os.getloadavg()[0])
            done = subprocess.run([sys.executable, __file__, "--child", mode, str(paths["msmarco_qrels"]), *runs],
                                  capture_output=True, text=True, check=True, cwd=ROOT)
            samples[mode].append(json.loads(done.stdout))
    checksums = {round(sample["map"], 9) for values in samples.values() for sample in values}
    assert len(checksums) == 1, f"the ways disagree: {checksums}"
    serial = statistics.median(s["wall"] for s in samples["serial"])
    print("| four runs, 2 workers | wall | CPU | peak RSS (self + largest child) | wall vs serial |")
    print("|---|---|---|---|---|")
    for mode, values in samples.items():
        wall, cpu, rss = (statistics.median(s[key] for s in values) for key in ("wall", "cpu", "rss"))
        print(f"| {mode} | {wall:.2f} s | {cpu:.2f} s | {rss:.0f} MB | {wall / serial:.2f} |")
    print(f"\n{args.repeats} interleaved repeats, medians; {os.cpu_count()} CPUs; load average (1 min) "
          f"{min(loads):.1f}-{max(loads):.1f}; forkserver's CPU and memory are its workers' and not counted")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        sys.path.insert(0, str(ROOT))
        child(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        main()
