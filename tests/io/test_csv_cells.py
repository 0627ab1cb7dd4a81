"""CSV formula injection (OWASP "CSV Injection"): every CSV the project writes goes through one helper
(metrics.io.csv_cells.csv_text), which makes a cell a spreadsheet would run as a formula inert with a leading
single quote and leaves numbers alone. Each file is read back here as a spreadsheet would see it."""

from __future__ import annotations

import csv
import io
import re

import pytest

from metrics.ann.compare import AnnComparison
from metrics.io.csv_cells import FORMULA_STARTS, csv_text, safe_cell
from tests.support.paths import REPO
from ui.common.query_state import Item, QueryState
from ui.explore.exports import query_exports

LINK = '=HYPERLINK("http://evil.example","click")'


def read_back(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize("start", FORMULA_STARTS)
def test_a_cell_starting_like_a_formula_gets_a_single_quote(start):
    assert safe_cell(start + "SUM(A1:A9)") == "'" + start + "SUM(A1:A9)"


@pytest.mark.parametrize("number", [-0.25, -3, 1e-05, "-0.25", "+7", "-1e5", "0.5"])
def test_a_number_stays_a_number_even_with_a_minus_sign(number):
    assert safe_cell(number) == number


def test_text_that_only_looks_like_a_number_at_the_start_is_still_neutralised():
    assert [safe_cell(text) for text in ("-1+2", "-inf", "- 1", "+A1")] == ["'-1+2", "'-inf", "'- 1", "'+A1"]
    assert safe_cell("d=1") == "d=1" and safe_cell("'quoted") == "'quoted"  # only the first character matters


def test_the_explorers_metrics_csv_holds_a_formula_doc_id_as_text():
    query = QueryState((Item(LINK, score=2.0), Item("d2", score=1.0)), {LINK: 1}, 2)
    rows = [("P@2", "P.2", 0.5), ("change", "delta", -0.25)]
    header, *table = read_back(query_exports(query, rows).csv)
    assert header == ["metric", "measure", "value", "conventions", "ranking"]
    assert {row[4] for row in table} == {"'" + LINK + " d2"}
    assert [float(row[2]) for row in table] == [0.5, -0.25]  # the negative value is written as a number


def test_the_ann_pages_csv_neutralises_query_ids_and_keeps_negative_numbers():
    per_query = {LINK: {"ann_recall_10": 0.5, "delta": -0.25}, "-3": {"ann_recall_10": 1.0, "delta": 0.0},
                 "@q": {"ann_recall_10": 0.0, "delta": float("nan")}}
    comparison = AnnComparison(("ann_recall_10", "delta"), per_query, {"ann_recall_10": 0.5, "delta": -0.125})
    assert read_back(comparison.csv()) == [
        ["qid", "ann_recall_10", "delta"],
        ["'" + LINK, "0.5", "-0.25"],
        ["-3", "1.0", "0.0"],  # a numeric qid stays as it is: a spreadsheet reads it as the number it is
        ["'@q", "0.0", ""],
        ["all", "0.5", "-0.125"],
    ]


def test_every_csv_the_project_writes_goes_through_the_one_helper():
    writers = re.compile(r"\bto_csv\(|csv\.writer\(|csv\.DictWriter\(")
    helper = REPO / "metrics" / "io" / "csv_cells.py"
    found = [str(path.relative_to(REPO)) for folder in ("metrics", "ui") for path in (REPO / folder).rglob("*.py")
             if path != helper and writers.search(path.read_text(encoding="utf-8"))]
    assert found == []
    assert csv_text([["a", "b"], ["=1", 2]]) == "a,b\n'=1,2\n"
