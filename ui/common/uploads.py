"""Every upload of the app, read one way: qrels and runs (TREC text, plain or gzip, or pytrec_eval-shaped JSON)
through the engine's readers into the data model's tables, with one cap, each parsed once per session.

Parsing a file is slow and its result large, so each upload is parsed once per session and kept under its id and
size (never re-hashed on a rerun); once the upload is gone from every uploader, its copy goes too. Pasted text is
kept the same way, one copy per kind. Errors are kept like results and raised each time they are asked for.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from typing import Literal, TypeVar

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from metrics import InputError
from metrics.io import read_qrels, read_run
from metrics.io.trec import QrelsTable, RunTable

from .text import literal

CACHE = "parsed_uploads"
#: The one cap of every qrels or run upload, after gzip and decompressed alike (an MS MARCO dev run, 7M lines, is
#: about 240 MB). The readers refuse a larger file with a message naming it.
MAX_UPLOAD_BYTES = 256 * 2**20
#: The uploader's own limit, in its megabytes: browsers count 10^6 bytes to one (2^20 on Windows), so 256 of them
#: refused a 250 MiB file. The smallest whole number of them that holds the cap lets every file up to the cap
#: through; the readers then refuse what lies between, with the cap's message. (The server's own limit,
#: server.maxUploadSize in .streamlit/config.toml, is counted in MiB and is at least this.)
UPLOADER_MB = math.ceil(MAX_UPLOAD_BYTES / 10**6)
#: What the pages say beside their uploaders.
CAP_TEXT = f"up to {MAX_UPLOAD_BYTES // 2**20} MiB (after gzip; the uploader counts it as {UPLOADER_MB}MB)"
Kind = Literal["qrels", "run"]
T = TypeVar("T")


def read_upload(kind: Kind, data: bytes, name: str) -> QrelsTable | RunTable:
    """qrels or a run from TREC text or JSON ``{qid: {doc: value}}``, plain or gzip, as the data model's table: the
    engine's one reader (:mod:`metrics.io`, which tells the formats apart) with the one cap."""
    read = read_qrels if kind == "qrels" else read_run
    return read(data, name=name, max_bytes=MAX_UPLOAD_BYTES)


def uploader(label: str, key: str, *, container=st, **kwargs) -> UploadedFile | list[UploadedFile] | None:
    """A file uploader for qrels or runs (in ``container``, e.g. a column) that lets every file up to the cap
    through (see :data:`UPLOADER_MB`)."""
    return container.file_uploader(label, key=key, max_upload_size=UPLOADER_MB, **kwargs)


def uploaded_table(kind: Kind, upload: UploadedFile) -> QrelsTable | RunTable:
    """An upload read once per session (:func:`read_upload`); errors are raised each time it is asked for."""
    def parse() -> QrelsTable | RunTable:
        with st.spinner(f"Reading {literal(upload.name)} ({upload.size / 2**20:.1f} MiB)…"):
            return read_upload(kind, upload.getvalue(), upload.name)

    return parsed_upload(kind, upload, parse)


def pasted_table(kind: Kind, text: str) -> QrelsTable | RunTable:
    """Pasted qrels or run text, read once per paste (:func:`read_upload`)."""
    def parse() -> QrelsTable | RunTable:
        with st.spinner(f"Reading the pasted {kind}…"):
            return read_upload(kind, text.encode("utf-8"), f"pasted {kind}")

    return parsed_text(kind, text, parse)


def parsed_upload(kind: str, upload: UploadedFile, parse: Callable[[], T]) -> T:
    """``parse()``'s result for this upload, computed on first use."""
    cache = st.session_state.setdefault(CACHE, {})
    live = _live_upload_ids()
    for key in [key for key in cache if key[1] not in live and not key[1].startswith("pasted")]:
        del cache[key]
    return _kept(cache, (kind, upload.file_id, upload.size), parse)


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
