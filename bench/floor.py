"""The parse floor: ``python bench/floor.py QRELS RUN`` reads both files with pyarrow's CSV reader and nothing else.

The options are the engine's own (:func:`metrics.io.trec._arrow_table`: one separator, no quoting, the columns
the engine keeps, typed as it types them), with pyarrow's defaults for the rest: its multi-threaded reader and its
own block size. It imports only pyarrow, so its time is what any tool that reads these files with pyarrow pays
before it computes anything: ``bench_cli.py`` reports every tool's wall time as a multiple of it.
"""

from __future__ import annotations

import gzip
import sys

import pyarrow as pa
import pyarrow.csv as pacsv

#: The columns kept and their types, as metrics.io.trec keeps them (the rest are parsed and dropped).
KEPT = {"qrels": {"f0": pa.string(), "f2": pa.string(), "f3": pa.int64()},
        "run": {"f0": pa.string(), "f2": pa.string(), "f4": pa.float64()}}
FIELDS = {"qrels": 4, "run": 6}


def separator(path: str) -> str:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as file:
        head = file.read(1 << 16)
    return "\t" if b"\t" in head else " "


def read(path: str, kind: str) -> pa.Table:
    types = KEPT[kind]
    return pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=[f"f{i}" for i in range(FIELDS[kind])]),
        parse_options=pacsv.ParseOptions(delimiter=separator(path), quote_char=False, double_quote=False,
                                         escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
        convert_options=pacsv.ConvertOptions(column_types=types, include_columns=list(types), null_values=[],
                                             strings_can_be_null=False, check_utf8=True),
    )


if __name__ == "__main__":
    qrels, run = read(sys.argv[1], "qrels"), read(sys.argv[2], "run")
    print(qrels.num_rows, run.num_rows)
