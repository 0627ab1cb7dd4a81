"""Seeded synthetic TREC files for the benchmarks, written to bench/data/ (git-ignored).

* ``msmarco``: an MS MARCO-dev-scale run (6,980 queries x 1,000 documents, about 7M lines) with sparse qrels
  (about 1.1 relevant documents per query, as in MS MARCO). Scores carry 3 decimals, so about 1 in 6 adjacent
  pairs is tied and trec_eval's doc-id tie-break matters. Written twice: single-space and tab separated.
* ``trecdl``: a TREC-DL-like graded run: 43 queries, grades 0-3, 100-200 judged documents per query.
* ``lopsided``: 2,000 one-document queries and one 1,000,000-document query (about 35 MB): a padded
  queries x longest-ranking batch would need 2,001 x 1,000,000 cells.
* ``msmarco.space.run.gz``: the MS MARCO-scale run gzipped (about 68 MB), for reading gzip input of real size.

Usage: ``python bench/generate.py [--force]``.
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
    for name, path in generate(parser.parse_args().force).items():
        print(f"{name:20s} {path} ({path.stat().st_size / 1e6:.1f} MB)")
