"""One parsed copy per upload on screen.

Parsing a file is slow and its result large, so each upload is parsed once per session and kept under its id and
size (never re-hashed on a rerun); once the upload is gone from every uploader, its copy goes too. Pasted text is
kept the same way, one copy per kind. Errors are kept like results and raised each time they are asked for.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from metrics import InputError
from metrics.io.trec import QrelsTable, RunTable, read_qrels, read_run

from .text import literal

CACHE = "parsed_uploads"
#: Whole runs: an MS MARCO dev run (7M lines) is about 240 MB.
MAX_RUN_BYTES = 256 * 1024 * 1024
T = TypeVar("T")


def parsed_upload(kind: str, upload: UploadedFile, parse: Callable[[], T]) -> T:
    """``parse()``'s result for this upload, computed on first use."""
    cache = st.session_state.setdefault(CACHE, {})
    live = _live_upload_ids()
    for key in [key for key in cache if key[1] not in live and not key[1].startswith("pasted")]:
        del cache[key]
    return _kept(cache, (kind, upload.file_id, upload.size), parse)


def parsed(kind: str, upload) -> QrelsTable | RunTable:
    """A qrels or run upload read into a table once per session; errors are raised each time it is asked for."""
    def parse() -> QrelsTable | RunTable:
        reader = read_qrels if kind == "qrels" else read_run
        with st.spinner(f"Reading {literal(upload.name)} ({upload.size / 2**20:.1f} MiB)…"):
            return reader(upload.getvalue(), name=upload.name, max_bytes=MAX_RUN_BYTES)

    return parsed_upload(kind, upload, parse)


def parsed_text(kind: str, text: str, parse: Callable[[], T]) -> T:
    """``parse()``'s result for pasted ``text``; a new paste replaces the previous one of the same kind."""
    cache = st.session_state.setdefault(CACHE, {})
    digest = "pasted " + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    for key in [key for key in cache if key[0] == kind and key[1].startswith("pasted") and key[1] != digest]:
        del cache[key]
    return _kept(cache, (kind, digest, len(text)), parse)


def _kept(cache: dict, key: tuple, parse: Callable[[], T]) -> T:
    if key not in cache:
        try:
            cache[key] = parse()
        except InputError as error:
            cache[key] = error
    result = cache[key]
    if isinstance(result, InputError):
        raise result
    return result


def _live_upload_ids() -> set[str]:
    """The ids of the files every uploader of this session holds now."""
    live = set()
    for value in st.session_state.values():
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, UploadedFile):
                live.add(item.file_id)
    return live
