"""``python -m metrics``: the trec_eval-compatible command line (see :mod:`metrics.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
