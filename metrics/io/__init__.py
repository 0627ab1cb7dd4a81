"""Reading qrels and runs: :func:`read_qrels` and :func:`read_run` (:mod:`metrics.io.read`) tell the formats apart
by their bytes and read TREC text (:mod:`metrics.io.trec`), JSON (:mod:`metrics.io.json`), and DataFrames, Arrow
tables and Parquet files (:mod:`metrics.io.frames`), gzip recognised and bounded in one place
(:mod:`metrics.io.compressed`), each into the columns the bulk path evaluates."""

from .read import read_qrels, read_run

__all__ = ["read_qrels", "read_run"]
