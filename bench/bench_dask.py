"""metrics.dask on a LocalCluster of two worker processes against the single-machine path and pytrec_eval.

The MS MARCO-scale run (bench/generate.py: 6,980 queries x 1,000 documents, 7M lines). Each tool runs in a fresh
process, ``--repeats`` times, alternating:

* ``dask_p2p``, ``dask_tasks``: ``python bench/bench_dask.py --child dask_p2p QRELS RUN``: starts
  ``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)``, reads the files with
  ``metrics.dask.read_trec_run`` (64 MiB blocks) and ``read_trec_qrels``, and calls ``metrics.dask.evaluate`` with
  Dask's p2p shuffle or its task-based one; the cluster's start-up is inside the time, and reported apart;
* ``ours``: one machine, ``metrics.bulk.evaluate_files`` (``bench/pipelines.py ours``);
* ``pytrec_eval``: ``bench/pipelines.py pytrec_eval``.

Peak memory is the largest sum of the resident sets of the process and all its descendants (the scheduler and
worker processes), sampled every 20 ms; a single process's peak would hide the workers. Before timing, the Dask
means must equal the single-machine means exactly (``==`` on every float) and pytrec_eval's to 1e-9.

With ``--large``: the 70M-line run (``generate.py --large``, 2.6 GB) instead, once, through the task-based shuffle
only (the faster of the two on 7M lines), each worker capped at ``--worker-memory`` and the whole run at
``--timeout`` seconds (the process tree is killed past it). Every 10 s the child prints the scheduler's task counts
by state, the workers' memory and the bytes they spilled to disk, so a run that does not finish says how far it got.
Its means are compared with the streamed command line's path (``metrics.stream.stream_run``), run afterwards in a
fresh process.

Usage: ``python bench/bench_dask.py [--repeats 3]``, ``python bench/bench_dask.py --large [--worker-memory 6GiB]
[--timeout 1200]``. The load average is printed beside the figures: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from pipelines import MEASURES  # noqa: E402

#: Memory each worker may use before the nanny restarts it (the bench refuses to take the shared machine down).
WORKER_MEMORY = "3GiB"


def progress(client, start: float, done: threading.Event) -> None:
    """Every 10 s, to stderr: tasks by state, the workers' memory and what they spilled (for a run cut short)."""
    def states(dask_scheduler=None) -> dict[str, int]:
        counts: dict[str, int] = {}
        for task in dask_scheduler.tasks.values():
            counts[task.state] = counts.get(task.state, 0) + 1
        return counts

    while not done.wait(10):
        try:
            workers = client.scheduler_info()["workers"].values()
            memory = sum(worker["metrics"]["memory"] for worker in workers) / 2**20
            spilled = sum(worker["metrics"].get("spilled_bytes", {}).get("disk", 0) for worker in workers) / 2**20
            print(f"{time.perf_counter() - start:.0f} s: tasks {client.run_on_scheduler(states)}, workers' memory "
                  f"{memory:.0f} MB, spilled {spilled:.0f} MB, load {os.getloadavg()[0]:.1f}", file=sys.stderr,
                  flush=True)
        except (OSError, RuntimeError, KeyError) as error:  # the cluster is closing: stop reporting
            print(f"progress: {error!r}", file=sys.stderr, flush=True)
            return


def child_dask(method: str, qrels: str, run: str) -> None:
    import distributed

    import metrics.dask

    start = time.perf_counter()
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       memory_limit=os.environ.get("BENCH_WORKER_MEMORY", WORKER_MEMORY))
    client = distributed.Client(cluster)
    started = time.perf_counter() - start
    done = threading.Event()
    reporter = threading.Thread(target=progress, args=(client, start, done), daemon=True)
    reporter.start()
    _, means = metrics.dask.evaluate(metrics.dask.read_trec_qrels(qrels), metrics.dask.read_trec_run(run),
                                     list(MEASURES), shuffle_method=method.removeprefix("dask_"))
    evaluated = time.perf_counter() - start - started
    done.set()
    reporter.join()
    client.close()
    cluster.close()
    print(json.dumps({"means": means, "startup": started, "evaluate": evaluated}))


def tree_rss(pid: int) -> int:
    import psutil

    try:
        root = psutil.Process(pid)
        processes = [root] + root.children(recursive=True)
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for process in processes:
        try:
            total += process.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def child_stream(qrels: str, run: str) -> None:
    from metrics.stream import stream_run

    print(json.dumps(stream_run(qrels, run, list(MEASURES)).means))


def kill_tree(pid: int) -> None:
    import psutil

    try:
        root = psutil.Process(pid)
        processes = root.children(recursive=True) + [root]
    except psutil.NoSuchProcess:
        return
    for process in processes:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass


def measure(command: list[str], timeout: float | None = None, env: dict | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak summed RSS of the process tree in MB, stdout) of one fresh process; past ``timeout``
    seconds the process tree is killed and ``TimeoutError`` names the peak and the child's last progress lines."""
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    with open(out / "dask_stdout.txt", "wb") as stdout, open(out / "dask_stderr.txt", "wb") as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=ROOT, stdout=stdout, stderr=stderr,
                                   env=None if env is None else {**os.environ, **env})
        peak = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, tree_rss(process.pid))
                done.wait(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            status = process.wait(timeout)
        except subprocess.TimeoutExpired:
            kill_tree(process.pid)
            process.wait()
            done.set()
            sampler.join()
            tail = (out / "dask_stderr.txt").read_text()[-3000:]
            raise TimeoutError(f"killed after {time.perf_counter() - start:.0f} s; peak RSS of the process tree "
                               f"{peak / 2**20:.0f} MB; last lines:\n{tail}") from None
        wall = time.perf_counter() - start
        done.set()
        sampler.join()
    if status != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{(out / 'dask_stderr.txt').read_text()[-3000:]}")
    return wall, peak / 2**20, (out / "dask_stdout.txt").read_text()


def commands(qrels: Path, run: Path) -> dict[str, list[str]]:
    return {
        "dask_p2p": [sys.executable, str(Path(__file__).resolve()), "--child", "dask_p2p", str(qrels), str(run)],
        "dask_tasks": [sys.executable, str(Path(__file__).resolve()), "--child", "dask_tasks", str(qrels), str(run)],
        "ours": [sys.executable, str(HERE / "pipelines.py"), "ours", str(qrels), str(run)],
        "pytrec_eval": [sys.executable, str(HERE / "pipelines.py"), "pytrec_eval", str(qrels), str(run)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--large", action="store_true",
                        help="the 70M-line run (generates 2.6 GB if missing), task-based shuffle, once")
    parser.add_argument("--worker-memory", default="6GiB", help="each worker's memory limit with --large")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds the --large Dask run may take")
    parser.add_argument("--child", nargs=3, metavar=("TOOL", "QRELS", "RUN"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.child[0] == "stream":
            child_stream(*args.child[1:])
        else:
            child_dask(*args.child)
        return
    if args.large:
        large(args.worker_memory, args.timeout)
        return
    from generate import generate

    paths = generate()
    qrels, run = paths["msmarco_qrels"], paths["msmarco_run_space"]
    tools = commands(qrels, run)
    samples: dict[str, list[tuple[float, float]]] = {tool: [] for tool in tools}
    extra: dict[str, list[tuple[float, float]]] = {}
    loads = [os.getloadavg()[0]]
    for repeat in range(args.repeats):
        order = list(tools) if repeat % 2 == 0 else list(reversed(tools))
        outputs = {}
        for tool in order:
            wall, peak, stdout = measure(tools[tool])
            samples[tool].append((wall, peak))
            outputs[tool] = json.loads(stdout)
            loads.append(os.getloadavg()[0])
        for method in ("dask_p2p", "dask_tasks"):
            dask_means = outputs[method]["means"]
            extra.setdefault(method, []).append((outputs[method]["startup"], outputs[method]["evaluate"]))
            if dask_means != outputs["ours"]:
                differing = [key for key in dask_means if dask_means[key] != outputs["ours"].get(key)]
                raise AssertionError(f"{method}: means differ from the single-machine path: {differing}")
            worst = max(abs(dask_means[key] - outputs["pytrec_eval"][key]) for key in outputs["pytrec_eval"])
            assert worst <= 1e-9, f"{method}: means differ from pytrec_eval by {worst}"
        print(f"repeat {repeat + 1}: " + " | ".join(f"{tool} {samples[tool][-1][0]:.1f} s {samples[tool][-1][1]:.0f} MB"
                                                   for tool in tools)
              + f" | Dask means identical to one machine; max |diff| to pytrec_eval {worst:.1e}; load "
              f"{os.getloadavg()[0]:.1f}", flush=True)
    medians = {tool: [statistics.median(column) for column in zip(*values)] for tool, values in samples.items()}
    peer = medians["pytrec_eval"]
    print()
    print("| 7M-line run | wall | wall / pytrec_eval | peak RSS (process tree) | memory / pytrec_eval |")
    print("|---|---|---|---|---|")
    for tool, (wall, peak) in medians.items():
        print(f"| {tool} | {wall:.1f} s | {wall / peer[0]:.2f} | {peak:.0f} MB | {peak / peer[1]:.2f} |")
    for method, values in extra.items():
        startup, evaluate = (statistics.median(column) for column in zip(*values))
        print(f"\n{method}: cluster start-up {startup:.1f} s, read + shuffle + evaluate {evaluate:.1f} s (medians)")
    print(f"\n{args.repeats} interleaved repeats, medians; {os.cpu_count()} CPUs; load average (1 min) during the run "
          f"{min(loads):.1f}-{max(loads):.1f}; Python {sys.version.split()[0]}")


def large(worker_memory: str, timeout: float) -> None:
    """The 70M-line run: Dask (task-based shuffle) under a memory limit per worker and a wall-clock cap, then the
    streamed single-machine path; the means compared when both finish."""
    from generate import generate_large

    paths = generate_large()
    qrels, run = paths["msmarco70_qrels"], paths["msmarco70_run"]
    me = str(Path(__file__).resolve())
    print(f"70M-line run ({run.stat().st_size / 1e9:.2f} GB), workers' memory limit {worker_memory}, timeout "
          f"{timeout:.0f} s; load {'/'.join(f'{x:.1f}' for x in os.getloadavg())} before", flush=True)
    dask_means = None
    try:
        wall, peak, stdout = measure([sys.executable, me, "--child", "dask_tasks", str(qrels), str(run)], timeout,
                                     env={"BENCH_WORKER_MEMORY": worker_memory})
        result = json.loads(stdout)
        dask_means = result["means"]
        print(f"| Dask, task-based shuffle | {wall:.1f} s (start-up {result['startup']:.1f} s) | {peak:.0f} MB |",
              flush=True)
    except (TimeoutError, RuntimeError) as error:
        print(f"Dask did not finish: {error}", flush=True)
    progress_log = HERE / "out" / "dask70_progress.txt"
    progress_log.write_bytes((HERE / "out" / "dask_stderr.txt").read_bytes())
    print(f"(the Dask child's progress lines: {progress_log.relative_to(ROOT)})", flush=True)
    print(f"load {'/'.join(f'{x:.1f}' for x in os.getloadavg())} after Dask", flush=True)
    wall, peak, stdout = measure([sys.executable, me, "--child", "stream", str(qrels), str(run)])
    stream_means = json.loads(stdout)
    print(f"| one machine, streamed (metrics.stream.stream_run) | {wall:.1f} s | {peak:.0f} MB |", flush=True)
    if dask_means is not None:
        differing = [key for key in stream_means if dask_means.get(key) != stream_means[key]]
        assert not differing, f"Dask means differ from the streamed path: {differing}"
        print("Dask means identical to the streamed single-machine path (== on every float)")
    print(f"load {'/'.join(f'{x:.1f}' for x in os.getloadavg())} after", flush=True)


if __name__ == "__main__":
    main()
