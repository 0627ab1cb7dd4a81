"""Where the repository and the tests' data files are, for tests in any package."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (the folder that holds app.py, metrics/ and tests/).
REPO = Path(__file__).resolve().parents[2]
#: tests/data: trec_eval's test files, the hostile-input catalogue and the other inputs (tests/data/README.md).
TEST_DATA = REPO / "tests" / "data"
#: docs: the reference pages README points to (measures.md, conventions.md, command-line.md, library.md, ...).
DOCS = REPO / "docs"
