"""Qrels and runs named by a path, as the command lines read them: TREC text (plain or gzip) or Parquet (``PAR1``
at both ends), standard input for '-', and the qrels' grades checked against what the measures can score."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..conventions import Conventions
from ..engine import check_grade_range, grade_limit
from ..names import Measure
from .frames import is_parquet, read_parquet_qrels, read_parquet_run
from .trec import line_number, read_qrels, read_run


def read_run_path(run_path: str):
    """The run named on the command line: a TREC or Parquet file, or standard input for '-' (as in trec_eval)."""
    if run_path == "-":
        return read_run(sys.stdin.buffer, name="stdin")
    return _read_table(Path(run_path), read_run, "run")


def read_qrels_path(qrels_path: str):
    """The qrels named on the command line: a TREC (plain or gzip) or Parquet file."""
    return _read_table(Path(qrels_path), read_qrels, "qrels")


def read_checked_qrels(qrels_path: str, measures: Sequence[Measure], conventions: Conventions):
    """The qrels file read, with every grade checked against what the measures can score."""
    # Paths, never file content: a file name with spaces is still a name.
    qrels = _read_table(Path(qrels_path), read_qrels, "qrels")
    check_grade_limit(qrels, Path(qrels_path), measures, conventions)
    return qrels


def _read_table(path: Path, read_trec, kind: str):
    """A TREC file with ``read_trec``, or a Parquet file (``PAR1`` at both ends) through :mod:`metrics.io.frames`."""
    if not is_parquet(path):
        return read_trec(path)
    return read_parquet_qrels(path) if kind == "qrels" else read_parquet_run(path)


def check_grade_limit(qrels, source: Path, measures: Sequence[Measure], conventions: Conventions) -> None:
    """Raise InputError naming the qrels line of the first grade the measures cannot score (see
    :func:`metrics.engine.grade_limit`: exponential gain overflows, gain parameters list every grade)."""
    parquet = is_parquet(source)

    def where(row: int) -> str:
        return f"{qrels.name} " + (f"row {row}" if parquet else f"line {line_number(source, row, kind='qrels')}")

    check_grade_range(qrels.grade, grade_limit(measures, conventions), where)


__all__ = ["check_grade_limit", "read_checked_qrels", "read_qrels_path", "read_run_path"]
