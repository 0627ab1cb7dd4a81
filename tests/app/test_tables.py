"""Every table a page shows can be downloaded from its toolbar (*Download as CSV*, written by Streamlit with no
escaping) and copied cell by cell: so every table goes through ui.common.tables, which hands Streamlit cells a
spreadsheet cannot run (the rule of metrics.io.csv_cells), and a hostile qid, doc id or run name never reaches a
grid raw."""

from __future__ import annotations

import ast
import io

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from metrics.io.csv_cells import safe_cell
from tests.app.support import assert_no_failure, open_app, open_runs_page, open_tab, param, shown
from tests.support.paths import REPO
from ui.common.tables import inert_frame, inert_text

HOSTILE_QID = '=HYPERLINK("http://evil.example","x")'
HOSTILE_DOC = "@SUM(1+1)"
#: Streamlit's elements that draw a grid with a toolbar download.
GRIDS = {"dataframe", "data_editor"}
HELPER = "ui/common/tables.py"


def test_every_table_of_every_page_goes_through_the_one_helper():
    # st.dataframe, st.data_editor, and the same called on a column or a container (column.dataframe(...)).
    direct = []
    for path in sorted([*(REPO / "ui").rglob("*.py"), REPO / "app.py"]):
        where = path.relative_to(REPO).as_posix()
        if where == HELPER:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in GRIDS:
                direct.append(f"{where}:{node.lineno}: .{node.func.attr}(...)")
    assert not direct, "tables bypassing ui.common.tables (use tables.table / tables.editor):\n" + "\n".join(direct)


def test_a_table_shows_formula_like_text_inert_and_leaves_numbers_and_the_frame_given_alone():
    given = pd.DataFrame({
        "query": [HOSTILE_QID, "q2", "-2+3", "\tcmd"],
        "document": pd.array([HOSTILE_DOC, "d2", None, "+x"], dtype="string"),
        "delta": [-0.25, 0.5, float("nan"), 1e-5],
        "as text": ["-0.25", "+1e-05", "—", "n/a"],
        "=run.txt": [1, 2, 3, 4],
    }, index=pd.Index(["=a", "b", "c", "-d"], name="qid"))
    shown = inert_frame(given)
    assert list(shown["query"]) == ["'" + HOSTILE_QID, "q2", "'-2+3", "'\tcmd"]
    assert shown["document"].dtype == "string" and list(shown["document"].fillna("<NA>")) == [
        "'" + HOSTILE_DOC, "d2", "<NA>", "'+x"]
    assert shown["delta"].dtype == float and shown["delta"].to_numpy().tolist()[:2] == [-0.25, 0.5]
    assert list(shown["as text"]) == ["-0.25", "+1e-05", "—", "n/a"]
    assert list(shown.columns) == ["query", "document", "delta", "as text", "'=run.txt"]
    assert list(shown.index) == ["'=a", "b", "c", "'-d"] and shown.index.name == "qid"
    assert given["query"].iloc[0] == HOSTILE_QID and given.index[0] == "=a"  # the caller's frame is unchanged
    # What the toolbar writes: the cells as the grid holds them. Every text field of that CSV is inert.
    written = pd.read_csv(io.StringIO(shown.to_csv()), dtype=str, keep_default_na=False)
    cells = [*written.columns, *written.to_numpy().ravel()]
    assert all(safe_cell(cell) == cell for cell in cells), [cell for cell in cells if safe_cell(cell) != cell]


def test_column_arguments_follow_a_label_made_inert(monkeypatch):
    from ui.common import tables

    drawn = {}
    monkeypatch.setattr(tables.st, "data_editor", lambda frame, **kwargs: drawn.update(frame=frame, **kwargs))
    tables.editor(pd.DataFrame({"=x": ["a"], "grade": [1]}), column_config={"=x": "config", "grade": None},
                  disabled=["=x"], column_order=["grade", "=x"], key="k")
    assert list(drawn["frame"].columns) == ["'=x", "grade"]
    assert drawn["column_config"] == {"'=x": "config", "grade": None}
    assert drawn["disabled"] == ["'=x"] and drawn["column_order"] == ["grade", "'=x"] and drawn["key"] == "k"


def test_inert_text_changes_only_text():
    assert [inert_text(value) for value in ("=1+1", -3, None, 2.5, True)] == ["'=1+1", -3, None, 2.5, True]


def raw_cells(at: AppTest) -> list[str]:
    """Every text cell, index label and column label of every grid on the page that a spreadsheet would run."""
    found = []
    for grid in at.dataframe:
        frame = grid.value
        for cell in [*frame.columns, *frame.index, *frame.to_numpy().ravel()]:
            if isinstance(cell, str) and safe_cell(cell) != cell:
                found.append(cell)
    return found


def every_cell(at: AppTest) -> set[object]:
    return {cell for grid in at.dataframe for cell in [*grid.value.index, *grid.value.to_numpy().ravel()]}


QRELS = (f"{HOSTILE_QID} 0 {HOSTILE_DOC} 1\n{HOSTILE_QID} 0 d2 0\n{HOSTILE_QID} 0 d3 1\n"
         "q2 0 d4 1\nq2 0 -2+3 1\nq2 0 d5 0\n").encode()
RUN_A = (f"{HOSTILE_QID} Q0 {HOSTILE_DOC} 1 0.9 +a\n{HOSTILE_QID} Q0 d2 2 0.8 +a\n{HOSTILE_QID} Q0 =hole 3 0.7 +a\n"
         "q2 Q0 d4 1 0.9 +a\nq2 Q0 -2+3 2 0.5 +a\n").encode()
RUN_B = (f"{HOSTILE_QID} Q0 d2 1 0.9 @b\n{HOSTILE_QID} Q0 {HOSTILE_DOC} 2 0.8 @b\n{HOSTILE_QID} Q0 d3 3 0.7 @b\n"
         "q2 Q0 -2+3 1 0.9 @b\nq2 Q0 =hole 2 0.5 @b\n").encode()


@pytest.mark.parametrize("tab", ["Per-query results", "Compare runs", "Judge the holes", "Online signals"])
def test_a_hostile_qid_doc_id_or_run_name_reaches_no_table_of_the_run_page_raw(tab):
    at = open_runs_page()
    at.file_uploader(key="runs_qrels").set_value(("=qrels.txt", QRELS, "text/plain"))
    at.file_uploader(key="runs_runs").set_value([("+a.run", RUN_A, "text/plain"), ("-b.run", RUN_B, "text/plain")])
    at = open_tab(at.run(), tab)
    assert_no_failure(at)
    assert at.dataframe, f"the {tab} tab shows no table"
    assert not raw_cells(at)
    if tab in ("Per-query results", "Judge the holes"):  # the qid itself is in these tables, inert
        assert "'" + HOSTILE_QID in every_cell(at)


def test_the_explorers_editor_shows_a_hostile_doc_id_inert_and_keeps_it_as_typed():
    at = open_app(ranking=f"{HOSTILE_DOC},d2", qrels=f"{HOSTILE_DOC}:1", k="2")
    assert_no_failure(at)
    assert not raw_cells(at) and "'" + HOSTILE_DOC in every_cell(at)
    # The list keeps the id as typed (its judgment still matches it, the link still holds it): only the grid is inert.
    assert shown(at)["P@2"] == "0.500" and param(at, "ranking").startswith(HOSTILE_DOC)
