"""A machine without Chromium (and without root to install it) runs the whole suite but the browser tests, and
pytest's summary says so in one line with the fix."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.support.paths import REPO


def test_without_chromium_the_browser_tests_skip_with_one_line_saying_how_to_run_them(tmp_path):
    missing = tmp_path / "no-chromium"
    done = subprocess.run([sys.executable, "-m", "pytest", "tests/browser", "-p", "no:cacheprovider", "-q"],
                          cwd=REPO, env={**os.environ, "CHROMIUM": str(missing)}, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    said = [line for line in done.stdout.splitlines() if "browser tests skipped" in line]
    assert len(said) == 1, said
    skipped = re.fullmatch(
        rf"SKIPPED \[(\d+)\] tests/browser/conftest\.py:1: browser tests skipped: {re.escape(str(missing))} is "
        r"absent; install Debian's chromium \(as root: make browser, or apt-get install chromium\) to run them",
        said[0])
    assert skipped, said[0]
    count = int(skipped.group(1))
    assert count >= 30 and done.stdout.splitlines()[-1].startswith(f"{count} skipped")
