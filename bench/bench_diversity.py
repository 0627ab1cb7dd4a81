"""The diversity measures' cost in the engine: a 1M-line run (1,000 queries x 1,000 documents) with TREC Web
track-like subtopic qrels (100 judged documents per query, 4-6 subtopics, 1-2 subtopics judged per document, 30%
of the judgments relevant), evaluated on one batch with the benchmark's measures (bench/pipelines.py) and with the
diversity measures added: ndeval's whole output (alpha-nDCG, alpha-DCG, ERR-IA, nERR-IA, P-IA, strec at 5, 10, 20;
NRBP, nNRBP, MAP-IA). Both are timed in the same process, alternating, median CPU time of several rounds; the batch
(subtopic judgments included) is built once, outside the timing, as every front door builds it before the kernels.

The same collection is then evaluated end to end as ``python -m metrics`` does (files read, rankings ordered,
batch built, kernels, output): the benchmark's measures on ordinary qrels (the columnar readers and the bulk path),
against the same measures with the diversity measures on the subtopic qrels (read whole into dicts: the dict path).

Usage: ``python bench/bench_diversity.py [--rounds N]``. Prints the ratios (target: within 1.5x, issue 26).
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from pipelines import MEASURES  # noqa: E402

from metrics.cli import main as main_cli  # noqa: E402
from metrics.engine import evaluate_batch  # noqa: E402
from metrics.model import RankingBatch  # noqa: E402

QUERIES, DEPTH, JUDGED = 1000, 1000, 100
DIVERSITY = ["alpha-nDCG.5,10,20", "alpha-DCG.5,10,20", "ERR-IA.5,10,20", "nERR-IA.5,10,20", "NRBP", "nNRBP",
             "MAP-IA", "P-IA.5,10,20", "strec.5,10,20"]


def web_track_collection(seed: int = 20261201):
    """(rankings, judgments, subtopic judgments): each query's judged documents drawn from its top 1,050, so most
    are retrieved."""
    rng = np.random.default_rng(seed)
    rankings, judgments, subtopics = [], [], []
    for _ in range(QUERIES):
        docs = [f"d{int(x)}" for x in rng.choice(10_000_000, size=DEPTH + 50, replace=False)]
        count = int(rng.integers(4, 7))
        judged = {}
        for i in rng.choice(DEPTH + 50, size=JUDGED, replace=False):
            picks = rng.choice(count, size=int(rng.integers(1, 3)), replace=False)
            judged[docs[i]] = {str(s): int(rng.random() < 0.3) for s in picks}
        rankings.append(docs[:DEPTH])
        subtopics.append(judged)
        judgments.append({doc: max(grades.values()) for doc, grades in judged.items()})
    return rankings, judgments, subtopics


def web_track_batch(seed: int = 20261201) -> RankingBatch:
    """The 1M-line batch of :func:`web_track_collection`."""
    rankings, judgments, subtopics = web_track_collection(seed)
    return RankingBatch.from_rankings(rankings, judgments, subtopics=subtopics)


def write_files(folder: Path) -> tuple[Path, Path, Path]:
    """The collection as files: ordinary qrels (each document's largest grade), subtopic qrels and the run."""
    rankings, judgments, subtopics = web_track_collection()
    qrels, subtopic_qrels, run = folder / "qrels", folder / "subtopic_qrels", folder / "run"
    qrels.write_text("".join(f"q{q} 0 {doc} {grade}\n" for q, judged in enumerate(judgments)
                             for doc, grade in judged.items()))
    subtopic_qrels.write_text("".join(f"q{q} {s} {doc} {grade}\n" for q, judged in enumerate(subtopics)
                                      for doc, grades in judged.items() for s, grade in grades.items()))
    run.write_text("".join(f"q{q} Q0 {doc} {rank} {1000 - rank} bench\n" for q, ranking in enumerate(rankings)
                           for rank, doc in enumerate(ranking, 1)))
    return qrels, subtopic_qrels, run


def command_line_seconds(argv: list[str]) -> float:
    start = time.process_time()
    assert main_cli(argv, io.StringIO(), io.StringIO()) == 0
    return time.process_time() - start


def cpu_seconds(batch: RankingBatch, measures: list[str]) -> float:
    start = time.process_time()
    evaluate_batch(batch, measures)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    batch = web_track_batch()
    base, added = [], []
    for _ in range(rounds):
        base.append(cpu_seconds(batch, list(MEASURES)))
        added.append(cpu_seconds(batch, list(MEASURES) + DIVERSITY))
    lines = int(batch.lengths.sum())
    print(f"{lines:,} lines, {QUERIES:,} queries: the benchmark's measures {np.median(base):.3f} s CPU, with the "
          f"diversity measures {np.median(added):.3f} s CPU: {np.median(added) / np.median(base):.2f}x "
          f"(samples {', '.join(f'{t:.3f}' for t in base)} and {', '.join(f'{t:.3f}' for t in added)})")
    with tempfile.TemporaryDirectory() as folder:
        qrels, subtopic_qrels, run = write_files(Path(folder))
        six = [arg for name in MEASURES for arg in ("-m", name)]
        diversity = [arg for name in DIVERSITY for arg in ("-m", name)]
        base, added = [], []
        for _ in range(max(1, rounds // 2)):
            base.append(command_line_seconds([*six, str(qrels), str(run)]))
            added.append(command_line_seconds([*six, *diversity, str(subtopic_qrels), str(run)]))
    print(f"python -m metrics on the files: the benchmark's measures {np.median(base):.2f} s CPU, with the diversity "
          f"measures {np.median(added):.2f} s CPU: {np.median(added) / np.median(base):.2f}x "
          f"(samples {', '.join(f'{t:.2f}' for t in base)} and {', '.join(f'{t:.2f}' for t in added)})")


if __name__ == "__main__":
    main()
