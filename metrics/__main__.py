"""``python -m metrics``: the trec_eval-compatible command line (see :mod:`metrics.cli`)."""

import os
import sys

from .cli import main

if __name__ == "__main__":
    try:
        status = main()
    except BrokenPipeError:
        # The reader of our output went away (e.g. `| head`): stop quietly, as trec_eval does.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    sys.exit(status)
