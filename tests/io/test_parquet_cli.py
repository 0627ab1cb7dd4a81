"""Parquet files on the command line: the same output as the TREC files with the same data, and one line when not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.cli import main
from metrics.io import frames
from metrics.io.trec import read_qrels, read_run
from tests.support.paths import TEST_DATA

DATA = TEST_DATA / "trec_eval"


def run_cli(*argv: str | Path) -> tuple[int, str, str]:
    import io

    out, err = io.StringIO(), io.StringIO()
    status = main([str(arg) for arg in argv], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def parquet_files(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("parquet")
    qrels, run = read_qrels(DATA / "qrels.test"), read_run(DATA / "results.test")
    pq.write_table(pa.table({"qid": qrels.qid, "docno": qrels.docno, "label": qrels.grade}), folder / "qrels.parquet")
    # ir_measures' column names, categorical query ids and the run's tag: all read as in the TREC file.
    pq.write_table(pa.table({"query_id": pc_dictionary(run.qid), "doc_id": run.docno, "score": run.score,
                             "tag": pa.array([run.runid] * len(run))}), folder / "run.pq")
    return folder / "qrels.parquet", folder / "run.pq"


def pc_dictionary(values: pa.Array) -> pa.Array:
    return values.dictionary_encode()


@pytest.mark.parametrize("flags", [["-q", "-m", "all_trec"], ["-c", "-M", "5", "-m", "official"], ["-J", "-l", "2"],
                                   ["-q", "--bounds", "-m", "P.5", "-m", "ndcg_cut.10", "-m", "Judged@10"]])
def test_parquet_qrels_and_run_print_what_the_trec_files_print(parquet_files, flags) -> None:
    qrels, run = parquet_files
    expected = run_cli(*flags, DATA / "qrels.test", DATA / "results.test")
    assert expected[0] == 0
    assert run_cli(*flags, qrels, run) == expected
    assert run_cli(*flags, qrels, DATA / "results.test") == expected  # one of each


def test_a_bad_row_in_a_parquet_run_is_one_line_naming_file_row_and_column(tmp_path) -> None:
    path = tmp_path / "run.parquet"
    pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, np.nan]}).to_parquet(path)
    status, out, err = run_cli(DATA / "qrels.test", path)
    assert (status, out) == (2, "")
    assert err == ("python -m metrics: run.parquet row 1, column 'score': the score is missing (null); scores have "
                   "to be finite numbers (drop the row or give it a score)\n")


def test_a_parquet_file_without_the_columns_names_them(tmp_path) -> None:
    path = tmp_path / "qrels.parquet"
    pd.DataFrame({"query": ["1"], "doc": ["a"], "grade": [1]}).to_parquet(path)
    status, _, err = run_cli(path, DATA / "results.test")
    assert status == 2 and "qrels.parquet: no column of query ids; name it 'qid' or 'query_id' or 'q_id'" in err


def test_a_truncated_parquet_file_is_one_line(tmp_path, parquet_files) -> None:
    path = tmp_path / "broken.parquet"
    data = parquet_files[1].read_bytes()
    path.write_bytes(data[:4] + data[len(data) // 2:])  # PAR1 at both ends, a footer pointing nowhere
    status, _, err = run_cli(DATA / "qrels.test", path)
    assert status == 2 and err.startswith("python -m metrics: broken.parquet: cannot be read as Parquet (")
    assert err.count("\n") == 1


def test_a_parquet_bomb_is_refused_before_it_is_decoded_whole(tmp_path, monkeypatch) -> None:
    # 3 million rows of one repeated value: a few KB on disk, tens of MB decoded.
    path = tmp_path / "bomb.parquet"
    rows = 3_000_000
    pq.write_table(pa.table({"qid": pa.array(["1"] * 10, pa.string()).take(pa.array(np.zeros(rows, np.int64))),
                             "docno": pa.array(["x"] * rows), "score": np.zeros(rows)}), path,
                   row_group_size=rows)
    monkeypatch.setattr(frames, "PARQUET_ALWAYS", 1 << 20)
    status, _, err = run_cli(DATA / "qrels.test", path)
    assert status == 2 and "bomb.parquet: its columns take more than 100 times the file's size" in err


def test_a_parquet_grade_beyond_64_bits_is_one_line_naming_file_row_and_column(tmp_path) -> None:
    path = tmp_path / "qrels.parquet"
    pq.write_table(pa.table({"qid": ["1", "1"], "docno": ["a", "b"], "label": pa.array([1, 2**63], pa.uint64())}),
                   path)
    status, out, err = run_cli(path, DATA / "results.test")
    assert (status, out) == (2, "")
    assert err == ("python -m metrics: qrels.parquet row 1, column 'label': grade 9223372036854775808 is out of "
                   "range; grades are whole numbers from -2^63 to 2^63-1, as trec_eval reads them\n")


def test_a_parquet_column_error_lists_the_files_real_columns_and_a_swap_is_pointed_out(tmp_path) -> None:
    odd = tmp_path / "odd.parquet"
    pd.DataFrame({"query": ["1"], "doc": ["a"], "s": [1.0]}).to_parquet(odd)
    status, _, err = run_cli(DATA / "qrels.test", odd)
    assert status == 2 and err.endswith("(columns: query, doc, s)\n")
    qrels, run = tmp_path / "qrels.parquet", tmp_path / "run.parquet"
    pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1]}).to_parquet(qrels)
    pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]}).to_parquet(run)
    status, _, err = run_cli(run, qrels)
    assert status == 2 and err.endswith("(columns: qid, docno, label); it has 'label': are qrels and run swapped? "
                                        "(the order is qrels, run)\n")


def test_row_groups_read_in_batches_give_the_rows_in_file_order(tmp_path, monkeypatch) -> None:
    # Groups of 1 to 7 rows, each with its own dictionary, read 3 groups or 10 rows at a time: the batches unify
    # the dictionaries and keep the file's order, as one read of the whole file does.
    monkeypatch.setattr(frames, "_PARQUET_GROUPS", 3)
    monkeypatch.setattr(frames, "_PARQUET_BATCH", 10)
    path = tmp_path / "groups.parquet"
    sizes = [1, 7, 2, 12, 3, 1, 1, 5]
    with pq.ParquetWriter(path, pa.schema([("qid", pa.string()), ("docno", pa.string()), ("score", pa.float64())])) \
            as writer:
        start = 0
        for size in sizes:
            rows = range(start, start + size)
            writer.write_table(pa.table({"qid": [f"q{row % 3}" for row in rows], "docno": [f"d{row}" for row in rows],
                                         "score": [float(row) for row in rows]}))
            start += size
    assert [len(batch) for batch in frames._row_group_batches(pq.read_metadata(path))] == [3, 1, 3, 1]
    run = frames.read_parquet_run(path)
    whole = pq.read_table(path)
    assert run.docno.to_pylist() == whole.column("docno").to_pylist()
    assert run.qid.to_pylist() == whole.column("qid").to_pylist()
    assert run.score.tolist() == whole.column("score").to_pylist()
