"""Streaming a run in chunks of whole queries gives the in-memory path's values, means and messages.

Chunk sizes are tiny here (a few bytes to a few hundred), so query boundaries fall on chunk edges everywhere.
"""

from __future__ import annotations

import gzip
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from metrics import Conventions, cli, many_runs
from metrics.bulk import evaluate_files
from metrics.io import compressed
from metrics.io.trec import TrecFormatError, read_run
from metrics.stream import chunks, evaluate_file, stream_run
from metrics.stream.chunks import open_run, query_chunks
from tests.engine.test_bulk import CONVENTIONS, random_trec_files
from tests.support.paths import REPO

MEASURES = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "P.5",
            "P.20", "ndcg", "ndcg_cut.10", "recall.1000", "map_cut.10", "success.1", "Judged@10", "ERR@10"]


def contiguous(run_text: str) -> str:
    """The run's lines grouped by query (stable: file order inside a query), as trec_eval writes runs."""
    lines = run_text.splitlines()
    order = {}
    for line in lines:
        order.setdefault(line.split()[0], len(order))
    return "\n".join(sorted(lines, key=lambda line: order[line.split()[0]])) + "\n"


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def assert_same_as_in_memory(qrels: Path, run: Path, conventions: Conventions, chunk_bytes: int) -> bool:
    """Per-query values and means equal the in-memory path's, bit for bit; returns whether the run was grouped."""
    qids, values, means = evaluate_files(qrels, run, MEASURES, conventions)
    order = sorted(range(len(qids)), key=qids.__getitem__)
    streamed = stream_run(qrels, run, MEASURES, conventions, chunk_bytes=chunk_bytes)
    assert streamed.qids == [qids[i] for i in order]
    for key, column in values.items():
        assert streamed.values[key].tolist() == column[order].tolist(), key
    assert streamed.means == means
    return streamed.grouped


@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: c.describe())
@pytest.mark.parametrize("seed", range(3))
def test_a_contiguous_run_in_tiny_chunks_gives_the_in_memory_values_and_means(tmp_path, conv, seed) -> None:
    qrels_text, run_text = random_trec_files(seed)
    qrels, run = write(tmp_path, "qrels", qrels_text), write(tmp_path, "run", contiguous(run_text))
    for chunk_bytes in (1, 7, 64, 333, 10**6):
        assert not assert_same_as_in_memory(qrels, run, conv, chunk_bytes)


@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: c.describe())
def test_an_unsorted_run_is_grouped_out_of_core_and_gives_the_same_values(tmp_path, conv) -> None:
    qrels_text, run_text = random_trec_files(4, long_ids=True)  # lines shuffled: queries come back
    qrels, run = write(tmp_path, "qrels", qrels_text), write(tmp_path, "run", run_text)
    assert assert_same_as_in_memory(qrels, run, conv, 200)
    # One chunk holds the whole run: no query comes back in a later chunk, nothing to group.
    assert not assert_same_as_in_memory(qrels, run, conv, 10**6)


def test_parsing_on_a_second_thread_or_on_this_one_gives_the_same_values(tmp_path) -> None:
    qrels_text, run_text = random_trec_files(8)
    qrels, run = write(tmp_path, "qrels", qrels_text), write(tmp_path, "run", contiguous(run_text))
    one, two = (stream_run(qrels, run, MEASURES, chunk_bytes=40, overlap=overlap) for overlap in (False, True))
    assert one.qids == two.qids and one.means == two.means
    assert all(one.values[key].tolist() == two.values[key].tolist() for key in one.values)


def test_a_query_ending_exactly_at_a_chunk_edge_or_split_inside_stays_whole(tmp_path) -> None:
    qrels_text, run_text = random_trec_files(5)
    text = contiguous(run_text)
    qrels, run = write(tmp_path, "qrels", qrels_text), write(tmp_path, "run", text)
    lines = text.splitlines(keepends=True)
    boundary = next(i for i in range(1, len(lines)) if lines[i].split()[0] != lines[i - 1].split()[0])
    edge = sum(len(line) for line in lines[:boundary])
    for chunk_bytes in (edge - 1, edge, edge + 1, edge + 5):
        chunks = list(query_chunks(open_run(run, "run"), chunk_bytes))
        assert b"".join(chunk.text for chunk in chunks) == text.encode()
        queries = [{line.split()[0] for line in chunk.text.decode().splitlines()} for chunk in chunks]
        assert all(not (a & b) for i, a in enumerate(queries) for b in queries[i + 1:])  # no query in two chunks
        assert not assert_same_as_in_memory(qrels, run, Conventions(), chunk_bytes)


def test_chunks_hold_whole_queries_and_number_their_lines_in_the_whole_file() -> None:
    text = b"q1 Q0 a 1 1 t\nq1 Q0 b 2 0.5 t\n# note\nq2 Q0 a 1 1 t\nq3 Q0 c 1 2 t\nq3 Q0 d 2 1 t\nq4 Q0 e 1 1 t"
    for chunk_bytes in (1, 10, 30, 45):
        blocks = iter([text[i:i + 7] for i in range(0, len(text), 7)])
        chunks = list(query_chunks(blocks, chunk_bytes))
        assert b"".join(chunk.text for chunk in chunks) == text
        assert [chunk.last for chunk in chunks] == [False] * (len(chunks) - 1) + [True]
        for chunk in chunks:
            assert chunk.first_line == text.count(b"\n", 0, text.index(chunk.text)) + 1
        queries = [{line.split()[0] for line in bytes(chunk.text).splitlines() if not line.startswith(b"#")}
                   for chunk in chunks]
        assert sum(len(found) for found in queries) == 4  # each query in one chunk


def test_gzip_input_streams_with_the_same_values(tmp_path) -> None:
    qrels_text, run_text = random_trec_files(6)
    qrels = write(tmp_path, "qrels", qrels_text)
    for name, text in (("sorted.gz", contiguous(run_text)), ("shuffled.gz", run_text)):
        run = write(tmp_path, name, gzip.compress(text.encode()))
        assert assert_same_as_in_memory(qrels, run, Conventions(missing_queries="zero"), 100) == (name == "shuffled.gz")


def test_ties_are_broken_by_doc_id_across_chunk_sizes(tmp_path) -> None:
    qrels = write(tmp_path, "qrels", "q1 0 b 1\nq2 0 a 1\nq2 0 c 2\n")
    # Every score tied: trec_eval ranks c, b, a (doc id descending), whatever the file order.
    run = write(tmp_path, "run", "q1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\nq1 Q0 c 3 1 t\nq2 Q0 a 1 2 t\nq2 Q0 c 2 2 t\n")
    for chunk_bytes in (1, 20, 1000):
        qids, values, _ = evaluate_file(qrels, run, ["recip_rank", "ndcg"], chunk_bytes=chunk_bytes)
        assert qids == ["q1", "q2"]
        assert values["recip_rank"].tolist() == [0.5, 1.0]


def test_the_command_line_prints_the_same_lines_streamed(tmp_path, monkeypatch) -> None:
    qrels_text, run_text = random_trec_files(7)
    qrels, run = write(tmp_path, "qrels", qrels_text), write(tmp_path, "run", contiguous(run_text))
    shuffled = write(tmp_path, "shuffled", run_text)
    for argv in (["-q", "-c", "-m", "all_trec", "-m", "relstring"], ["-q", "-M", "3", "-J", "-l", "2"], []):
        for path in (run, shuffled):
            outputs = []
            for threshold in (1 << 62, 0):
                monkeypatch.setattr(many_runs, "STREAM_FROM_BYTES", threshold)
                out, err = io.StringIO(), io.StringIO()
                assert cli.main([*argv, str(qrels), str(path)], stdout=out, stderr=err) == 0, err.getvalue()
                outputs.append(out.getvalue())
            assert outputs[0] == outputs[1]


def test_the_command_line_streams_a_gzipped_run_by_its_text_size(tmp_path, monkeypatch) -> None:
    import metrics.stream

    qrels_text, run_text = random_trec_files(9)
    qrels = write(tmp_path, "qrels", qrels_text)
    packed = write(tmp_path, "run.gz", gzip.compress(run_text.encode()))
    streamed = []
    real = metrics.stream.stream_run
    monkeypatch.setattr(metrics.stream, "stream_run", lambda *a, **k: streamed.append(a[1]) or real(*a, **k))
    # Smaller than the threshold on disk, larger once decompressed (counted as four times its size).
    monkeypatch.setattr(many_runs, "STREAM_FROM_BYTES", 2 * packed.stat().st_size)
    assert cli.main([str(qrels), str(packed)], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    assert streamed == [packed]
    monkeypatch.setattr(many_runs, "STREAM_FROM_BYTES", 5 * packed.stat().st_size)
    assert cli.main([str(qrels), str(packed)], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    assert streamed == [packed]  # not streamed this time


BAD_LINES = {
    "a score that is not a number": "q9 Q0 z 1 abc t",
    "five columns": "q9 Q0 z 1 2.0",
    "invalid UTF-8": b"q9 Q0 z\xff 1 2.0 t",
    "a NUL byte": b"q9 Q0 z\x00 1 2.0 t",
    "a document twice": "q8 Q0 d_first 1 1 t",
}


@pytest.mark.parametrize("problem", list(BAD_LINES))
@pytest.mark.parametrize("shuffled", [False, True], ids=["contiguous", "shuffled"])
def test_a_bad_line_far_down_is_named_by_its_line_in_the_whole_file(tmp_path, problem, shuffled) -> None:
    lines = [f"q{i // 40} Q0 d{i} {i} {1 - i / 1000} t".encode() for i in range(400)]
    lines.insert(330, b"q8 Q0 d_first 1 1 t")
    if shuffled:
        lines = lines[::2] + lines[1::2]
    bad = BAD_LINES[problem]
    lines.insert(350, bad if isinstance(bad, bytes) else bad.encode())
    lines.insert(100, b"# a comment")
    run = write(tmp_path, "run.txt", b"\n".join(lines) + b"\n")
    qrels = write(tmp_path, "qrels", "q1 0 d41 1\n")
    with pytest.raises(TrecFormatError) as expected:
        read_run(run)
    for chunk_bytes in (50, 1000, 10**6):
        with pytest.raises(TrecFormatError) as streamed:
            evaluate_file(qrels, run, ["map"], chunk_bytes=chunk_bytes)
        assert str(streamed.value) == str(expected.value)
        assert "line 3" in str(expected.value)


@pytest.mark.parametrize("text", ["", "\n\n", "# only\n# comments\n"])
def test_a_run_without_data_lines_is_refused_as_the_reader_refuses_it(tmp_path, text) -> None:
    run = write(tmp_path, "run.txt", text)
    qrels = write(tmp_path, "qrels", "q1 0 d1 1\n")
    with pytest.raises(TrecFormatError) as expected:
        read_run(run)
    with pytest.raises(TrecFormatError) as streamed:
        evaluate_file(qrels, run, ["map"], chunk_bytes=3)
    assert str(streamed.value) == str(expected.value)


def test_a_gzip_bomb_is_refused_while_streaming(tmp_path, monkeypatch) -> None:
    # Good lines first, then 16 MB of line breaks: the first chunks parse, the expansion cap stops the rest. The cap's
    # floor is lowered to 1 MB of text (from 16 MB), read in 256 KiB steps, so the real check is reached after a
    # megabyte or two rather than after inflating (and chunking) 16 MB of blank lines.
    monkeypatch.setattr(compressed, "GZIP_ALWAYS", 1 << 20)
    monkeypatch.setattr(chunks, "_READ_STEP", 1 << 18)
    lines = b"".join(b"q%d Q0 d%d 1 1.0 t\n" % (i // 100, i) for i in range(2_000))
    run = write(tmp_path, "bomb.gz", gzip.compress(lines + b"\n" * (16 << 20), compresslevel=9))
    qrels = write(tmp_path, "qrels", "q1 0 d1 1\n")
    with pytest.raises(TrecFormatError, match="expands more than 100 times") as refused:
        evaluate_file(qrels, run, ["map"], chunk_bytes=1 << 16)
    inflated_mb = int(re.search(r"gave over (\d+) MB", str(refused.value)).group(1))
    assert inflated_mb < 4  # refused near the cap, long before the bomb's 16 MB


def test_chunk_bytes_must_be_a_positive_integer(tmp_path) -> None:
    with pytest.raises(ValueError, match="chunk_bytes"):
        evaluate_file(write(tmp_path, "qrels", "q1 0 d1 1\n"), write(tmp_path, "run", "q1 Q0 d1 1 1 t\n"), ["map"],
                      chunk_bytes=0)


_PEAK = """
import resource, sys
from metrics.stream import stream_run
stream_run(sys.argv[1], sys.argv[2], ["map", "ndcg_cut.10", "P.10"], chunk_bytes=1 << 20, overlap=False)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _write_run(path: Path, queries: int, depth: int = 100) -> None:
    rng = np.random.default_rng(queries)
    with open(path, "w") as file:
        for start in range(0, queries, 1000):
            block = np.arange(start, min(queries, start + 1000))
            qid = np.repeat(block, depth)
            doc = rng.permutation(qid.shape[0]) + start * depth  # distinct within the run
            score = np.tile(np.arange(depth, 0, -1), block.shape[0])
            lines = zip(qid.tolist(), doc.tolist(), score.tolist())
            file.write("".join(f"q{q} Q0 d{d} 1 {s} t\n" for q, d, s in lines))


def test_peak_memory_does_not_grow_with_the_number_of_queries(tmp_path) -> None:
    qrels = write(tmp_path, "qrels", "".join(f"q{q} 0 d{q * 20} 1\n" for q in range(0, 100_000, 3)))
    peaks = []
    # 400,000 and 2,000,000 lines (10 and 50 MB); below a few MB the allocators are still growing their pools.
    for queries in (20_000, 100_000):
        run = tmp_path / f"run{queries}"
        _write_run(run, queries, depth=20)
        child = subprocess.run([sys.executable, "-c", _PEAK, str(qrels), str(run)], capture_output=True, text=True,
                               check=True, cwd=REPO)
        peaks.append(int(child.stdout) / 1024)
        run.unlink()
    # The in-memory path holds about 100 bytes per line: about 160 MB more for the larger run. Streamed, the
    # per-query values and the set of query ids are all that grow.
    assert peaks[1] - peaks[0] < 40, peaks


_ONE_RUN_PEAK = """
import resource, sys
from metrics import cli, many_runs
many_runs.STREAM_FROM_BYTES = 0 if sys.argv[1] == "streamed" else 1 << 62
status = cli.main(["-m", "map", "-m", "P.10", sys.argv[2], sys.argv[3]])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_a_run_of_one_huge_query_streams_in_about_the_memory_of_reading_it_whole(tmp_path) -> None:
    # One query of 1,000,000 lines (about 30 MB), then a small one: the chunks cannot cut the big query, so it is
    # held whole, as the in-memory path holds it, but not read twice over nor copied.
    qrels = write(tmp_path, "qrels", "q1 0 d5 1\nq2 0 e7 1\n")
    run = tmp_path / "run"
    with open(run, "w") as file:
        for start in range(0, 1_000_000, 100_000):
            file.write("".join(f"q1 Q0 d{i} {i} {(1_000_000 - i) / 1000} t\n" for i in range(start, start + 100_000)))
        file.write("".join(f"q2 Q0 e{i} {i} 1 t\n" for i in range(1, 50_001)))
    peaks = {}
    for how in ("in-memory", "streamed"):
        child = subprocess.run([sys.executable, "-c", _ONE_RUN_PEAK, how, str(qrels), str(run)], capture_output=True,
                               text=True, check=True, cwd=REPO)
        peaks[how] = int(child.stdout.split()[-1]) / 1024
    assert peaks["streamed"] < 1.2 * peaks["in-memory"], peaks


def test_running_out_of_memory_while_streaming_is_one_line_naming_the_run(tmp_path, monkeypatch) -> None:
    import metrics.bulk

    qrels_text, run_text = random_trec_files(3)
    qrels, run = write(tmp_path, "qrels", qrels_text), write(tmp_path, "big.run", run_text)

    def no_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 1.2 GiB for an array")

    monkeypatch.setattr(metrics.bulk, "prepare_run", no_memory)
    monkeypatch.setattr(many_runs, "STREAM_FROM_BYTES", 0)
    for text in (contiguous(run_text), run_text):  # read once, and grouped out of core
        run.write_text(text)
        out, err = io.StringIO(), io.StringIO()
        assert cli.main(["-m", "map", str(qrels), str(run)], stdout=out, stderr=err) == 2
        assert out.getvalue() == ""
        message = err.getvalue()
        assert message.count("\n") == 1 and "big.run" in message and "out of memory" in message, message
        assert "Traceback" not in message


@pytest.mark.parametrize("packed", [False, True])
def test_a_repeated_pair_is_named_by_its_lines_in_the_whole_file_as_read_run_names_it(tmp_path, packed) -> None:
    # The chunk's text is let go once parsed; the repeat is named from the file read again at the chunk's place.
    lines = [f"q{q} Q0 d{d} {d} {10 - d} t\n" for q in range(1, 40) for d in range(1, 8)]
    lines.insert(200, lines[197])  # q29's d4 again, far from the first chunk
    text = "".join(lines).encode()
    qrels = write(tmp_path, "qrels", "q1 0 d1 1\n")
    run = write(tmp_path, "run.gz" if packed else "run", gzip.compress(text) if packed else text)
    with pytest.raises(TrecFormatError) as expected:
        read_run(run)
    assert "line 201" in str(expected.value) and "line 198" in str(expected.value)
    for chunk_bytes in (50, 300, 1000):
        with pytest.raises(TrecFormatError) as streamed:
            evaluate_file(qrels, run, ["map"], chunk_bytes=chunk_bytes)
        assert str(streamed.value) == str(expected.value)
