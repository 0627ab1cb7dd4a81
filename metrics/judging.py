"""Judge the holes: the unjudged documents whose judgment would move a mean (or a comparison) the most.

trec_eval counts a document without a grade >= 0 as non-relevant. :func:`find_holes` lists the unjudged documents
in the top k of a run (or, for two runs A and B, those that one run retrieves in its top k and the other does not)
with their *influence*: how far the mean of a measure, or the mean difference B - A over the paired queries, would
move if that one document were judged relevant at the query's highest grade instead:

    influence(q, d) = (M(q with d judged g_max) - M(q)) / n          (one run; n = queries in the mean)
    influence(q, d) = ((ΔM_B(q, d)) - (ΔM_A(q, d))) / n_paired       (two runs)

g_max is the query's highest grade, or the relevance threshold if that is higher (so the document counts as
relevant). Judging d changes R and the ideal DCG of q as well, so a run that does not retrieve d moves too.

Every candidate becomes one row of a :class:`~metrics.model.RankingBatch` (its query's ranking with the one document
flipped), scored by the same kernels as the run (:func:`metrics.evaluate.evaluate_batch`), in chunks of bounded
size; at most :data:`MAX_CANDIDATES` documents are scored, the highest ranked first.

Judgments added by hand are merged with :func:`merge_judgments` and written with :func:`additions_to_trec` and
:func:`merged_trec`: trec_eval ignores a qrels line's second field (``iter``), so the added lines carry
:data:`ADDED_ITERATION` there, which trec_eval, pytrec_eval (through our reader) and :mod:`metrics.io.trec` all read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import bulk
from .conventions import Conventions
from .engine import as_measures, evaluate_batch, is_count, is_geometric, judged_only
from .ids import trec_ids
from .io.compressed import is_gzip
from .io.frames import as_qrels_table, as_run_table
from .io.trec import QrelsTable, RunTable, _load, docno_keys, from_numpy, to_numpy
from .model import NO_JUDGMENT, InputError, RankingBatch, check_grades
from .names import Measure

#: At most this many unjudged documents are scored (the highest ranked first); the rest are counted.
MAX_CANDIDATES = 20_000
#: The largest k accepted: candidates come from the top k of each query.
MAX_K = 1_000
#: Cells (rows x ranks) of one flipped batch: chunks keep memory at a few tens of MB whatever the run.
CHUNK_CELLS = 1 << 20
#: The second field (``iter``) of every added qrels line; trec_eval and our reader ignore it.
ADDED_ITERATION = "added"


@dataclass(frozen=True)
class Hole:
    """An unjudged document of a query and what judging it would do."""

    qid: str
    doc: str
    ranks: tuple[int | None, ...]  # 1-based rank in each run (None: not retrieved, or below the depth)
    grade: int | None  # its grade in the qrels now: None (not in them) or negative (in the pool, unjudged)
    relevant_grade: int  # the grade it was scored at: the query's highest, at least the relevance threshold
    influence: float  # change of the mean (one run) or of the mean difference B - A if judged relevant_grade


@dataclass(frozen=True)
class Holes:
    """The candidates of :func:`find_holes`, most influential first, and what was searched."""

    measure: str  # the measure's result key (e.g. ndcg_cut_10)
    k: int
    runs: tuple[str, ...]  # one run, or (A, B): influence is on the mean of B - A
    holes: list[Hole]
    found: int  # unjudged candidates found in the top k of the chosen queries (before the cap)
    queries: int  # queries in the mean (the paired queries for two runs)
    limit: int = MAX_CANDIDATES
    searched: int | None = None  # of those, the queries matching the filter (None: no filter, all of them)

    @property
    def capped(self) -> bool:
        """Whether more candidates were found than were scored."""
        return self.found > len(self.holes)

    @property
    def message(self) -> str | None:
        """What to tell a person when there is nothing to judge; None when there is."""
        if self.holes:
            return None
        if self.queries == 0:
            return "No query is evaluated" + (" for both runs" if len(self.runs) == 2 else "") + ": nothing to judge."
        if self.searched == 0:
            return "No query matches the filter: nothing to judge."
        where = (f"that one run retrieves in its top {self.k} and the other does not" if len(self.runs) == 2
                 else f"in the top {self.k}")
        return f"Every document {where} is judged: there is no hole to fill."


def find_holes(
    qrels: QrelsTable | Mapping[str, Mapping[str, int]],
    runs: Mapping[str, RunTable | Mapping[str, Mapping[str, float]]],
    measure: str | Measure,
    k: int,
    *,
    qids: Iterable[str] | None = None,
    conventions: Conventions | None = None,
    limit: int = MAX_CANDIDATES,
) -> Holes:
    """The unjudged documents in the top ``k`` of the chosen queries (``qids``; default all), most influential first.

    ``runs`` holds one run, or two (A then B): then the candidates are the unjudged documents one run retrieves in
    its top k and the other does not, and influence is on the mean of B - A over the queries both runs are
    evaluated on. Ties in influence are listed by query id, then best rank, then doc id.
    """
    conv = conventions if conventions is not None else Conventions()
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= MAX_K:
        raise InputError(f"Argument `k` has to be a whole number from 1 to {MAX_K}, but got {k!r}")
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise InputError(f"Argument `limit` has to be a positive whole number, but got {limit!r}")
    parsed = as_measures(measure)
    if len(parsed) != 1:
        raise InputError(f"give one measure to judge holes for, got {len(parsed)} ({', '.join(map(str, parsed))})")
    (chosen,) = parsed
    if is_geometric(chosen.key):
        raise InputError(f"{chosen.key} is a geometric mean: one judgment's influence on it is not a change of a "
                         "mean; use map or bpref")
    if not isinstance(runs, Mapping) or not 1 <= len(runs) <= 2:
        raise InputError("Argument `runs` has to map one or two run names to runs")
    qrels_table = as_qrels_table(qrels)
    names = tuple(runs)
    tables = [as_run_table(runs[name], name) for name in names]
    flat = conv.replace(unjudged="nonrelevant")  # candidates and flips work on the full list
    ranked = [_Ranked.of(qrels_table, table, flat) for table in tables]

    common = set(ranked[0].qids).intersection(*(r.qids for r in ranked[1:]))
    queries = len(common) if len(ranked) == 2 else len(ranked[0].qids)
    chosen_qids = common if qids is None else common & set(qids)
    searched = None if qids is None else len(chosen_qids)
    candidates = _candidates(ranked, tables, qrels_table, chosen_qids, k)
    found = len(candidates["qid"])
    if found == 0:
        return Holes(chosen.key, k, names, [], 0, queries, limit, searched)
    # Beyond the cap, the highest ranked documents are kept: the top of a ranking moves most measures most.
    best = np.min(np.where(candidates["positions"] >= 0, candidates["positions"], np.iinfo(np.int64).max), axis=0)
    keep = np.lexsort((candidates["order"], best))[:limit]
    keep.sort()
    cand = {key: (value[..., keep] if key == "positions" else value[keep]) for key, value in candidates.items()}

    level = chosen.relevance_level if chosen.relevance_level is not None else conv.relevance_level
    relevant_grades = _relevant_grades(qrels_table, cand["qid"], level)
    deltas = [_flip_deltas(r, chosen, conv, cand["qid"], cand["positions"][i], level) for i, r in enumerate(ranked)]
    change = deltas[0] if len(ranked) == 1 else deltas[1] - deltas[0]
    if not is_count(chosen.key):
        change = change / max(queries, 1)
    holes = [
        Hole(qid, doc, tuple(int(p) + 1 if p >= 0 else None for p in cand["positions"][:, i]),
             int(grade) if judged else None, int(relevant), float(influence))
        for i, (qid, doc, grade, judged, relevant, influence) in enumerate(zip(
            cand["qid"].tolist(), cand["doc"].tolist(), cand["grade"].tolist(), cand["in_qrels"].tolist(),
            relevant_grades.tolist(), change.tolist()))
    ]
    # Influences equal but for rounding (1/80 reached from different bases) count as ties.
    holes.sort(key=lambda h: (-round(abs(h.influence), 12), h.qid, min(r for r in h.ranks if r is not None), h.doc))
    return Holes(chosen.key, k, names, holes, found, queries, limit, searched)


# ---- the runs, ranked -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Ranked:
    """One run as the kernels see it: the batches of :func:`metrics.bulk.batches_for_run` and, for every run line,
    its 0-based position in its query's ranking (-1: query not evaluated, or below the depth)."""

    qids: list[str]
    batches: list[tuple[np.ndarray | None, RankingBatch]]
    where: dict[str, tuple[int, int]]  # qid -> (batch index, row in that batch)
    positions: np.ndarray  # per run line

    @classmethod
    def of(cls, qrels: QrelsTable, run: RunTable, conv: Conventions) -> _Ranked:
        qids, batches = bulk.batches_for_run(qrels, run, conv)
        where: dict[str, tuple[int, int]] = {}
        for index, (rows, _) in enumerate(batches):
            members = range(len(qids)) if rows is None else rows.tolist()
            for row_in_batch, row in enumerate(members):
                where[qids[row]] = (index, row_in_batch)
        return cls(qids, batches, where, _line_positions(qrels, run, conv))


def _line_positions(qrels: QrelsTable, run: RunTable, conv: Conventions) -> np.ndarray:
    """Each run line's 0-based rank in its query's ranking, ordered exactly as :mod:`metrics.bulk` orders it
    (score descending as compared, then the tie order); -1 for queries without judgments and below the depth."""
    run_codes, run_qids = bulk._query_codes(run)
    judged_query = to_numpy(pc.is_in(run_qids, value_set=pc.unique(qrels.qid)))
    evaluated = judged_query[run_codes]
    lines = np.flatnonzero(evaluated)
    positions = np.full(run_codes.shape[0], -1, dtype=np.int64)
    if lines.shape[0] == 0:
        return positions
    rows = run_codes[lines].astype(np.int64)
    scores = run.score[lines]
    if conv.score_precision == "float32":
        with np.errstate(over="ignore"):
            scores = scores.astype(np.float32)
    keys, exact = (run.docno_key, run.docno_key_exact) if run.docno_key is not None else docno_keys(run.docno)
    docno = run.docno
    if lines.shape[0] != run_codes.shape[0]:
        keys, docno = keys[lines], pc.filter(run.docno, from_numpy(evaluated))
    # The line numbers ride along as the "grades" bulk permutes into ranking order.
    rows, order = bulk._in_ranking_order(rows, scores, docno, keys, exact, conv.tie_order,
                                         np.arange(lines.shape[0], dtype=np.float64))
    rank = bulk._position_in_group(rows)
    if conv.depth is not None:
        rank = np.where(rank < conv.depth, rank, -1)
    positions[lines[order.astype(np.int64)]] = rank
    return positions


def _candidates(ranked: list[_Ranked], tables: list[RunTable], qrels: QrelsTable, qids: set[str],
                k: int) -> dict[str, np.ndarray]:
    """Every unjudged document in a top k (for two runs: in one top k and not the other's), in order of query,
    then rank: qid, doc, its qrels grade and whether the qrels hold it, and its position in each run (-1: not
    retrieved)."""
    wanted_qids = pa.array(sorted(qids), pa.string())
    found: list[pa.Table] = []
    for index, (r, table) in enumerate(zip(ranked, tables)):
        top = np.flatnonzero((r.positions >= 0) & (r.positions < k))
        qid = _single(table.qid.take(from_numpy(top)))
        top = top[to_numpy(pc.is_in(qid, value_set=wanted_qids))]
        top = top[~_judged(r, table, top)]
        found.append(pa.table({"qid": _single(table.qid.take(from_numpy(top))),
                               "doc": _single(table.docno.take(from_numpy(top))),
                               f"p{index}": pa.array(r.positions[top], pa.int64())}))
    merged = found[0]
    if len(ranked) == 2:
        # Where each candidate stands in the other run (at any depth): the other run moves when R does.
        located = []
        for index, (r, table) in enumerate(zip(ranked, tables)):
            retrieved = np.flatnonzero(r.positions >= 0)
            lines = pa.table({"qid": _single(table.qid.take(from_numpy(retrieved))),
                              "doc": _single(table.docno.take(from_numpy(retrieved))),
                              f"p{index}": pa.array(r.positions[retrieved], pa.int64())})
            located.append(found[1 - index].join(lines, ["qid", "doc"], join_type="left outer"))
        merged = pa.concat_tables([table.select(["qid", "doc", "p0", "p1"]) for table in located])
        p0, p1 = merged["p0"].fill_null(-1), merged["p1"].fill_null(-1)
        merged = pa.table({"qid": merged["qid"], "doc": merged["doc"], "p0": p0, "p1": p1})
        # One top k and not the other's: a document in both tops is left out.
        in_top = [pc.and_(pc.greater_equal(p, 0), pc.less(p, k)) for p in (p0, p1)]
        merged = merged.filter(pc.xor(*in_top))
    positions = np.stack([to_numpy(merged[f"p{i}"]).astype(np.int64) for i in range(len(ranked))])
    qid_list, doc_list = merged["qid"].to_pylist(), merged["doc"].to_pylist()
    grades, in_qrels = _grades_of(qrels, merged["qid"], merged["doc"])
    query_order = {qid: i for i, qid in enumerate(ranked[0].qids)}
    best = np.min(np.where(positions >= 0, positions, np.iinfo(np.int64).max), axis=0)
    order = np.lexsort((np.array(doc_list, dtype=str) if doc_list else np.zeros(0),
                        best, np.array([query_order[q] for q in qid_list], dtype=np.int64)))
    return {"qid": np.array(qid_list, dtype=object)[order], "doc": np.array(doc_list, dtype=object)[order],
            "grade": grades[order], "in_qrels": in_qrels[order], "positions": positions[:, order],
            "order": np.arange(order.shape[0])}


def _judged(r: _Ranked, table: RunTable, lines: np.ndarray) -> np.ndarray:
    """Whether the document of each run line (at its position) has a grade >= 0, read from the batch."""
    codes, values = bulk._query_codes(table)
    located = np.array([r.where.get(qid, (-1, -1)) for qid in values.to_pylist()], dtype=np.int64).reshape(-1, 2)
    batch_index, row = located[codes[lines]].T
    judged = np.zeros(lines.shape[0], dtype=bool)
    for index, (_, batch) in enumerate(r.batches):
        mine = batch_index == index
        judged[mine] = batch.judged[row[mine], r.positions[lines[mine]]]
    return judged


def _relevant_grades(qrels: QrelsTable, qids: np.ndarray, level: int) -> np.ndarray:
    """The grade each candidate's query flips to: its highest grade >= 0, at least ``level``; read as int64 from
    the qrels (the batches hold grades as float64, exact only up to 2**53)."""
    judged = qrels.grade >= 0
    table = pa.table({"qid": pc.filter(qrels.qid, from_numpy(judged)),
                      "grade": pa.array(qrels.grade[judged], pa.int64())})
    highest = dict(zip(*table.group_by("qid").aggregate([("grade", "max")]).to_pydict().values()))
    return np.array([max(highest.get(qid, level), level) for qid in qids.tolist()], dtype=np.int64)


def _grades_of(qrels: QrelsTable, qid, doc) -> tuple[np.ndarray, np.ndarray]:
    """The qrels grade of each (qid, doc) (0 where there is none), and whether the qrels hold it: a mask rather
    than a sentinel grade, since every int64 is a grade a qrels file may hold."""
    pairs = pa.table({"qid": qid, "doc": doc, "at": pa.array(np.arange(len(qid)), pa.int64())})
    judgments = pa.table({"qid": qrels.qid, "doc": qrels.docno, "grade": pa.array(qrels.grade, pa.int64())})
    hits = pairs.join(judgments, ["qid", "doc"], join_type="inner")
    grades = np.zeros(len(qid), dtype=np.int64)
    in_qrels = np.zeros(len(qid), dtype=bool)
    found = to_numpy(hits["at"]).astype(np.int64)
    grades[found] = to_numpy(hits["grade"])
    in_qrels[found] = True
    return grades, in_qrels


# ---- flipping one document at a time ----------------------------------------------------------------------------


def _flip_deltas(r: _Ranked, measure: Measure, conv: Conventions, qids: np.ndarray,
                 positions: np.ndarray, level: int) -> np.ndarray:
    """For each candidate (its query and its position in this run, -1 if not retrieved): the change of the measure
    on its query if it were judged at the query's highest grade (at least ``level``)."""
    condensed = judged_only(measure, conv)
    deltas = np.zeros(qids.shape[0])
    located = np.array([r.where[q] for q in qids.tolist()], dtype=np.int64).reshape(-1, 2)
    for index, (_, batch) in enumerate(r.batches):
        members = np.flatnonzero(located[:, 0] == index)
        if members.shape[0] == 0:
            continue
        rows = located[members, 1]
        base_rows = np.unique(rows)
        base = evaluate_batch(_condense(batch.rows(base_rows)) if condensed else batch.rows(base_rows), [measure],
                              conv)[measure.key]
        base_of = dict(zip(base_rows.tolist(), base.tolist()))
        step = max(1, CHUNK_CELLS // max(1, batch.width + batch.judged_grades.shape[1] + 1))
        for start in range(0, members.shape[0], step):
            chunk = members[start:start + step]
            flipped = _flipped(batch, located[chunk, 1], positions[chunk], level)
            values = evaluate_batch(_condense(flipped) if condensed else flipped, [measure], conv)[measure.key]
            deltas[chunk] = values - np.array([base_of[row] for row in located[chunk, 1].tolist()])
    return deltas


def _flipped(batch: RankingBatch, rows: np.ndarray, positions: np.ndarray, level: int) -> RankingBatch:
    """The rows with the document at ``positions`` (-1: none retrieved) judged at the query's highest grade (at
    least ``level``), added to the query's judgments too."""
    part = batch.rows(rows)
    highest = part.judged_grades[:, 0]  # sorted descending; NO_JUDGMENT when the query has no grade >= 0
    grade = np.maximum(np.where(highest == NO_JUDGMENT, level, highest), level)
    grades, judged = part.grades.copy(), part.judged.copy()
    at = np.flatnonzero(positions >= 0)
    grades[at, positions[at]] = grade[at]
    judged[at, positions[at]] = True
    judged_grades = np.concatenate([part.judged_grades, grade[:, None].astype(np.float64)], axis=1)
    judged_grades = -np.sort(-judged_grades, axis=1)  # descending, NO_JUDGMENT padding last
    return RankingBatch(grades, judged, part.lengths, judged_grades, part.tied_with_previous)


def _condense(batch: RankingBatch) -> RankingBatch:
    """The batch with unjudged documents removed (trec_eval -J), keeping order and which documents tie."""
    order = np.argsort(~batch.judged, axis=1, kind="stable")
    grades = np.take_along_axis(batch.grades, order, axis=1)
    judged = np.take_along_axis(batch.judged, order, axis=1)
    lengths = batch.judged.sum(axis=1).astype(np.int64)
    grades = np.where(judged, grades, 0.0)
    tied = None
    if batch.tied_with_previous is not None:
        group = np.cumsum(~batch.tied_with_previous, axis=1)  # tie groups are runs of equal scores
        group = np.take_along_axis(group, order, axis=1)
        tied = np.zeros_like(judged)
        tied[:, 1:] = judged[:, 1:] & (group[:, 1:] == group[:, :-1])
    return RankingBatch(grades, judged, lengths, batch.judged_grades, tied)


# ---- added judgments ---------------------------------------------------------------------------------------------

Additions = Mapping[tuple[str, str], int]


def merge_judgments(qrels: Mapping[str, Mapping[str, int]], additions: Additions) -> dict[str, dict[str, int]]:
    """A new ``{qid: {doc: grade}}``: ``qrels`` with ``additions`` (``{(qid, doc): grade}``) on top; ``qrels`` is
    left untouched. An addition replaces a negative (pooled, unjudged) grade; one for a document judged (grade >=
    0) is refused, since the original judgments are never changed."""
    _check_additions(additions)
    merged = {qid: dict(docs) for qid, docs in qrels.items()}
    for (qid, doc), grade in additions.items():
        if merged.get(qid, {}).get(doc, -1) >= 0:
            raise InputError(_already_judged(qid, doc, merged[qid][doc]))
        merged.setdefault(qid, {})[doc] = int(grade)
    return merged


def merge_judgments_table(qrels: QrelsTable, additions: Additions) -> QrelsTable:
    """:func:`merge_judgments` for a parsed qrels file: its lines, less those an addition replaces, then the
    additions."""
    _check_additions(additions)
    if not additions:
        return qrels
    added_qid = pa.array([qid for qid, _ in additions], pa.string())
    added_doc = pa.array([doc for _, doc in additions], pa.string())
    replaced = _pairs_in(qrels.qid, qrels.docno, added_qid, added_doc)
    judged = np.flatnonzero(replaced & (qrels.grade >= 0))
    if judged.size:
        line = int(judged[0])
        raise InputError(_already_judged(qrels.qid[line].as_py(), qrels.docno[line].as_py(), int(qrels.grade[line])))
    keep = from_numpy(~replaced)
    return QrelsTable(
        pa.concat_arrays([_single(pc.filter(qrels.qid, keep)), added_qid]),
        pa.concat_arrays([_single(pc.filter(qrels.docno, keep)), added_doc]),
        np.concatenate([qrels.grade[~replaced], np.array(list(additions.values()), dtype=np.int64)]),
        qrels.name,
    )


def additions_to_trec(additions: Additions, separator: str = " ") -> str:
    """The added judgments as qrels lines, ``qid added doc grade``, in the order they were given; ids are spelled
    as in every TREC file the project writes (:func:`metrics.ids.to_trec_id`: a space becomes ``_``)."""
    _check_additions(additions)
    return _trec_lines(_trec_spelled(additions), separator)


def _trec_lines(additions: Additions, separator: str) -> str:
    return "".join(separator.join((qid, ADDED_ITERATION, doc, str(int(grade)))) + "\n"
                   for (qid, doc), grade in additions.items())


def _trec_spelled(additions: Additions) -> dict[tuple[str, str], int]:
    """``additions`` with TREC ids (InputError when two ids of a kind would become one)."""
    qids = trec_ids((qid for qid, _ in additions), "query id")
    docs_of: dict[str, list[str]] = {}
    for qid, doc in additions:
        docs_of.setdefault(qid, []).append(doc)
    docs = {qid: trec_ids(names, "document id") for qid, names in docs_of.items()}
    return {(qids.get(qid, qid), docs[qid].get(doc, doc)): grade for (qid, doc), grade in additions.items()}


def merged_trec(original: bytes, additions: Additions) -> bytes:
    """The original qrels text with the additions: every original line byte for byte, except a line whose
    (qid, doc) an addition grades (a negative, pooled grade), which the marked line replaces where it stood
    (trec_eval refuses a document twice); the other additions follow at the end. Fields are separated as in the
    original (tabs when it uses tabs only). ``original`` may be gzipped; the result is plain text."""
    _check_additions(additions)
    if is_gzip(original) or original[:3] == b"\xef\xbb\xbf":
        original = bytes(_load(original, "qrels", None, "qrels")[1])  # inflated with the reader's checks, BOM dropped
    separator = "\t" if b"\t" in original and b" " not in original else " "
    pending = _trec_spelled(additions)  # the file's spelling of the ids, so a pooled line is found
    out = bytearray()
    lines = original.splitlines(keepends=True)
    for line in lines:
        fields = line.split()
        if len(fields) == 4 and not fields[0].startswith(b"#"):
            pair = (fields[0].decode("utf-8", "replace"), fields[2].decode("utf-8", "replace"))
            if pair in pending:
                if fields[3].lstrip(b"-").isdigit() and int(fields[3]) >= 0:
                    raise InputError(_already_judged(*pair, int(fields[3])))
                ending = line[len(line.rstrip(b"\r\n")):] or b"\n"
                out += _trec_lines({pair: pending.pop(pair)}, separator).rstrip("\n").encode() + ending
                continue
        out += line
    if out and not out.endswith(b"\n"):
        out += b"\n"
    return bytes(out) + _trec_lines(pending, separator).encode("utf-8")


def _already_judged(qid: str, doc: str, grade: int) -> str:
    return (f"additions: query {qid!r}, document {doc!r} already has grade {grade} in the qrels; an addition only "
            "grades an unjudged or pooled (negative) document, the original judgments stay as they are")


def _check_additions(additions: Additions) -> None:
    if not isinstance(additions, Mapping):
        raise InputError("Argument `additions` has to be a dict {(qid, doc): grade}")
    for pair in additions:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise InputError(f"additions: key {pair!r} has to be a (qid, doc) pair")
    check_grades({f"{qid} {doc}": grade for (qid, doc), grade in additions.items()}, where="additions")


def _pairs_in(qid: pa.Array, docno: pa.Array, other_qid: pa.Array, other_doc: pa.Array) -> np.ndarray:
    """Whether each (qid, docno) line is one of the other pairs."""
    lines = pa.table({"qid": qid, "doc": docno, "line": pa.array(np.arange(len(qid)), pa.int64())})
    other = pa.table({"qid": other_qid, "doc": other_doc})
    hits = lines.join(other, ["qid", "doc"], join_type="inner")
    found = np.zeros(len(qid), dtype=bool)
    found[to_numpy(hits["line"]).astype(np.int64)] = True
    return found


def _single(values) -> pa.Array:
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


__all__ = ["ADDED_ITERATION", "CHUNK_CELLS", "Hole", "Holes", "MAX_CANDIDATES", "MAX_K", "additions_to_trec",
           "find_holes", "merge_judgments", "merge_judgments_table", "merged_trec"]
