"""Regenerate this folder: random collections with ties, and what each trec_eval build prints for them and for the
conformance inputs of ``tests/data/trec_eval``, under every flag set of ``FLAG_SETS``.

    .venv/bin/python tests/data/trec_eval_builds/generate.py /work/tools/trec_eval-9.0.8 /work/tools/trec_eval-10.0

Each build's ``-v`` names it (9.0.8's tag prints 9.0.7, a known quirk of that tag; 10.0 prints 10.0-rc3). The
outputs go to ``<build>.jsonl.gz``, one JSON object a line: ``case``, ``flags``, ``qrels`` and ``run`` (paths under
tests/data), ``status`` (the build's exit status) and ``stdout`` (its output, byte for byte). Tests replay them
(tests/engine/test_trec_eval_builds.py); they never run trec_eval, which CI cannot build.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE.parent

#: (qrels, run) under tests/data, and the builds that read them (9.0.8 reads no '#' comment lines).
CONFORMANCE = (
    ("trec_eval/qrels.test", "trec_eval/results.test", ("9.0.8", "10.0")),
    ("trec_eval/qrels.test", "trec_eval/results.trunc", ("9.0.8", "10.0")),
    ("trec_eval/qrels.rel_level", "trec_eval/results.test", ("9.0.8", "10.0")),
    ("trec_eval/qrels.test.with-comments", "trec_eval/results.test", ("10.0",)),
    ("trec_eval/qrels.comment.test", "trec_eval/results.comment.test", ("10.0",)),
)
SEEDS = (1, 2, 3)

ALL = ["-m", "all_trec"]
#: The flag sets every input is evaluated with: (name, flags, builds).
FLAG_SETS = (
    ("official", [], ("9.0.8", "10.0")),
    ("all", ALL, ("9.0.8", "10.0")),
    ("q", ["-q", *ALL], ("9.0.8", "10.0")),
    ("qc", ["-q", "-c", *ALL], ("9.0.8", "10.0")),
    ("qJ", ["-q", "-J", *ALL], ("9.0.8", "10.0")),
    ("qcJ", ["-q", "-c", "-J", *ALL], ("9.0.8", "10.0")),
    ("qM", ["-q", "-M", "10", *ALL], ("9.0.8", "10.0")),
    ("ql", ["-q", "-l", "2", *ALL], ("9.0.8", "10.0")),
    ("qclM", ["-q", "-c", "-l", "2", "-M", "5", *ALL], ("9.0.8", "10.0")),
    ("params", ["-q", "-c", "-m", "relstring.3", "-m", "utility.1,-1,-2,0", "-m", "iprec_at_recall.0.25,0.4,0.75",
                "-m", "11pt_avg.0.2,0.4", "-m", "P.3,7", "-m", "ndcg.1=3,2=9", "-m", "Rprec_mult.0.5,1.5"],
     ("9.0.8", "10.0")),
    ("params10", ["-q", "-c", "-m", "rbp_resid.p=0.5", "-m", "rbp.p=0.8", "-m", "unj.3", "-m", "relstring"],
     ("10.0",)),
)


def random_collection(seed: int) -> tuple[str, str]:
    """Qrels and a run (TREC text) with what makes builds differ: doubles that tie as C floats, exact ties broken
    by doc id, graded and negative judgments, unjudged and pooled documents, queries with no relevant document,
    judged queries the run lacks, run queries without judgments, and a query whose retrieved documents are all
    unjudged (an empty ranking under -J)."""
    rng = np.random.default_rng(seed)
    qids = [f"q{i:02d}" for i in range(1, 13)] + ["7", "10"]  # byte order puts "10" before "7"
    qrels_lines, run_lines = [], []
    for position, qid in enumerate(qids):
        judged = [f"d{j}" for j in rng.choice(400, size=int(rng.integers(4, 30)), replace=False)]
        grades = rng.choice([-1, 0, 0, 1, 1, 2, 3, 4], size=len(judged))
        if position == 3:
            grades = np.zeros(len(judged), dtype=np.int64)  # judged, none relevant
        if not (grades >= 0).any():
            grades[0] = 0  # trec_eval reads outside its arrays for a query whose judgments are all negative
        qrels_lines += [f"{qid} 0 {doc} {grade}" for doc, grade in zip(judged, grades)]
        if position in (5, 9):
            continue  # judged, absent from the run
        if position == 7:
            retrieved = [f"u{j}" for j in range(int(rng.integers(1, 6)))]  # nothing judged retrieved
        else:
            pool = judged + [f"u{j}" for j in range(60)] + ["D1", "d1", "d01", "doc-1"]
            size = int(rng.integers(1, 50))
            retrieved = [str(doc) for doc in rng.choice(pool, size=min(size, len(pool)), replace=False)]
        run_lines += [f"{qid} Q0 {doc} {rank} {score!r} run{seed}"
                      for rank, (doc, score) in enumerate(zip(retrieved, _scores(rng, len(retrieved))), start=1)]
    run_lines += [f"x{seed} Q0 d1 1 1.0 run{seed}", f"x{seed} Q0 d2 2 0.5 run{seed}"]  # no judgments
    return "".join(line + "\n" for line in qrels_lines), "".join(line + "\n" for line in run_lines)


def _scores(rng: np.random.Generator, n: int) -> list[float]:
    """Scores with exact ties, doubles 1e-9 apart (equal as C floats), negative scores and many digits."""
    kinds = rng.integers(0, 4, size=n)
    base = float(rng.choice([5.0, 12.5, 0.3]))
    scores = []
    for kind in kinds.tolist():
        if kind == 0:
            scores.append(float(rng.choice([1.0, 2.0, 0.5])))  # exact ties
        elif kind == 1:
            scores.append(base + int(rng.integers(0, 4)) * 1e-9)  # distinct doubles, one float
        elif kind == 2:
            scores.append(-float(rng.integers(1, 4)) / 3)
        else:
            scores.append(float(rng.random()))
    return scores


def write_collections() -> list[tuple[str, str, tuple[str, ...]]]:
    inputs = []
    for seed in SEEDS:
        qrels, run = random_collection(seed)
        for name, text in ((f"random-{seed}.qrels.gz", qrels), (f"random-{seed}.run.gz", run)):
            (HERE / name).write_bytes(gzip.compress(text.encode(), mtime=0))
        inputs.append((f"trec_eval_builds/random-{seed}.qrels.gz", f"trec_eval_builds/random-{seed}.run.gz",
                       ("9.0.8", "10.0")))
    return inputs


def plain(path: str, directory: Path) -> Path:
    """A path trec_eval can read: gzip inputs decompressed into ``directory``."""
    source = DATA / path
    if source.suffix != ".gz":
        return source
    target = directory / source.stem
    target.write_bytes(gzip.decompress(source.read_bytes()))
    return target


def main(binaries: list[str]) -> None:
    inputs = list(CONFORMANCE) + write_collections()
    with tempfile.TemporaryDirectory() as directory:
        for binary in binaries:
            version = subprocess.run([binary, "-v"], capture_output=True, text=True).stderr.split()[-1]
            build = {"9.0.7": "9.0.8", "10.0-rc3": "10.0"}[version]
            records = []
            for qrels, run, input_builds in inputs:
                for name, flags, flag_builds in FLAG_SETS:
                    if build not in input_builds or build not in flag_builds:
                        continue
                    done = subprocess.run([binary, *flags, str(plain(qrels, Path(directory))),
                                           str(plain(run, Path(directory)))], capture_output=True)
                    records.append({"case": f"{Path(run).name}:{name}", "flags": flags, "qrels": qrels, "run": run,
                                    "status": done.returncode, "stdout": done.stdout.decode("ascii")})
            text = "".join(json.dumps(record) + "\n" for record in records)
            (HERE / f"{build}.jsonl.gz").write_bytes(gzip.compress(text.encode(), 9, mtime=0))
            print(f"{build}: {len(records)} cases, {sum(r['status'] != 0 for r in records)} with a non-zero status")


if __name__ == "__main__":
    main(sys.argv[1:])
