"""The one id rule (metrics.ids): what every boundary refuses, and how ids with spaces reach TREC files."""

from __future__ import annotations

import pytest

import metrics
from metrics import InputError
from metrics.ids import check_id, check_ids, describe_renamed, is_trec_safe, to_trec_id, trec_ids
from metrics.io.trec import read_qrels, read_run


@pytest.mark.parametrize("good", ["d1", "sweet pastry", "日本", "d\u00a01", "d\u200b1", "\x7f", "a/b:c,d"])
def test_ids_may_hold_spaces_and_any_printable_unicode(good):
    assert check_id(good) == good


@pytest.mark.parametrize("bad, fragment", [
    ("d1\nq9 0 x", "contains a line break (LF) at character 3"),
    ("d1\r", "contains a carriage return (CR)"),
    ("a\tb", "contains a tab"),
    ("d\x001", "contains a NUL character"),
    ("\x1b[31mred", "contains the control character U+001B"),
    ("", "is empty"),
    (7, "has to be text (a str), got int 7"),
    (None, "got NoneType None"),
])
def test_an_id_with_a_control_character_or_no_text_is_refused_with_its_position(bad, fragment):
    with pytest.raises(InputError) as raised:
        check_id(bad, "document id", where="run.json")
    assert str(raised.value).startswith("run.json: document id") and fragment in str(raised.value)


def test_many_ids_are_checked_in_one_scan_and_the_bad_one_is_named():
    check_ids([f"d{i}" for i in range(10_000)])
    with pytest.raises(InputError, match=r"query id 'q\\n2'"):
        check_ids(["q1", "q\n2", "q3"], "query id")
    with pytest.raises(InputError, match="has to be text"):
        check_ids(["q1", 2], "query id")


def test_spaces_become_underscores_for_trec_files_and_the_user_is_told():
    assert not is_trec_safe("sweet pastry") and is_trec_safe("sweet_pastry")
    assert to_trec_id("sweet pastry") == "sweet_pastry"
    renamed = trec_ids(["sweet pastry", "q2"], "query id")
    assert renamed == {"sweet pastry": "sweet_pastry"}
    assert describe_renamed(renamed, "query id") == (
        "TREC files cannot hold spaces in ids, so query id 'sweet pastry' is written as 'sweet_pastry'.")
    assert describe_renamed({}, "query id") == ""


def test_a_renaming_that_would_merge_two_ids_is_refused():
    with pytest.raises(InputError, match="'a b' cannot be written to a TREC file.*'a_b' is another query id"):
        trec_ids(["a b", "a_b"], "query id")


def test_qrels_and_run_with_spaced_ids_written_with_trec_ids_read_back_to_the_same_numbers():
    qrels = {"sweet pastry": {"donut": 1, "glazed donut": 2, "bagel": 0}}
    run = {"sweet pastry": {"donut": 0.9, "glazed donut": 0.8, "bagel": 0.7}}
    qids = trec_ids(qrels)
    docs = trec_ids({doc for judged in qrels.values() for doc in judged} | {d for s in run.values() for d in s})
    name = lambda ids, x: ids.get(x, x)  # noqa: E731
    qrels_text = "".join(f"{name(qids, q)} 0 {name(docs, d)} {g}\n" for q, j in qrels.items() for d, g in j.items())
    run_text = "".join(f"{name(qids, q)} Q0 {name(docs, d)} {r} {s!r} t\n"
                       for q, ranked in run.items() for r, (d, s) in enumerate(ranked.items(), start=1))
    assert len(qrels_text.splitlines()) == 3 and all(len(line.split()) == 4 for line in qrels_text.splitlines())
    assert all(len(line.split()) == 6 for line in run_text.splitlines())
    back = metrics.evaluate(read_qrels(qrels_text).to_dict(), read_run(run_text).to_dict(), ["map", "ndcg"])
    direct = metrics.evaluate(qrels, run, ["map", "ndcg"])
    assert back == {"sweet_pastry": direct["sweet pastry"]}
    pytrec_eval = pytest.importorskip("pytrec_eval")
    reference = pytrec_eval.RelevanceEvaluator(read_qrels(qrels_text).to_dict(), {"map", "ndcg"})
    assert reference.evaluate(read_run(run_text).to_dict()) == back
