"""Run every benchmark (``make bench``): generate the data if it is missing, then each bench script in turn."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = ("generate.py", "bench_query.py", "bench_whatif.py", "bench_whatif_tabs.py", "bench_explorer.py",
           "bench_cli.py", "bench_stream.py", "bench_ann.py", "bench_dask.py")


def main() -> int:
    for script in SCRIPTS:
        print(f"== bench/{script}", flush=True)
        status = subprocess.call([sys.executable, str(HERE / script)], cwd=HERE.parent)
        if status != 0:
            print(f"bench/{script} failed with status {status}", file=sys.stderr)
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main())
