"""Seeded synthetic TREC files for the benchmarks, written to bench/data/ (git-ignored).

* ``msmarco``: an MS MARCO-dev-scale run (6,980 queries x 1,000 documents, about 7M lines) with sparse qrels
  (about 1.1 relevant documents per query, as in MS MARCO). Scores carry 3 decimals, so about 1 in 6 adjacent
  pairs is tied and trec_eval's doc-id tie-break matters. Written twice: single-space and tab separated.
* ``trecdl``: a TREC-DL-like graded run: 43 queries, grades 0-3, 100-200 judged documents per query.
* ``lopsided``: 2,000 one-document queries and one 1,000,000-document query (about 35 MB): a padded
  queries x longest-ranking batch would need 2,001 x 1,000,000 cells.
* ``msmarco.space.run.gz``: the MS MARCO-scale run gzipped (about 68 MB), for reading gzip input of real size.
* ``msmarco70``, only with ``--large`` (or :func:`generate_large`): ten times ``msmarco`` (69,800 queries x 1,000
  documents, about 70M lines and 2.6 GB), written to disk a few hundred queries at a time, never held in memory.
  ``msmarco70.byrank.run`` (``--large``, for the grouping cost) is ``msmarco``'s 7M lines ordered by rank, so that
  every query comes back 1,000 times.

Usage: ``python bench/generate.py [--force] [--large]``.
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"
SEED = 20240601

MSMARCO_QUERIES = 6980
MSMARCO_DEPTH = 1000
CORPUS = 8_841_823


def _run_lines(qids, docs_per_query, scores_per_query, tag: str) -> bytes:
    parts: list[str] = []
    for qid, docs, scores in zip(qids, docs_per_query, scores_per_query):
        parts.append("\n".join(
            f"{qid} Q0 {doc} {rank} {score:.3f} {tag}" for rank, (doc, score) in enumerate(zip(docs, scores), 1)
        ))
    return ("\n".join(parts) + "\n").encode()


def msmarco(rng: np.random.Generator) -> tuple[bytes, bytes]:
    """(qrels, run) bytes, space separated."""
    qids = rng.choice(np.arange(1_000_000, 1_200_000), size=MSMARCO_QUERIES, replace=False)
    return _msmarco_queries(rng, qids)


def _msmarco_queries(rng: np.random.Generator, qids) -> tuple[bytes, bytes]:
    qrels_lines: list[str] = []
    docs_per_query = []
    scores_per_query = []
    for qid in qids:
        docs = rng.choice(CORPUS, size=MSMARCO_DEPTH + 4, replace=False)
        n_relevant = 1 + rng.binomial(3, 0.035)
        relevant, retrieved = docs[:n_relevant], docs[n_relevant:n_relevant + MSMARCO_DEPTH].copy()
        for doc in relevant:
            qrels_lines.append(f"{qid} 0 {doc} 1")
            if rng.random() < 0.8:  # the relevant passage is retrieved, usually near the top
                retrieved[min(int(rng.exponential(15)), MSMARCO_DEPTH - 1)] = doc
        # Scores on a 0.001 grid, descending: ties between neighbours are common.
        scores = np.sort(np.round(rng.normal(20.0, 2.0, size=MSMARCO_DEPTH), 3))[::-1]
        docs_per_query.append(retrieved)
        scores_per_query.append(scores)
    run = _run_lines(qids, docs_per_query, scores_per_query, "bench")
    return ("\n".join(qrels_lines) + "\n").encode(), run


def trecdl(rng: np.random.Generator) -> tuple[bytes, bytes]:
    """A graded TREC-DL-like pair: 43 queries, grades 0-3, 100-200 judgments per query."""
    qids = rng.choice(np.arange(19_000, 1_200_000), size=43, replace=False)
    qrels_lines: list[str] = []
    docs_per_query, scores_per_query = [], []
    for qid in qids:
        docs = rng.choice(CORPUS, size=1200, replace=False)
        n_judged = int(rng.integers(100, 201))
        grades = rng.choice(4, size=n_judged, p=[0.55, 0.2, 0.15, 0.1])
        qrels_lines.extend(f"{qid} 0 {doc} {grade}" for doc, grade in zip(docs[:n_judged], grades))
        # Retrieve most judged documents (the pool came from runs like this one) plus unjudged ones.
        retrieved = np.concatenate([docs[: int(n_judged * 0.7)], docs[n_judged: n_judged + 1000]])[:1000]
        rng.shuffle(retrieved)
        scores = np.sort(np.round(rng.normal(10.0, 3.0, size=1000), 2))[::-1]
        docs_per_query.append(retrieved)
        scores_per_query.append(scores)
    return ("\n".join(qrels_lines) + "\n").encode(), _run_lines(qids, docs_per_query, scores_per_query, "dl")


LOPSIDED_SHORT_QUERIES = 2000
LOPSIDED_LONG_DEPTH = 1_000_000


def lopsided(rng: np.random.Generator) -> tuple[bytes, bytes]:
    """2,000 one-document queries (one judgment each) and one query of 1,000,000 documents (1,000 judgments)."""
    short = [f"{qid} Q0 {doc} 1 {score:.3f} lop" for qid, doc, score in
             zip(range(1, LOPSIDED_SHORT_QUERIES + 1), rng.choice(CORPUS, size=LOPSIDED_SHORT_QUERIES),
                 rng.normal(20.0, 2.0, size=LOPSIDED_SHORT_QUERIES))]
    qrels = [f"{qid} 0 {line.split()[2] if rng.random() < 0.5 else rng.integers(CORPUS)} {rng.integers(0, 3)}"
             for qid, line in enumerate(short, 1)]
    docs = rng.choice(CORPUS, size=LOPSIDED_LONG_DEPTH, replace=False)
    scores = np.sort(np.round(rng.normal(20.0, 2.0, size=LOPSIDED_LONG_DEPTH), 3))[::-1]
    long_run = _run_lines([0], [docs], [scores], "lop")
    judged = np.concatenate([rng.choice(docs, size=800, replace=False), rng.choice(CORPUS, size=200)])
    qrels += [f"0 0 {doc} {grade}" for doc, grade in zip(np.unique(judged), rng.integers(0, 4, size=1000))]
    return ("\n".join(qrels) + "\n").encode(), ("\n".join(short) + "\n").encode() + long_run


LARGE_QUERIES = 10 * MSMARCO_QUERIES
_LARGE_BLOCK = 500  # queries generated and written at a time (about 18 MB of text)


def generate_large(force: bool = False) -> dict[str, Path]:
    """Write ``msmarco70`` (qrels and a 70M-line run) block by block, and the 7M-line run ordered by rank."""
    DATA.mkdir(parents=True, exist_ok=True)
    paths = {"msmarco70_qrels": DATA / "msmarco70.qrels", "msmarco70_run": DATA / "msmarco70.space.run",
             "msmarco_run_byrank": DATA / "msmarco.byrank.run"}
    if force or not (paths["msmarco70_qrels"].exists() and paths["msmarco70_run"].exists()):
        rng = np.random.default_rng(SEED + 70)
        qids = rng.choice(np.arange(1_000_000, 2_000_000), size=LARGE_QUERIES, replace=False)
        partial = {name: path.with_suffix(path.suffix + ".partial") for name, path in paths.items()}
        with open(partial["msmarco70_qrels"], "wb") as qrels_file, open(partial["msmarco70_run"], "wb") as run_file:
            for start in range(0, LARGE_QUERIES, _LARGE_BLOCK):
                qrels, run = _msmarco_queries(rng, qids[start:start + _LARGE_BLOCK])
                qrels_file.write(qrels)
                run_file.write(run)
        partial["msmarco70_qrels"].replace(paths["msmarco70_qrels"])
        partial["msmarco70_run"].replace(paths["msmarco70_run"])
    if force or not paths["msmarco_run_byrank"].exists():
        # Stable by rank: line i of every query, then line i + 1; ids within a rank in file order.
        run = generate()["msmarco_run_space"].read_bytes().splitlines(keepends=True)
        ranks = np.tile(np.arange(MSMARCO_DEPTH), len(run) // MSMARCO_DEPTH)
        with open(paths["msmarco_run_byrank"], "wb") as file:
            file.writelines(run[i] for i in np.argsort(ranks, kind="stable").tolist())
    return paths


def generate(force: bool = False) -> dict[str, Path]:
    """Write every data file that is missing (all of them with ``force``); return name -> path."""
    DATA.mkdir(parents=True, exist_ok=True)
    paths = {
        "msmarco_qrels": DATA / "msmarco.qrels",
        "msmarco_run_space": DATA / "msmarco.space.run",
        "msmarco_run_tab": DATA / "msmarco.tab.run",
        "trecdl_qrels": DATA / "trecdl.qrels",
        "trecdl_run": DATA / "trecdl.run",
        "trecdl_run_gz": DATA / "trecdl.run.gz",
    }
    extra = {"lopsided_qrels": DATA / "lopsided.qrels", "lopsided_run": DATA / "lopsided.run",
             "msmarco_run_gz": DATA / "msmarco.space.run.gz"}
    if force or not (extra["lopsided_qrels"].exists() and extra["lopsided_run"].exists()):
        qrels, run = lopsided(np.random.default_rng(SEED + 1))
        extra["lopsided_qrels"].write_bytes(qrels)
        extra["lopsided_run"].write_bytes(run)
        del run
    if force or not all(path.exists() for path in paths.values()):
        rng = np.random.default_rng(SEED)
        qrels, run = msmarco(rng)
        paths["msmarco_qrels"].write_bytes(qrels)
        paths["msmarco_run_space"].write_bytes(run)
        paths["msmarco_run_tab"].write_bytes(run.replace(b" ", b"\t"))
        del run
        qrels, run = trecdl(rng)
        paths["trecdl_qrels"].write_bytes(qrels)
        paths["trecdl_run"].write_bytes(run)
        paths["trecdl_run_gz"].write_bytes(gzip.compress(run, mtime=0))
    if force or not extra["msmarco_run_gz"].exists():
        with open(paths["msmarco_run_space"], "rb") as plain, gzip.open(extra["msmarco_run_gz"], "wb") as packed:
            while block := plain.read(1 << 24):
                packed.write(block)
    return paths | extra


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="regenerate even if the files exist")
    parser.add_argument("--large", action="store_true", help="also the 70M-line run (2.6 GB) and the by-rank run")
    args = parser.parse_args()
    for name, path in (generate(args.force) | (generate_large(args.force) if args.large else {})).items():
        print(f"{name:20s} {path} ({path.stat().st_size / 1e6:.1f} MB)")
