"""The disagreement lab: for two lists A and B over the same judgments and two *judges* (two metrics, or one metric
under two conventions), the smallest single edit of B after which the judges disagree on which list is better.

A judge's verdict is the sign of ``value(B) - value(A)``: B better, A better, or a tie (a difference within
:data:`~metrics.whatif.scenario.SAME`). The judges disagree when their verdicts differ.

The edits, each one step: a **swap** of two of B's top :data:`~metrics.whatif.swaps.SWAP_WINDOW` ranks; the
**removal** of one of B's documents; a **grade change** of one document of either list, or one judged but never
retrieved, to another grade among 0, 1 and those the judgments use (:data:`MAX_GRADES` of them at most; a grade
change holds for both lists, as the judgments are shared). Every such edit is scored, each list exactly as
:func:`metrics.evaluate_rankings` scores it under the judge's conventions. The smallest is the first by: its size
(a swap of ranks i and j is j - i, a removal 1, a grade change the distance between the grades and at least 1,
an unjudged document counting as grade 0), then a full disagreement (one judge says A, the other B) before a tie
against a verdict, then the highest rank it touches, then swap, removal, grade change.

>>> judges = (Judge("P@2"), Judge("nDCG@2"))
>>> found = find_disagreement(["a", "b"], ["a", "b"], {"a": 2, "b": 1, "c": 2}, judges)
>>> found.edit.describe(found.list_b)
'Swapping ranks 1 and 2 of B (a and b)'
>>> [verdict_words(v) for v in found.verdicts_after]
['tie', 'A better']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from ..conventions import TREC_EVAL, Conventions
from ..engine import check_gain_range, evaluate_batch, judged_only
from ..model import NO_JUDGMENT, InputError, RankingBatch, check_grades, check_unique
from ..names import Measure, parse_one_measure
from .scenario import SAME
from .swaps import SWAP_WINDOW

#: The lab searches lists of at most this many documents each (every removal and grade change is one more ranking
#: scored, the swaps of the top SWAP_WINDOW ranks 780 more).
MAX_LAB_ITEMS = 100
#: Grade changes go to at most this many grades (0, 1 and the smallest of those the judgments use).
MAX_GRADES = 10
#: Grade changes are tried for at most this many documents (the lists' first, then judged ones never retrieved).
MAX_GRADED_DOCS = 300

EditKind = Literal["swap", "remove", "grade"]
_KIND_ORDER = {"swap": 0, "remove": 1, "grade": 2}


@dataclass(frozen=True, slots=True)
class Judge:
    """One metric under one set of conventions; ``label`` names it in sentences (default: the measure's name)."""

    measure: str | Measure
    conventions: Conventions = TREC_EVAL
    label: str = ""

    def parsed(self) -> Measure:
        return parse_one_measure(self.measure)

    @property
    def name(self) -> str:
        return self.label or self.parsed().key


@dataclass(frozen=True, slots=True)
class LabEdit:
    """One edit of B: ``swap`` positions ``index`` and ``target`` (0-based), ``remove`` position ``index``, or
    ``grade``: judge ``doc`` with ``grade``."""

    kind: EditKind
    index: int | None = None
    target: int | None = None
    doc: str | None = None
    grade: int | None = None

    def apply(self, list_b: Sequence[str], judgments: Mapping[str, int]) -> tuple[list[str], dict[str, int]]:
        """B and the judgments after the edit."""
        ranking, judged = list(list_b), dict(judgments)
        if self.kind == "swap":
            ranking[self.index], ranking[self.target] = ranking[self.target], ranking[self.index]
        elif self.kind == "remove":
            del ranking[self.index]
        else:
            judged[self.doc] = self.grade
        return ranking, judged

    def describe(self, list_b: Sequence[str], judgments: Mapping[str, int] | None = None) -> str:
        if self.kind == "swap":
            return (f"Swapping ranks {self.index + 1} and {self.target + 1} of B ({list_b[self.index]} and "
                    f"{list_b[self.target]})")
        if self.kind == "remove":
            return f"Removing {list_b[self.index]} (rank {self.index + 1}) from B"
        old = (judgments or {}).get(self.doc)
        was = "unjudged" if old is None or old < 0 else f"grade {old}"
        return f"Judging {self.doc} grade {self.grade} (was {was})"

    def size(self, judgments: Mapping[str, int]) -> int:
        if self.kind == "swap":
            return self.target - self.index
        if self.kind == "remove":
            return 1
        return max(1, abs(self.grade - max(judgments.get(self.doc, 0), 0)))


@dataclass(frozen=True)
class Disagreement:
    """What the lab found: each judge's values on A and B before and after ``edit`` (None: no single edit makes
    them disagree, or they disagree already), and how many edits were scored."""

    judges: tuple[Judge, Judge]
    list_a: tuple[str, ...]
    list_b: tuple[str, ...]
    judgments: Mapping[str, int] = field(hash=False)
    values_before: tuple[tuple[float, float], tuple[float, float]] = ((0.0, 0.0), (0.0, 0.0))  # (A, B) per judge
    edit: LabEdit | None = None
    values_after: tuple[tuple[float, float], tuple[float, float]] | None = None
    edits_scored: int = 0

    @property
    def verdicts_before(self) -> tuple[int, int]:
        return tuple(verdict(a, b) for a, b in self.values_before)  # type: ignore[return-value]

    @property
    def verdicts_after(self) -> tuple[int, int] | None:
        if self.values_after is None:
            return None
        return tuple(verdict(a, b) for a, b in self.values_after)  # type: ignore[return-value]

    @property
    def already(self) -> bool:
        """The judges disagree before any edit."""
        first, second = self.verdicts_before
        return first != second

    @property
    def sentence(self) -> str:
        first, second = (judge.name for judge in self.judges)
        if self.already:
            return (f"{first} and {second} disagree already: {first} says {verdict_words(self.verdicts_before[0])}, "
                    f"{second} says {verdict_words(self.verdicts_before[1])}.")
        agreed = verdict_words(self.verdicts_before[0])
        if self.edit is None:
            return (f"{first} and {second} agree ({agreed}), and no single edit (of the {self.edits_scored:,} "
                    "swaps, removals and grade changes tried) makes them disagree.")
        after = self.verdicts_after
        return (f"{first} and {second} agree now ({agreed}). {self.edit.describe(self.list_b, self.judgments)}: "
                f"{first} says {verdict_words(after[0])}, {second} says {verdict_words(after[1])}.")


def verdict(value_a: float, value_b: float) -> int:
    """+1 when B scores higher, -1 when A does, 0 for a tie (a difference within SAME)."""
    difference = value_b - value_a
    return 0 if abs(difference) <= SAME else (1 if difference > 0 else -1)


def verdict_words(value: int) -> str:
    return {1: "B better", -1: "A better", 0: "tie"}[value]


def find_disagreement(
    list_a: Sequence[str], list_b: Sequence[str], judgments: Mapping[str, int], judges: Sequence[Judge],
    *, swap_window: int = SWAP_WINDOW,
) -> Disagreement:
    """The smallest single edit of B after which the two ``judges`` disagree on which of A and B is better."""
    if len(judges) != 2 or not all(isinstance(judge, Judge) for judge in judges):
        raise InputError("Argument `judges` has to be two metrics.whatif.Judge (two metrics, or one metric under "
                         "two conventions)")
    judges = (judges[0], judges[1])
    measures = [judge.parsed() for judge in judges]
    check_grades(judgments)
    judgments = {str(doc): int(grade) for doc, grade in judgments.items()}
    lists = []
    for name, ranking in (("A", list_a), ("B", list_b)):
        if isinstance(ranking, str):
            raise InputError(f"list {name} has to be a sequence of doc ids, not one string")
        ranking = tuple(str(doc) for doc in ranking)
        check_unique(ranking)
        if len(ranking) > MAX_LAB_ITEMS:
            raise InputError(f"list {name} has {len(ranking):,} documents; the disagreement lab searches lists of "
                             f"at most {MAX_LAB_ITEMS:,}")
        lists.append(ranking)
    a, b = lists
    edits = candidate_edits(a, b, judgments, swap_window)
    lab = _LabRows(a, b, judgments)
    # For each edit, the rows of A and B after it: B reordered, or a grade change of both lists.
    rows_of = [(lab.row("A", edit), lab.row("B", edit)) if edit.kind == "grade" else (0, lab.row("B", edit))
               for edit in edits]
    values = lab.values(measures, judges)  # (judges, rows)

    def pair(rows: tuple[int, int]) -> tuple[tuple[float, float], tuple[float, float]]:
        return tuple((float(values[j, rows[0]]), float(values[j, rows[1]])) for j in range(2))  # type: ignore

    before = pair((0, 1))
    found = Disagreement(judges, a, b, judgments, before, edits_scored=len(edits))
    if found.already:
        return found
    best, best_key = None, None
    for e, (edit, rows) in enumerate(zip(edits, rows_of)):
        first, second = (verdict(value_a, value_b) for value_a, value_b in pair(rows))
        if first == second:
            continue
        key = (edit.size(judgments), 0 if first * second == -1 else 1, _top_rank(edit, a, b),
               _KIND_ORDER[edit.kind], e)
        if best_key is None or key < best_key:
            best, best_key = e, key
    if best is None:
        return found
    return Disagreement(judges, a, b, judgments, before, edits[best], pair(rows_of[best]), len(edits))


def candidate_edits(a: Sequence[str], b: Sequence[str], judgments: Mapping[str, int],
                    swap_window: int = SWAP_WINDOW) -> list[LabEdit]:
    """Every single edit the lab tries, in rank order: swaps of B's top ranks, removals from B, grade changes."""
    window = min(len(b), swap_window)
    edits = [LabEdit("swap", i, j) for i in range(window) for j in range(i + 1, window)]
    edits += [LabEdit("remove", i) for i in range(len(b))]
    used = sorted({grade for grade in judgments.values() if grade >= 0} | {0, 1})[:MAX_GRADES]
    docs = list(dict.fromkeys([*b, *a, *(doc for doc, grade in judgments.items() if grade >= 0)]))
    for doc in docs[:MAX_GRADED_DOCS]:
        current = judgments.get(doc, -1)
        edits += [LabEdit("grade", doc=doc, grade=grade) for grade in used if grade != current]
    return edits


def _top_rank(edit: LabEdit, a: Sequence[str], b: Sequence[str]) -> int:
    if edit.kind != "grade":
        return edit.index
    ranks = [ranking.index(edit.doc) for ranking in (a, b) if edit.doc in ranking]
    return min(ranks, default=len(a) + len(b))


class _LabRows:
    """The distinct rankings the lab scores, each with what it needs of the judgments: its own documents' grades
    and, shared by every ranking under the same grade change, the query's sorted grades. Memory follows the lists
    and the number of distinct grade changes, never rankings x judgments: a grade change of a document outside a
    list changes that list only through the sorted grades, so the list is scored once per (old, new) grade pair."""

    def __init__(self, a: tuple[str, ...], b: tuple[str, ...], judgments: dict[str, int]):
        self.lists = {"A": a, "B": b}
        self.judgments = judgments
        self.rankings: list[list[str]] = []
        self.own: list[dict[str, int]] = []  # each ranking's judged documents
        self.change: list[tuple[int, int] | None] = []  # the (old, new) grade of the changed document
        self.seen: dict[tuple, int] = {}
        self.grades = np.array(sorted((g for g in judgments.values() if g >= 0), reverse=True), dtype=np.float64)
        self.row("A")
        self.row("B")

    def row(self, name: str, edit: LabEdit | None = None) -> int:
        """The row of list ``name`` after ``edit`` (None: as it is; a swap or removal applies to B only)."""
        ranking = self.lists[name]
        if edit is not None and edit.kind != "grade":
            ranking, _ = edit.apply(ranking, {})
            key: tuple = (name, edit.kind, edit.index, edit.target)
            change = None
        elif edit is None:
            key, change = (name,), None
        else:
            change = (self.judgments.get(edit.doc, -1), edit.grade)
            key = (name, change, edit.doc if edit.doc in ranking else None)
        if key not in self.seen:
            own = {doc: self.judgments[doc] for doc in ranking if doc in self.judgments}
            if edit is not None and edit.kind == "grade" and edit.doc in ranking:
                own[edit.doc] = edit.grade
            self.seen[key] = len(self.rankings)
            self.rankings.append(list(ranking))
            self.own.append(own)
            self.change.append(change)
        return self.seen[key]

    def sorted_grades(self, change: tuple[int, int] | None) -> np.ndarray:
        """(1, m) the query's grades >= 0 after ``change``, descending, padded as a batch's judged grades are."""
        grades = self.grades
        if change is not None:
            old, new = change
            if old >= 0:
                grades = np.delete(grades, int(np.searchsorted(-grades, -old)))
            grades = np.insert(grades, int(np.searchsorted(-grades, -new)), float(new))
        return (grades if grades.shape[0] else np.array([float(NO_JUDGMENT)]))[None, :]

    def values(self, measures: list[Measure], judges: tuple[Judge, Judge]) -> np.ndarray:
        """Each judge's value of every row, as evaluate_rankings gives it (depth, then judged-only): one batch per
        grade change and way of reading the lists, its sorted grades one row shared by all (a stride-0 view). The
        inputs were checked once above, not once per ranking."""
        values = np.empty((2, len(self.rankings)))
        groups: dict[tuple[int, int] | None, list[int]] = {}
        for row, change in enumerate(self.change):
            groups.setdefault(change, []).append(row)
        for j, (measure, judge) in enumerate(zip(measures, judges)):
            conv = judge.conventions
            check_gain_range([self.judgments], [measure], conv)  # grade changes add no new grade
            read = (conv.depth, judged_only(measure, conv))
            for change, members in groups.items():
                shared = self.sorted_grades(change)
                for start in range(0, len(members), _CHUNK_ROWS):
                    chunk = members[start: start + _CHUNK_ROWS]
                    batch = RankingBatch.from_rankings([self.rankings[r] for r in chunk], [self.own[r] for r in chunk],
                                                       depth=read[0], judged_only=read[1])
                    batch = replace(batch, judged_grades=np.broadcast_to(shared, (len(chunk), shared.shape[1])))
                    values[j, chunk] = evaluate_batch(batch, [measure], conv)[measure.key]
        return values


#: Rankings scored in one batch: each is at most MAX_LAB_ITEMS documents, so a batch holds at most 100,000 ranks.
_CHUNK_ROWS = 1_000
