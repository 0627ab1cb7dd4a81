"""ranx whose numba kernels each process compiles one at a time, so that every kernel is compiled once per machine.

ranx's metrics and data structures are ``@njit(cache=True)`` kernels that numba compiles on first use and keeps in
its on-disk cache. A data-structure kernel is compiled again for every width of the doc ids (numpy's ``U1``, ``U3``,
``U7``...) and for int or float scores: about 100 CPU-s cold (a fresh venv, as on CI) for the suite's 14 ranx
metrics on one doc-id width.
Four xdist workers meeting the same kernels at the same time each compiled them. Here every ``Qrels``, ``Run``
and ``evaluate`` call holds one file lock: the first process to need a kernel compiles it into the cache, the
others wait, then load it from there. A call on compiled kernels takes milliseconds; the first call of a process
also compiles numba's typed containers (a few CPU-s, never cached), under the lock too.
The kernels stay ranx's own, ties included: NUMBA_DISABLE_JIT would sort ties with numpy's argsort, not numba's,
and the suite checks ranx's tie order.
"""

from __future__ import annotations

import contextlib
import functools
import getpass
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # Windows: no flock; each process compiles what it uses, as without this helper
    fcntl = None

LOCK = Path(tempfile.gettempdir()) / f"ranx-kernels-{getpass.getuser()}.lock"


@contextlib.contextmanager
def _one_process_at_a_time() -> Iterator[None]:
    with LOCK.open("a") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes, or when the process dies
        yield


class SerialRanx:
    """ranx's ``Qrels``, ``Run`` and ``evaluate``, each call made under the machine-wide lock."""

    def __init__(self, ranx) -> None:
        self._ranx = ranx

    def Qrels(self, *args, **kwargs):  # noqa: N802 (ranx's name)
        with _one_process_at_a_time():
            return self._ranx.Qrels(*args, **kwargs)

    def Run(self, *args, **kwargs):  # noqa: N802 (ranx's name)
        with _one_process_at_a_time():
            return self._ranx.Run(*args, **kwargs)

    def evaluate(self, *args, **kwargs):
        with _one_process_at_a_time():
            return self._ranx.evaluate(*args, **kwargs)


@functools.cache
def compiled_ranx() -> SerialRanx:
    """ranx, its kernels compiled by one process at a time (skips the test when ranx is not installed)."""
    return SerialRanx(pytest.importorskip("ranx", reason="ranx does not install here"))
