"""The edges both command lines share (``python -m metrics`` and ``python -m metrics.check``): a reader that goes
away (``| head -1``), Ctrl-C and an output that cannot be written end in one line and an exit status, never a
traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import NoReturn

#: Exit status after Ctrl-C, as shells report a process ended by SIGINT (128 + 2).
EXIT_INTERRUPTED = 130
#: Exit status when the reader of the output went away, as for a process ended by SIGPIPE (128 + 13).
EXIT_BROKEN_PIPE = 141


def run_guarded(main: Callable[[], int], prog: str) -> NoReturn:
    """Exit with ``main()``'s status; a closed output stops quietly, Ctrl-C prints one line."""
    try:
        status = main()
        sys.stdout.flush()  # a pipe closed early shows here, not at interpreter exit
    except BrokenPipeError:
        # The reader of our output went away (e.g. `| head -1`): stop quietly, as trec_eval does. Python would
        # flush stdout again at exit and complain, so stdout now points to /dev/null.
        _silence_stdout()
        status = EXIT_BROKEN_PIPE
    except OSError as error:  # only the final flush is left unguarded by main
        _silence_stdout()
        print(f"{prog}: {cannot_write(error)}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        status = EXIT_INTERRUPTED
    sys.exit(status)


def _silence_stdout() -> None:
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def cannot_write(error: OSError) -> str:
    """The one line for an output that cannot be written (a full disk, /dev/full, a closed file)."""
    return f"cannot write the output: {error.strerror or error}"


__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED", "cannot_write", "run_guarded"]
