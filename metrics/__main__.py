"""``python -m metrics``: the trec_eval-compatible command line (see :mod:`metrics.cli`)."""

import ctypes
import ctypes.util
from typing import NoReturn

import pyarrow

from .cli import PROG, main
from .console import run_guarded

_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4


def keep_freed_memory() -> None:
    """Let glibc keep freed memory for reuse instead of returning it to the kernel.

    A large run makes a series of arrays of tens of MB. By default each is a fresh mmap that the kernel must zero
    (with transparent huge pages, 2 MB at a time), which cost as much system time as all our computing. This
    process is short-lived, so it keeps its heap instead (Arrow allocating through it too): about half the wall time,
    about 10% more peak memory.
    """
    name = ctypes.util.find_library("c")
    if not name:
        return
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt(_M_MMAP_MAX, 0)
        libc.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
    except (OSError, AttributeError):  # not glibc: nothing to tune
        return
    # Arrow's own allocator maps and unmaps its buffers too; through malloc they share the kept heap.
    pyarrow.set_memory_pool(pyarrow.system_memory_pool())


def run() -> NoReturn:
    """The command line as a process: ``python -m metrics`` and the installed ``ir-metrics`` script."""
    keep_freed_memory()
    run_guarded(main, PROG)


if __name__ == "__main__":
    run()
