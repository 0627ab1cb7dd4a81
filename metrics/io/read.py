"""One reader for qrels and runs, whatever the format: :func:`read_qrels` and :func:`read_run` sniff it (Parquet by
``PAR1`` at both ends of a file, gzip by its magic bytes, JSON by a leading ``{``, else TREC text) and apply one
size cap, ``max_bytes``. The command lines read through them (TREC or Parquet, standard input for '-'), with the
qrels' grades checked against what the measures can score."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ..conventions import Conventions
from ..engine import check_grade_range, grade_limit
from ..model import InputError
from ..names import Measure
from . import trec
from .compressed import Prefixed, gunzipped_head, is_gzip
from .frames import is_parquet, qrels_from_mapping, read_parquet_qrels, read_parquet_run, run_from_mapping
from .json import is_json, read_json_qrels, read_json_run
from .trec import QrelsTable, RunTable, Source, line_number

#: The formats the readers recognise; the command lines read TREC and Parquet only, as trec_eval reads TREC.
FORMATS = ("trec", "json", "parquet")
COMMAND_LINE_FORMATS = ("trec", "parquet")

#: Bytes read from a stream to tell JSON from TREC text.
_SNIFF = 1 << 16


def read_qrels(source: Source, *, name: str | None = None, max_bytes: int | None = None,
               formats: tuple[str, ...] = FORMATS) -> QrelsTable:
    """Qrels from a path, bytes or a binary stream: TREC (``qid iter docno rel``, plain or gzip), JSON
    ``{qid: {doc: grade}}`` (plain or gzip) or a Parquet file (``qid, docno, label``), told apart by their bytes.

    ``max_bytes`` caps the (decompressed) size of text input; ``formats`` names those accepted (a JSON file given
    where only TREC is read gets the TREC reader's message saying it looks like JSON)."""
    return _read(source, name, max_bytes, formats, "qrels")


def read_run(source: Source, *, name: str | None = None, max_bytes: int | None = None,
             formats: tuple[str, ...] = FORMATS) -> RunTable:
    """A run from a path, bytes or a binary stream: TREC (``qid Q0 docno rank score tag``, plain or gzip), JSON
    ``{qid: {doc: score}}`` (plain or gzip) or a Parquet file (``qid, docno, score``); see :func:`read_qrels`."""
    return _read(source, name, max_bytes, formats, "run")


def _read(source: Source, name: str | None, max_bytes: int | None, formats: tuple[str, ...], kind: str):
    unknown = [fmt for fmt in formats if fmt not in FORMATS]
    if unknown or not formats:
        raise InputError(f"Argument `formats` has to name some of {', '.join(FORMATS)}, got {formats!r}")
    read_trec = trec.read_qrels if kind == "qrels" else trec.read_run
    is_path = isinstance(source, os.PathLike) or (isinstance(source, str) and not trec.looks_like_content(source))
    if is_path and "parquet" in formats and is_parquet(source):
        return read_parquet_qrels(source) if kind == "qrels" else read_parquet_run(source)
    if "json" not in formats:
        return read_trec(source, name=name, max_bytes=max_bytes)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        label = name or kind
    elif is_path:
        path = Path(source)
        if not path.is_file():  # a directory, a missing file, a pipe: the TREC reader names it
            return read_trec(source, name=name, max_bytes=max_bytes)
        with open(path, "rb") as file:
            head = file.read(_SNIFF)
        if not _starts_like_json(head):
            return read_trec(source, name=name, max_bytes=max_bytes)
        label = name or path.name
        size = path.stat().st_size
        if max_bytes is not None and size > max_bytes:  # refused before it is read, as the JSON reader words it
            raise InputError(f"{label}: the file is {size / 2**20:.1f} MiB, more than the {max_bytes / 2**20:g} MiB "
                             "limit")
        data = path.read_bytes()
    elif hasattr(source, "read"):
        head = source.read(_SNIFF)
        label = name or Path(str(getattr(source, "name", "") or kind)).name
        if isinstance(head, str) or not _starts_like_json(head):
            rest = Prefixed(head, source) if not isinstance(head, str) else _TextPrefixed(head, source)
            return read_trec(rest, name=label, max_bytes=max_bytes)
        max_bytes = trec.stream_cap(source, max_bytes)  # of unknown length, it has a cap even when none is given
        data = head + (source.read() if max_bytes is None else source.read(max_bytes + 1))
    else:
        return read_trec(source, name=name, max_bytes=max_bytes)  # text content, or the reader's type error
    if not is_json(data):
        return read_trec(data, name=label, max_bytes=max_bytes)
    if kind == "qrels":
        return qrels_from_mapping(read_json_qrels(data, name=label, max_bytes=max_bytes), label)
    return run_from_mapping(read_json_run(data, name=label, max_bytes=max_bytes), label)


def _starts_like_json(head: bytes) -> bool:
    if is_gzip(head):
        head = gunzipped_head(head, 64) or b""
    return is_json(head)


class _TextPrefixed:
    """A text stream whose first characters were already read."""

    def __init__(self, head: str, stream):
        self.head, self.stream = head, stream

    def read(self, size: int = -1) -> str:
        head, self.head = self.head, ""
        if size is None or size < 0:
            return head + self.stream.read()
        return head + self.stream.read(max(0, size - len(head)))


def read_run_path(run_path: str) -> RunTable:
    """The run named on the command line: a TREC or Parquet file, or standard input for '-' (as in trec_eval)."""
    if run_path == "-":
        return trec.read_run(sys.stdin.buffer, name="stdin")
    return read_run(Path(run_path), formats=COMMAND_LINE_FORMATS)


def read_qrels_path(qrels_path: str) -> QrelsTable:
    """The qrels named on the command line: a TREC (plain or gzip) or Parquet file."""
    return read_qrels(Path(qrels_path), formats=COMMAND_LINE_FORMATS)


def read_checked_qrels(qrels_path: str, measures: Sequence[Measure], conventions: Conventions):
    """The qrels file read, with every grade checked against what the measures can score."""
    # Paths, never file content: a file name with spaces is still a name.
    qrels = read_qrels_path(qrels_path)
    check_grade_limit(qrels, Path(qrels_path), measures, conventions)
    return qrels


def check_grade_limit(qrels, source: Path, measures: Sequence[Measure], conventions: Conventions) -> None:
    """Raise InputError naming the qrels line of the first grade the measures cannot score (see
    :func:`metrics.engine.grade_limit`: exponential gain overflows, gain parameters list every grade)."""
    parquet = is_parquet(source)

    def where(row: int) -> str:
        return f"{qrels.name} " + (f"row {row}" if parquet else f"line {line_number(source, row, kind='qrels')}")

    check_grade_range(qrels.grade, grade_limit(measures, conventions), where)


__all__ = ["COMMAND_LINE_FORMATS", "FORMATS", "check_grade_limit", "read_checked_qrels", "read_qrels",
           "read_qrels_path", "read_run", "read_run_path"]
