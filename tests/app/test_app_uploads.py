"""Uploads are parsed once and kept once: a rerun never parses (or hashes) a file again, and a file replaced in
its uploader leaves the session with it."""

from __future__ import annotations

import os
import sys

from streamlit.runtime.uploaded_file_manager import UploadedFile

from tests.app.support import assert_no_failure, open_app, open_runs_page
from ui.common import uploads
from ui.common.uploads import CACHE

QRELS = b"q1 0 d1 1\nq1 0 d3 1\nq2 0 d1 1\n"
RUN = b"q1 Q0 d1 1 0.9 mine\nq1 Q0 d2 2 0.8 mine\nq2 Q0 d1 1 0.5 mine\n"

def counting(monkeypatch, module, name: str) -> list[int]:
    calls: list[int] = []
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        if f"{os.sep}ui{os.sep}" in sys._getframe(1).f_code.co_filename:  # the app's calls, not Streamlit's own
            calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls

def test_the_explorer_reads_each_upload_once_however_often_the_page_reruns(monkeypatch):
    """A 34 MB upload was read and hashed again on every rerun (+0.4 s each) to find its cached parse."""
    reads = counting(monkeypatch, UploadedFile, "getvalue")
    parses = counting(monkeypatch, uploads, "read_upload")
    at = open_app()
    at.file_uploader(key="upload_qrels").set_value(("q.txt", QRELS, "text/plain"))
    at.file_uploader(key="upload_run").set_value(("r.txt", RUN, "text/plain"))
    at.run()
    for k in (3, 4, 5):
        at.number_input(key="k_input").set_value(k).run()
    assert_no_failure(at)
    assert (len(reads), len(parses)) == (2, 2)  # the qrels and the run, once each


def test_a_replaced_run_leaves_the_session_with_its_parsed_copy():
    at = open_runs_page()
    at.file_uploader(key="runs_qrels").set_value(("q.txt", QRELS, "text/plain"))
    at.file_uploader(key="runs_runs").set_value([("a.run", RUN, "text/plain")])
    at.run()
    at.file_uploader(key="runs_runs").set_value([("b.run", RUN.replace(b"0.9", b"0.1"), "text/plain")])
    at.run()
    assert_no_failure(at)
    kept = at.session_state[CACHE]
    assert sorted(kind for kind, *_ in kept) == ["qrels", "run"]
    assert all(size in (len(QRELS), len(RUN)) for _, _, size in kept)

def test_the_explorer_keeps_one_pasted_copy_per_kind():
    at = open_app()
    for text in (RUN, RUN.replace(b"0.9", b"0.7"), RUN.replace(b"0.9", b"0.6")):
        at.text_area(key="paste_run").input(text.decode()).run()
    assert_no_failure(at)
    assert [kind for kind, *_ in at.session_state[CACHE]] == ["run"]
