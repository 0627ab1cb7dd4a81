"""The disagreement lab against brute force: every single edit written out and scored through the public engine."""

from __future__ import annotations

import random

import pytest

import metrics
from metrics import Conventions, InputError
from metrics.whatif import Judge, find_disagreement
from metrics.whatif.disagree import MAX_LAB_ITEMS


def sign(value_a: float, value_b: float) -> int:
    difference = value_b - value_a
    return 0 if abs(difference) <= 1e-12 else (1 if difference > 0 else -1)


def verdicts(a, b, judgments, judges):
    out = []
    for judge in judges:
        (column,) = metrics.evaluate_rankings([list(a), list(b)], [judgments, judgments], [judge.measure],
                                              judge.conventions).values()
        out.append(sign(column[0], column[1]))
    return tuple(out)


def every_single_edit(a, b, judgments):
    """(size, full disagreement rank, top rank, kind order, description, new B, new judgments) for every edit."""
    grades = sorted({g for g in judgments.values() if g >= 0} | {0, 1})
    for i in range(len(b)):
        for j in range(i + 1, len(b)):
            new_b = list(b)
            new_b[i], new_b[j] = new_b[j], new_b[i]
            yield j - i, i, 0, f"Swapping ranks {i + 1} and {j + 1} of B ({b[i]} and {b[j]})", new_b, judgments
    for i in range(len(b)):
        yield 1, i, 1, f"Removing {b[i]} (rank {i + 1}) from B", list(b[:i]) + list(b[i + 1:]), judgments
    for doc in dict.fromkeys([*b, *a, *(d for d, g in judgments.items() if g >= 0)]):
        old = judgments.get(doc, -1)
        top = min([r.index(doc) for r in (a, b) if doc in r], default=len(a) + len(b))
        for grade in grades:
            if grade != old:
                was = "unjudged" if old < 0 else f"grade {old}"
                yield (max(1, abs(grade - max(old, 0))), top, 2, f"Judging {doc} grade {grade} (was {was})", list(b),
                       {**judgments, doc: grade})


def brute_force(a, b, judgments, judges):
    """The first disagreeing edit by (size, full disagreement first, top rank, kind, enumeration order)."""
    best = None
    for order, (size, top, kind, text, new_b, new_judgments) in enumerate(every_single_edit(a, b, judgments)):
        first, second = verdicts(a, new_b, new_judgments, judges)
        if first != second:
            key = (size, 0 if first * second == -1 else 1, top, kind, order)
            if best is None or key < best[0]:
                best = (key, text, (first, second))
    return best


JUDGE_PAIRS = [
    (Judge("P@3"), Judge("nDCG@3")),
    (Judge("AP"), Judge("RR")),
    (Judge("nDCG@3"), Judge("nDCG@3", Conventions(gain="exponential"))),
    (Judge("P@2"), Judge("P@2", Conventions(unjudged="removed"))),
    (Judge("recall@3"), Judge("recall@3", Conventions(relevance_level=2))),
]


@pytest.mark.parametrize("judges", JUDGE_PAIRS, ids=lambda judges: " vs ".join(
    f"{judge.measure}{'' if judge.conventions == Conventions() else '*'}" for judge in judges))
def test_the_lab_finds_the_smallest_edit_every_single_edit_gives(judges):
    rng = random.Random(f"pair {JUDGE_PAIRS.index(judges)}")  # not the repr: a new Conventions field must not reseed
    docs = ["d0", "d1", "d2", "d3", "d4", "d5"]
    found_some = 0
    for _ in range(10):
        a, b = rng.sample(docs, rng.randint(0, 4)), rng.sample(docs, rng.randint(1, 4))
        judgments = {doc: rng.choice([-1, 0, 1, 2, 3]) for doc in rng.sample(docs, 4)}
        found = find_disagreement(a, b, judgments, judges)
        start = verdicts(a, b, judgments, judges)
        assert found.verdicts_before == start
        if start[0] != start[1]:
            assert found.already and found.edit is None
            continue
        expected = brute_force(a, b, judgments, judges)
        if expected is None:
            assert found.edit is None
            assert "no single edit" in found.sentence
            continue
        _, text, after = expected
        assert found.edit.describe(found.list_b, judgments) == text
        assert found.verdicts_after == after
        new_b, new_judgments = found.edit.apply(b, judgments)
        assert verdicts(a, new_b, new_judgments, judges) == after  # applying the edit gives what was said
        found_some += 1
    assert found_some >= 1


def test_p_at_k_and_ndcg_at_k_part_on_one_swap_inside_the_top_k():
    judges = (Judge("P@2"), Judge("nDCG@2"))
    found = find_disagreement(["a", "b"], ["a", "b"], {"a": 2, "b": 1}, judges)
    assert found.sentence == ("P@2 and nDCG@2 agree now (tie). Swapping ranks 1 and 2 of B (a and b): P@2 says tie, "
                              "nDCG@2 says A better.")


def test_two_lists_no_single_edit_can_split_say_so():
    # Nothing is relevant: every metric is 0 on both lists whatever one swap or removal does, and a grade change
    # moves both metrics the same way on these one-document lists.
    found = find_disagreement(["x"], ["x"], {"x": 0}, (Judge("P@1"), Judge("RR")))
    assert found.edit is None and not found.already
    assert found.sentence.startswith("P@1 and RR agree (tie), and no single edit (of the 2 swaps, removals")


def test_bad_input_gets_one_clear_message():
    with pytest.raises(InputError, match="two metrics.whatif.Judge"):
        find_disagreement(["a"], ["a"], {"a": 1}, (Judge("P@1"),))
    with pytest.raises(InputError, match=f"at most {MAX_LAB_ITEMS}"):
        find_disagreement([], [f"d{i}" for i in range(MAX_LAB_ITEMS + 1)], {"d0": 1}, (Judge("P@1"), Judge("RR")))
    with pytest.raises(InputError, match="appears twice"):
        find_disagreement(["a", "a"], ["a"], {"a": 1}, (Judge("P@1"), Judge("RR")))
