"""ranx's numbers for the suite: replayed from tests/data/ranx/recorded.json.gz, live only where a test asks.

ranx's metrics and data structures are ``@njit(cache=True)`` kernels that numba compiles on first use and keeps in its
on-disk cache. A data-structure kernel is compiled again for every width of the doc ids (numpy's ``U1``, ``U3``,
``U7``...). Measured on one process with an empty cache (load 11-16 on 2 cores): ``Qrels`` 39 CPU-s (numba's typed
containers included, which are never cached), ``Run`` 17, the first metric 16 and each further one 4 to 8, about 110
CPU-s for 14 metrics on one doc-id width, and 22 more for a ``Run`` of another width. That was most of the suite's CPU
on a fresh clone, so the suite asks :func:`ranx_evaluate`, which answers each call from the recording of what ranx
returned for that exact input (queries, documents and scores in input order, which ranx's tie order depends on).
``generate.py`` in tests/data/ranx records them again, with ranx live; one test (``live=True``) recomputes a sample with
ranx and compares it with the recording, so the recording cannot drift from the installed ranx unseen.

Live calls hold a file lock, one per numba cache directory: the first process to need a kernel compiles it into the
cache, the others wait, then load it from there, instead of four xdist workers each compiling the same kernels. The
kernels stay ranx's own, ties included: NUMBA_DISABLE_JIT would sort ties with numpy's argsort, not numba's, and the
suite checks ranx's tie order.
"""

from __future__ import annotations

import contextlib
import functools
import getpass
import gzip
import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.support.paths import REPO

try:
    import fcntl
except ImportError:  # Windows: no flock; each process compiles what it uses, as without this helper
    fcntl = None

#: One lock per numba cache: processes with caches of their own (NUMBA_CACHE_DIR) do not wait for each other.
LOCK = Path(tempfile.gettempdir()) / "ranx-kernels-{}-{}.lock".format(
    getpass.getuser(), hashlib.sha256(os.environ.get("NUMBA_CACHE_DIR", "").encode()).hexdigest()[:12])
RECORDING = REPO / "tests" / "data" / "ranx" / "recorded.json.gz"
#: Set by tests/data/ranx/generate.py: a folder where each process writes the calls it made with ranx live.
RECORD_INTO = "RANX_RECORD_INTO"


@contextlib.contextmanager
def _one_process_at_a_time() -> Iterator[None]:
    with LOCK.open("a") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes, or when the process dies
        yield


def call_key(qrels: dict, run: dict, names: Sequence[str], return_mean: bool, make_comparable: bool) -> str:
    """One call's identity: its arguments as JSON in input order (ranx's tie order follows it), hashed."""
    text = json.dumps([qrels, run, list(names), return_mean, make_comparable], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _live(qrels: dict, run: dict, names: list[str], return_mean: bool, make_comparable: bool) -> dict:
    """What ranx returns for one call, as recorded: ``{"error": message}`` or ``{"values": {metric: value}}``
    with a value a float (``return_mean``) or ``{qid: float}`` in ranx's query order."""
    ranx = pytest.importorskip("ranx", reason="ranx does not install here")
    with warnings.catch_warnings(), _one_process_at_a_time():
        warnings.simplefilter("ignore")
        ranx_run = ranx.Run(run)
        try:
            result = ranx.evaluate(ranx.Qrels(qrels), ranx_run, names, return_mean=return_mean,
                                   make_comparable=make_comparable)
        except AssertionError as error:  # ranx refuses by assertion (e.g. differing query sets)
            return {"error": str(error)}
    if len(names) == 1:
        result = {names[0]: result}
    qids = ranx_run.get_query_ids()  # make_comparable adds and sorts the run's queries in place
    return {"values": {name: float(value) if return_mean else dict(zip(qids, map(float, value)))
                       for name, value in result.items()}}


@functools.cache
def _recording() -> dict[str, dict]:
    with gzip.open(RECORDING, "rt", encoding="utf-8") as handle:
        return json.load(handle)["calls"]


def _record(key: str, result: dict) -> None:
    """One line of ``[key, result]`` in this process's file of the recording folder (xdist workers end without
    running atexit handlers, so nothing waits for the end)."""
    with (Path(os.environ[RECORD_INTO]) / f"{os.getpid()}.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps([key, result]) + "\n")


def ranx_evaluate(qrels: dict, run: dict, metrics: str | Sequence[str], *, return_mean: bool = False,
                  make_comparable: bool = False, live: bool = False):
    """``ranx.evaluate(Qrels(qrels), Run(run), metrics, ...)`` from the recording: for one metric name its value,
    for a list ``{metric: value}``; a value is ranx's mean (``return_mean``) or ``{qid: value}`` per query. Raises
    AssertionError with ranx's message where ranx refuses the input. ``live`` computes it with ranx too and fails
    unless the recording holds the same."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    key = call_key(qrels, run, names, return_mean, make_comparable)
    if os.environ.get(RECORD_INTO):
        result = _live(qrels, run, names, return_mean, make_comparable)
        _record(key, result)
    else:
        result = _recording().get(key)
        if result is None:
            pytest.fail("ranx's values for this input are not recorded: run tests/data/ranx/generate.py")
        if live:
            assert _live(qrels, run, names, return_mean, make_comparable) == result, \
                "the installed ranx differs from tests/data/ranx/recorded.json.gz: run tests/data/ranx/generate.py"
    if "error" in result:
        raise AssertionError(result["error"])
    return result["values"][names[0]] if isinstance(metrics, str) else result["values"]
