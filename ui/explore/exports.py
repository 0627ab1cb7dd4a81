"""What "Download this query" offers, built from the explorer's state alone (no Streamlit, so tests replay it).

The files reproduce the page: the run ranks the documents as shown, the CSV carries the page's values with their
conventions and order, and the snippet prints the page's numbers (see :mod:`metrics.export`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from metrics.export import (
    metrics_csv,
    qrels_to_trec,
    reproduction_snippet,
    run_scores,
    run_to_trec,
    snippet_tool,
    to_json,
    trec_query_id,
)
from ui.common.query_state import QueryState


@dataclass(frozen=True, slots=True)
class QueryExports:
    name: str  # file name stem
    qrels_trec: str
    run_trec: str
    json: str
    csv: str
    snippet: str
    tool: str  # "pytrec_eval" or "metrics": what the snippet runs
    notes: tuple[str, ...]  # what the page says about the files


def query_exports(query: QueryState, rows: Sequence[tuple[str, str, float]]) -> QueryExports:
    """The downloads for ``query``; ``rows`` are the page's (label, measure, value) triples."""
    qid = query.query
    docs = query.ranking
    scores, rewritten = run_scores(docs, [item.score for item in query.active_items])
    qrels = {qid: dict(query.judgments)}
    run = {qid: scores}
    trec_qid = trec_query_id(qid)
    tool, missing = snippet_tool(query.conventions)
    notes = []
    if rewritten and docs:
        notes.append(
            "The run file gives each rank a score (n, n-1, …, 1) because the scores shown would not put the "
            "documents in this order in trec_eval (missing, tied or contradicting scores)."
        )
    if trec_qid != qid:
        notes.append(f"TREC files split on spaces, so the TREC files name this query {trec_qid}.")
    if tool == "metrics":
        notes.append(
            "pytrec_eval cannot express " + ", ".join(missing) + ", so the snippet uses this project's "
            "metrics.evaluate; the TREC files give trec_eval's numbers for -l/-J only."
        )
    stem = "".join(ch if ch.isalnum() else "-" for ch in qid)[:40] or "query"
    return QueryExports(
        name=stem,
        qrels_trec=qrels_to_trec({trec_qid: dict(query.judgments)}),
        run_trec=run_to_trec({trec_qid: list(scores.items())}),
        json=to_json(qrels, run),
        csv=metrics_csv(rows, query.conventions, docs),
        snippet=reproduction_snippet(qrels, run, [measure for _, measure, _ in rows], query.conventions),
        tool=tool,
        notes=tuple(notes),
    )
