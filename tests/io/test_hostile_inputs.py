"""Every case of the hostile-input catalogue (tests/data/hostile_inputs.jsonl) gets one clear message, never a
traceback: exit status 2 and one line on stderr for the command lines, one InputError for the API, the readers and
the URL codec, and the message holds the catalogue's fragment. tests/data/README.md describes the format."""

from __future__ import annotations

import contextlib
import gzip
import importlib
import io
import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

import metrics
from metrics import InputError
from tests.support.paths import REPO, TEST_DATA

CATALOGUE = TEST_DATA / "hostile_inputs.jsonl"
SURFACES = ("cli", "check", "online", "process", "reader", "api", "url")
PROJECT = REPO

#: Files every command-line case may name as {qrels} and {run}; a case's own "files" add to or replace them.
GOOD_FILES = {
    "qrels": "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n",
    "run": "q1 Q0 d1 1 0.9 t\nq1 Q0 d2 2 0.8 t\nq2 Q0 d3 1 0.5 t\n",
}


def load_catalogue(path: Path = CATALOGUE) -> list[dict]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        case = json.loads(line)
        case["line"] = number
        cases.append(case)
    return cases


CASES = load_catalogue()


def materialise(content: object) -> bytes:
    """The bytes a catalogue content stands for (see tests/data/README.md)."""
    if isinstance(content, str):
        return content.encode("utf-8")
    if isinstance(content, dict) and len(content) == 1:
        (kind, value), = content.items()
        if kind == "gzip":
            return gzip.compress(materialise(value), mtime=0)
        if kind == "latin1":
            return value.encode("latin-1")
        if kind == "concat":
            return b"".join(materialise(part) for part in value)
        if kind == "repeat":
            part, times = value
            return materialise(part) * times
        if kind == "lines":  # the template with {i} = 0, 1, ... count - 1 ({i%3}: i mod 3, {i//7}: i div 7)
            template, count = value
            return "".join(_numbered(template, i) for i in range(count)).encode("utf-8")
        if kind == "parquet":
            return parquet_bytes(**value)
    raise ValueError(f"unknown content {content!r}")


_NUMBER = re.compile(r"\{i(?:(%|//)(\d+))?\}")


def _numbered(template: str, i: int) -> str:
    def number(found: re.Match) -> str:
        if not found[1]:
            return str(i)
        return str(i % int(found[2]) if found[1] == "%" else i // int(found[2]))

    return _NUMBER.sub(number, template)


def parquet_bytes(columns: dict, rows: int, row_groups: int = 1, dictionary: bool = False) -> bytes:
    """A Parquet file of ``row_groups`` row groups of ``rows`` rows, each column one value repeated (a content, or
    a number); with ``dictionary`` its text columns are arrow dictionaries of that one value."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {}
    for name, value in columns.items():
        if isinstance(value, (int, float)):
            arrays[name] = pa.array(np.full(rows, value))
        elif dictionary:
            text = materialise(value).decode("utf-8")
            arrays[name] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, dtype=np.int32)), pa.array([text]))
        else:
            arrays[name] = pa.array([materialise(value).decode("utf-8")] * rows)
    table, out = pa.table(arrays), io.BytesIO()
    with pq.ParquetWriter(out, table.schema) as writer:
        for _ in range(row_groups):
            writer.write_table(table)
    return out.getvalue()


def write_files(tmp_path: Path, files: dict) -> dict[str, str]:
    paths = {}
    for name, content in {**GOOD_FILES, **files}.items():
        path = tmp_path / name
        path.write_bytes(materialise(content))
        paths[name] = str(path)
    return paths


def fill(argv: list[str], paths: dict[str, str]) -> list[str]:
    for name, path in paths.items():
        argv = [arg.replace("{" + name + "}", path) for arg in argv]
    return argv


def run_command(case: dict, tmp_path: Path) -> tuple[int, str, str]:
    argv = fill(case["input"]["argv"], write_files(tmp_path, case["input"].get("files", {})))
    out, err = io.StringIO(), io.StringIO()
    if case["surface"] == "cli":
        from metrics.cli import main

        status = main(argv, stdout=out, stderr=err)
    elif case["surface"] == "online":
        from metrics.online.__main__ import main

        status = main(argv, out=out, err=err)
    else:
        from metrics.check.__main__ import main

        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                status = main(argv, out=out, err=err)
            except SystemExit as exit_:  # argparse's own usage errors
                status = exit_.code
    return status, out.getvalue(), err.getvalue()


def run_process(case: dict, tmp_path: Path) -> tuple[int, str, str]:
    """``python -m <module> argv`` in a child process: with its stdout closed (``close_stdout``) or a pipe whose
    reader went away (``reader_gone``), or under an address-space limit of ``memory_mb`` MB and a CPU-time limit of
    ``cpu_seconds``, so that a regression fails this test instead of exhausting the machine; with ``peak_mb``, the
    child's peak resident memory (its VmHWM) has to stay below it."""
    given = case["input"]
    argv = fill(given["argv"], write_files(tmp_path, given.get("files", {})))
    limit, cpu = given.get("memory_mb"), given.get("cpu_seconds")

    def in_the_child() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit << 20, limit << 20))
        if cpu is not None:  # a guard against a runaway regression, far above the need: never a timing assertion
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        if given.get("close_stdout"):
            os.close(1)

    command = [sys.executable, "-m", given["module"], *argv]
    peak_file = tmp_path / "peak_kib"
    if "peak_mb" in given:  # the module run by runpy, which then writes the process's VmHWM, its peak resident set
        command = [sys.executable, "-c", MEASURED_RUN, given["module"], str(peak_file), *argv]
    reader, writer = os.pipe() if given.get("reader_gone") else (None, None)
    if reader is not None:
        os.close(reader)  # its stdout a pipe whose reader went away, as after `| head -1` has read its line
    try:
        done = subprocess.run(command, cwd=PROJECT, preexec_fn=in_the_child, stdin=subprocess.DEVNULL,
                              stdout=writer if writer is not None else subprocess.PIPE, stderr=subprocess.PIPE,
                              check=False, env={**os.environ, "PYTHONPATH": str(PROJECT)})
    finally:
        if writer is not None:
            os.close(writer)
    if "peak_mb" in given:
        peak = int(peak_file.read_text())
        assert peak < given["peak_mb"] << 10, f"peak resident memory {peak >> 10} MiB, the bound {given['peak_mb']}"
    return done.returncode, (done.stdout or b"").decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


#: ``python -c MEASURED_RUN module peak_file argv...``: ``python -m module argv...``, then the peak resident memory
#: of this process (VmHWM, KiB) written to peak_file. The kernel's rusage of a child cannot tell it: a forked child
#: starts with the test process's pages, and exec keeps that high-water mark.
MEASURED_RUN = """
import runpy, sys
module, peak_file = sys.argv[1], sys.argv[2]
del sys.argv[1:3]
try:
    runpy.run_module(module, run_name="__main__", alter_sys=True)
finally:
    status = dict(line.split(":", 1) for line in open("/proc/self/status"))
    with open(peak_file, "w") as out:
        out.write(status["VmHWM"].split()[0])
"""


def call_in_a_child(case: dict, tmp_path: Path) -> tuple[str, str]:
    """An api case run in a fresh interpreter under an address-space limit of ``memory_mb`` MB, its peak resident
    memory below ``peak_mb`` MB (as :func:`run_process`): ``("returned", repr)``, ``("refused", message)``, or
    ``("failed", traceback)``."""
    given = case["input"]
    peak_file = tmp_path / "peak_kib"

    def in_the_child() -> None:
        if "memory_mb" in given:
            resource.setrlimit(resource.RLIMIT_AS, (given["memory_mb"] << 20, given["memory_mb"] << 20))

    done = subprocess.run([sys.executable, "-c", API_RUN, json.dumps(case), str(peak_file)], cwd=PROJECT,
                          preexec_fn=in_the_child, stdin=subprocess.DEVNULL, capture_output=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(PROJECT)})
    if "peak_mb" in given:
        peak = int(peak_file.read_text())
        assert peak < given["peak_mb"] << 10, f"peak resident memory {peak >> 10} MiB, the bound {given['peak_mb']}"
    if done.returncode != 0:
        return "failed", done.stderr.decode("utf-8", "replace")
    outcome, _, said = done.stdout.decode("utf-8").partition("\n")
    return outcome, said.removesuffix("\n")


#: ``python -c API_RUN case_json peak_file``: the api case's call; "returned" and its repr, or "refused" and the
#: InputError's message, then the process's VmHWM (KiB) written to peak_file.
API_RUN = """
import json, sys
from metrics import InputError
from tests.io.test_hostile_inputs import call
try:
    try:
        result = call(json.loads(sys.argv[1]), None)
    except InputError as error:
        print("refused", str(error), sep="\\n")
    else:
        print("returned", repr(result), sep="\\n")
finally:
    status = dict(line.split(":", 1) for line in open("/proc/self/status"))
    with open(sys.argv[2], "w") as out:
        out.write(status["VmHWM"].split()[0])
"""


def typed(value: object) -> object:
    """An api argument with the types JSON lacks (tests/data/README.md): ``{"$numpy": ["int64", 2]}`` is
    ``np.int64(2)``, ``{"$text": content}`` the content as a string, ``{"$complex": [1, 2]}`` is ``1+2j``,
    ``{"$frame": {column: [values]}}`` a pandas DataFrame (a column may itself be ``{"$numpy": [dtype, [values]]}``),
    ``{"$mapping": content}`` a dict of the content's ``key:number`` lines, ``{"$new": [name, [args]]}`` the object
    ``metrics.<name>(*args)`` (named as an api call is), ``{"$table": content}`` the pyarrow Table of a Parquet
    content, ``{"$dask": content}`` a Dask DataFrame of it.
    """
    if isinstance(value, list):
        return [typed(item) for item in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"$numpy"}:
        import numpy as np

        dtype, given = value["$numpy"]
        return np.array(given, dtype=dtype) if isinstance(given, list) else np.dtype(dtype).type(given)
    if set(value) == {"$text"}:
        return materialise(value["$text"]).decode("utf-8")
    if set(value) == {"$complex"}:
        return complex(*value["$complex"])
    if set(value) == {"$table"}:  # a pyarrow Table read back from a content (a Parquet one keeps its dictionaries)
        import pyarrow.parquet as pq

        return pq.read_table(io.BytesIO(materialise(value["$table"])))
    if set(value) == {"$dask"}:  # a Dask DataFrame of one partition: the table's pandas frame (categoricals kept)
        import dask.dataframe as dd
        import pyarrow.parquet as pq

        return dd.from_pandas(pq.read_table(io.BytesIO(materialise(value["$dask"]))).to_pandas(), npartitions=1)
    if set(value) == {"$frame"}:
        import pandas as pd

        return pd.DataFrame({name: typed(column) for name, column in value["$frame"].items()})
    if set(value) == {"$mapping"}:  # "key:value" lines, each value a whole number
        lines = materialise(value["$mapping"]).decode("utf-8").splitlines()
        return {key: int(number) for key, _, number in (line.rpartition(":") for line in lines)}
    if set(value) == {"$new"}:
        name, arguments = value["$new"]
        return api_target(name)(*typed(arguments))
    return {key: typed(item) for key, item in value.items()}


def api_target(name: str):
    """``metrics.<name>`` (a dotted name names a module under ``metrics``; one starting with ``ui.`` a module of the
    app)."""
    module, _, attribute = name.rpartition(".")
    package = module if module == "ui" or module.startswith("ui.") else f"metrics.{module}"
    return getattr(importlib.import_module(package) if module else metrics, attribute)


def call(case: dict, tmp_path: Path) -> object:
    """Do what an api, reader or url case describes; it is expected to raise InputError (or, with ``returns``,
    to return a result)."""
    given = case["input"]
    if case["surface"] == "api":
        target = api_target(given["call"])  # "evaluate", "check.check_granularity", "ui.common.text.x"
        result = target(*typed(given.get("args", [])), **typed(given.get("kwargs", {})))
        if "method" in given:
            result = getattr(result, given["method"])(*given.get("method_args", []))
        return result
    elif case["surface"] == "reader":
        from metrics.io import trec as trec_io

        data = materialise(given["content"])
        source: object = data
        if given.get("as") == "file":
            source = tmp_path / given.get("name", "input.txt")
            source.write_bytes(data)
        elif given.get("as") == "path":
            source = given["path"]
        reader = {"qrels": trec_io.read_qrels, "run": trec_io.read_run, "subtopic_qrels": trec_io.read_subtopic_qrels}
        if given["read"] in reader:
            reader[given["read"]](source, **given.get("kwargs", {}))
        else:
            from metrics.io import json as json_io

            getattr(json_io, f"read_{given['read']}")(source, **given.get("kwargs", {}))
    elif case["surface"] == "url":
        from ui.common.query_state import decode_url

        decode_url(given["params"])
    else:
        raise ValueError(f"unknown surface {case['surface']!r}")


@pytest.mark.parametrize("case", [pytest.param(case, id=case["name"]) for case in CASES])
def test_hostile_input_gets_one_clear_message(case, tmp_path):
    if case["surface"] in ("cli", "check", "online", "process"):
        runner = run_process if case["surface"] == "process" else run_command
        status, out, err = runner(case, tmp_path)
        assert status == case.get("exit", 2), err
        assert "Traceback" not in err and "Traceback" not in out
        if case["input"].get("reader_gone"):  # a reader that went away: the command stops quietly
            assert err == "", err
        elif status == 0 or case.get("answer"):  # a right answer: nothing on stderr, the fragment in the output
            assert err == "" and case["expect"] in out, (err, out)
        else:
            assert len(err.strip().splitlines()) == 1, err
            assert case["expect"] in err
    elif case["surface"] == "api" and {"memory_mb", "peak_mb"} & set(case["input"]):
        outcome, said = call_in_a_child(case, tmp_path)
        assert outcome == ("returned" if case.get("returns") else "refused"), said
        assert case["expect"] in said and (case.get("returns") or "\n" not in said), said
    elif case.get("returns"):  # a right answer: the call returns, and its repr holds the fragment
        assert case["expect"] in repr(call(case, tmp_path))
    else:
        with pytest.raises(InputError) as raised:
            call(case, tmp_path)
        message = str(raised.value)
        assert case["expect"] in message
        assert "\n" not in message, message


def test_the_catalogue_is_well_formed():
    names = [case["name"] for case in CASES]
    assert len(names) == len(set(names)), "case names are unique"
    fields = {"name", "surface", "input", "expect", "exit", "returns", "answer", "issue", "line"}
    for case in CASES:
        assert set(case) <= fields, case["line"]
        assert case["surface"] in SURFACES, case["line"]
        assert case.get("expect") or case["input"].get("reader_gone"), case["line"]  # quiet: nothing to expect


def test_a_measure_with_twenty_thousand_cut_offs_is_refused_at_once_not_computed(tmp_path):
    # Each cut-off is a column of results: 20,000 of them over 3,000 queries ran for minutes (and the server with
    # it, from the run page's measure box). The case is generated because a catalogue line would be 110 KB long.
    spec = "P." + ",".join(map(str, range(1, 20_001)))
    with pytest.raises(InputError, match="characters long; the limit is 2,000"):
        metrics.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}, spec)
    status, _, err = run_command({"surface": "cli", "input": {"argv": ["-m", spec, "{qrels}", "{run}"]}}, tmp_path)
    assert status == 2 and "characters long" in err and len(err) < 300


def test_no_rankings_give_no_values_for_every_measure_instead_of_an_index_error():
    # Found by fuzzing the API: nDCG with gain parameters assumed a batch of at least one ranking.
    values = metrics.evaluate_rankings([], [], ["ndcg.1=2", "map", "P.5"])
    assert {key: column.shape for key, column in values.items()} == {"ndcg_1=2": (0,), "map": (0,), "P_5": (0,)}
