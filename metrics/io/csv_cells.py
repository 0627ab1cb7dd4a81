"""Every CSV the project writes goes through :func:`csv_text`: user text (a doc id, a qid, a file name) that a
spreadsheet would run as a formula is made inert.

A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to Excel, LibreOffice and
Google Sheets (``=HYPERLINK("http://evil.example","click")`` becomes a live link). As OWASP's "CSV Injection" page
recommends, such a cell is prefixed with a single quote, which spreadsheets show as text and do not evaluate. A
number stays a number: ``-0.25`` and ``1e-05`` are written as they are, whether given as a float or as its text.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable

#: The first characters that make a spreadsheet read a cell as a formula (OWASP, CSV Injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def safe_cell(value: object) -> object:
    """``value`` as a CSV cell a spreadsheet cannot run: text starting like a formula gets a leading ``'``;
    numbers, and text that is exactly a number, pass unchanged; NaN and None become an empty cell."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, int, float)):
        return value
    text = str(value)
    if text.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_text(rows: Iterable[Iterable[object]]) -> str:
    """``rows`` (the header first) as CSV text, every cell through :func:`safe_cell`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([safe_cell(value) for value in row])
    return out.getvalue()


__all__ = ["FORMULA_STARTS", "csv_text", "safe_cell"]
