"""gzip input is decompressed in slices, with a cap on how far it may expand and a look at its first megabyte."""

from __future__ import annotations

import gzip
import io
import resource
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from metrics.io import compressed
from metrics.io import trec as trec_io
from metrics.io.trec import TrecFormatError, read_qrels, read_run
from tests.support.paths import REPO

QRELS = "q1 0 d1 1\nq2 0 d3 1\n"
MEMORY_CAP = 1 << 30  # the command line needs about 0.5 GB of address space to start


def repeated_gzip(unit: bytes, copies: int) -> bytes:
    """A gzip file of ``unit`` repeated: one compressed member, concatenated (gzip allows many members)."""
    return gzip.compress(unit, compresslevel=9, mtime=0) * copies


def run_cli(tmp_path: Path, run: bytes) -> subprocess.CompletedProcess:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run.gz").write_bytes(run)

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    return subprocess.run([sys.executable, "-m", "metrics", "-m", "map", str(tmp_path / "qrels"),
                           str(tmp_path / "run.gz")], cwd=REPO, capture_output=True, text=True,
                          preexec_fn=cap_memory, timeout=120)


def assert_one_line_refusal(result: subprocess.CompletedProcess, expected: str) -> None:
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("python -m metrics: run.gz: "), result.stderr[-2000:]
    assert expected in lines[0]
    assert result.stdout == ""


def test_a_gzip_bomb_of_trec_lines_is_refused_at_the_expansion_limit(tmp_path: Path) -> None:
    # 2 GB of one valid line from 4 MB: without a cap this ran out of memory.
    bomb = repeated_gzip(b"q1 Q0 d1 1 1.0 bomb\n" * 500_000, 200)
    result = run_cli(tmp_path, bomb)
    assert_one_line_refusal(result, f"expands more than {compressed.GZIP_MAX_RATIO} times in decompression")
    assert "the expansion limit for gzip input" in result.stderr and "gunzip" in result.stderr


def test_a_gzip_of_newlines_is_refused_after_its_first_megabyte(tmp_path: Path) -> None:
    result = run_cli(tmp_path, repeated_gzip(b"\n" * (10 << 20), 200))  # 2 GB of newlines
    assert_one_line_refusal(result, "the first 1 MB after decompression hold only blank lines and comments, "
                                    "so this is not a TREC run file")


def test_gzipped_data_without_line_breaks_is_refused_after_its_first_megabyte() -> None:
    with pytest.raises(TrecFormatError, match="^run.gz: no line break in the first 1 MB after decompression"):
        read_run(repeated_gzip(b"x" * (1 << 20), 40), name="run.gz")


def test_a_bad_line_at_the_start_of_a_large_gzip_file_is_named_from_its_first_megabyte(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\nq1 Q0 d3 x 1.5\n" + b"".join(
        b"q2 Q0 d%d 1 0.5 t\n" % i for i in range(200_000))
    seen: list[int] = []
    original = trec_io._fast_parse
    monkeypatch.setattr(trec_io, "_fast_parse", lambda *args: seen.append(1) or original(*args))
    with pytest.raises(TrecFormatError, match="^run.gz line 3: expected 6 columns"):
        read_run(gzip.compress(text), name="run.gz")
    assert not seen  # refused while decompressing, before the whole file was parsed


def honest_run(lines: int = 400_000) -> bytes:
    return b"".join(b"q%d Q0 doc%d %d %.3f run\n" % (i // 1000, i, i % 1000 + 1, 1000 - i % 1000)
                    for i in range(lines))


def decompression_peak(compressed: bytes) -> tuple[bytes, int]:
    tracemalloc.start()
    try:
        _, loaded = trec_io._load(compressed, "run.gz", None, "run")
        return loaded, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_an_honest_gzip_run_reads_as_its_plain_text_holding_the_text_about_once() -> None:
    small, large = honest_run(200_000), honest_run(400_000)
    loaded, small_peak = decompression_peak(gzip.compress(small))
    assert loaded == small
    loaded, large_peak = decompression_peak(gzip.compress(large))
    assert loaded == large
    # Each extra byte of text costs about one byte (the compressed input, one buffer for the text). Reading it all
    # and joining the pieces cost two, and three on the way to a MemoryError.
    assert large_peak - small_peak < 1.4 * (len(large) - len(small))
    assert read_run(gzip.compress(large)).to_dict() == read_run(large).to_dict()


def test_gzip_from_a_stream_and_from_a_file_reads_the_same(tmp_path: Path) -> None:
    text = honest_run(5000)
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(text))
    expected = read_run(text).to_dict()
    assert read_run(path).to_dict() == expected
    assert read_run(io.BytesIO(gzip.compress(text))).to_dict() == expected
    assert read_qrels(io.BytesIO(gzip.compress(QRELS.encode()))).to_dict() == read_qrels(QRELS).to_dict()


def test_a_gzip_run_on_standard_input_is_read_by_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("q1 0 doc1 1\n")
    result = subprocess.run([sys.executable, "-m", "metrics", "-m", "num_ret", str(tmp_path / "qrels"), "-"],
                            cwd=REPO, input=gzip.compress(honest_run(5000)), capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().split() == ["num_ret", "all", "1000"]
