"""Real collections that ship with the package, beside the synthetic samples: today TREC 2020 Deep Learning's
passage judgments and five real first-stage runs (``samples/dl20/``, gzip, with their sources in SOURCES.md).

``DL20.qrels()`` and ``DL20.run("BM25")`` are the data model's tables, read through the one reader stack;
``DL20.conventions`` is TREC DL's relevance level (``-l 2``: binary measures count grades 2 and 3).

>>> DL20.run_names[0], len(DL20.qrels().qids)
('BM25', 54)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .conventions import Conventions
from .io.read import read_qrels, read_run
from .io.trec import QrelsTable, RunTable
from .model import InputError
from .samples import SAMPLES_FOLDER


@dataclass(frozen=True, slots=True)
class RealCollection:
    """A real test collection: judgments, named runs (files in ``folder``), its attribution and conventions."""

    slug: str
    title: str
    description: str
    attribution: str
    convention_note: str
    conventions: Conventions
    qrels_file: str
    run_files: tuple[tuple[str, str], ...]  # (run name, file name), in the order they are offered

    @property
    def folder(self) -> Path:
        return SAMPLES_FOLDER / self.slug

    @property
    def run_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.run_files)

    def qrels(self) -> QrelsTable:
        return _read_qrels(self.folder / self.qrels_file)

    def run(self, name: str) -> RunTable:
        files = dict(self.run_files)
        if name not in files:
            raise InputError(f"{self.title} has no run {name!r}; its runs: {', '.join(files)}")
        return _read_run(self.folder / files[name])

    def path(self, name: str | None = None) -> Path:
        """The gzip file of run ``name``, or of the qrels when ``name`` is None (for the command lines)."""
        if name is None:
            return self.folder / self.qrels_file
        return self.folder / dict(self.run_files)[name]


@cache
def _read_qrels(path: Path) -> QrelsTable:
    return read_qrels(path, name=path.name.removesuffix(".gz"))


@cache
def _read_run(path: Path) -> RunTable:
    return read_run(path, name=path.name.removesuffix(".gz"))


DL20 = RealCollection(
    slug="dl20",
    title="TREC DL 2020 passage (real judgments, five real runs)",
    description="The 54 judged queries of the TREC 2020 Deep Learning passage task (grades 0-3) and five real "
                "first-stage runs, top 100 each: BM25, BM25 + RM3, TAS-B, OpenAI ada-002, SPLADE++.",
    attribution="Judgments: NIST's TREC 2020 Deep Learning passage qrels, as redistributed by Anserini "
                "(castorini/anserini-tools). Runs: castorini/rank_llm's retrieve_results (Apache-2.0).",
    convention_note="TREC DL's convention: graded measures (nDCG) use the grades 0-3 as they are, while binary "
                    "measures (MAP, recall, RR) count only grades 2 and 3 as relevant, i.e. relevance threshold 2 "
                    "(trec_eval -l 2).",
    conventions=Conventions(relevance_level=2),
    qrels_file="dl20-passage.qrels.gz",
    run_files=(
        ("BM25", "dl20.BM25.run.gz"),
        ("BM25 + RM3", "dl20.BM25_RM3.run.gz"),
        ("TAS-B", "dl20.D_BERT_KD_TASB.run.gz"),
        ("OpenAI ada-002", "dl20.OPEN_AI_ADA2.run.gz"),
        ("SPLADE++", "dl20.SPLADE_P_P_ENSEMBLE_DISTIL.run.gz"),
    ),
)

#: The real collections, by slug.
REAL_COLLECTIONS = {DL20.slug: DL20}

__all__ = ["DL20", "REAL_COLLECTIONS", "RealCollection"]
