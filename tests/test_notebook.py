"""examples/tour.ipynb runs from top to bottom in a fresh kernel (nbclient), so the library tour never rots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "tour.ipynb"

pytestmark = pytest.mark.slow

# nbformat is imported in the tests, not at collection: importing it builds jsonschema's URI grammars, about 3 s of
# CPU that every pytest-xdist worker would pay, not only the one that runs these tests.


def _printed(cell) -> str:
    return "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")


def test_the_tour_runs_top_to_bottom_and_finds_exponential_gain(monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    # Figures as plotly's JSON only: no copy of plotly.js in each output of this throwaway run.
    monkeypatch.setitem(os.environ, "PLOTLY_RENDERER", "plotly_mimetype")
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    printed = "\n".join(_printed(cell) for cell in code)
    assert "0.4138  gain=exponential" in printed  # the finder names the convention behind the reported score
    assert "wins / ties / losses: 8 / 0 / 0" in printed  # the oracle beats the samples as ranked on every query
    figures = [output for cell in code for output in cell.outputs
               if "application/vnd.plotly.v1+json" in output.get("data", {})]
    assert len(figures) == 3  # k curves, swap heatmap, removal bars


def test_the_committed_tour_carries_no_outputs():
    """Outputs are made by running it; committed, they would only go stale and weigh on every diff."""
    import nbformat

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(not cell.outputs and cell.execution_count is None for cell in code)
