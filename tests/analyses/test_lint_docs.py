"""docs/lint.md explains each check of the preflight lint with an example from the TREC DL 2020 runs; this test
recomputes every example and finds its numbers, as the lint prints them, in the page (so the page stays true).

Where the real runs are clean, the example is a real run with one stated change (the doc says which)."""

from __future__ import annotations

import functools

import pytest

from metrics import Conventions
from metrics.check.lint import RunLines, lint_runs, read_run_lines
from metrics.real import DL20
from tests.support.paths import REPO

DOC = (REPO / "docs" / "lint.md").read_text(encoding="utf-8")
LEVEL_2 = Conventions(relevance_level=2)
MEASURES = ("ndcg_cut.10", "P.10")


@functools.cache
def _rows(name: str) -> tuple[tuple[str, str, int | None, float], ...]:
    lines = read_run_lines(DL20.path(name), name=name)
    return tuple(zip(lines.qids, lines.docs, lines.ranks, lines.scores))


def _run(name: str, rows) -> RunLines:
    rows = list(rows)
    return RunLines(name, tuple(r[0] for r in rows), tuple(r[1] for r in rows), tuple(r[2] for r in rows),
                    tuple(r[3] for r in rows), tuple(range(1, len(rows) + 1)))


def _first_of_each(rows):
    seen = set()
    for row in rows:
        if row[0] not in seen:
            seen.add(row[0])
            yield row


def _changed_runs() -> dict[str, RunLines]:
    """One BM25 variant per check that the real runs pass, as docs/lint.md describes them."""
    bm25 = _rows("BM25")
    top = {row[0]: row[3] for row in _first_of_each(bm25)}
    own_id = [(qid, qid, 0, top[qid] + 1) for qid in top] + list(bm25)
    repeated = list(bm25) + [(qid, doc, 101, 0.0) for qid, doc, _, _ in _first_of_each(bm25)]
    reversed_ranks = [(qid, doc, 101 - rank, score) for qid, doc, rank, score in bm25]
    without_first = [row for row in bm25 if row[0] != "23849"]
    unjudged = list(bm25) + [("999999", doc, rank, score) for qid, doc, rank, score in bm25 if qid == "23849"]
    padded = [(qid.zfill(7), doc, rank, score) for qid, doc, rank, score in bm25]
    bad = [(qid, doc, rank, {("23849", 1): float("nan"), ("42255", 1): float("inf")}.get((qid, rank), score))
           for qid, doc, rank, score in bm25]
    flat = [(qid, doc, rank, 1.0 if qid == "23849" else score) for qid, doc, rank, score in bm25]
    return {"identical_ids": _run("BM25 + own ids", own_id), "duplicates": _run("BM25 + repeats", repeated),
            "rank_vs_score": _run("BM25, ranks reversed", reversed_ranks),
            "missing_queries": _run("BM25 - 23849", without_first),
            "unjudged_queries": _run("BM25 + 999999", unjudged), "near_ids": _run("BM25, padded ids", padded),
            "bad_scores": _run("BM25 + nan, inf", bad), "identical_scores": _run("BM25, 23849 flat", flat)}


@functools.cache
def _examples() -> dict[str, object]:
    qrels = DL20.qrels().to_dict()
    changed = _changed_runs()
    found = {check: lint_runs(qrels, [run], MEASURES, LEVEL_2, checks=[check])[0].checks[0]
             for check, run in changed.items()}  # each variant only for the check it shows
    real = lint_runs(qrels, [_run("BM25", _rows("BM25"))], ("map", "recall.1000", "ndcg_cut.10"), LEVEL_2,
                     checks=["shallow", "grade_levels"])[0]
    found["shallow"], found["grade_levels"] = real.checks
    splade = lint_runs(qrels, [_run("SPLADE++", _rows("SPLADE++"))], ("P.22", "ndcg_cut.14"), LEVEL_2,
                       checks=["tied_cutoffs"])[0]
    found["tied_cutoffs"] = splade.checks[0]
    twice = lint_runs(qrels, [_run("BM25", _rows("BM25")), _run("BM25 copy", _rows("BM25"))], MEASURES, LEVEL_2,
                      checks=["identical_runs"])
    found["identical_runs"] = twice[0].checks[0]
    return found


CHECKS = ("identical_ids", "duplicates", "rank_vs_score", "tied_cutoffs", "missing_queries", "unjudged_queries",
          "near_ids", "shallow", "grade_levels", "bad_scores", "identical_scores", "identical_runs")


@pytest.mark.parametrize("name", CHECKS)
def test_the_page_gives_each_check_s_count_and_effects_as_the_lint_computes_them(name):
    check = _examples()[name]
    section = DOC.split(f"<a id=\"{name}\"></a>", 1)[1].split("<a id=", 1)[0]
    assert f"{check.title}: {check.count_text()}" in section
    for effect in check.effects:
        assert effect.text() in section, effect.text()


def test_the_page_names_every_check_of_the_lint():
    assert [name for name in CHECKS if f'<a id="{name}"></a>' in DOC] == list(CHECKS)


def print_examples() -> None:  # pragma: no cover - how the page's numbers were written
    for name in CHECKS:
        check = _examples()[name]
        print(f"{name}: {check.title}: {check.count_text()} in {check.queries_text()}")
        for effect in check.effects:
            print("    " + effect.text())
