"""What the TREC readers refuse beyond the column format (the catalogue holds one case of each; these pin the
mechanics): control bytes and CR-only line ends on every path, also across the chunks of the vectorised check."""

from __future__ import annotations

import io

import pytest

from metrics.io import trec as trec_io
from metrics.io.trec import TrecFormatError, read_qrels, read_run


@pytest.mark.parametrize("chunk", [4, 5, 6, 7, 1 << 24])
def test_crlf_is_a_line_end_wherever_a_chunk_boundary_falls(monkeypatch, chunk):
    monkeypatch.setattr(trec_io, "_NORMALISE_CHUNK", chunk)
    text = b"q1 0 d1 1\r\nq1  0 d2 0\r\n"
    assert not trec_io._has_stray_control(text)
    assert read_qrels(text).to_dict() == {"q1": {"d1": 1, "d2": 0}}


@pytest.mark.parametrize("chunk", [4, 5, 6, 7, 1 << 24])
@pytest.mark.parametrize("text", [b"q1 0 d1 1\rq1 0 d2 0\r", b"q1 0 d1 1\nq1 0 d2\x00 0\n", b"q1 0 d1 1\n\x1f"])
def test_a_lone_cr_or_a_control_byte_is_seen_wherever_a_chunk_boundary_falls(monkeypatch, chunk, text):
    monkeypatch.setattr(trec_io, "_NORMALISE_CHUNK", chunk)
    assert trec_io._has_stray_control(text)


def test_cr_only_line_ends_are_refused_instead_of_keeping_one_line_of_three(tmp_path):
    path = tmp_path / "mac.run"
    path.write_bytes(b"q1 Q0 d1 1 0.9 t\rq1 Q0 d2 2 0.8 t\rq1 Q0 d3 3 0.7 t\r")
    with pytest.raises(TrecFormatError, match=r"mac\.run line 1: a carriage return \(CR\) in the middle of the line"):
        read_run(path)


def test_a_nul_in_a_comment_line_is_ignored_like_the_comment():
    assert read_qrels(b"# made by \x00tool\nq1 0 d1 1\n").to_dict() == {"q1": {"d1": 1}}


def test_a_file_named_with_three_spaces_is_read_as_a_file_not_as_its_name(tmp_path):
    path = tmp_path / "my qrels for trec"
    path.write_text("q1 0 d1 1\n")
    assert read_qrels(str(path)).to_dict() == {"q1": {"d1": 1}}


class EndlessRun:
    """A stream of good run lines that never ends (``yes 'q1 Q0 d1 1 1 t' |``): only a size cap stops reading it."""

    line = b"q1 Q0 d1 1 1 t\n"

    def __init__(self):
        self.given = 0

    def read(self, size: int = -1) -> bytes:
        assert size is not None and size >= 0, "an endless stream is never read to its end"
        self.given += size
        return (self.line * (size // len(self.line) + 1))[:size]


def test_a_stream_of_good_lines_without_end_is_refused_at_the_stream_cap(monkeypatch):
    monkeypatch.setattr(trec_io, "MAX_STREAM_BYTES", 8 << 20)
    stream = EndlessRun()
    with pytest.raises(TrecFormatError, match="more than the 8 MiB limit of a pipe, a device or standard input; "
                                              "save it to a file"):
        read_run(stream, name="stdin")
    assert stream.given <= (8 << 20) + 1  # one byte past the cap, never more


def test_a_given_max_bytes_is_the_cap_of_a_stream_and_keeps_the_upload_message():
    with pytest.raises(TrecFormatError, match="the file is 1.0 MiB, more than the 1 MiB limit; evaluate it with"):
        read_run(EndlessRun(), name="upload", max_bytes=1 << 20)


def test_a_file_object_on_disk_is_read_in_any_size_as_its_path_is(monkeypatch, tmp_path):
    monkeypatch.setattr(trec_io, "MAX_STREAM_BYTES", 1 << 10)  # far below the file: a file on disk has no such cap
    path = tmp_path / "run"
    path.write_bytes(b"".join(b"q1 Q0 d%d 1 %d t\n" % (i, i) for i in range(1000)))
    with open(path, "rb") as file:
        assert len(read_run(file)) == 1000
    with pytest.raises(TrecFormatError, match="limit of a pipe"):
        read_run(io.BytesIO(path.read_bytes()))
