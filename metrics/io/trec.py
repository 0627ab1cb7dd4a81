"""Readers for TREC qrels and run files, into columnar tables.

Formats (as trec_eval reads them, ``get_qrels.c`` and ``get_trec_results.c``):

* qrels: ``qid iter docno rel`` -- exactly 4 fields; ``iter`` is ignored; ``rel`` is an integer, and a negative
  ``rel`` marks a document that is in the pool but unjudged. trec_eval rejects a 5th field, and so do we.
* run: ``qid Q0 docno rank score tag`` -- at least 6 fields; ``Q0`` and ``rank`` are ignored (ranks come from
  sorting by score), fields after ``tag`` are ignored. trec_eval keeps the tag of the *last* line as the run id,
  and so does :attr:`RunTable.runid`.

What we accept, and where we are stricter than trec_eval (which turns bad numbers into 0 silently):

* Fields are separated by any run of ASCII whitespace (space, tab, VT, FF); leading and trailing whitespace
  is ignored. Lines end with LF or CRLF; a CR inside a line (CR-only line ends, which would make one line of
  the whole file) and any other control character (NUL, ESC, ...) are errors naming the line, so ids never hold
  one (see :mod:`metrics.ids`). Lines whose first non-blank character is ``#`` and blank lines are skipped.
* A grade must fit trec_eval's 64-bit integer. A file that is not text (an archive, a program, UTF-16) is named
  as such, and a qrels file given as the run (or the other way round) is pointed out.
* A score must be a finite decimal number (``nan``/``inf``/``abc`` are errors); a grade must be an integer
  literal (``1.5``, ``1.0`` and ``high`` are errors).
* The same (qid, docno) twice in one file is an error that names both lines.
* Encoding: a UTF-8 byte-order mark at the start of the file is dropped; bytes that are not valid UTF-8 are an
  error naming the line. Other Unicode is kept verbatim: non-ASCII spaces (NBSP) and zero-width characters are
  *not* separators and stay part of the id, because trec_eval compares ids as bytes; ``d1`` and ``d1\\u200b``
  are different documents.
* gzip files are read transparently (detected by their magic bytes, whatever the name), decompressed in slices
  into one buffer. Refused on the way: text that expands more than ``GZIP_MAX_RATIO`` (100) times the compressed
  bytes read (TREC files expand 3 to 8 times; past the first 16 MB), and a first megabyte without a line break,
  with only blank lines and comments, or whose first lines are not TREC lines.
* ``max_bytes`` caps the (decompressed) size, so an app can refuse a huge upload with a clear message. Input of
  unknown length (a pipe, a device, standard input, a file object not on disk) is capped at ``MAX_STREAM_BYTES``
  (256 MiB) when ``max_bytes`` is not given, and its first megabyte must hold a TREC line, as gzip text's must: a
  stream without line breaks (/dev/zero) is refused after 1 MB, an endless one after 256 MiB.

Every error is a :class:`TrecFormatError` naming the file, the line and the fix, e.g.
``run.txt line 12: expected 6 columns (qid Q0 docno rank score tag), found 4``.

Speed: a well-formed file (one kind of separator) is parsed by pyarrow's CSV reader; comment lines are cut out
first in one numpy pass, and any other file is first normalised to single spaces with numpy. A file without a
data line (blank lines, comments) is refused by those passes. Whenever the fast path rejects the input, a
line-by-line reader re-reads it, a line at a time, to report the exact line (or, for legal input the fast path
does not handle, to parse it). No Python object is created per line on the fast path.
"""

from __future__ import annotations

import concurrent.futures
import gzip
import io
import mmap
import os
import re
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..model import MAX_GRADE, MIN_GRADE, InputError, short_repr
from .compressed import GZIP_HEAD, GZIP_MAGIC, GZIP_MAX_RATIO, GZIP_STEP, Counted, Prefixed, expands_too_much

Source = str | bytes | bytearray | memoryview | os.PathLike | BinaryIO

QRELS_COLUMNS = "qid iter docno rel"
RUN_COLUMNS = "qid Q0 docno rank score tag"
SUBTOPIC_QRELS_COLUMNS = "qid subtopic docno grade"
SUBTOPIC_KIND = "subtopic qrels"
#: Each kind of file's columns, for messages.
_COLUMNS = {"qrels": QRELS_COLUMNS, "run": RUN_COLUMNS, SUBTOPIC_KIND: SUBTOPIC_QRELS_COLUMNS}
#: The fields the fast path keeps of each kind of file, and their arrow types (f1 of subtopic qrels: the subtopic).
_KEPT_FIELDS = {"qrels": {"f0": pa.string(), "f2": pa.string(), "f3": pa.int64()},
                "run": {"f0": pa.string(), "f2": pa.string(), "f4": pa.float64()},
                SUBTOPIC_KIND: {"f0": pa.string(), "f1": pa.string(), "f2": pa.string(), "f3": pa.int64()}}

_BOM = b"\xef\xbb\xbf"
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(rb"[+-]?\d+")
_NORMALISE_CHUNK = 1 << 24
_SCAN_STEP = 1 << 18  # bytes per slice of the clean-file scan: small enough for the CPU's cache
#: Files at least this large are parsed speculatively while they are checked (see _fast_parse).
_SPECULATE_ABOVE = 8 << 20
_PARSER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="trec-parse")
_KEY_CHUNK = 1 << 20
#: Input of unknown length (a pipe, a device such as /dev/zero, standard input, a file object) is read whole before
#: it is parsed, so it is capped as uploads and ``--lint`` are; a file on disk is mapped or streamed, in any size.
MAX_STREAM_BYTES = 256 << 20


class TrecFormatError(InputError):
    """A qrels or run file that cannot be read; the message names the file, the line and the fix."""


# ---- tables ----------------------------------------------------------------------------------------


class _PerDocument:
    """What qrels and runs share: one value per (qid, docno) line; ``_values`` names the column."""

    __slots__ = ()

    def _values(self) -> np.ndarray:
        raise NotImplementedError

    def __len__(self) -> int:
        return int(self._values().shape[0])

    @property
    def qids(self) -> list[str]:
        """The query ids, each once, in order of first appearance."""
        values = self.qid_values if self.qid_values is not None else pc.unique(self.qid)
        return values.to_pylist()

    def to_dict(self) -> dict[str, dict]:
        """pytrec_eval-shaped ``{qid: {docno: value}}`` (documents in file order)."""
        result: dict[str, dict] = {}
        for qid, docno, value in zip(self.qid.to_pylist(), self.docno.to_pylist(), self._values().tolist()):
            result.setdefault(qid, {})[docno] = value
        return result

    def query(self, qid: str) -> dict:
        """``{docno: value}`` of one query in file order (empty if the file has no such query)."""
        mask = pc.equal(self.qid, qid)
        docs = pc.filter(self.docno, mask).to_pylist()
        return dict(zip(docs, self._values()[to_numpy(mask)].tolist()))


@dataclass(frozen=True, slots=True)
class QrelsTable(_PerDocument):
    """Judgments, one row per qrels line in file order.

    qid, docno: pyarrow string arrays; grade: int64 numpy array (negative = in the pool but unjudged).
    ``to_dict()`` gives ``{qid: {docno: grade}}`` and ``query(qid)`` one query's ``{docno: grade}``.
    """

    qid: pa.Array
    docno: pa.Array
    grade: np.ndarray
    name: str = "qrels"
    docno_key: np.ndarray | None = None  # from docno_keys(), computed while checking duplicates
    docno_key_exact: bool = False
    qid_code: np.ndarray | None = None  # from value_codes(qid): int32 code of each line's query
    qid_values: pa.Array | None = None  # the distinct query ids, in order of first appearance

    def _values(self) -> np.ndarray:
        return self.grade


@dataclass(frozen=True, slots=True)
class RunTable(_PerDocument):
    """A run, one row per line in file order.

    qid, docno: pyarrow string arrays; score: float64 numpy array; runid: the tag of the last line (trec_eval).
    ``to_dict()`` gives ``{qid: {docno: score}}`` and ``query(qid)`` one query's ``{docno: score}``.
    """

    qid: pa.Array
    docno: pa.Array
    score: np.ndarray
    runid: str
    name: str = "run"
    docno_key: np.ndarray | None = None  # from docno_keys(), computed while checking duplicates
    docno_key_exact: bool = False
    qid_code: np.ndarray | None = None  # from value_codes(qid): int32 code of each line's query
    qid_values: pa.Array | None = None  # the distinct query ids, in order of first appearance

    def _values(self) -> np.ndarray:
        return self.score


@dataclass(frozen=True, slots=True)
class SubtopicQrelsTable:
    """Subtopic (intent) judgments as NIST's ndeval reads them, one row per ``qid subtopic docno grade`` line in
    file order: qid, subtopic, docno pyarrow string arrays; grade an int64 numpy array. ``qid_code`` and
    ``qid_values`` as in :class:`QrelsTable`. ``to_dict()`` gives ``{qid: {docno: {subtopic: grade}}}``."""

    qid: pa.Array
    subtopic: pa.Array
    docno: pa.Array
    grade: np.ndarray
    name: str = SUBTOPIC_KIND
    qid_code: np.ndarray | None = None
    qid_values: pa.Array | None = None

    def __len__(self) -> int:
        return int(self.grade.shape[0])

    def to_dict(self) -> dict[str, dict[str, dict[str, int]]]:
        """``{qid: {docno: {subtopic: grade}}}``: queries, documents and subtopics in file order."""
        result: dict[str, dict[str, dict[str, int]]] = {}
        for qid, subtopic, docno, grade in zip(self.qid.to_pylist(), self.subtopic.to_pylist(),
                                               self.docno.to_pylist(), self.grade.tolist()):
            result.setdefault(qid, {}).setdefault(docno, {})[subtopic] = grade
        return result


# ---- public readers --------------------------------------------------------------------------------


def read_qrels(source: Source, *, name: str | None = None, max_bytes: int | None = None) -> QrelsTable:
    """Read a qrels file (``qid iter docno rel``) from a path, bytes, text, or binary file object."""
    qid, docno, grade, _, keys, exact, codes, label = _read(source, name, max_bytes, "qrels")
    return QrelsTable(qid, docno, grade, label, keys, exact, *codes)


def read_run(source: Source, *, name: str | None = None, max_bytes: int | None = None) -> RunTable:
    """Read a run file (``qid Q0 docno rank score tag``) from a path, bytes, text, or binary file object."""
    qid, docno, score, runid, keys, exact, codes, label = _read(source, name, max_bytes, "run")
    return RunTable(qid, docno, score, runid, label, keys, exact, *codes)


def _read(source: Source, name: str | None, max_bytes: int | None, kind: str):
    """(qid, docno, values, tag, docno keys, whether exact, qid codes, label); for subtopic qrels ``tag`` is the
    subtopic column, and a (qid, subtopic, docno) may appear once."""
    mapped = _map_plain_file(source, max_bytes)
    if mapped is not None:
        # A plain file on disk is parsed straight from the page cache: no copy of the whole text in memory.
        label = name or Path(source).name
        try:
            columns = _fast_parse(mapped, label, kind)
        finally:
            try:
                mapped.close()
            except BufferError:  # an arrow buffer still views the map; it is unmapped when collected
                pass
        buffer = None
    if mapped is None or columns is None:
        label, buffer = _load(source, name, max_bytes, kind)
        columns = _fast_parse(buffer, label, kind)
        if columns is None:
            columns = _slow_parse(buffer, label, kind)
    qid, docno, values, tag = columns
    if not hasattr(source, "read"):
        # The text is only needed again to name the lines of a duplicate; it can be loaded again from the source.
        buffer = None
    codes = value_codes(qid)
    groups = codes[0]
    if kind == SUBTOPIC_KIND:  # one line per (qid, subtopic, docno): the pair is (query and subtopic, docno)
        subtopic_codes, subtopics = value_codes(tag)
        groups = codes[0].astype(np.int64) * max(1, len(subtopics)) + subtopic_codes
    keys, exact, maybe_repeated = _check_unique_pairs(groups, docno)
    if maybe_repeated:
        _raise_duplicate(buffer if buffer is not None else _load(source, name, max_bytes, kind)[1], label, kind)
    return qid, docno, values, tag, keys, exact, codes, label


def _map_plain_file(source: Source, max_bytes: int | None) -> mmap.mmap | None:
    """A read-only memory map of a non-empty, uncompressed file without a BOM, within the size cap; else None."""
    if isinstance(source, str) and looks_like_content(source):
        return None
    if not isinstance(source, (str, os.PathLike)):
        return None
    path = Path(source)
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return None
        if max_bytes is not None and path.stat().st_size > max_bytes:
            return None
        with open(path, "rb") as file:
            # MAP_POPULATE maps every page up front in one call instead of one page fault per 4 KB read.
            flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
            mapped = mmap.mmap(file.fileno(), 0, flags=flags, prot=mmap.PROT_READ)
    except (OSError, ValueError):
        return None
    if mapped[:2] == GZIP_MAGIC or mapped[:3] == _BOM:
        mapped.close()
        return None
    return mapped


# ---- loading ---------------------------------------------------------------------------------------


def _load(source: Source, name: str | None, max_bytes: int | None, kind: str) -> tuple[str, bytes | bytearray]:
    """The file's label for messages and its bytes: decompressed (streaming, see :func:`_gunzip`), BOM dropped, size
    checked."""
    if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1):
        raise ValueError(f"Argument `max_bytes` has to be a positive integer or None, but got {max_bytes!r}")
    label = name
    raw: bytes | bytearray
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
        label = label or kind
        if max_bytes is not None and len(raw) > max_bytes:
            raise TrecFormatError(_too_big(label, len(raw), max_bytes))
        if raw[:2] == GZIP_MAGIC:
            raw = _gunzip(io.BytesIO(raw), label, kind, max_bytes, len(raw))
    elif isinstance(source, str) and looks_like_content(source):
        raw = source.encode("utf-8", errors="surrogateescape")
        label = label or kind
        if max_bytes is not None and len(raw) > max_bytes:
            raise TrecFormatError(_too_big(label, len(raw), max_bytes))
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        label = label or path.name
        if path.is_dir():
            raise TrecFormatError(f"{label}: is a directory ({path}); give the path of a {kind} file")
        if path.exists() and not path.is_file():
            # A pipe or a device (<(zcat run.gz), /dev/stdin, /dev/null): read as a stream.
            with _open(path, label) as file:
                return _load(file, label, max_bytes, kind)
        if not path.is_file():
            raise TrecFormatError(f"{label}: no such file ({path}); give the path of a {kind} file")
        size = path.stat().st_size
        if max_bytes is not None and size > max_bytes:
            raise TrecFormatError(_too_big(label, size, max_bytes))
        with _open(path, label) as file:
            if file.read(2) == GZIP_MAGIC:
                file.seek(0)
                raw = _gunzip(file, label, kind, max_bytes, size)
            else:
                file.seek(0)
                raw = file.read()
    elif hasattr(source, "read"):
        label = label or Path(str(getattr(source, "name", "") or kind)).name
        cap = stream_cap(source, max_bytes)
        head = source.read(2)
        if isinstance(head, str):
            text = head + (source.read() if cap is None else source.read(cap + 1))
            raw = text.encode("utf-8", errors="surrogateescape")
        elif head == GZIP_MAGIC:
            raw = _gunzip(Prefixed(head, source), label, kind, cap, None, endless=max_bytes is None)
        else:
            raw = _read_stream(Prefixed(head, source), label, kind, cap, endless=max_bytes is None)
        if cap is not None and len(raw) > cap:
            raise TrecFormatError(_too_big(label, len(raw), cap, decompressed=head == GZIP_MAGIC,
                                           endless=max_bytes is None))
    else:
        raise TypeError(f"Argument `source` has to be a path, bytes, str or binary file, but got "
                        f"{type(source).__name__}")
    if raw.startswith(_BOM):
        if isinstance(raw, bytearray):
            del raw[:len(_BOM)]  # in place
        else:
            raw = raw[len(_BOM):]
    return label, raw


def load_bytes(source: Source, *, name: str | None = None, max_bytes: int | None = None,
               kind: str = "run") -> tuple[str, bytes | bytearray]:
    """A file's label and bytes as the readers load them (gzip decompressed with its limits, BOM dropped, size
    capped), for a reader that must see every line as written (``python -m metrics.check --lint``)."""
    return _load(source, name, max_bytes, kind)


def stream_cap(stream, max_bytes: int | None) -> int | None:
    """The size cap of reading ``stream`` whole: ``max_bytes`` when given; else :data:`MAX_STREAM_BYTES`, unless the
    stream is a file on disk, whose size is known and which the command lines read in any size."""
    if max_bytes is not None:
        return max_bytes
    try:
        if stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            return None
    except (AttributeError, OSError, ValueError):  # no descriptor (io.BytesIO, a wrapper), or a closed one
        pass
    return MAX_STREAM_BYTES


def _read_stream(stream, label: str, kind: str, cap: int | None, endless: bool = False) -> bytearray:
    """A plain stream's bytes, read in slices of ``GZIP_STEP``: refused once they pass ``cap``, and, as gzip text
    is, when the first ``GZIP_HEAD`` bytes hold no line break (a stream without lines, such as /dev/zero) or are
    not TREC lines, before the rest is read. ``endless``: the cap is :data:`MAX_STREAM_BYTES` (for the message)."""
    out = bytearray()
    checked = False
    while True:
        piece = stream.read(GZIP_STEP if cap is None else min(GZIP_STEP, cap + 1 - len(out)))
        if not piece:
            break
        out += piece
        if cap is not None and len(out) > cap:
            raise TrecFormatError(_too_big(label, len(out), cap, endless=endless))
        if not checked and len(out) >= GZIP_HEAD:
            _check_head(bytes(out[:GZIP_HEAD]), label, kind, decompressed=False)
            checked = True
    return out


def _open(path: Path, label: str) -> BinaryIO:
    try:
        return open(path, "rb")
    except PermissionError:
        raise TrecFormatError(f"{label}: permission denied ({path}); make the file readable") from None
    except OSError as error:
        raise TrecFormatError(f"{label}: cannot read {path} ({error.strerror or error})") from None


def looks_like_content(text: str) -> bool:
    # A str is file content when it holds a line break or a whole TREC line and names no existing file.
    if not text or "\n" in text or "\r" in text:
        return True
    if len(text.split()) < 4:
        return False
    try:
        return not os.path.exists(text)
    except (OSError, ValueError):  # a NUL or an over-long name: not a path
        return True


def _gunzip(compressed, label: str, kind: str, max_bytes: int | None, compressed_size: int | None,
            endless: bool = False) -> bytearray:
    """The decompressed text, read in slices: refused as soon as it passes ``max_bytes`` or ``GZIP_MAX_RATIO`` times
    the compressed size, or when its first megabyte holds no TREC line. ``endless``: ``max_bytes`` is the cap of a
    stream, :data:`MAX_STREAM_BYTES` (for the message).

    Slices land in one buffer sized from gzip's own length field (bounded by the limits), so an honest file is
    held once, not once per copy.
    """
    counted = Counted(compressed)
    capacity = GZIP_STEP
    if compressed_size is not None and hasattr(compressed, "seek"):
        compressed.seek(-4, io.SEEK_END)
        stated = int.from_bytes(compressed.read(4), "little")  # ISIZE: the size mod 2^32 of the last member
        compressed.seek(0)
        capacity = max(capacity, min(stated, 16 * compressed_size))
    if max_bytes is not None:
        capacity = min(capacity, max_bytes + 1)
    out = bytearray(capacity)
    size = 0
    head_checked = False
    try:
        with gzip.GzipFile(fileobj=counted, mode="rb") as stream:
            while True:
                if size < len(out):
                    view = memoryview(out)[size:size + GZIP_STEP]
                    try:
                        got = stream.readinto(view)
                    finally:
                        view.release()
                else:  # more than the length field said (a multi-member file): append, bytearray grows in steps
                    piece = stream.read(GZIP_STEP)
                    out += piece
                    got = len(piece)
                if not got:
                    break
                size += got
                if max_bytes is not None and size > max_bytes:
                    raise TrecFormatError(_too_big(label, size, max_bytes, decompressed=True, endless=endless))
                if expands_too_much(size, counted.count):
                    raise TrecFormatError(
                        f"{label}: expands more than {GZIP_MAX_RATIO} times in decompression "
                        f"({counted.count / 1e6:.1f} "
                        f"MB read gave over {size / 1e6:.0f} MB), the expansion limit for gzip input; TREC files "
                        f"expand 3 to 8 times, so this is not one. If it is, decompress it (gunzip) and give the "
                        f"plain file")
                if not head_checked and size >= GZIP_HEAD:
                    _check_head(bytes(out[:GZIP_HEAD]), label, kind)
                    head_checked = True
    except (OSError, EOFError, zlib.error) as error:
        raise TrecFormatError(f"{label}: looks like gzip but cannot be decompressed ({error}); "
                              f"re-create it with gzip or give the plain text file") from None
    del out[size:]
    return out


def _check_head(head: bytes, label: str, kind: str, decompressed: bool = True) -> None:
    """Refuse a decompressed stream, or a stream of unknown length, whose first megabyte is not TREC text, before
    reading the rest. A kind of file other than qrels, runs and subtopic qrels (a ``-Z`` file, preferences) is only
    checked for a line break: its own reader reads its lines."""
    megabytes = f"{len(head) / (1 << 20):.0f} MB" + (" after decompression" if decompressed else "")
    cut = head.rfind(b"\n")
    if kind not in _COLUMNS:
        if cut == -1:
            raise TrecFormatError(f"{label}: no line break in the first {megabytes}, so this is not a {kind} text "
                                  "file")
        return
    columns = _COLUMNS[kind]
    if cut == -1:
        raise TrecFormatError(f"{label}: no line break in the first {megabytes}, so this is not a TREC {kind} file; "
                              f"expected lines of '{columns}'")
    first = _first_line(_drop_comment_lines(_normalise_whitespace(head[:cut + 1])))
    if first is None:
        raise TrecFormatError(f"{label}: the first {megabytes} hold only blank lines and comments, so this is not a "
                              f"TREC {kind} file; expected lines of '{columns}'")
    # The first hundred lines must read as the whole file would: the same message, naming the same line.
    end = 0
    for _ in range(100):
        found = head.find(b"\n", end, cut + 1)
        if found == -1:
            break
        end = found + 1
    if _first_line(_drop_comment_lines(_normalise_whitespace(head[:end]))) is not None:
        _slow_parse(head[:end], label, kind)


def _too_big(label: str, size: int, max_bytes: int, decompressed: bool = False, endless: bool = False) -> str:
    # MiB (2**20 bytes) everywhere, as the app's limits are stated: "64 MiB", never "67.1 MB" for the same cap.
    what = "decompresses to more than" if decompressed else f"is {size / 2**20:.1f} MiB, more than"
    if endless:  # a pipe, a device or standard input, read whole: a file on disk has no such limit
        return (f"{label}: the input {what} the {max_bytes / 2**20:g} MiB limit of a pipe, a device or standard "
                "input; save it to a file and give the file's path")
    return (f"{label}: the file {what} the {max_bytes / 2**20:g} MiB limit; "
            f"evaluate it with the command line (python -m metrics) or upload a smaller file")


# ---- fast path -------------------------------------------------------------------------------------


def _fast_parse(buffer: bytes, label: str, kind: str):
    """Columns parsed by pyarrow, or None when the input needs the line-by-line reader (which then either
    parses it or reports the exact problem)."""
    # A large clean file is parsed on a second thread while this one checks that it is clean: both release the
    # GIL, so on two cores the check costs no wall time. A file that is not clean throws that parse away.
    speculative = None
    guess = _separator_guess(buffer)
    first = _first_line(buffer)
    if guess is not None and first is not None and not first.startswith(b"#") and len(buffer) >= _SPECULATE_ABOVE:
        speculative = _PARSER.submit(_arrow_table, buffer, guess, len(first.split()), kind)
    try:
        separator, comment = _scan(buffer)
    finally:
        parsed = speculative.result() if speculative is not None else None
    if comment:
        # Comment lines are cut out in one vectorised pass; the rest of the file stays on this path.
        buffer = _drop_comment_lines(buffer)
        separator, _ = _scan(buffer)
        parsed = None
    if separator is None:
        if _has_stray_control(buffer):
            return None  # the line-by-line reader names the line
        buffer = _normalise_whitespace(buffer)
        separator = b" "
        # Indented comment lines now start at the line start.
        if _has_comment(buffer):
            buffer = _drop_comment_lines(buffer)
            comment = True
        parsed = None
    first = _first_line(buffer)
    if first is None:
        # Only blank lines (and comments): said now, without reading the lines one by one.
        raise TrecFormatError(_no_data_lines(label, kind,
                                             "has only comments and blank lines" if comment else "is empty"))
    n_fields = len(first.split())
    if not _field_count_fits(kind, n_fields):
        return None
    table = parsed if parsed is not None and separator == guess else _arrow_table(buffer, separator, n_fields, kind)
    if table is None or table.num_rows == 0:
        return None
    qid = table.column("f0")
    docno = table.column("f2")
    if kind == "qrels":
        values = to_numpy(table.column("f3"))
        tag = ""
    elif kind == SUBTOPIC_KIND:
        values = to_numpy(table.column("f3"))
        tag = table.column("f1")
    else:
        values = to_numpy(table.column("f4"))
        if not np.isfinite(values).all():
            return None
        try:
            tag = _last_line(buffer).split()[5].decode("utf-8")
        except UnicodeDecodeError:
            return None
    del table
    return qid, docno, values, tag


def _has_stray_control(buffer) -> bool:
    """Whether the text holds a control byte that is neither a separator nor a line end (NUL, ESC, ...), or a
    carriage return that does not end a line (CR-only line ends would make one line of the whole file)."""
    data = buffer if isinstance(buffer, np.ndarray) else np.frombuffer(buffer, dtype=np.uint8)
    size = data.shape[0]
    for start in range(0, size, _NORMALISE_CHUNK):
        # One byte of overlap, so that a CR at the end of a chunk sees what follows it.
        chunk = data[start:start + _NORMALISE_CHUNK + 1]
        body = chunk[:_NORMALISE_CHUNK]
        # Bytes below 32 other than tab, LF, VT, FF and CR (9..13): (b - 9) wraps around below 9.
        if np.count_nonzero(body < 32) != np.count_nonzero((body - np.uint8(9)) <= 4):
            return True
        carriage = body == 13
        returns = np.count_nonzero(carriage)
        if returns:
            line_ends = np.count_nonzero(carriage[: chunk.shape[0] - 1] & (chunk[1:] == 10))
            if returns != line_ends + (chunk.shape[0] == body.shape[0] and bool(carriage[-1])):
                return True
    return False


def _separator_guess(buffer) -> bytes | None:
    """The separator a clean file would use: tab if it has tabs (and no spaces), else space."""
    if buffer.find(b"\t") == -1:
        return b" "
    return b"\t" if buffer.find(b" ") == -1 else None


def _arrow_table(buffer, separator: bytes, n_fields: int, kind: str) -> pa.Table | None:
    """pyarrow's CSV reader on the buffer, or None if it refuses (the careful path then says why)."""
    if not _field_count_fits(kind, n_fields):
        return None
    names = [f"f{i}" for i in range(n_fields)]
    types = _KEPT_FIELDS[kind]
    include = list(types)
    try:
        return pacsv.read_csv(
            pa.py_buffer(buffer),
            # One thread and 1 MB blocks: on small machines threads cost more than they save, and they multiply
            # the memory held by blocks in flight.
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 20, use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter=separator.decode(), quote_char=False, double_quote=False,
                                             escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, include_columns=include, null_values=[],
                                                 strings_can_be_null=False, check_utf8=True),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None


def _field_count_fits(kind: str, n_fields: int) -> bool:
    """Whether a first line of ``n_fields`` fields can start a file of ``kind`` (qrels: exactly 4; runs: 6 or more)."""
    return n_fields >= 6 if kind == "run" else n_fields == 4


def _scan(buffer) -> tuple[bytes | None, bool]:
    """(separator, comment) in one pass: the one separator byte of a file that pyarrow can split as is (no empty
    field, no other whitespace or control character), else None; and whether a line starts with '#'."""
    has_tab = _contains(buffer, b"\t")
    if has_tab and _contains(buffer, b" "):
        # Spaces may sit in comments of a tab-separated file only: say so, the caller drops them and looks again.
        return None, _has_comment(_as_array(buffer))
    separator = b"\t" if has_tab else b" "
    code = separator[0]
    data = np.frombuffer(buffer, dtype=np.uint8)
    if data.shape[0] == 0:
        return separator, False
    if data[0] == ord("#"):
        return None, True
    clean = data[0] != code and data[-1] != code
    # In slices that stay in the CPU's cache, with one byte of overlap so that pairs across slices are seen.
    for start in range(0, data.shape[0], _SCAN_STEP):
        chunk = data[start:start + _SCAN_STEP + 1]
        is_newline = chunk == 10
        comment = chunk[1:] == 35
        comment &= is_newline[:-1]
        if comment.any():
            return None, True
        if not clean:
            continue
        # An empty field: two blanks in a row (a separator, a newline or a control byte) other than a blank line.
        blank = chunk <= 32
        pairs = blank[1:] & blank[:-1]
        if pairs.any() and np.count_nonzero(pairs) != np.count_nonzero(is_newline[1:] & is_newline[:-1]):
            clean = False
            continue
        # CR, VT, FF or other control characters: leave them to the careful path.
        expected = np.count_nonzero(is_newline) + (np.count_nonzero(chunk == code) if code == 9 else 0)
        if np.count_nonzero(chunk < 32) != expected:
            clean = False
    del data
    return (separator if clean else None), False


def _contains(buffer, byte: bytes) -> bool:
    if isinstance(buffer, np.ndarray):
        return bool((buffer == byte[0]).any())
    return buffer.find(byte) != -1


def _has_comment(text: np.ndarray) -> bool:
    """Whether a line of normalised text starts with '#'."""
    if text.shape[0] and text[0] == 35:
        return True
    for start in range(0, text.shape[0], _NORMALISE_CHUNK):
        chunk = text[start:start + _NORMALISE_CHUNK + 1]
        if ((chunk[:-1] == 10) & (chunk[1:] == 35)).any():
            return True
    return False


def _normalise_whitespace(buffer) -> np.ndarray:
    """Every run of whitespace inside a line becomes one space; whitespace at line starts and ends goes.

    One pass over the text in chunks, compacting into one preallocated uint8 array: a whitespace byte is kept
    (as a space) only when it is the last of its run, the run does not start a line, and a field follows it.
    """
    data = np.frombuffer(buffer, dtype=np.uint8)
    size = data.shape[0]
    out = np.empty(size, dtype=np.uint8)
    written = 0
    line_start_before = True  # whether the bytes before the chunk end a line start (newline or leading blanks)
    for start in range(0, size, _NORMALISE_CHUNK):
        end = min(start + _NORMALISE_CHUNK, size)
        raw = data[start:min(end + 1, size)]  # one byte of look-ahead
        # Space, tab, and VT/FF/CR (11..13; the subtraction wraps around below 11).
        blank = (raw == 32) | (raw == 9) | ((raw - np.uint8(11)) <= 2)
        newline = raw == 10
        n = end - start
        followed_by_field = np.ones(n, dtype=bool)
        followed_by_field[: raw.shape[0] - 1] = ~(blank[1:] | newline[1:])
        if end == size:
            followed_by_field[-1] = False
        # Blanks of a line's indent: after a newline, then after indent blanks (one step per indent byte).
        leading = np.zeros(n, dtype=bool)
        leading[0] = blank[0] and line_start_before
        leading[1:] = blank[1:n] & newline[: n - 1]
        while leading.any():
            grown = leading.copy()
            grown[1:] |= blank[1:n] & leading[:-1]
            if np.array_equal(grown, leading):
                break
            leading = grown
        blank, raw = blank[:n], raw[:n]
        keep = ~blank | (followed_by_field & ~leading)
        kept = np.where(blank, np.uint8(32), raw)[keep]
        out[written:written + kept.shape[0]] = kept
        written += kept.shape[0]
        line_start_before = bool(newline[n - 1] or leading[n - 1])
    return out[:written]


def _first_line(buffer) -> bytes | None:
    """The first non-blank line (bytes, bytearray, mmap or a uint8 array), or None if every byte is blank."""
    data = _as_array(buffer)
    where = _first_nonblank(data)
    if where is None:
        return None
    start = _line_start(data, int(where))
    return _as_bytes(buffer, start, _find_newline(data, start))


def _last_line(buffer) -> bytes:
    """The last non-blank line."""
    data = _as_array(buffer)
    where = _first_nonblank(data[::-1])
    if where is None:
        return b""
    last = data.shape[0] - 1 - int(where)
    return _as_bytes(buffer, _line_start(data, last), last + 1)


def _line_start(data: np.ndarray, index: int) -> int:
    """Index of the start of the line holding ``index``: searched backwards in growing slices."""
    end, step = index, 1 << 12
    while end > 0:
        piece = data[max(0, end - step):end]
        newlines = np.flatnonzero(piece == 10)
        if newlines.shape[0]:
            return end - piece.shape[0] + int(newlines[-1]) + 1
        end -= piece.shape[0]
        step = min(step * 4, _NORMALISE_CHUNK)
    return 0


#: bytes.split()'s whitespace: space, tab, newline, CR, VT, FF.
_BLANK = np.zeros(256, dtype=bool)
_BLANK[[32, 9, 10, 13, 11, 12]] = True


def _first_nonblank(data: np.ndarray) -> int | None:
    """Index of the first byte that is not whitespace, in growing slices (a file of blank lines costs one pass)."""
    start, step = 0, 1 << 8  # the first byte is nearly always the one: a file of blanks grows the slices
    while start < data.shape[0]:
        piece = data[start:start + step]
        found = np.flatnonzero(~_BLANK[piece])
        if found.shape[0]:
            return start + int(found[0])
        start += piece.shape[0]
        step = min(step * 4, _NORMALISE_CHUNK)
    return None


def _find_newline(data: np.ndarray, start: int) -> int:
    """Index of the first newline at or after ``start``, or the length of the data."""
    step = 1 << 12
    while start < data.shape[0]:
        piece = data[start:start + step]
        found = np.flatnonzero(piece == 10)
        if found.shape[0]:
            return start + int(found[0])
        start += piece.shape[0]
        step = min(step * 4, _NORMALISE_CHUNK)
    return data.shape[0]


def _as_array(buffer) -> np.ndarray:
    return buffer if isinstance(buffer, np.ndarray) else np.frombuffer(buffer, dtype=np.uint8)


def _drop_comment_lines(buffer) -> np.ndarray:
    """The text without the lines that start with '#' (newline included), in chunks, as a uint8 array."""
    data = _as_array(buffer)
    size = data.shape[0]
    out = np.empty(size, dtype=np.uint8)
    written = 0
    at_line_start, in_comment = True, False  # where the previous chunk left off
    step = min(_NORMALISE_CHUNK, 1 << 22)  # the line numbers take 4 bytes per byte of the slice
    for start in range(0, size, step):
        chunk = data[start:start + step]
        newline = chunk == 10
        # Line of each byte within the chunk (a newline belongs to the line it ends).
        line = np.cumsum(newline, dtype=np.int32)
        line -= newline
        line_starts = np.flatnonzero(newline[:-1]) + 1
        is_comment = np.empty(line_starts.shape[0] + 1, dtype=bool)
        is_comment[0] = chunk[0] == 35 if at_line_start else in_comment
        is_comment[1:] = chunk[line_starts] == 35
        kept = chunk[~is_comment[line]]
        out[written:written + kept.shape[0]] = kept
        written += kept.shape[0]
        at_line_start, in_comment = bool(newline[-1]), bool(is_comment[-1])
    return out[:written]


def _as_bytes(buffer, start: int, end: int) -> bytes:
    return buffer[start:end].tobytes() if isinstance(buffer, np.ndarray) else bytes(buffer[start:end])


# ---- line-by-line reader: the reference semantics and the error messages -------------------------------


def _data_lines(buffer: bytes, label: str, first_line: int = 1) -> Iterator[tuple[int, list[bytes]]]:
    """(line number, fields) of every data line; comments and blank lines skipped. ``first_line`` is the number of
    the buffer's first line in its file (a chunk of a streamed file starts further down).

    Lines are cut one at a time, so a bad line near the start is reported without splitting the whole file.
    """
    start, size = 0, len(buffer)
    number = first_line - 1
    while start < size:
        end = buffer.find(b"\n", start)
        if end == -1:
            end = size
        number += 1
        fields = bytes(buffer[start:end]).split()
        start = end + 1
        if not fields or fields[0].startswith(b"#"):
            continue
        yield number, fields


def _slow_parse(buffer: bytes, label: str, kind: str, first_line: int = 1):
    if kind == SUBTOPIC_KIND:
        return _slow_parse_subtopics(buffer, label)
    binary = _binary_kind(buffer)
    if binary:
        raise TrecFormatError(f"{label}: this is not a {kind} text file: it looks like {binary}")
    _check_control_bytes(buffer, label, first_line)
    # The likely cause of a bad first line (JSON, CSV, a header, swapped files) is guessed at the file's start only.
    at_start = first_line == 1
    qids: list[str] = []
    docnos: list[str] = []
    values: list[float] = []
    tag = ""
    for number, fields in _data_lines(buffer, label, first_line):
        where = f"{label} line {number}"
        if kind == "qrels":
            if len(fields) != 4:
                raise TrecFormatError(f"{where}: expected 4 columns ({QRELS_COLUMNS}), found {len(fields)}"
                                      + ("; trec_eval does not allow extra columns in qrels" if len(fields) > 4 else "")
                                      + (_first_line_cause(fields, kind) if not qids and at_start else ""))
            qid, docno = _text(fields[0], where, "qid"), _text(fields[2], where, "docno")
            if not _INTEGER.fullmatch(fields[3]):
                raise TrecFormatError(f"{where}: relevance grade {_show(fields[3])} is not an integer; "
                                      f"write grades as whole numbers such as 0, 1, 2 (negative = unjudged)"
                                      + (_first_line_cause(fields, kind) if not qids and at_start else ""))
            grade = int(fields[3])
            if not MIN_GRADE <= grade <= MAX_GRADE:
                raise TrecFormatError(f"{where}: relevance grade {_show(fields[3])} is out of range; grades are whole "
                                      f"numbers from -2^63 to 2^63-1, as trec_eval reads them")
            values.append(grade)
        else:
            if len(fields) < 6:
                raise TrecFormatError(f"{where}: expected 6 columns ({RUN_COLUMNS}), found {len(fields)}"
                                      + (_first_line_cause(fields, kind) if not qids and at_start else ""))
            qid, docno = _text(fields[0], where, "qid"), _text(fields[2], where, "docno")
            raw = fields[4]
            if not _NUMBER.fullmatch(raw):
                problem = ("is not finite" if raw.lower().lstrip(b"+-") in (b"nan", b"inf", b"infinity")
                           else "is not a number")
                raise TrecFormatError(f"{where}: score {_show(raw)} {problem}; the 5th column must be a finite "
                                      f"decimal number such as 12.5 or -3e-2"
                                      + (_first_line_cause(fields, kind) if not qids and at_start else ""))
            score = float(raw)
            if not np.isfinite(score):
                raise TrecFormatError(f"{where}: score {_show(raw)} overflows a double; use a smaller number")
            values.append(score)
            tag = _text(fields[5], where, "tag")
        qids.append(qid)
        docnos.append(docno)
    if not qids:
        what = "is empty" if _first_line(buffer) is None else "has only comments and blank lines"
        raise TrecFormatError(_no_data_lines(label, kind, what))
    array = np.array(values, dtype=np.int64 if kind == "qrels" else np.float64)
    return pa.array(qids, type=pa.string()), pa.array(docnos, type=pa.string()), array, tag


_SWAPPED = "; the line looks like {kind} ({columns}): are the qrels and run files swapped?"


def _first_line_cause(fields: list[bytes], kind: str) -> str:
    """The likely cause when the first data line is wrong: JSON, CSV, a header line, or the other kind of file."""
    if fields[0][:1] in (b"{", b"["):
        columns = QRELS_COLUMNS if kind == "qrels" else RUN_COLUMNS
        return (f"; the file looks like JSON, not TREC text ({columns}): convert it to TREC lines here (the explorer "
                "page reads JSON {qid: {doc: value}} as it is)")
    if len(fields) < (4 if kind == "qrels" else 6) and any(b"," in field or b";" in field for field in fields):
        return "; the columns seem separated by commas or semicolons (CSV): TREC files separate them by spaces or tabs"
    if kind == "qrels" and _looks_like_run_line(fields):
        return _SWAPPED.format(kind="a run", columns=RUN_COLUMNS)
    if kind == "run" and len(fields) == 4 and _INTEGER.fullmatch(fields[3]):
        return _SWAPPED.format(kind="qrels", columns=QRELS_COLUMNS)
    column = 3 if kind == "qrels" else 4
    value = fields[column] if len(fields) > column else b""
    # A word is a header's column name, but nan and inf are numbers that are not finite (their own message says so).
    if value[:1].isalpha() and value.lower() not in (b"nan", b"inf", b"infinity"):
        return "; the first line looks like a header: delete it or start it with #"
    return ""


def _looks_like_run_line(fields: list[bytes]) -> bool:
    return len(fields) >= 6 and bool(_INTEGER.fullmatch(fields[3])) and bool(_NUMBER.fullmatch(fields[4]))


#: Formats people give by mistake, by the bytes they start with, and what to do instead.
_MAGIC = (
    (b"PK\x03\x04", "a zip archive (or an Excel/Word file); unzip it or export the data as text first"),
    (b"\xfd7zXZ\x00", "an xz archive; decompress it first (xz -d), or give a gzip file"),
    (b"\x28\xb5\x2f\xfd", "a zstd archive; decompress it first (zstd -d), or give a gzip file"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive; extract it first"),
    (b"PAR1", "a Parquet file; export it as TREC text first"),
    (b"%PDF-", "a PDF document"),
    (b"\x7fELF", "a program (an ELF executable)"),
    (b"\x93NUMPY", "a NumPy array file"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\xff\xfe", "UTF-16 text; save it as UTF-8"),
    (b"\xfe\xff", "UTF-16 text; save it as UTF-8"),
)
_BZIP2 = re.compile(rb"BZh[1-9]1AY&SY")


def _binary_kind(buffer) -> str | None:
    """What a file that is not text seems to be (from its first bytes), or None when it may be text."""
    head = bytes(buffer[:4096])
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return what
    if _BZIP2.match(head):
        return "a bzip2 archive; decompress it first (bunzip2), or give a gzip file"
    nuls = head.count(b"\x00")
    if nuls and nuls * 3 >= len(head):
        even, odd = head[0::2], head[1::2]
        # ASCII text in UTF-16: every other byte is NUL, the bytes between are not.
        if any(a.count(0) * 10 >= len(a) * 9 and b.count(0) * 10 <= len(b) for a, b in ((odd, even), (even, odd))):
            return "UTF-16 text; save it as UTF-8"
        return "a binary file (it is full of NUL bytes); give a plain or gzipped text file"
    if nuls * 100 >= len(head) and nuls > 1:
        return "a binary file (it holds NUL bytes); give a plain or gzipped text file"
    return None


_STRAY_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1f]|\r(?!\n|\Z)")
_CONTROL_NAMES = {0: "a NUL byte", 27: "an escape character (ESC)"}


def _check_control_bytes(buffer, label: str, first_line: int = 1) -> None:
    """Raise naming the first data line that holds a control byte other than whitespace, or a CR inside a line."""
    position = 0
    while True:
        found = _STRAY_CONTROL.search(buffer, position)
        if found is None:
            return
        line_start = buffer.rfind(b"\n", 0, found.start()) + 1
        line_end = buffer.find(b"\n", found.start())
        line_end = len(buffer) if line_end == -1 else line_end
        if bytes(buffer[line_start:line_end]).lstrip().startswith(b"#"):
            position = line_end
            continue
        number = buffer.count(b"\n", 0, found.start()) + first_line
        byte = found.group()[0]
        if byte == 13:
            raise TrecFormatError(
                f"{label} line {number}: a carriage return (CR) in the middle of the line; the file seems to use "
                "CR-only (classic Mac) line ends: convert them to LF, e.g. tr '\\r' '\\n' < old > new")
        what = _CONTROL_NAMES.get(byte, f"the control character 0x{byte:02X}")
        raise TrecFormatError(f"{label} line {number}: holds {what} at character {found.start() - line_start + 1}; "
                              "ids and values cannot hold control characters")


def line_number(source: Source, row: int, *, kind: str) -> int:
    """The line number of data row ``row`` (0-based, as in the tables) of a qrels or run file, for messages."""
    _, buffer = _load(source, None, None, kind)
    for index, (number, _) in enumerate(_data_lines(buffer, "")):
        if index == row:
            return number
    raise IndexError(f"the file has fewer than {row + 1} data lines")


def _no_data_lines(label: str, kind: str, what: str) -> str:
    return f"{label}: the file {what}; expected lines of '{_COLUMNS[kind]}'"


def _text(field: bytes, where: str, column: str) -> str:
    try:
        return field.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TrecFormatError(
            f"{where}: the {column} {_show(field)} is not valid UTF-8 (byte {error.start + 1}); "
            f"save the file as UTF-8") from None


def _show(field: bytes) -> str:
    return "'" + field.decode("utf-8", errors="backslashreplace") + "'"


def to_numpy(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A numpy array of a numeric or boolean arrow array without nulls.

    Arrow's own conversions import pandas (~0.15 s of start-up), so the buffers are read directly.
    """
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    if pa.types.is_boolean(values.type):
        parts = [np.unpackbits(np.frombuffer(chunk.buffers()[1], dtype=np.uint8), bitorder="little")
                 [chunk.offset:chunk.offset + len(chunk)].view(bool) for chunk in chunks]
    else:
        dtype = np.dtype(values.type.to_pandas_dtype())
        parts = [np.frombuffer(chunk.buffers()[1], dtype=dtype)[chunk.offset:chunk.offset + len(chunk)]
                 for chunk in chunks]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return np.zeros(0, dtype=bool if pa.types.is_boolean(values.type) else values.type.to_pandas_dtype())
    return np.concatenate(parts)


def from_numpy(values: np.ndarray) -> pa.Array:
    """An arrow array over a 1-d numeric or boolean numpy array (``pa.array`` would import pandas)."""
    values = np.ascontiguousarray(values)
    if values.dtype == bool:
        return pa.Array.from_buffers(pa.bool_(), values.shape[0],
                                     [None, pa.py_buffer(np.packbits(values, bitorder="little"))])
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), values.shape[0], [None, pa.py_buffer(values)])


def value_codes(values: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """The int32 code of each value (codes follow first appearance) and the distinct values in that order."""
    n = len(values)
    if n > 1:
        # The lines of a query are nearly always together: compare neighbours, and hash only when a value comes back.
        changes = np.flatnonzero(to_numpy(pc.not_equal(values[1:], values[:-1]))) + 1
        distinct = values.take(from_numpy(np.concatenate([[0], changes]).astype(np.int64)))
        if isinstance(distinct, pa.ChunkedArray):
            distinct = distinct.combine_chunks()
        if len(pc.unique(distinct)) == len(distinct):
            codes = np.zeros(n, dtype=np.int32)
            codes[changes] = 1
            return np.cumsum(codes, dtype=np.int32), distinct
    encoded = pc.dictionary_encode(values)
    if isinstance(encoded, pa.ChunkedArray):
        if encoded.num_chunks == 0:
            return np.zeros(0, dtype=np.int32), pa.array([], type=values.type)
        # Every chunk shares one dictionary, so the chunks concatenate without remapping.
        encoded = encoded.combine_chunks()
    return to_numpy(encoded.indices), encoded.dictionary


def docno_keys(docno: pa.Array | pa.ChunkedArray, *, hashed: bool = False,
               packed: bool = False) -> tuple[np.ndarray, bool]:
    """A uint64 key per string and whether the keys are exact.

    Exact keys (every string at most 8 bytes, and not ``hashed``) are the bytes packed big-endian, so comparing
    keys is comparing the strings in byte order. Otherwise the keys are a 64-bit polynomial hash of the bytes:
    equal strings have equal keys, also across arrays, but unequal strings may collide and the order means
    nothing. ``packed`` forces packing: longer strings are cut to their first 8 bytes (keys that match the packed
    keys of a short-id array, for a pre-filter).
    """
    chunks = docno.chunks if isinstance(docno, pa.ChunkedArray) else [docno]
    chunks = [chunk if chunk.type == pa.string() else chunk.cast(pa.string()) for chunk in chunks]
    longest = max((int(pc.max(pc.binary_length(chunk)).as_py() or 0) for chunk in chunks if len(chunk)), default=0)
    exact = (longest <= 8 or packed) and not hashed
    keys = np.empty(len(docno), dtype=np.uint64)
    done = 0
    for chunk in chunks:
        for start in range(0, len(chunk), _KEY_CHUNK):
            piece = chunk.slice(start, _KEY_CHUNK)
            keys[done:done + len(piece)] = _string_keys(piece, longest, exact)
            done += len(piece)
    return keys, exact and longest <= 8


#: The mask that keeps the first n bytes of a big-endian 64-bit word, for n = 0..8.
_WORD_MASKS = np.array([(0xFFFFFFFFFFFFFFFF << (8 * (8 - n))) & 0xFFFFFFFFFFFFFFFF for n in range(9)], dtype=np.uint64)

#: Strings of more 8-byte words than this are hashed one by one (see :func:`_string_keys`).
_SHORT_WORDS = 16
_HASH_MULTIPLIER = np.uint64(0x100000001B3)
_HASH_MIX = np.uint64(0x9E3779B97F4A7C15)


def _string_keys(strings: pa.Array, longest: int, exact: bool) -> np.ndarray:
    """A uint64 key per string: its first 8 bytes packed (``exact``), or the polynomial hash of its 8-byte words,
    key = sum over words w_i of (w_i ^ MIX) * MULTIPLIER^(m-1-i) (mod 2^64), mixed with its length.

    The cost is linear in the bytes: word i is hashed only for the strings that have it (a prefix once the
    strings are ordered by length), and a string of more than ``_SHORT_WORDS`` words is hashed alone in one
    vectorised pass; one id of a million characters among 100,000 short lines no longer costs a pass over every
    line per 8 bytes of it."""
    n = len(strings)
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int32)[strings.offset:strings.offset + n + 1]
    data = strings.buffers()[2]
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    first, last = int(offsets[0]), int(offsets[-1])
    starts = offsets[:-1] - first
    lengths = offsets[1:] - offsets[:-1]
    # Every string's bytes read 8 at a time: a big-endian 64-bit word at every byte offset of the data (zero-padded
    # by one word), so a word is one gather of 8 bytes, and the bytes past the string's end are masked off.
    padded = np.zeros(last - first + 16, dtype=np.uint8)
    padded[:last - first] = data[first:last]
    windows = np.ndarray(shape=(last - first + 8,), dtype=">u8", buffer=padded, strides=(1,))

    def words_at(rows: np.ndarray | None, word_start: int) -> np.ndarray:
        at, left = (starts, lengths) if rows is None else (starts[rows], lengths[rows])
        word = windows[at + word_start if word_start else at].astype(np.uint64)
        word &= _WORD_MASKS.take(np.clip(left - word_start, 0, 8))
        return word

    if exact:
        return words_at(None, 0)
    keys = np.zeros(n, dtype=np.uint64)
    words = (lengths.astype(np.int64) + 7) // 8
    order = np.argsort(-words, kind="stable")  # longest first: the strings that have word i are a prefix
    descending = -words[order]
    long_count = int(np.searchsorted(descending, -_SHORT_WORDS, side="left"))
    with np.errstate(over="ignore"):
        for row in order[:long_count]:  # each long string alone: its words, times the powers of the multiplier
            count = int(words[row])
            begin = first + int(starts[row])
            text = np.zeros(count * 8, dtype=np.uint8)
            text[:int(lengths[row])] = data[begin:begin + int(lengths[row])]
            powers = np.full(count, _HASH_MULTIPLIER, dtype=np.uint64)
            powers[-1] = 1
            powers = np.cumprod(powers[::-1])[::-1]
            keys[row] = np.sum((text.view(">u8").astype(np.uint64) ^ _HASH_MIX) * powers, dtype=np.uint64)
        for word in range(min(_SHORT_WORDS, int(words.max()) if n else 0)):
            rows = order[long_count:long_count + int(np.searchsorted(descending[long_count:], -word, side="left"))]
            keys[rows] = keys[rows] * _HASH_MULTIPLIER + (words_at(rows, 8 * word) ^ _HASH_MIX)
        keys ^= lengths.astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
    return keys


def _check_unique_pairs(qid_codes: np.ndarray, docno) -> tuple[np.ndarray, bool, bool]:
    """The docno keys, whether they are exact, and whether some (qid, docno) may appear twice."""
    keys, exact = docno_keys(docno)
    # Mixing the query code in may merge distinct pairs (the line-by-line check then clears them), never split
    # equal ones.
    pair_keys = qid_codes.astype(np.uint64)
    with np.errstate(over="ignore"):
        pair_keys *= np.uint64(0x165667B19E3779F9)
        pair_keys += keys
    pair_keys.sort()
    return keys, exact, bool((pair_keys[1:] == pair_keys[:-1]).any())


def _raise_duplicate(buffer: bytes, label: str, kind: str, first_line: int = 1) -> None:
    """Raise naming the two lines of a repeated (qid, docno); return if a key collision was all there was."""
    if kind == SUBTOPIC_KIND:
        _slow_parse_subtopics(buffer, label)  # names a repeated (qid, subtopic, docno)
        return
    seen: dict[tuple[bytes, bytes], int] = {}
    for number, fields in _data_lines(buffer, label, first_line):
        pair = (fields[0], fields[2])
        if pair in seen:
            what = "judgment" if kind == "qrels" else "document"
            qid_text, doc_text = pair[0].decode("utf-8"), pair[1].decode("utf-8")
            raise TrecFormatError(
                f"{label} line {number}: {what} {short_repr(doc_text, 80)} of query {short_repr(qid_text, 80)} "
                f"already appears on line "
                f"{seen[pair]}; keep one line per (qid, docno)")
        seen[pair] = number


# ---- subtopic qrels (NIST's ndeval) ---------------------------------------------------------------------------


def read_subtopic_table(source: Source, *, name: str | None = None,
                        max_bytes: int | None = None) -> SubtopicQrelsTable:
    """Read subtopic (intent) qrels, the format NIST's ndeval reads for the TREC Web track's diversity measures:
    ``qid subtopic docno grade``, one line per (query, subtopic, document), into a :class:`SubtopicQrelsTable`.

    The same reader stack as :func:`read_qrels` (paths, bytes, text or file objects, gzip and its limits,
    ``max_bytes``, comments, the columnar fast path), and its messages: the file, the line and the fix.
    """
    qid, docno, grade, subtopic, _, _, codes, label = _read(source, name, max_bytes, SUBTOPIC_KIND)
    return SubtopicQrelsTable(qid, subtopic, docno, grade, label, *codes)


def read_subtopic_qrels(source: Source, *, name: str | None = None,
                        max_bytes: int | None = None) -> dict[str, dict[str, dict[str, int]]]:
    """:func:`read_subtopic_table` as ``{qid: {docno: {subtopic: grade}}}`` (queries, documents and subtopics in
    file order), what :func:`metrics.evaluate` takes."""
    return read_subtopic_table(source, name=name, max_bytes=max_bytes).to_dict()


def _slow_parse_subtopics(buffer, label: str):
    """The line-by-line reader of subtopic qrels: the columns of :func:`_fast_parse` (the subtopics in the tag's
    place), or the error naming the first bad line."""
    kind = SUBTOPIC_KIND
    binary = _binary_kind(buffer)
    if binary:
        raise TrecFormatError(f"{label}: this is not a {kind} text file: it looks like {binary}")
    _check_control_bytes(buffer, label)
    qids: list[str] = []
    subtopics: list[str] = []
    docnos: list[str] = []
    grades: list[int] = []
    seen: dict[tuple[bytes, bytes, bytes], int] = {}
    for number, fields in _data_lines(buffer, label):
        where = f"{label} line {number}"
        if len(fields) != 4:
            cause = ""
            if not seen and _looks_like_run_line(fields):
                cause = _SWAPPED.format(kind="a run", columns=RUN_COLUMNS)
            raise TrecFormatError(f"{where}: expected 4 columns ({SUBTOPIC_QRELS_COLUMNS}), found {len(fields)}"
                                  + cause)
        if not _INTEGER.fullmatch(fields[3]):
            header = "; the first line looks like a header: delete it or start it with #" if (
                not seen and fields[3][:1].isalpha()) else ""
            raise TrecFormatError(f"{where}: grade {_show(fields[3])} is not an integer; write grades as whole "
                                  f"numbers such as 0 or 1 (1 and above: relevant to the subtopic)" + header)
        grade = int(fields[3])
        if not MIN_GRADE <= grade <= MAX_GRADE:
            raise TrecFormatError(f"{where}: grade {_show(fields[3])} is out of range; grades are whole numbers from "
                                  "-2^63 to 2^63-1")
        key = (fields[0], fields[1], fields[2])
        if key in seen:
            raise TrecFormatError(f"{where}: subtopic {short_repr(_show(fields[1])[1:-1], 80)} of document "
                                  f"{short_repr(_show(fields[2])[1:-1], 80)} of query "
                                  f"{short_repr(_show(fields[0])[1:-1], 80)} is already judged on line {seen[key]}; "
                                  "keep one line per (qid, subtopic, docno)")
        seen[key] = number
        qids.append(_text(fields[0], where, "qid"))
        subtopics.append(_text(fields[1], where, "subtopic"))
        docnos.append(_text(fields[2], where, "docno"))
        grades.append(grade)
    if not qids:
        what = "is empty" if _first_line(buffer) is None else "has only comments and blank lines"
        raise TrecFormatError(_no_data_lines(label, kind, what))
    return (pa.array(qids, type=pa.string()), pa.array(docnos, type=pa.string()), np.array(grades, dtype=np.int64),
            pa.array(subtopics, type=pa.string()))


__all__ = ["MAX_STREAM_BYTES", "QrelsTable", "RunTable", "SubtopicQrelsTable", "TrecFormatError", "load_bytes",
           "looks_like_content", "read_qrels", "read_run", "read_subtopic_qrels", "read_subtopic_table", "stream_cap"]
