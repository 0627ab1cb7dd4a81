"""Reading qrels and runs written as pytrec_eval-shaped JSON: ``{qid: {doc: grade}}`` and ``{qid: {doc: score}}``,
or both at once as ``{"qrels": {...}, "run": {...}}`` (what the explorer's JSON download holds), plain or gzipped.

The ids and values pass the same checks as those of TREC files (:mod:`metrics.ids`, integer grades in trec_eval's
range, finite scores), and every problem is one :class:`~metrics.InputError` naming the file. The input is bounded:
``max_bytes`` caps the (decompressed) size, gzip is decompressed no further than that nor past the expansion limit
the TREC readers keep to (:mod:`metrics.io.compressed`), and JSON nested too deeply for the parser is refused with a
message.
"""

from __future__ import annotations

import json
import math
import zlib
from typing import Literal

from ..ids import check_id
from ..model import InputError, check_grades, short_repr
from .compressed import GZIP_MAX_RATIO, expands_too_much, gunzipped_head, gunzipped_slices, is_gzip

Kind = Literal["qrels", "run"]



def is_json(data: bytes) -> bool:
    """Whether ``data`` (plain or gzipped) starts like JSON: an object (TREC text never starts with '{'), or an
    array whose first line is not a TREC line."""
    if is_gzip(data):
        head = gunzipped_head(data, 64)  # only the first bytes are decompressed
        if head is None:
            return False
        data = head
    text = bytes(data[:4096]).removeprefix(b"\xef\xbb\xbf").lstrip()
    if text[:1] == b"[":
        # A JSON array ([1, 2]) is JSON of the wrong shape, to be told so; a TREC line may start with '[' too (a qid
        # "[1]"), but has at least 4 columns.
        return len(text.split(b"\n", 1)[0].split()) < 4
    return text[:1] == b"{"


def read_json_qrels(data: bytes, *, name: str = "qrels", max_bytes: int | None = None) -> dict[str, dict[str, int]]:
    """``{qid: {doc: grade}}`` from JSON bytes (plain or gzip)."""
    return _checked(_payload(data, name, max_bytes), name, "qrels")  # type: ignore[return-value]


def read_json_run(data: bytes, *, name: str = "run", max_bytes: int | None = None) -> dict[str, dict[str, float]]:
    """``{qid: {doc: score}}`` from JSON bytes (plain or gzip)."""
    return _checked(_payload(data, name, max_bytes), name, "run")  # type: ignore[return-value]


def _payload(data: bytes, label: str, max_bytes: int | None) -> object:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InputError(f"{label}: JSON input has to be bytes, got {type(data).__name__}")
    data = bytes(data)
    if is_gzip(data):
        data = _gunzip(data, label, max_bytes)
    if max_bytes is not None and len(data) > max_bytes:
        raise InputError(f"{label}: the file is {len(data) / 2**20:.1f} MiB, more than the {max_bytes / 2**20:g} "
                         "MiB limit")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{label}: not valid UTF-8 (byte {error.start + 1}); save the file as UTF-8") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{label} line {error.lineno}: not valid JSON ({error.msg})") from None
    except RecursionError:  # the C parser counts its depth and stops cleanly
        raise InputError(f"{label}: JSON nested too deeply; qrels and runs are {{qid: {{doc: value}}}}, "
                         "two levels") from None


def _gunzip(data: bytes, label: str, max_bytes: int | None) -> bytearray:
    """Decompress in slices (:func:`~metrics.io.compressed.gunzipped_slices`), refused as soon as the output passes
    ``max_bytes`` or the expansion limit for gzip input (a bomb never fills memory)."""
    out = bytearray()  # one buffer, grown in place (a list of slices joined would hold the text twice)
    try:
        for piece, read in gunzipped_slices(data, max_bytes):
            out += piece
            size = len(out)
            if max_bytes is not None and size > max_bytes:
                raise InputError(f"{label}: the file decompresses to more than the {max_bytes / 2**20:g} MiB limit")
            if expands_too_much(size, read):
                raise InputError(
                    f"{label}: expands more than {GZIP_MAX_RATIO} times in decompression ({read / 1e6:.1f} MB read "
                    f"gave over {size / 1e6:.0f} MB), the expansion limit for gzip input; JSON qrels and runs expand "
                    f"3 to 6 times, so this is not one. If it is, decompress it (gunzip) and give the plain file")
    except zlib.error as error:
        raise InputError(f"{label}: looks like gzip but cannot be decompressed ({error}); "
                         "re-create it with gzip or give the plain file") from None
    except EOFError:
        raise InputError(f"{label}: the gzip stream is truncated; re-create it with gzip or give the plain file"
                         ) from None
    return out


def _checked(payload: object, label: str, kind: Kind) -> dict[str, dict]:
    if isinstance(payload, dict) and set(payload) == {"qrels", "run"}:
        payload = payload[kind]
    value_shape = "{doc: grade}" if kind == "qrels" else "{doc: score}"
    if not isinstance(payload, dict):
        raise InputError(f"{label}: JSON {kind} has to be an object {{qid: {value_shape}}}, "
                         f"got {type(payload).__name__}")
    result: dict[str, dict] = {}
    for qid, docs in payload.items():
        check_id(qid, "query id", where=label)
        where = f"{label}, query {qid!r}"
        if not isinstance(docs, dict):
            raise InputError(f"{where}: has to map document ids to values {value_shape}, got {type(docs).__name__}")
        for doc in docs:
            check_id(doc, "document id", where=where)
        if kind == "qrels":
            check_grades(docs, where=where)
            result[qid] = {doc: int(grade) for doc, grade in docs.items()}
        else:
            for doc, score in docs.items():
                if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                    raise InputError(f"{where}, document {doc!r}: score has to be a finite number, got "
                                     f"{short_repr(score)}")
            result[qid] = {doc: float(score) for doc, score in docs.items()}
    return result


__all__ = ["is_json", "read_json_qrels", "read_json_run"]
