"""Preflight lint: what can silently move a score, found before anyone reports it.

For each run, every check below gives its count, the queries concerned and, when it found something, its effect
on the measures asked for: the engine's means with the quirk and without it (never a guess). A check that finds
nothing has no effect to compute.

==================  ==========================================================================================
identical_ids       a document id equal to its query id (BEIR's ArguAna, Quora): as read vs those removed
duplicates          a document retrieved twice for one query (trec_eval refuses the file): first line kept vs
                    last line kept (what a reader into a dict, e.g. pytrec_eval's, keeps)
rank_vs_score       a rank column that contradicts the scores (a higher score at a lower rank): by score
                    (trec_eval re-sorts) vs by rank column
tied_cutoffs        ties that straddle a cut-off k in use: the lowest and highest mean over every order of the
                    tied documents (:mod:`metrics.ties`), around trec_eval's
missing_queries     judged queries the run lacks: skipped (trec_eval) vs scored 0 (trec_eval -c)
unjudged_queries    run queries without judgments: trec_eval skips them, so no measure moves
near_ids            ids that differ only by leading zeros or case between run and qrels: as read vs matched
shallow             a run shallower than a measure's depth (:mod:`metrics.check.depth`): as is vs the most a
                    deeper run could give
grade_levels        grades that suggest a relevance level (0-3 with 1 "related": TREC DL's -l 2): the level used
                    vs the level suggested
bad_scores          NaN or infinite scores: every non-finite line dropped vs infinite ones kept
identical_scores    a query whose documents all share one score: its order is the tie rule's alone
identical_runs      a run whose lines equal another run's
==================  ==========================================================================================

The run is read line by line as written (:func:`read_run_lines`), since the engine's reader refuses duplicates and
non-finite scores and ignores the rank column. The effects evaluate the *cleaned* run (first line of a duplicate
kept, non-finite lines dropped) with one quirk at a time changed.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..conventions import Conventions
from ..engine import aggregate
from ..evaluate import evaluate
from ..io.frames import is_parquet, read_parquet_run_rows
from ..io.trec import Source, load_bytes, looks_like_content
from ..model import InputError, Qrels, Run, order_documents
from ..names import Measure, parse_measures
from ..ties import tie_intervals
from .depth import depth_shortfall

#: The measures the lint computes effects on when none are asked for.
DEFAULT_MEASURES = ("ndcg_cut.10", "map", "recip_rank", "recall.100")
#: A run file the lint reads line by line is at most this large (decompressed).
MAX_LINT_BYTES = 256 * 1024 * 1024
#: Queries named in one line of text (the rest are counted).
SHOWN_QUERIES = 8


@dataclass(frozen=True, slots=True)
class RunLines:
    """A run exactly as written: one entry per line (qid, docno, rank column or None, score, which may be NaN or
    infinite), and the line numbers."""

    name: str
    qids: tuple[str, ...]
    docs: tuple[str, ...]
    ranks: tuple[int | None, ...]
    scores: tuple[float, ...]
    lines: tuple[int, ...]

    @classmethod
    def from_mapping(cls, name: str, run: Run) -> RunLines:
        """A run given as ``{qid: {doc: score}}`` (no duplicates, no rank column can be told)."""
        rows = [(qid, doc, float(score)) for qid, docs in run.items() for doc, score in docs.items()]
        return cls(name, tuple(r[0] for r in rows), tuple(r[1] for r in rows), (None,) * len(rows),
                   tuple(r[2] for r in rows), tuple(range(1, len(rows) + 1)))


def read_run_lines(source: Source, *, name: str | None = None, max_bytes: int = MAX_LINT_BYTES) -> RunLines:
    """Every line of a TREC run (``qid Q0 docno rank score tag``, plain or gzip) as written, duplicates and NaN
    included; a line with fewer than 6 columns or a score that is no number is an InputError naming the line. A
    Parquet run (told by its bytes, as the evaluator tells it) gives its rows, numbered from 0 as its messages
    count them."""
    if isinstance(source, os.PathLike) or isinstance(source, str) and not looks_like_content(source):
        if is_parquet(source):
            return _parquet_lines(source, name or Path(source).name, max_bytes)
    label, data = load_bytes(source, name=name, max_bytes=max_bytes, kind="run")
    qids, docs, ranks, scores, lines = [], [], [], [], []
    for number, raw in enumerate(bytes(data).split(b"\n"), start=1):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < 6:
            raise InputError(f"{label} line {number}: expected 6 columns (qid Q0 docno rank score tag), "
                             f"found {len(fields)}")
        try:
            score = float(fields[4])
        except ValueError:
            raise InputError(f"{label} line {number}: score {fields[4][:40].decode(errors='replace')!r} is not a "
                             "number") from None
        rank = fields[3]
        qids.append(fields[0].decode(errors="surrogateescape"))
        docs.append(fields[2].decode(errors="surrogateescape"))
        ranks.append(int(rank) if rank.lstrip(b"+-").isdigit() else None)
        scores.append(score)
        lines.append(number)
    if not qids:
        raise InputError(f"{label}: no run lines (qid Q0 docno rank score tag)")
    return RunLines(label, tuple(qids), tuple(docs), tuple(ranks), tuple(scores), tuple(lines))


def _parquet_lines(path, label: str, max_bytes: int) -> RunLines:
    qid, docno, score, ranks = read_parquet_run_rows(path)
    size = qid.nbytes + docno.nbytes + score.nbytes
    if size > max_bytes:  # the rows become Python objects, as a text run's lines do: the same cap
        raise InputError(f"{label}: its columns take {size / 2**20:.1f} MiB, more than the {max_bytes / 2**20:g} MiB "
                         "limit of a run the lint reads row by row; lint a part of the run")
    if not len(qid):
        raise InputError(f"{label}: no run rows (qid, docno, score)")
    return RunLines(label, tuple(qid.to_pylist()), tuple(docno.to_pylist()), tuple(ranks), tuple(score.tolist()),
                    tuple(range(len(qid))))


@dataclass(frozen=True, slots=True)
class Effect:
    """One measure's mean under each reading: ``values`` is (label, mean) pairs, the reading as the files are
    first; ``spread`` is the largest difference between them."""

    measure: str
    values: tuple[tuple[str, float], ...]

    @property
    def spread(self) -> float:
        numbers = [value for _, value in self.values]
        return max(numbers) - min(numbers)

    def text(self) -> str:
        return f"{self.measure} " + " vs ".join(f"{value:.4f} ({label})" for label, value in self.values)


@dataclass(frozen=True, slots=True)
class Check:
    """One check on one run: ``count`` things found (``unit``), the ``queries`` concerned, one sentence saying
    what it means (``note``), and the effects on the measures asked for (empty when nothing was found)."""

    name: str
    title: str
    count: int
    unit: str
    queries: tuple[str, ...]
    note: str
    effects: tuple[Effect, ...] = ()

    @property
    def found(self) -> bool:
        return self.count > 0

    def count_text(self) -> str:
        """``1 query`` or ``3 queries``: the count in its unit."""
        singular = {"queries": "query", "query cut-offs": "query cut-off", "grade-1 judgments": "grade-1 judgment"}
        unit = singular.get(self.unit, self.unit[:-1]) if self.count == 1 else self.unit
        return f"{self.count} {unit}"

    def queries_text(self) -> str:
        shown = ", ".join(self.queries[:SHOWN_QUERIES])
        more = len(self.queries) - SHOWN_QUERIES
        return shown + (f" and {more} more" if more > 0 else "")


@dataclass(frozen=True, slots=True)
class RunLint:
    """Every check on one run, in the order of the module's table."""

    run: str
    checks: tuple[Check, ...]
    measures: tuple[str, ...] = field(default=())

    @property
    def found(self) -> tuple[Check, ...]:
        return tuple(check for check in self.checks if check.found)


#: The checks, in the order they are listed.
CHECKS = ("identical_ids", "duplicates", "rank_vs_score", "tied_cutoffs", "missing_queries", "unjudged_queries",
          "near_ids", "shallow", "grade_levels", "bad_scores", "identical_scores", "identical_runs")


def lint_runs(qrels: Qrels, runs: Sequence[RunLines], measures: Sequence[str] = DEFAULT_MEASURES,
              conventions: Conventions | None = None, checks: Sequence[str] = CHECKS) -> list[RunLint]:
    """Every check (or those named in ``checks``) on every run, with effects on ``measures`` under ``conventions``
    (see the module's table)."""
    conventions = conventions or Conventions()
    parsed = [measure for spec in measures for measure in parse_measures(spec)]
    if not parsed:
        raise InputError("give at least one measure for the lint's effects, e.g. nDCG@10")
    if not runs:
        raise InputError("give at least one run to lint")
    unknown = [name for name in checks if name not in CHECKS]
    if unknown:
        raise InputError(f"unknown lint check {unknown[0]!r}; the checks: {', '.join(CHECKS)}")
    cleaned = [_clean(lines) for lines in runs]
    lints = []
    for index, (lines, run) in enumerate(zip(runs, cleaned)):
        _AS_READ.means = {}  # one run's means as read, shared by its checks
        subject = _Subject(qrels, lines, run, parsed, conventions, index, cleaned, runs)
        lints.append(RunLint(lines.name, tuple(_RUN_CHECK[name](subject) for name in CHECKS if name in checks),
                             tuple(m.key for m in parsed)))
    _AS_READ.means = {}
    return lints


@dataclass(frozen=True, slots=True)
class _Subject:
    """What the checks read: the qrels, one run as written and cleaned, the measures, conventions and every run."""

    qrels: Qrels
    lines: RunLines
    run: dict[str, dict[str, float]]
    measures: list[Measure]
    conventions: Conventions
    index: int
    cleaned: Sequence[dict]
    runs: Sequence[RunLines]


_RUN_CHECK = {
    "identical_ids": lambda s: _identical_ids(s.qrels, s.run, s.measures, s.conventions),
    "duplicates": lambda s: _duplicates(s.qrels, s.lines, s.run, s.measures, s.conventions),
    "rank_vs_score": lambda s: _rank_vs_score(s.qrels, s.lines, s.run, s.measures, s.conventions),
    "tied_cutoffs": lambda s: _tied_cutoffs(s.qrels, s.run, s.measures, s.conventions),
    "missing_queries": lambda s: _missing_queries(s.qrels, s.run, s.measures, s.conventions),
    "unjudged_queries": lambda s: _unjudged_queries(s.qrels, s.run),
    "near_ids": lambda s: _near_ids(s.qrels, s.run, s.measures, s.conventions),
    "shallow": lambda s: _shallow(s.qrels, s.run, s.measures, s.conventions),
    "grade_levels": lambda s: _grade_levels(s.qrels, s.run, s.measures, s.conventions),
    "bad_scores": lambda s: _bad_scores(s.qrels, s.lines, s.run, s.measures, s.conventions),
    "identical_scores": lambda s: _identical_scores(s.qrels, s.run, s.measures, s.conventions),
    "identical_runs": lambda s: _identical_runs(s.index, s.cleaned, s.runs),
}


# ---- the checks ---------------------------------------------------------------------------------------------------


def _identical_ids(qrels, run, measures, conventions) -> Check:
    found = [(qid, doc) for qid, docs in run.items() for doc in docs if doc == qid]
    queries = _qids(qid for qid, _ in found)
    effects = ()
    if found:
        removed = {qid: {doc: score for doc, score in docs.items() if doc != qid} for qid, docs in run.items()}
        effects = _effects(qrels, measures, conventions, ("as read", run), ("removed, as BEIR does", removed))
    return Check("identical_ids", "document id equal to its query id", len(found), "documents", queries,
                 "BEIR removes a document whose id is its query's (ArguAna, Quora); trec_eval keeps it.", effects)


def _duplicates(qrels, lines: RunLines, run, measures, conventions) -> Check:
    seen: dict[tuple[str, str], int] = {}
    last: dict[str, dict[str, float]] = {}
    repeated = []
    for qid, doc, score in zip(lines.qids, lines.docs, lines.scores):
        if (qid, doc) in seen:
            repeated.append(qid)
        seen[qid, doc] = seen.get((qid, doc), 0) + 1
        if math.isfinite(score):
            last.setdefault(qid, {})[doc] = score
    effects = ()
    if repeated:
        kept_last = {qid: {doc: last[qid][doc] for doc in docs} for qid, docs in run.items()}
        effects = _effects(qrels, measures, conventions, ("first line kept", run),
                           ("last line kept, as a dict reader", kept_last))
    return Check("duplicates", "document retrieved twice for one query", len(repeated), "lines",
                 _qids(repeated), "trec_eval refuses such a file; readers into a dict keep the last line.", effects)


def _rank_vs_score(qrels, lines: RunLines, run, measures, conventions) -> Check:
    ranks: dict[str, dict[str, int]] = {}
    for qid, doc, rank in zip(lines.qids, lines.docs, lines.ranks):
        if rank is not None and doc not in ranks.setdefault(qid, {}):
            ranks[qid][doc] = rank
    contradicted = []
    by_rank: dict[str, dict[str, float]] = {}
    for qid, docs in run.items():
        given = ranks.get(qid, {})
        if len(given) != len(docs) or not docs:
            by_rank[qid] = docs
            continue
        by_score = order_documents(docs, conventions.tie_order, qid=qid, score_precision=conventions.score_precision)
        position = {doc: i for i, doc in enumerate(by_score)}
        in_rank_order = sorted(docs, key=lambda doc: (given[doc], position[doc]))
        scores = _compared([docs[doc] for doc in in_rank_order], conventions)
        if any(below > above for above, below in zip(scores, scores[1:])):  # a lower rank with a higher score
            contradicted.append(qid)
        by_rank[qid] = {doc: float(len(docs) - i) for i, doc in enumerate(in_rank_order)}
    effects = ()
    if contradicted:
        effects = _effects(qrels, measures, conventions, ("by score, as trec_eval", run),
                           ("by the rank column", by_rank))
    return Check("rank_vs_score", "rank column that contradicts the scores", len(contradicted), "queries",
                 _qids(contradicted), "trec_eval ignores the rank column and sorts by score; tools that keep the "
                 "file's order use the ranks.", effects)


def _tied_cutoffs(qrels, run, measures, conventions) -> Check:
    cutoffs = sorted({int(m.cutoff) for m in measures if m.cutoff is not None and not m.info.float_cutoffs})
    straddles = []
    for qid, docs in run.items():
        if qid not in qrels:
            continue
        order = order_documents(docs, conventions.tie_order, qid=qid, score_precision=conventions.score_precision)
        scores = _compared([docs[doc] for doc in order[:conventions.depth or None]], conventions)
        straddles.extend(qid for k in cutoffs if k < len(scores) and scores[k - 1] == scores[k])
    effects = _tie_effects(qrels, run, measures, conventions) if straddles else ()
    return Check("tied_cutoffs", "ties that straddle a cut-off in use "
                 f"({', '.join(map(str, cutoffs)) or 'no cut-off asked for'})", len(straddles), "query cut-offs",
                 _qids(straddles), "The documents tied across rank k are ordered by the tie rule alone (trec_eval: "
                 "doc id descending), so the score depends on it.", effects)


def _missing_queries(qrels, run, measures, conventions) -> Check:
    missing = [qid for qid in qrels if qid not in run and any(grade > 0 for grade in qrels[qid].values())]
    effects = ()
    if missing:
        effects = _effects(qrels, measures, conventions, ("skipped, trec_eval", run),
                           ("scored 0, trec_eval -c", run), then=conventions.replace(missing_queries="zero"))
    return Check("missing_queries", "judged queries missing from the run", len(missing), "queries", _qids(missing),
                 "trec_eval leaves them out of the mean; with -c (as TREC reports) they count as 0.", effects)


def _unjudged_queries(qrels, run) -> Check:
    unjudged = [qid for qid in run if qid not in qrels]
    return Check("unjudged_queries", "run queries missing from the judgments", len(unjudged), "queries",
                 _qids(unjudged), "Every tool skips a query without judgments, so no measure moves; check that "
                 "the files are the same collection's.")


def _normal(text: str) -> str:
    return text.lower().lstrip("0") or "0"


def _near_ids(qrels, run, measures, conventions) -> Check:
    judged = {_normal(qid): qid for qid in qrels}
    renamed_queries = {qid: judged[_normal(qid)] for qid in run if qid not in qrels and _normal(qid) in judged}
    fixed: dict[str, dict[str, float]] = {}
    count, queries = len(renamed_queries), list(renamed_queries)
    for qid, docs in run.items():
        target = renamed_queries.get(qid, qid)
        judgments = qrels.get(target, {})
        by_normal = {_normal(doc): doc for doc in judgments}
        mapped = {}
        for doc, score in docs.items():
            near = by_normal.get(_normal(doc)) if doc not in judgments else None
            if near is not None and near not in docs:
                count += 1
                queries.append(qid)
                doc = near
            mapped[doc] = score
        fixed[target] = mapped
    effects = _effects(qrels, measures, conventions, ("as read", run), ("ids matched", fixed)) if count else ()
    return Check("near_ids", "ids that differ only by leading zeros or case", count, "ids", _qids(queries),
                 "trec_eval compares ids as bytes: 007 is not 7, and Doc1 is not doc1.", effects)


def _shallow(qrels, run, measures, conventions) -> Check:
    shortfalls = [s for s in (depth_shortfall(qrels, run, m, conventions) for m in measures) if s is not None]
    queries = _qids(qid for s in shortfalls for qid, count in s.beyond.items() if count)
    effects = tuple(Effect(s.measure, (("this run", s.value), (f"at most, with a run to depth {s.measure_depth}",
                                                                s.best_value))) for s in shortfalls)
    deepest = max((len(docs) for docs in run.values()), default=0)
    note = (f"The run holds at most {deepest} documents per query; " + "; ".join(
        f"{s.measure} reads to rank {s.measure_depth}, and {s.total} judged relevant documents (grade >= "
        f"{s.relevant_grade}) lie beyond" for s in shortfalls) + ": those numbers need a deeper run."
            if shortfalls else f"Every measure asked for reads within the {deepest} documents the run holds, or "
                               "the run holds every judged relevant document.")
    return Check("shallow", "run shallower than a measure's depth", len(shortfalls), "measures", queries, note,
                 effects)


def _grade_levels(qrels, run, measures, conventions) -> Check:
    grades = sorted({grade for judgments in qrels.values() for grade in judgments.values() if grade >= 0})
    level = conventions.relevance_level
    suggested = 2 if grades and grades[-1] == 3 and 1 in grades else None
    concerned = [qid for qid, judgments in qrels.items() if suggested and any(g == 1 for g in judgments.values())]
    count = sum(1 for judgments in qrels.values() for g in judgments.values() if g == 1) if suggested else 0
    effects = ()
    if suggested and level != suggested:
        effects = _effects(qrels, measures, conventions, (f"-l {level}", run), (f"-l {suggested}", run),
                           then=conventions.replace(relevance_level=suggested))
    elif suggested:
        effects = _effects(qrels, measures, conventions, (f"-l {level}", run), ("-l 1", run),
                           then=conventions.replace(relevance_level=1))
    note = (f"Grades {grades[0]}-{grades[-1]} with grade 1 meaning 'related' are TREC DL's: its binary measures "
            f"count grades 2 and 3 (-l 2); this lint uses -l {level}." if suggested
            else f"Grades {', '.join(map(str, grades))}: nothing suggests another relevance level than -l {level}.")
    return Check("grade_levels", "grades that suggest a relevance level", count, "grade-1 judgments",
                 _qids(concerned), note, effects)


def _bad_scores(qrels, lines: RunLines, run, measures, conventions) -> Check:
    bad = [(qid, doc, score) for qid, doc, score in zip(lines.qids, lines.docs, lines.scores)
           if not math.isfinite(score)]
    effects = ()
    infinite = [(qid, doc, score) for qid, doc, score in bad if not math.isnan(score)]
    if infinite:
        kept = {qid: dict(docs) for qid, docs in run.items()}
        for qid, doc, score in infinite:  # first (+inf) or last (-inf): a finite stand-in the engine accepts
            finite = list(run.get(qid, {}).values()) or [0.0]
            kept.setdefault(qid, {}).setdefault(doc, max(finite) + 1 if score > 0 else min(finite) - 1)
        effects = _effects(qrels, measures, conventions, ("non-finite lines dropped", run),
                           ("infinite scores kept, NaN dropped", kept))
    return Check("bad_scores", "NaN or infinite scores", len(bad), "lines", _qids(qid for qid, _, _ in bad),
                 "The engine's reader refuses them; sorting NaN has no defined order (trec_eval compares it equal "
                 "to everything).", effects)


def _tie_effects(qrels, run, measures, conventions) -> tuple[Effect, ...]:
    """Each measure's mean over the lowest tie order, trec_eval's, and the highest (exact, from metrics.ties)."""
    means = tie_intervals(qrels, run, measures, conventions=conventions).means()
    return tuple(Effect(m.key, tuple((label, value) for label, value in (
        ("lowest over tie orders", means[m.key].low), ("trec_eval's tie order", means[m.key].value),
        ("highest over tie orders", means[m.key].high)) if value is not None)) for m in measures)


def _identical_scores(qrels, run, measures, conventions) -> Check:
    flat = [qid for qid, docs in run.items() if qid in qrels and len(docs) > 1
            and len(set(_compared(list(docs.values()), conventions))) == 1]
    effects = _tie_effects(qrels, run, measures, conventions) if flat else ()
    return Check("identical_scores", "queries whose documents all share one score", len(flat), "queries",
                 _qids(flat), "Such a ranking is the tie rule's, not the system's.", effects)


def _identical_runs(index: int, cleaned: Sequence[dict], runs: Sequence[RunLines]) -> Check:
    same = [runs[other].name for other in range(len(runs)) if other != index and cleaned[other] == cleaned[index]]
    return Check("identical_runs", "run identical to another run" + (f" ({', '.join(same)})" if same else ""),
                 len(same), "runs", tuple(cleaned[index]) if same else (),
                 "Two submissions with the same documents and scores are one system counted twice.")


# ---- helpers ------------------------------------------------------------------------------------------------------


def _clean(lines: RunLines) -> dict[str, dict[str, float]]:
    """The run as the effects read it: the first line of each (qid, doc), finite scores only."""
    run: dict[str, dict[str, float]] = {}
    for qid, doc, score in zip(lines.qids, lines.docs, lines.scores):
        docs = run.setdefault(qid, {})
        if doc not in docs and math.isfinite(score):
            docs[doc] = score
    return {qid: docs for qid, docs in run.items() if docs}


def _compared(scores: list[float], conventions: Conventions) -> list[float]:
    dtype = np.float32 if conventions.score_precision == "float32" else np.float64
    return np.asarray(scores, dtype=np.float64).astype(dtype).tolist()


def _qids(qids) -> tuple[str, ...]:
    return tuple(dict.fromkeys(qids))


#: The means of the run being linted as read, by run, measures and conventions, emptied for each run by lint_runs:
#: one dict per thread, so two sessions of the app linting at once never read each other's means.
_AS_READ = threading.local()


def _means(qrels: Qrels, run: Run, measures: Sequence[Measure], conventions: Conventions) -> dict[str, float]:
    memo = getattr(_AS_READ, "means", None)
    if memo is None:
        memo = _AS_READ.means = {}
    key = (id(run), tuple(m.key for m in measures), conventions)
    if key not in memo:
        memo[key] = _evaluate_means(qrels, run, measures, conventions)
    return memo[key]


def _evaluate_means(qrels: Qrels, run: Run, measures: Sequence[Measure], conventions: Conventions
                    ) -> dict[str, float]:
    evaluated = {qid: docs for qid, docs in run.items() if docs}
    if not any(qid in qrels for qid in evaluated):
        return {m.key: 0.0 for m in measures}
    return aggregate(evaluate(qrels, evaluated, list(measures), conventions=conventions))


def _effects(qrels, measures, conventions, first: tuple[str, Run], second: tuple[str, Run], *,
             then: Conventions | None = None) -> tuple[Effect, ...]:
    """Each measure's mean on ``first`` under ``conventions`` and on ``second`` under ``then`` (or the same)."""
    a = _means(qrels, first[1], measures, conventions)
    b = _means(qrels, second[1], measures, then or conventions)
    return tuple(Effect(m.key, ((first[0], a[m.key]), (second[0], b[m.key]))) for m in measures)


def lint_table(lints: Sequence[RunLint]) -> list[dict[str, object]]:
    """One row per run and check, for a table: run, check, count, queries, effect (text)."""
    return [{"run": lint.run, "check": check.title, "found": check.count, "unit": check.unit,
             "queries": check.queries_text(), "effect": "; ".join(effect.text() for effect in check.effects),
             "what it means": check.note} for lint in lints for check in lint.checks]


__all__ = ["CHECKS", "DEFAULT_MEASURES", "MAX_LINT_BYTES", "Check", "Effect", "RunLines", "RunLint", "lint_runs",
           "lint_table", "read_run_lines"]
