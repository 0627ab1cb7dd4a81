"""Every file the explorer offers for download reads back identically: through this project's readers (the
command line's and the app's upload path) and through pytrec_eval's own parsers, for every sample and for ids
chosen to break a TREC line (spaces, Unicode spaces, Markdown, quotes, numbers, '#', long ids).

The TREC files hold the ids as a TREC file can (a space becomes '_', as the page says); everything else is the
page's list: same queries, documents, grades and scores, nothing split, merged or added."""

from __future__ import annotations

import csv
import io
import json

import pytest
import pytrec_eval

from metrics.export import run_scores, trec_query_id
from metrics.io.json import read_json_qrels, read_json_run
from metrics.io.trec import read_qrels, read_run
from metrics.samples import load_samples
from ui.common.query_state import Item, QueryState
from ui.common.state import state_from_sample
from ui.common.uploads import read_upload
from ui.explore.exports import query_exports

ROWS = [("P@3", "P.3", 0.25), ("nDCG@3", "ndcg_cut.3", 0.5)]
HOSTILE_DOCS = [
    "![x](https://evil.example/p.png)", "[a](b)", "d#1", "#comment", "-d", "'single'", '"double"', "日本語",
    "Q0", "0", "1e5", "nan", "inf", "-1", "d" * 200, "a,b:c%20", "<b>x</b>", "back\\slash", "tab-less\u00adsoft",
]
HOSTILE_QUERIES = ["sweet pastry", " leading", "trailing ", "two  spaces", "q\u00a0nbsp", "q\u3000ideographic",
                   "q\u2028separator", "[Session expired](https://evil.example/login)", "Q0", "1 0 d 1", "#q"]


def hostile_state(query: str) -> QueryState:
    items = tuple(Item(doc, score=float(len(HOSTILE_DOCS) - rank)) for rank, doc in enumerate(HOSTILE_DOCS))
    judgments = {doc: rank % 3 for rank, doc in enumerate(HOSTILE_DOCS) if rank % 2 == 0}
    judgments["only-judged:unretrieved"] = 2
    return QueryState(items, judgments, 5, query=query)


STATES = [pytest.param(state_from_sample(sample), id=sample.slug) for sample in load_samples()] + [
    pytest.param(hostile_state(query), id=f"hostile-query-{number}") for number, query in enumerate(HOSTILE_QUERIES)]


@pytest.mark.parametrize("query", STATES)
def test_every_download_reads_back_identically_through_our_readers_and_pytrec_evals(query: QueryState):
    files = query_exports(query, ROWS)
    scores, _ = run_scores(query.ranking, [item.score for item in query.active_items])
    trec_qid = trec_query_id(query.query)
    qrels = {trec_qid: dict(query.judgments)}
    run = {trec_qid: scores}

    assert read_qrels(files.qrels_trec.encode(), name="download.qrels").to_dict() == qrels
    assert read_run(files.run_trec.encode(), name="download.run").to_dict() == run
    # The app's own upload path:
    assert read_upload("qrels", files.qrels_trec.encode(), "download.qrels").to_dict() == qrels
    assert read_upload("run", files.run_trec.encode(), "download.run").to_dict() == run
    assert pytrec_eval.parse_qrel(io.StringIO(files.qrels_trec)) == qrels
    assert pytrec_eval.parse_run(io.StringIO(files.run_trec)) == run
    assert {len(line.split()) for line in files.qrels_trec.splitlines()} == {4}  # Python's split: every space
    assert {len(line.split()) for line in files.run_trec.splitlines()} == {6}

    as_json = {"qrels": {query.query: dict(query.judgments)}, "run": {query.query: scores}}
    assert json.loads(files.json) == as_json
    assert read_json_qrels(files.json.encode(), name="download.json") == as_json["qrels"]
    assert read_json_run(files.json.encode(), name="download.json") == as_json["run"]
    assert read_upload("run", files.json.encode(), "download.json").to_dict() == as_json["run"]

    table = list(csv.DictReader(io.StringIO(files.csv)))
    assert [(row["metric"], row["measure"], float(row["value"])) for row in table] == ROWS
    assert {row["ranking"] for row in table} == {" ".join(query.ranking)}
