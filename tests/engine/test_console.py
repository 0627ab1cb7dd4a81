"""The edges of both command lines: a reader that goes away, Ctrl-C and an output that cannot be written end in
one line and an exit status, never a traceback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from metrics.console import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, run_guarded
from tests.support.paths import REPO

QRELS = "".join(f"q{q} 0 d{d} {(q + d) % 3}\n" for q in range(200) for d in range(10))
RUN = "".join(f"q{q} Q0 d{d} {d + 1} {1 - d / 100} t\n" for q in range(200) for d in range(20))


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return [str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")]


COMMANDS = {
    "metrics": lambda files: ["-m", "metrics", "-q", "-m", "all_trec", *files],
    "metrics.check": lambda files: ["-m", "metrics.check", *files, "-m", "P.10", "-v", "0.9", "--explain"],
    # --queries alone prints its verdict where input errors are caught: a closed pipe was "error: [Errno 32]"
    "metrics.check --queries": lambda files: ["-m", "metrics.check", "--queries", "50", "-m", "P.10", "-v", "0.412"],
    "metrics.ann": lambda files: ["-m", "metrics.ann", files[1], files[1], files[0], "-q"],
    "metrics.compare": lambda files: ["-m", "metrics.compare", files[0], files[1], files[1], "--details"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_reader_that_went_away_stops_the_command_quietly(command, files):
    reader, writer = os.pipe()
    os.close(reader)  # as after `| head -1` has read its line
    try:
        done = subprocess.run([sys.executable, *COMMANDS[command](files)], stdout=writer, stderr=subprocess.PIPE,
                              cwd=REPO, timeout=120)
    finally:
        os.close(writer)
    assert done.stderr == b""
    assert done.returncode == EXIT_BROKEN_PIPE


@pytest.mark.parametrize("command", COMMANDS)
def test_a_full_disk_is_a_write_error_not_a_read_error(command, files):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, *COMMANDS[command](files)], stdout=full, stderr=subprocess.PIPE,
                              cwd=REPO, timeout=120, text=True)
    assert done.returncode == 2
    assert "cannot write the output: No space left on device" in done.stderr
    assert "Traceback" not in done.stderr and "cannot read" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_ctrl_c_prints_one_line_and_exits_130(capsys):
    def interrupted() -> int:
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as exited:
        run_guarded(interrupted, "python -m metrics")
    assert exited.value.code == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "python -m metrics: interrupted\n"


# ---- --help is plain text ------------------------------------------------------------------------------------------

#: Every command line: ``python -m metrics`` and each package with a ``__main__`` under metrics/.
COMMAND_LINES = ["metrics", *sorted(".".join(path.relative_to(REPO).parent.parts)
                                    for path in (REPO / "metrics").glob("*/**/__main__.py"))]
#: reST and Markdown markup that a terminal shows as typed: ``literal``, `code`, :role:`name`, **bold**, [a](link).
MARKUP = re.compile(r"``|`[^`\n]+`|:[a-z]+:`|\*\*\S|\]\(")


def test_every_command_line_is_found():
    assert {"metrics", "metrics.ann", "metrics.check", "metrics.compare", "metrics.online"} <= set(COMMAND_LINES)


@pytest.mark.parametrize("command", COMMAND_LINES)
def test_every_help_is_plain_text_without_markup(command):
    done = subprocess.run([sys.executable, "-m", command, "--help"], capture_output=True, text=True, timeout=120,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "120"})
    assert done.returncode == 0 and done.stdout.startswith("usage:"), done.stderr
    found = [line for line in done.stdout.splitlines() if MARKUP.search(line)]
    assert not found, f"{command} --help shows markup: {found}"
