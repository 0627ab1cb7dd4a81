"""Check a whole results table: one set of conventions that explains every row at once, or the rows none explains.

A row is (run, measure, reported value). The finder gives, for each row, every combination of the conventions it
searched that reproduces the value. A single setting of all conventions explains the table when, for every row,
its restriction to the conventions that row searched is one of the row's matching combinations (a convention a
measure ignores, such as gain for P@10, constrains nothing). The explaining settings are ranked by commonness
(trec_eval's defaults first); when none explains every row, the setting that explains the most rows is given with
the rows it leaves out.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..conventions import TREC_EVAL, Conventions
from ..model import InputError, Qrels, Run
from .finder import Finding, convention_options, describe_changes, find_conventions

MAX_ROWS = 200
MAX_SETTINGS = 2_000_000


@dataclass(frozen=True)
class TableRow:
    run: str
    measure: str
    value: str
    line: int


@dataclass(frozen=True)
class TableCheck:
    """settings: conventions (name -> value) explaining every row, most common first (empty if none);
    best_partial: the setting explaining the most rows when none explains all; unexplained: those rows."""

    rows: tuple[TableRow, ...]
    findings: tuple[Finding, ...]
    settings: tuple[dict[str, object], ...]
    best_partial: dict[str, object] | None
    unexplained: tuple[TableRow, ...]

    @property
    def explained(self) -> bool:
        return bool(self.settings)

    def describe(self, setting: Mapping[str, object]) -> str:
        return describe_changes({k: v for k, v in setting.items() if getattr(TREC_EVAL, k) != v})


def utf8_text(data: bytes, name: str, what: str) -> str:
    """``data`` decoded as UTF-8 (a byte-order mark dropped); otherwise one InputError naming the file and the byte,
    the same on the command line and on the run page."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{name}: not UTF-8 text (byte {error.start}); save the {what} as UTF-8") from None


def read_table(text: str, *, name: str = "table") -> list[TableRow]:
    """Rows from CSV text with the columns run, measure, value (a header line names them, in any order)."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = [cell.strip().lower() for cell in next(reader)]
    except StopIteration:
        raise InputError(f"{name} is empty; expected a header line 'run,measure,value' and one row per score") from None
    missing = [column for column in ("run", "measure", "value") if column not in header]
    if missing:
        raise InputError(f"{name} line 1: the header needs the columns run, measure and value; missing "
                         f"{', '.join(missing)}")
    index = {column: header.index(column) for column in ("run", "measure", "value")}
    rows = []
    for line, cells in enumerate(reader, start=2):
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) < len(header):
            raise InputError(f"{name} line {line}: expected {len(header)} fields, found {len(cells)}")
        rows.append(TableRow(*(cells[index[c]].strip() for c in ("run", "measure", "value")), line=line))
        if len(rows) > MAX_ROWS:
            raise InputError(f"{name} has more than {MAX_ROWS} rows; check at most {MAX_ROWS} scores at once")
    if not rows:
        raise InputError(f"{name} has a header but no rows")
    return rows


def check_table(qrels: Qrels, runs: Mapping[str, Run], rows: Sequence[TableRow], *,
                base: Conventions | None = None) -> TableCheck:
    """Find one setting of the conventions under which every row's run gives its reported value."""
    findings = []
    for row in rows:
        if row.run not in runs:
            raise InputError(f"table line {row.line}: no run called {row.run!r} (runs: {', '.join(runs)})")
        try:
            findings.append(find_conventions(qrels, runs[row.run], row.measure, row.value, base=base))
        except InputError as error:
            raise InputError(f"table line {row.line}: {error}") from None
    dimensions: dict[str, tuple[object, ...]] = {}
    for finding in findings:
        for name, values in finding.searched.items():
            dimensions[name] = tuple(dict.fromkeys(dimensions.get(name, ()) + tuple(values)))
    matching = [_matching_settings(finding) for finding in findings]
    names = list(dimensions)
    total = math.prod(len(values) for values in dimensions.values())
    if total > MAX_SETTINGS:
        raise InputError(f"the table's rows search {total:,} combinations of conventions together; check fewer "
                         "measures at once")
    weights = {name: {option.value: option.weight for option in convention_options(name, _max_level(dimensions))}
               for name in names}
    explaining, best, best_count = [], None, -1
    for values in itertools.product(*(dimensions[name] for name in names)):
        setting = dict(zip(names, values))
        explained = [_explains(setting, finding, allowed) for finding, allowed in zip(findings, matching)]
        count = sum(explained)
        if count == len(rows):
            explaining.append(setting)
        weight = _weight(setting, weights)
        if count > best_count or (count == best_count and weight > _weight(best, weights)):
            best, best_count = setting, count
    explaining.sort(key=lambda setting: -_weight(setting, weights))
    if explaining:
        return TableCheck(tuple(rows), tuple(findings), tuple(explaining[:10]), None, ())
    unexplained = tuple(row for row, finding, allowed in zip(rows, findings, matching)
                        if not _explains(best, finding, allowed))
    return TableCheck(tuple(rows), tuple(findings), (), best, unexplained)


def _max_level(dimensions: Mapping[str, tuple[object, ...]]) -> int:
    return max((int(v) for v in dimensions.get("relevance_level", (1,))), default=1)


def _matching_settings(finding: Finding) -> set[tuple]:
    names = list(finding.searched)
    found = set()
    for candidate in finding.matches:
        for conventions in (candidate.conventions, *candidate.equivalents):
            found.add(tuple(getattr(conventions, name) for name in names))
    return found


def _explains(setting: Mapping[str, object], finding: Finding, allowed: set[tuple]) -> bool:
    return tuple(setting[name] for name in finding.searched) in allowed


def _weight(setting: Mapping[str, object] | None, weights: Mapping[str, Mapping[object, float]]) -> float:
    if setting is None:
        return -1.0
    return math.prod(weights[name].get(value, 0.1) for name, value in setting.items())
