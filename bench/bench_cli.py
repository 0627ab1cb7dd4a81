"""End to end, ours against pytrec_eval: parse qrels and run, evaluate, and average, each in a fresh process.

For each data set the two tools run alternately (which one goes first alternates too), ``--repeats`` times
each; we report the median wall time and the median peak RSS of each, and the ratios ours / pytrec_eval.
Ours is the command line (``python -m metrics``); pytrec_eval is ``bench/pipelines.py pytrec_eval``: its own
``parse_qrel``/``parse_run``, ``RelevanceEvaluator(...).evaluate`` and ``compute_aggregated_measure``.

Before timing, the ``all`` values are checked: ``metrics.bulk.evaluate_files`` (full precision, in a child
process) must equal pytrec_eval's means to 1e-9, and the command line's printed lines must equal pytrec_eval's means
printed as trec_eval prints them.

Beside them, in the same interleaved run, the parse floor (``bench/floor.py``): pyarrow's multi-threaded CSV reader
on the same two files with the engine's reading options, importing nothing else; every tool's wall time is also
reported as a multiple of it. ``--trec-eval BINARY`` adds a trec_eval binary (its output checked equal to ours).
The package's bytecode is compiled first, as an installed package has it: with ``PYTHONDONTWRITEBYTECODE`` set and
no ``__pycache__``, every start would compile the engine's sources again (about 0.15 s).

``msmarco_gz`` is the MS MARCO-scale run gzipped (pytrec_eval reads it through ``gzip.open``).
``lopsided`` (2,000 one-document queries and one 1,000,000-document query) is there for peak memory: a batch
padded to the longest ranking would need 2,001 x 1,000,000 cells (15 GB).

``many4`` is four MS MARCO-scale runs against one qrels (the space and the tab file, twice each): one command line
call with the four runs (``python -m metrics QRELS RUN RUN RUN RUN``: qrels read once, runs evaluated two at a
time on the two cores), against four calls of the command line, one per run, and against pytrec_eval run four
times. The one call's output is checked byte for byte against the four calls' outputs put together. Each figure
is printed with the load average (1 minute) before and after it: on a shared machine the parallel call gains only
what the other processes leave of the second core.

Usage: ``python bench/bench_cli.py [--repeats 3] [--sets msmarco_space,msmarco_tab,trecdl,lopsided,many4]``.
"""

from __future__ import annotations

import argparse
import compileall
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
sys.path.insert(0, str(ROOT))

from generate import generate  # noqa: E402
from pipelines import MEASURES  # noqa: E402

COUNTS = {"num_q", "num_ret", "num_rel", "num_rel_ret"}


def data_sets() -> dict[str, tuple[Path, Path]]:
    paths = generate()
    return {
        "msmarco_space": (paths["msmarco_qrels"], paths["msmarco_run_space"]),
        "msmarco_tab": (paths["msmarco_qrels"], paths["msmarco_run_tab"]),
        "trecdl": (paths["trecdl_qrels"], paths["trecdl_run"]),
        "lopsided": (paths["lopsided_qrels"], paths["lopsided_run"]),
        "msmarco_gz": (paths["msmarco_qrels"], paths["msmarco_run_gz"]),
    }


def cli_command(qrels: Path, run: Path) -> list[str]:
    measures = [arg for name in MEASURES for arg in ("-m", name)]
    return [sys.executable, "-m", "metrics", *measures, str(qrels), str(run)]


def pytrec_eval_command(qrels: Path, run: Path) -> list[str]:
    return [sys.executable, str(HERE / "pipelines.py"), "pytrec_eval", str(qrels), str(run)]


def floor_command(qrels: Path, run: Path) -> list[str]:
    """pyarrow's CSV reader on the two files, nothing else (``bench/floor.py``)."""
    return [sys.executable, str(HERE / "floor.py"), str(qrels), str(run)]


def trec_eval_command(binary: str, qrels: Path, run: Path) -> list[str]:
    measures = [arg for name in MEASURES for arg in ("-m", name)]
    return [binary, *measures, str(qrels), str(run)]


def measure_process(command: list[str]) -> tuple[float, float, float, str]:
    """(wall seconds, user CPU seconds, peak RSS in MB, stdout) of one fresh process, from its own wait4 usage.

    User time, not user + system: on small virtual machines the system time is mostly the kernel zeroing fresh
    pages, and it swings by a factor of five from run to run with the host's memory state.
    """
    out_path = ROOT / "bench" / "out"
    out_path.mkdir(exist_ok=True)
    stdout_file = out_path / "stdout.txt"
    with open(stdout_file, "wb") as stdout, open(out_path / "stderr.txt", "wb") as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=ROOT, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{(out_path / 'stderr.txt').read_text()}")
    return wall, usage.ru_utime, usage.ru_maxrss / 1024, stdout_file.read_text()


def printed(key: str, value: float) -> str:
    return str(int(value)) if key in COUNTS else f"{value:6.4f}"


def check_agreement(name: str, qrels: Path, run: Path) -> None:
    """Our full-precision means equal pytrec_eval's to 1e-9, and the CLI prints them as trec_eval would."""
    # In child processes: a forked child's peak RSS starts at its parent's, so the parent stays small.
    reference = json.loads(measure_process(pytrec_eval_command(qrels, run))[3])
    ours = json.loads(measure_process([sys.executable, str(HERE / "pipelines.py"), "ours", str(qrels), str(run)])[3])
    assert set(ours) == set(reference), (set(ours) ^ set(reference))
    worst = max(abs(ours[key] - reference[key]) for key in reference)
    assert worst <= 1e-9, f"{name}: means differ from pytrec_eval by {worst}"
    lines = measure_process(cli_command(qrels, run))[3].splitlines()
    cli = {line.split("\t")[0].strip(): line.split("\t")[2] for line in lines if line.split("\t")[1] == "all"}
    for key, value in reference.items():
        assert cli[key] == printed(key, value), (
            f"{name} {key}: CLI prints {cli[key]}, pytrec_eval {printed(key, value)}")
    print(f"{name}: {len(reference)} means agree with pytrec_eval (max |diff| {worst:.1e}; printed forms equal)")


def bench_many(repeats: int) -> None:
    """Four runs in one call, against four calls and against pytrec_eval four times (see the module docstring)."""
    sets = data_sets()
    qrels = sets["msmarco_space"][0]
    runs = [sets["msmarco_space"][1], sets["msmarco_tab"][1]] * 2
    one_call = cli_command(qrels, runs[0])[:-1] + [str(run) for run in runs]
    separate = [cli_command(qrels, run) for run in runs]
    peer = [pytrec_eval_command(qrels, run) for run in runs]
    together = measure_process(one_call)[3]
    assert together == "".join(measure_process(command)[3] for command in separate), "blocks differ from single calls"
    print(f"many4: the one call prints the four single calls' output byte for byte "
          f"({len(together.splitlines())} lines)")
    samples: dict[str, list[tuple[float, float, float]]] = {"one call": [], "4 calls": [], "pytrec_eval x4": []}
    loads: list[float] = []

    def in_sequence(commands: list[list[str]]) -> tuple[float, float, float]:
        measured = [measure_process(command)[:3] for command in commands]
        return sum(m[0] for m in measured), sum(m[1] for m in measured), max(m[2] for m in measured)

    for repeat in range(repeats):
        kinds = {"one call": [one_call], "4 calls": separate, "pytrec_eval x4": peer}
        order = list(kinds) if repeat % 2 == 0 else list(kinds)[::-1]
        for kind in order:
            loads.append(os.getloadavg()[0])
            samples[kind].append(in_sequence(kinds[kind]))
        loads.append(os.getloadavg()[0])
    medians = {kind: [statistics.median(column) for column in zip(*values)] for kind, values in samples.items()}
    reference = medians["pytrec_eval x4"]
    print()
    print("| four MS MARCO-scale runs | wall | user CPU | peak RSS | wall vs pytrec_eval x4 | wall vs 4 calls |")
    print("|---|---|---|---|---|---|")
    for kind, (wall, user, rss) in medians.items():
        print(f"| {kind} | {wall:.2f} s | {user:.2f} s | {rss:.0f} MB | {wall / reference[0]:.2f} | "
              f"{wall / medians['4 calls'][0]:.2f} |")
    print(f"\n{repeats} interleaved repeats, medians; {os.cpu_count()} CPUs; load average (1 min) "
          f"{min(loads):.1f}-{max(loads):.1f} during the measurement")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sets", default="msmarco_space,msmarco_tab,trecdl,lopsided")
    parser.add_argument("--trec-eval", metavar="BINARY",
                        help="a trec_eval binary to time beside the others (its output is checked against ours)")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "metrics", quiet=1)
    sets = data_sets()
    rows = []
    for name in args.sets.split(","):
        if name == "many4":
            bench_many(args.repeats)
            continue
        qrels, run = sets[name]
        check_agreement(name, qrels, run)
        commands = {"ours": cli_command(qrels, run), "pytrec_eval": pytrec_eval_command(qrels, run),
                    "floor": floor_command(qrels, run)}
        if args.trec_eval:
            commands["trec_eval"] = trec_eval_command(args.trec_eval, qrels, run)
            assert measure_process(commands["trec_eval"])[3] == measure_process(commands["ours"])[3], (
                f"{name}: trec_eval prints other lines than ours")
        samples: dict[str, list[tuple[float, float, float]]] = {tool: [] for tool in commands}
        loads = [os.getloadavg()[0]]
        for repeat in range(args.repeats):
            order = list(commands) if repeat % 2 == 0 else list(commands)[::-1]
            for tool in order:
                samples[tool].append(measure_process(commands[tool])[:3])
            loads.append(os.getloadavg()[0])
        medians = {tool: [statistics.median(column) for column in zip(*values)] for tool, values in samples.items()}
        rows.append((name, medians, (min(loads), max(loads))))
        ours, peer, floor = medians["ours"], medians["pytrec_eval"], medians["floor"]
        print(f"{name}: ours {ours[0]:.2f} s {ours[2]:.0f} MB | pytrec_eval {peer[0]:.2f} s {peer[2]:.0f} MB "
              f"| floor {floor[0]:.2f} s {floor[2]:.0f} MB | wall x{ours[0] / peer[0]:.2f} user CPU "
              f"x{ours[1] / peer[1]:.2f} memory x{ours[2] / peer[2]:.2f} | ours x{ours[0] / floor[0]:.2f} the floor",
              flush=True)
    if not rows:
        return
    print()
    print("| data set | ours wall | pytrec_eval wall | wall ratio | user CPU ratio | ours peak RSS | "
          "pytrec_eval peak RSS | memory ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for name, medians, _ in rows:
        ours, peer = medians["ours"], medians["pytrec_eval"]
        print(f"| {name} | {ours[0]:.2f} s | {peer[0]:.2f} s | {ours[0] / peer[0]:.2f} | {ours[1] / peer[1]:.2f} | "
              f"{ours[2]:.0f} MB | {peer[2]:.0f} MB | {ours[2] / peer[2]:.2f} |")
    print()
    print("Against the parse floor (pyarrow's multi-threaded CSV reader on the same two files, bench/floor.py):")
    print()
    tools = [tool for tool in rows[0][1] if tool != "floor"]
    print("| data set | floor wall | floor user CPU | floor peak RSS | "
          + " | ".join(f"{tool} / floor (wall)" for tool in tools) + " | load |")
    print("|---|---|---|---|" + "---|" * len(tools) + "---|")
    for name, medians, (low, high) in rows:
        floor = medians["floor"]
        print(f"| {name} | {floor[0]:.2f} s | {floor[1]:.2f} s | {floor[2]:.0f} MB | "
              + " | ".join(f"{medians[tool][0] / floor[0]:.2f}" for tool in tools) + f" | {low:.1f}-{high:.1f} |")
    print(f"\n{args.repeats} interleaved repeats, medians; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}"
          + ("" if args.trec_eval else "; no trec_eval binary given (--trec-eval)"))


if __name__ == "__main__":
    main()
