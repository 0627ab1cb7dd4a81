"""Inputs that used to fall off the fast path or cost memory out of proportion: comments, blank files."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from metrics.io import trec as trec_io
from metrics.io.trec import TrecFormatError, read_qrels, read_run

RUN = "q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5 bm25\nq2 Q0 d1 1 0.5 bm25\n"


def refuse_careful_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the line-by-line reader and the whitespace normalisation fail: only the vectorised path may run."""
    def fail(*args, **kwargs):
        raise AssertionError("left the vectorised path")

    monkeypatch.setattr(trec_io, "_slow_parse", fail)
    monkeypatch.setattr(trec_io, "_normalise_whitespace", fail)


@pytest.mark.parametrize("separator", [" ", "\t"])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_comment_line_keeps_a_clean_run_on_the_vectorised_path(
        separator: str, where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = RUN.replace(" ", separator).splitlines()
    comment = "# bm25 run, k1=0.9 b=0.4"  # spaces in a comment of a tab-separated file too
    position = {"first": 0, "middle": 2, "last": len(lines)}[where]
    text = "\n".join(lines[:position] + [comment] + lines[position:]) + "\n"
    expected = read_run(RUN)
    refuse_careful_paths(monkeypatch)
    run = read_run(text)
    assert run.to_dict() == expected.to_dict()
    assert run.runid == "bm25"


def test_a_large_run_with_one_comment_line_is_read_without_the_line_by_line_reader(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    lines = [f"q{i % 97} Q0 d{i} {i % 1000 + 1} {(i * 7919) % 1000 / 7} tag" for i in range(300_000)]
    lines.insert(150_000, "# written by a script")
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    refuse_careful_paths(monkeypatch)
    run = read_run(path)
    assert len(run) == 300_000 and run.query("q0")["d0"] == 0.0


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 8, 1 << 24])
def test_comment_lines_are_dropped_alike_at_every_chunk_boundary(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec_io, "_NORMALISE_CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    for _ in range(20):
        lines = ["".join(rng.choice(list("ab #"), size=rng.integers(0, 5))) for _ in range(rng.integers(1, 8))]
        text = "\n".join(lines) + ("\n" if rng.random() < 0.5 else "")
        expected = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("#"))
        assert trec_io._drop_comment_lines(text.encode()).tobytes().decode() == expected, repr(text)


@pytest.mark.parametrize(("text", "what"), [
    ("\n" * 1000, "is empty"),
    (" \r\n\t\n" * 1000, "is empty"),
    ("# a comment\n\n" * 1000, "has only comments and blank lines"),
    ("  # an indented comment\r\n" * 1000, "has only comments and blank lines"),
])
def test_a_file_without_data_lines_is_refused_by_the_vectorised_path(
        text: str, what: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec_io, "_slow_parse", None)
    with pytest.raises(TrecFormatError, match=f"^run.txt: the file {what}; expected lines of 'qid Q0 docno rank"):
        read_run(text, name="run.txt")
    with pytest.raises(TrecFormatError, match=f"^qrels.txt: the file {what}; expected lines of 'qid iter docno rel'"):
        read_qrels(text, name="qrels.txt")


def test_a_large_file_of_blank_lines_is_refused_in_memory_below_its_size(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec_io, "_NORMALISE_CHUNK", 1 << 20)  # the scans work in slices of this size
    size = 16 << 20
    path = tmp_path / "blank.run"
    path.write_bytes(b"\n" * size)
    tracemalloc.start()
    try:
        with pytest.raises(TrecFormatError, match="the file is empty"):
            read_run(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Splitting it into lines took about 40x its size; the scans need a few slices.
    assert peak < size / 2


def test_the_line_by_line_reader_cuts_lines_as_it_goes() -> None:
    text = b"q1 Q0 d1 1 2.5 bm25\n" * 500_000
    tracemalloc.start()
    try:
        lines = trec_io._data_lines(text, "run.txt")
        assert next(lines) == (1, [b"q1", b"Q0", b"d1", b"1", b"2.5", b"bm25"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Splitting the whole text first took 3x its size before the first line was looked at.
    assert peak < 4096
