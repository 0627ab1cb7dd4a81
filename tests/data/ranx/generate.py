"""Record again what ranx returns for every call the suite makes (tests/support/ranx_kernels.py replays them).

    .venv/bin/python tests/data/ranx/generate.py

Runs the tests that ask ranx (``TESTS``) with ranx live, each call recorded by its input, and writes
``recorded.json.gz``: ``ranx`` and ``numba`` (the versions that made it) and ``calls``, each call's key (a hash of its
qrels, run, metrics and options in input order) to ``{"values": ...}`` or ``{"error": ranx's message}``. Calls no
test makes any more are dropped. A cold numba cache makes this take minutes: ranx compiles each kernel on first use.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO))

from tests.support.ranx_kernels import RECORD_INTO, RECORDING  # noqa: E402 (after the path)

#: The tests whose ranx calls are recorded.
TESTS = (
    "tests/engine/test_peers.py", "tests/engine/test_conventions.py", "tests/engine/test_attributions.py",
    "tests/engine/test_profiles.py", "tests/analyses/test_check_table.py", "tests/analyses/test_check_tools.py",
)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        status = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                                  "-k", "ranx or rbp or finder", *TESTS],
                                 cwd=REPO, env={**os.environ, RECORD_INTO: folder})
        calls: dict[str, dict] = {}
        for part in sorted(Path(folder).glob("*.jsonl")):
            calls |= dict(map(json.loads, part.read_text(encoding="utf-8").splitlines()))
    if status != 0:
        sys.exit(f"the tests failed with ranx live (status {status}); {RECORDING.name} is unchanged")
    recording = {"ranx": version("ranx"), "numba": version("numba"), "calls": dict(sorted(calls.items()))}
    with gzip.open(RECORDING, "wt", encoding="utf-8", compresslevel=9) as handle:
        json.dump(recording, handle, separators=(",", ":"))
    print(f"{RECORDING.relative_to(REPO)}: {len(calls)} calls, ranx {recording['ranx']}")


if __name__ == "__main__":
    main()
