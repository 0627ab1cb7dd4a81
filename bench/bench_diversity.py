"""The cost of the diversity and C/W/L measures end to end (issue 26: within 1.5x of the six-measure run).

A TREC Web track-like collection at the MS MARCO benchmark's shape (``--queries`` x 1,000 documents: 1,000 queries
make 1M lines, 6,980 the 7M-line run of ``bench_cli.py``): each query judges 100 of its top 1,050 documents for 1-2
of its 4-6 subtopics, 30% of the judgments relevant. Three files, written once to bench/data/diversity-N/
(git-ignored): the run, the subtopic qrels (``qid subtopic docno grade``) and the ordinary qrels generated alongside
them (each document's largest grade).

Three command lines, each ``python -m metrics`` in a fresh process, alternating (the order rotates every repeat):

* six: the benchmark's measure set (bench/pipelines.py) on the ordinary qrels, the "six-measure run";
* + diversity: the same measures and ndeval's whole output (alpha-nDCG, alpha-DCG, ERR-IA, nERR-IA, P-IA, strec at
  5, 10, 20; NRBP, nNRBP, MAP-IA) on the subtopic qrels;
* + C/W/L: the same measures and BPM@10, INST, INSQ, SDCG@10, NERR8@10, NERR9@10, NERR10, NERR11 with all ten of
  their quantities (EU, ETU, EC, ETC, ED and the residuals), on the ordinary qrels.

CPU time (user + sys) and peak RSS come from each child's own ``wait4`` usage, so other work on the machine moves
the wall time, not them; each figure is the median of the repeats, and the ratios are against the six-measure run of
the same repeats. Before timing, the six measures' lines of the other two outputs are checked to equal the
six-measure run's.

Usage: ``python bench/bench_diversity.py [--queries 1000] [--repeats 3] [--repo DIR]`` (``--repo``: time the
command line of another checkout on the same files, e.g. ``git worktree add --detach /tmp/before <commit>``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from pipelines import MEASURES  # noqa: E402

DEPTH, JUDGED = 1000, 100
DIVERSITY = ["alpha-nDCG.5,10,20", "alpha-DCG.5,10,20", "ERR-IA.5,10,20", "nERR-IA.5,10,20", "NRBP", "nNRBP",
             "MAP-IA", "P-IA.5,10,20", "strec.5,10,20"]
QUANTITIES = ("EU", "ETU", "EC", "ETC", "ED", "ResEU", "ResETU", "ResEC", "ResETC", "ResED")
CWL = [f"{name}(quantity={quantity}){cutoff}" for name, cutoff in
       (("BPM", "@10"), ("INST", ""), ("INSQ", ""), ("SDCG", "@10"), ("NERR8", "@10"), ("NERR9", "@10"),
        ("NERR10", ""), ("NERR11", "")) for quantity in QUANTITIES]


def write_collection(folder: Path, queries: int, seed: int = 20261201) -> tuple[Path, Path, Path]:
    """(qrels, subtopic qrels, run) of ``queries`` queries, written once into ``folder``."""
    qrels, subtopic_qrels, run = folder / "qrels", folder / "subtopic_qrels", folder / "run"
    if run.exists() and qrels.exists() and subtopic_qrels.exists():
        return qrels, subtopic_qrels, run
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    partial = [path.with_suffix(".partial") for path in (qrels, subtopic_qrels, run)]
    with open(partial[0], "w") as q_file, open(partial[1], "w") as s_file, open(partial[2], "w") as r_file:
        for q in range(queries):
            docs = [f"d{int(x)}" for x in rng.choice(10_000_000, size=DEPTH + 50, replace=False)]
            count = int(rng.integers(4, 7))
            qrels_lines, subtopic_lines = [], []
            for i in rng.choice(DEPTH + 50, size=JUDGED, replace=False):
                picks = rng.choice(count, size=int(rng.integers(1, 3)), replace=False)
                grades = (rng.random(picks.shape[0]) < 0.3).astype(int)
                subtopic_lines.extend(f"q{q} {s} {docs[i]} {g}\n" for s, g in zip(picks.tolist(), grades.tolist()))
                qrels_lines.append(f"q{q} 0 {docs[i]} {int(grades.max())}\n")
            q_file.write("".join(qrels_lines))
            s_file.write("".join(subtopic_lines))
            r_file.write("".join(f"q{q} Q0 {doc} {rank} {1000 - rank} bench\n"
                                 for rank, doc in enumerate(docs[:DEPTH], 1)))
    for written, path in zip(partial, (qrels, subtopic_qrels, run)):  # whole files only: an interrupted run rewrites
        written.replace(path)
    return qrels, subtopic_qrels, run


def command(measures: list[str], qrels: Path, run: Path) -> list[str]:
    return [sys.executable, "-m", "metrics", *[arg for name in measures for arg in ("-m", name)], str(qrels), str(run)]


def measure(argv: list[str], out_dir: Path, repo: Path) -> tuple[float, float, float, float, str]:
    """(wall s, user CPU s, user + sys CPU s, peak RSS MB, standard output) of one child, from its own wait4 usage."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "stdout.txt", "wb") as stdout, open(out_dir / "stderr.txt", "wb") as stderr:
        start = time.perf_counter()
        child = subprocess.Popen(argv, cwd=repo, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{(out_dir / 'stderr.txt').read_text()}")
    return (wall, usage.ru_utime, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
            (out_dir / "stdout.txt").read_text())


def six_lines(output: str) -> list[str]:
    """The output lines of the six-measure set (everything but the added measures)."""
    added = ("alpha", "ERR-IA", "nERR-IA", "NRBP", "nNRBP", "MAP-IA", "P-IA", "strec", "BPM", "INST", "INSQ",
             "SDCG", "NERR")
    return [line for line in output.splitlines() if not line.startswith(added)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=1000, help="1,000 documents each (6980: the 7M-line run)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--repo", type=Path, default=HERE.parent,
                        help="the code to time (default: this checkout), e.g. a worktree of an older commit")
    args = parser.parse_args()
    qrels, subtopic_qrels, run = write_collection(HERE / "data" / f"diversity-{args.queries}", args.queries)
    runs = {"six": command(list(MEASURES), qrels, run),
            "+ diversity": command(list(MEASURES) + DIVERSITY, subtopic_qrels, run),
            "+ C/W/L": command(list(MEASURES) + CWL, qrels, run)}
    load = [os.getloadavg()[0]]
    samples: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name in runs}
    outputs: dict[str, str] = {}
    names = list(runs)
    for repeat in range(args.repeats):
        for name in names[repeat % 3:] + names[:repeat % 3]:
            *figures, out = measure(runs[name], HERE / "out", args.repo)
            samples[name].append(tuple(figures))
            outputs.setdefault(name, out)
        load.append(os.getloadavg()[0])
    for name in ("+ diversity", "+ C/W/L"):
        assert six_lines(outputs[name]) == outputs["six"].splitlines(), f"{name}: the six measures print differently"
    print(f"{args.queries * DEPTH:,} run lines, {args.queries:,} queries, {args.repeats} repeats (medians), load "
          f"average {min(load):.1f}-{max(load):.1f}; the six measures print identically in all three")
    base = [float(np.median([s[i] for s in samples["six"]])) for i in range(4)]
    print(f"{'':14}{'wall':>9}{'user':>9}{'user+sys':>10}{'ratio':>8}{'peak RSS':>10}{'ratio':>8}   user+sys samples")
    for name, rows in samples.items():
        wall, user, cpu, rss = (float(np.median([s[i] for s in rows])) for i in range(4))
        print(f"{name:14}{wall:8.2f}s{user:8.2f}s{cpu:9.2f}s{cpu / base[2]:7.2f}x{rss:8.0f}MB{rss / base[3]:7.2f}x   "
              + ", ".join(f"{s[2]:.2f}" for s in rows))


if __name__ == "__main__":
    main()
