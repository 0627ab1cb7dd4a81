"""Reading uploaded or pasted qrels and runs (TREC text, gzip, or pytrec_eval-shaped JSON) into dicts.

Pure functions: every problem becomes an InputError that names the file and, for TREC text, the line.
"""

from __future__ import annotations

from metrics import InputError
from metrics.io.json import is_json, read_json_qrels, read_json_run
from metrics.io.trec import read_qrels, read_run

#: The explorer edits one query at a time; whole runs go to the "Evaluate a run" page.
MAX_UPLOAD_BYTES = 64 * 1024 * 1024


def load_qrels(data: bytes, label: str = "qrels") -> dict[str, dict[str, int]]:
    """qrels from TREC text (4 columns), gzip, or JSON ``{qid: {doc: grade}}``."""
    _check_size(data, label)
    if is_json(data):
        return read_json_qrels(data, name=label, max_bytes=MAX_UPLOAD_BYTES)
    return read_qrels(data, name=label, max_bytes=MAX_UPLOAD_BYTES).to_dict()


def load_run(data: bytes, label: str = "run") -> dict[str, dict[str, float]]:
    """A run from TREC text (6 columns), gzip, or JSON ``{qid: {doc: score}}``."""
    _check_size(data, label)
    if is_json(data):
        return read_json_run(data, name=label, max_bytes=MAX_UPLOAD_BYTES)
    return read_run(data, name=label, max_bytes=MAX_UPLOAD_BYTES).to_dict()


def _check_size(data: bytes, label: str) -> None:
    if len(data) > MAX_UPLOAD_BYTES:
        raise InputError(
            f"{label} is {len(data) / 2**20:.1f} MiB; the explorer reads at most {MAX_UPLOAD_BYTES // 2**20} MiB "
            "(use the 'Evaluate a run' page or the command line for whole runs)"
        )
    if not data.strip():
        raise InputError(f"{label} is empty")
