"""metrics.io.read_qrels / read_run: one pair of readers that tell TREC, gzip, JSON and Parquet apart by their bytes."""

from __future__ import annotations

import gzip
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics import InputError
from metrics.io import read_qrels, read_run
from metrics.io.read import COMMAND_LINE_FORMATS

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
RUN = {"q1": {"d1": 2.5, "d2": 1.0}, "q2": {"d3": 0.5, "d4": 0.25}}
QRELS_TREC = b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
RUN_TREC = b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.0 tag\nq2 Q0 d3 1 0.5 tag\nq2 Q0 d4 2 0.25 tag\n"


def _parquet(tmp_path, name: str, columns: dict) -> str:
    path = tmp_path / name
    pq.write_table(pa.table(columns), path)
    return str(path)


def _every_format(tmp_path, kind: str) -> dict[str, object]:
    text, values = (QRELS_TREC, QRELS) if kind == "qrels" else (RUN_TREC, RUN)
    as_json = json.dumps(values).encode()
    rows = [(qid, doc, value) for qid, docs in values.items() for doc, value in docs.items()]
    column = "label" if kind == "qrels" else "score"
    (tmp_path / "plain").write_bytes(text)
    (tmp_path / "packed").write_bytes(gzip.compress(text))
    (tmp_path / "values.json").write_bytes(as_json)
    return {
        "TREC bytes": text, "TREC path": tmp_path / "plain", "gzipped TREC path": str(tmp_path / "packed"),
        "TREC stream": io.BytesIO(text), "JSON bytes": as_json, "gzipped JSON bytes": gzip.compress(as_json),
        "JSON path": tmp_path / "values.json", "JSON stream": io.BytesIO(as_json),
        "Parquet path": _parquet(tmp_path, "values.parquet", {"qid": [r[0] for r in rows],
                                                              "docno": [r[1] for r in rows],
                                                              column: [r[2] for r in rows]}),
    }


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_every_format_reads_to_the_same_table(tmp_path, kind) -> None:
    read, expected = (read_qrels, QRELS) if kind == "qrels" else (read_run, RUN)
    for source_name, source in _every_format(tmp_path, kind).items():
        assert read(source).to_dict() == expected, source_name


def test_the_command_lines_formats_leave_json_to_the_trec_reader_and_its_message(tmp_path) -> None:
    path = tmp_path / "qrels.json"
    path.write_text(json.dumps(QRELS))
    with pytest.raises(InputError, match="looks like JSON, not TREC text"):
        read_qrels(path, formats=COMMAND_LINE_FORMATS)
    assert read_qrels(path).to_dict() == QRELS


def test_one_size_cap_for_trec_and_json(tmp_path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(RUN))
    with pytest.raises(InputError, match="MiB limit"):
        read_run(path, max_bytes=10)
    with pytest.raises(InputError, match="MiB limit"):
        read_run(RUN_TREC, max_bytes=10)
    with pytest.raises(InputError, match="MiB limit"):
        read_run(json.dumps(RUN).encode(), max_bytes=10)


def test_an_unknown_format_is_refused_by_name() -> None:
    with pytest.raises(InputError, match="Argument `formats` has to name some of trec, json, parquet"):
        read_qrels(QRELS_TREC, formats=("csv",))


def test_a_pipe_given_as_qrels_keeps_its_first_bytes():
    # The Parquet sniff opened <(zcat qrels.gz) and read its first bytes, which the TREC reader then never saw:
    # "the file is empty". Only a file on disk is looked at for Parquet's magic.
    import os

    read_end, write_end = os.pipe()
    os.write(write_end, b"q1 0 d1 1\nq1 0 d2 0\n")
    os.close(write_end)
    try:
        qrels = read_qrels(f"/proc/self/fd/{read_end}", formats=COMMAND_LINE_FORMATS)
    finally:
        os.close(read_end)
    assert qrels.to_dict() == {"q1": {"d1": 1, "d2": 0}}
