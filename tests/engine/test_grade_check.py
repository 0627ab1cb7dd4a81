"""One grade check, one message: every way into the engine refuses a grade the measures cannot score with the
same sentence, ``<input and place>: grade <g> <why, and the fix>``, differing only in how it names the place."""

from __future__ import annotations

import re

import numpy as np
import pytest

import metrics
from metrics import Conventions, InputError, RankingBatch
from metrics.bulk import evaluate_tables_checked
from metrics.engine import check_grade_range, grade_limit
from metrics.io.read import read_checked_qrels
from metrics.io.trec import read_qrels, read_run
from metrics.many_runs import evaluate_runs
from metrics.names import parse_measures

EXPONENTIAL = Conventions(gain="exponential")
WHY = "grade 1100 is too large for exponential gain (2^grade - 1 overflows); the limit is 1000, or use linear gain"
QRELS_TEXT = "q1 0 d1 1\nq1 0 d2 1100\n"
RUN = {"q1": {"d1": 2.0, "d2": 1.0}}


def _refusal(call) -> str:
    with pytest.raises(InputError) as caught:
        call()
    return str(caught.value)


def test_every_front_door_refuses_a_grade_with_the_one_message(tmp_path):
    qrels_file = tmp_path / "qrels.txt"
    qrels_file.write_text(QRELS_TEXT)
    measures = parse_measures("ndcg")
    qrels_dict = read_qrels(QRELS_TEXT).to_dict()
    batch = RankingBatch.from_rankings([["d1", "d2"]], [qrels_dict["q1"]])
    messages = {
        "a qrels file": _refusal(lambda: read_checked_qrels(str(qrels_file), measures, EXPONENTIAL)),
        "tables": _refusal(lambda: evaluate_tables_checked(read_qrels(QRELS_TEXT), read_run("q1 Q0 d1 1 2 t\n"),
                                                           measures, EXPONENTIAL)),
        "several runs": _refusal(lambda: evaluate_runs(qrels_dict, {"a": RUN}, ["ndcg"], gain="exponential")),
        "dicts": _refusal(lambda: metrics.evaluate(qrels_dict, RUN, ["ndcg"], gain="exponential")),
        "a batch": _refusal(lambda: metrics.evaluate_batch(batch, ["ndcg"], EXPONENTIAL)),
    }
    assert messages == {
        "a qrels file": f"qrels.txt line 2: {WHY}",
        "tables": f"qrels row 1: {WHY}",
        "several runs": f"qrels, query 'q1', document 'd2': {WHY}",
        "dicts": f"query 'q1', document 'd2': {WHY}",
        "a batch": f"batch row 0: {WHY}",
    }


def test_the_check_names_the_first_grade_above_the_limit_and_nothing_when_there_is_no_limit():
    limit = grade_limit(parse_measures("ERR@10"), Conventions())
    grades = np.array([1, 7, 9, 2])
    with pytest.raises(InputError, match=re.escape("grades.txt line 2: grade 7 is above 4, the top of gdeval's scale")):
        check_grade_range(grades, limit, lambda i: f"grades.txt line {i + 1}")
    check_grade_range(grades, grade_limit(parse_measures("P.5"), Conventions()), lambda i: "never named")
