"""Reading uploaded or pasted qrels and runs (TREC text, gzip, or pytrec_eval-shaped JSON) into dicts.

Pure functions: every problem becomes an InputError that names the file and, for TREC text, the line.
"""

from __future__ import annotations

import gzip
import json
import math

from metrics import InputError
from metrics.trec_io import read_qrels, read_run

#: The explorer edits one query at a time; whole runs go to the "Evaluate a run" page.
MAX_UPLOAD_BYTES = 64 * 1024 * 1024


def _json_payload(data: bytes) -> object | None:
    """The decoded JSON when the upload is JSON (possibly gzipped), None when it looks like TREC text."""
    if data[:2] == b"\x1f\x8b":
        try:
            head = gzip.decompress(data[: 1 << 16] if len(data) > 1 << 16 else data)[:64]
        except (OSError, EOFError):
            return None
        if not head.lstrip().startswith(b"{"):
            return None
        data = gzip.decompress(data)
    if not data.lstrip()[:1] == b"{":
        return None
    try:
        return json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"not valid JSON: {error}") from None


def _check_dict(payload: object, label: str, kind: str) -> dict[str, dict[str, float]]:
    if isinstance(payload, dict) and set(payload) == {"qrels", "run"}:
        payload = payload[kind]
    if not isinstance(payload, dict):
        raise InputError(f"{label}: JSON {kind} has to be an object {{qid: {{doc: value}}}}")
    for qid, docs in payload.items():
        if not isinstance(docs, dict):
            raise InputError(f"{label}: query {qid!r} has to map document ids to values, got {type(docs).__name__}")
        for doc, value in docs.items():
            bad = isinstance(value, bool) or not isinstance(value, (int, float))
            if not bad and kind == "qrels" and not float(value).is_integer():
                bad = True
            if not bad and isinstance(value, float) and not math.isfinite(value):
                bad = True
            if bad:
                what = "an integer grade" if kind == "qrels" else "a finite number"
                raise InputError(f"{label}: query {qid!r}, document {doc!r}: expected {what}, got {value!r}")
    if kind == "qrels":
        return {qid: {doc: int(v) for doc, v in docs.items()} for qid, docs in payload.items()}
    return {qid: {doc: float(v) for doc, v in docs.items()} for qid, docs in payload.items()}


def load_qrels(data: bytes, label: str = "qrels") -> dict[str, dict[str, int]]:
    """qrels from TREC text (4 columns), gzip, or JSON ``{qid: {doc: grade}}``."""
    _check_size(data, label)
    payload = _json_payload(data)
    if payload is not None:
        return _check_dict(payload, label, "qrels")  # type: ignore[return-value]
    return read_qrels(data, name=label, max_bytes=MAX_UPLOAD_BYTES).to_dict()


def load_run(data: bytes, label: str = "run") -> dict[str, dict[str, float]]:
    """A run from TREC text (6 columns), gzip, or JSON ``{qid: {doc: score}}``."""
    _check_size(data, label)
    payload = _json_payload(data)
    if payload is not None:
        return _check_dict(payload, label, "run")
    return read_run(data, name=label, max_bytes=MAX_UPLOAD_BYTES).to_dict()


def _check_size(data: bytes, label: str) -> None:
    if len(data) > MAX_UPLOAD_BYTES:
        raise InputError(
            f"{label} is {len(data) / 2**20:.0f} MB; the explorer reads at most {MAX_UPLOAD_BYTES // 2**20} MB "
            "(use the 'Evaluate a run' page or the command line for whole runs)"
        )
    if not data.strip():
        raise InputError(f"{label} is empty")
