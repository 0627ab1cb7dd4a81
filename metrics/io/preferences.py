"""Readers for trec_eval's other judgment formats and its z-score file, through the same loading as qrels and runs
(:func:`metrics.io.trec.load_bytes`: one size cap, one gzip helper, the BOM dropped, binary files refused).

- ``-R prefs``: ``qid jg jsg docno rel`` (judgment group, sub-group, a level: within a sub-group a higher level is
  preferred to a lower one; 0 means non-relevant).
- ``-R qrels_prefs``: ``qid jg docno rel``, a qrels file read as preferences (each judgment group one sub-group).
- ``-R qrels_jg``: ``qid jg docno rel``, a qrels file with one set of judgments per judgment group (integer grades).
- ``-Z``: ``qid measure mean stddev``, one line per query and measure.

Comment lines follow the build (``trec_eval="9.0.8"``, the default, or ``"10.0"``), as get_prefs.c,
get_qrels_prefs.c and get_qrels_jg.c of each read them. trec_eval 10.0 skips a line whose first byte is ``#``,
unless the line above was one it skipped (it then parses the line as data). 9.0.8 has no comments: a ``#`` line is
data, so one with the format's number of fields is a judgment of a query whose id starts with ``#`` (``# judged by
assessor 3`` in a prefs file), and any other stops it ("Malformed line"); the readers here do the same, and say why
in the message. A ``#`` after leading blanks is data in both. A blank line (empty, only spaces, ``\r`` of a
``\r\n`` file, the last line of a file ending in two newlines, or the line after a comment 10.0 skipped) stops both
builds ("Malformed line", exit 2) and is refused here. A ``-Z`` file has no comment lines in either build: a line
starting with ``#`` is data when it has four fields and stops both builds otherwise, as does a blank line (exit 255);
the reader does the same. A ``-Z`` mean or standard deviation must be within ±1e100 and a standard deviation 0 or at
least 1e-100 in magnitude, so that no z-score, (value - mean) / stddev, nor the mean of them overflows where
trec_eval prints ``inf`` and ``nan`` (a mean of ``1e308`` or ``-1e308``, a denormal deviation such as ``1e-320``).
Levels and numbers are read as decimal numbers (trec_eval's ``atof``), grades of ``qrels_jg`` as integers. Errors
name the file, the line and what the line should hold.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..conventions import DEFAULT_TREC_EVAL, TREC_EVAL_BUILDS
from .trec import (
    MAX_GRADE,
    MIN_GRADE,
    Source,
    TrecFormatError,
    _binary_kind,
    _check_control_bytes,
    _first_line,
    _show,
    _text,
    load_bytes,
)

PREFS_COLUMNS = "qid jg jsg docno rel"
QRELS_PREFS_COLUMNS = "qid jg docno rel"
ZSCORE_COLUMNS = "qid measure mean stddev"
FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")  # trec_eval's -R values
#: -Z means and standard deviations stay within ±ZSCORE_LIMIT, and a standard deviation that is not 0 at least
#: 1 / ZSCORE_LIMIT in magnitude, so that no z-score, nor the mean of them, overflows (see the module).
ZSCORE_LIMIT = 1e100

_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(rb"[+-]?\d+")


@dataclass(frozen=True)
class Preference:
    """One line of a preference file: in judgment group ``jg``, sub-group ``jsg``, ``docno`` has level ``rel``."""

    jg: str
    jsg: str
    docno: str
    rel: float


def read_preferences(source: Source, format: str, *, name: str | None = None, max_bytes: int | None = None,
                     trec_eval: str = DEFAULT_TREC_EVAL) -> dict[str, list[Preference]]:
    """A ``-R prefs`` or ``-R qrels_prefs`` file: each query's lines in file order. In ``qrels_prefs`` the second
    column is the judgment group and every group has the one sub-group ``0``, as trec_eval reads it. Comment lines
    as build ``trec_eval`` reads them (see the module)."""
    if format not in ("prefs", "qrels_prefs"):
        raise ValueError(f"Argument `format` has to be 'prefs' or 'qrels_prefs', but got {format!r}")
    columns = PREFS_COLUMNS if format == "prefs" else QRELS_PREFS_COLUMNS
    width = len(columns.split())
    queries: dict[str, list[Preference]] = {}
    for where, fields in _lines(source, name, max_bytes, format, columns, _skips_comments(trec_eval)):
        if len(fields) != width:
            raise TrecFormatError(f"{where}: expected {width} columns ({columns}), found {len(fields)}"
                                  + _comment_hint(fields, trec_eval))
        qid, jg = _text(fields[0], where, "qid"), _text(fields[1], where, "jg")
        jsg = _text(fields[2], where, "jsg") if format == "prefs" else "0"
        docno = _text(fields[-2], where, "docno")
        rel = _number(fields[-1], where, "level", "rel")
        queries.setdefault(qid, []).append(Preference(jg, jsg, docno, rel))
    return queries


def read_qrels_jg(source: Source, *, name: str | None = None, max_bytes: int | None = None,
                  trec_eval: str = DEFAULT_TREC_EVAL) -> dict[str, dict[str, dict[str, int]]]:
    """A ``-R qrels_jg`` file: ``{qid: {jg: {docno: grade}}}``; a document judged twice in one group is refused
    (trec_eval: "duplicate docs"). Comment lines as build ``trec_eval`` reads them (see the module)."""
    queries: dict[str, dict[str, dict[str, int]]] = {}
    for where, fields in _lines(source, name, max_bytes, "qrels_jg", QRELS_PREFS_COLUMNS, _skips_comments(trec_eval)):
        if len(fields) != 4:
            raise TrecFormatError(f"{where}: expected 4 columns ({QRELS_PREFS_COLUMNS}), found {len(fields)}"
                                  + _comment_hint(fields, trec_eval))
        qid, jg, docno = (_text(fields[i], where, column) for i, column in ((0, "qid"), (1, "jg"), (2, "docno")))
        if not _INTEGER.fullmatch(fields[3]):
            raise TrecFormatError(f"{where}: relevance grade {_show(fields[3])} is not an integer; write grades as "
                                  "whole numbers such as 0, 1, 2 (negative = unjudged)")
        grade = int(fields[3])
        if not MIN_GRADE <= grade <= MAX_GRADE:
            raise TrecFormatError(f"{where}: relevance grade {_show(fields[3])} is out of range; grades are whole "
                                  "numbers from -2^63 to 2^63-1, as trec_eval reads them")
        judged = queries.setdefault(qid, {}).setdefault(jg, {})
        if docno in judged:
            raise TrecFormatError(f"{where}: document {_show(fields[2])} is judged twice for query "
                                  f"{_show(fields[0])} in judgment group {_show(fields[1])}; keep one line")
        judged[docno] = grade
    return queries


def read_zscores(source: Source, *, name: str | None = None,
                 max_bytes: int | None = None) -> dict[tuple[str, str], tuple[float, float]]:
    """A ``-Z`` file: ``{(qid, measure): (mean, stddev)}``, ``measure`` as trec_eval prints it (``P_5``). A pair
    given twice keeps its first line (trec_eval's binary search finds one of them). No comment lines, and no blank
    lines, as both builds read it (see the module)."""
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for where, fields in _lines(source, name, max_bytes, "zscores", ZSCORE_COLUMNS, skips_comments=False):
        if len(fields) != 4:
            hint = ("; trec_eval 9.0.8 and 10.0 read no comment lines in a -Z file (both stop here: 'Malformed line'):"
                    " delete the line" if fields[0].startswith(b"#") else "")
            raise TrecFormatError(f"{where}: expected 4 columns ({ZSCORE_COLUMNS}), found {len(fields)}{hint}")
        key = (_text(fields[0], where, "qid"), _text(fields[1], where, "measure"))
        mean = _number(fields[2], where, "mean", "mean")
        stddev = _number(fields[3], where, "standard deviation", "stddev")
        for what, field, value in (("mean", fields[2], mean), ("standard deviation", fields[3], stddev)):
            if abs(value) > ZSCORE_LIMIT:
                raise TrecFormatError(f"{where}: {what} {_show(field)} is beyond ±1e100, the limit of a -Z file "
                                      "(z-scores of it overflow); give a smaller number")
        if stddev and abs(stddev) < 1 / ZSCORE_LIMIT:
            raise TrecFormatError(f"{where}: standard deviation {_show(fields[3])} is below 1e-100 in magnitude, the "
                                  "limit of a -Z file (z-scores divided by it overflow); give 0 or a larger number")
        table.setdefault(key, (mean, stddev))
    return table


def _loaded(source: Source, name: str | None, max_bytes: int | None, kind: str) -> tuple[str, bytes | bytearray]:
    label, buffer = load_bytes(source, name=name, max_bytes=max_bytes, kind=kind)
    binary = _binary_kind(buffer)
    if binary:
        raise TrecFormatError(f"{label}: this is not a {kind} text file: it looks like {binary}")
    _check_control_bytes(buffer, label)
    return label, buffer


def _skips_comments(trec_eval: str) -> bool:
    """Whether build ``trec_eval`` skips comment lines in a judgments file (10.0 does, 9.0.8 does not)."""
    if trec_eval not in TREC_EVAL_BUILDS:
        raise ValueError(f"Argument `trec_eval` has to be one of {', '.join(map(repr, TREC_EVAL_BUILDS))}, "
                         f"but got {trec_eval!r}")
    return trec_eval != "9.0.8"


def _lines(source: Source, name: str | None, max_bytes: int | None, kind: str, columns: str, skips_comments: bool):
    """(where, fields) of each line of a judgments or ``-Z`` file, ``where`` naming the file and line for messages;
    a comment line skipped as trec_eval 10.0 skips it when ``skips_comments`` (get_prefs.c, get_qrels_prefs.c,
    get_qrels_jg.c), a blank line refused as both builds refuse it (there and in get_zscores.c)."""
    label, buffer = _loaded(source, name, max_bytes, kind)
    seen = skipped = False
    start, size, number = 0, len(buffer), 0
    while start < size:
        end = buffer.find(b"\n", start)
        end = size if end == -1 else end
        line = bytes(buffer[start:end])
        start, number = end + 1, number + 1
        if skips_comments and line.startswith(b"#") and not skipped:
            skipped = True  # 10.0 skips it, and parses the line after it as data whatever it holds
            continue
        skipped = False
        fields = line.split()
        if not fields:
            option = "-Z" if kind == "zscores" else f"-R {kind}"
            raise TrecFormatError(f"{label} line {number}: a blank line; trec_eval 9.0.8 and 10.0 stop at a blank "
                                  f"line in a {option} file ('Malformed line'): delete the line")
        seen = True
        yield f"{label} line {number}", fields
    if not seen:
        what = "is empty" if _first_line(buffer) is None else "has only comment lines"
        raise TrecFormatError(f"{label}: the file {what}; expected lines of '{columns}'")


def _comment_hint(fields: list[bytes], trec_eval: str) -> str:
    if not fields or not fields[0].startswith(b"#"):
        return ""
    if trec_eval == "9.0.8":
        return ("; trec_eval 9.0.8 reads comment lines as data (it stops here: 'Malformed line'): delete the line, "
                "or read the file as trec_eval 10.0 does, which skips it (--trec-eval 10.0, trec_eval=\"10.0\")")
    return ("; trec_eval 10.0 skips a comment line only when '#' is its first byte and the line above is not one "
            "it skipped (it reads this one as data)")


def _number(field: bytes, where: str, what: str, column: str) -> float:
    if not _NUMBER.fullmatch(field):
        raise TrecFormatError(f"{where}: {what} {_show(field)} is not a number; the {column} column must be a "
                              "finite decimal number such as 2 or 0.5")
    value = float(field)
    if not math.isfinite(value):
        raise TrecFormatError(f"{where}: {what} {_show(field)} overflows a double; use a smaller number")
    return value


__all__ = ["FORMATS", "PREFS_COLUMNS", "QRELS_PREFS_COLUMNS", "ZSCORE_COLUMNS", "ZSCORE_LIMIT", "Preference",
           "read_preferences", "read_qrels_jg", "read_zscores"]
