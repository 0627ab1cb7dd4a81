"""Click models and the closed forms of their online signals (metrics.online.models), against hand calculations,
ERR, and (tests/analyses/test_online_simulate.py) the simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

import metrics
from metrics import InputError
from metrics.online import (
    MODELS,
    SIGNALS,
    ClickModel,
    default_attractiveness,
    default_position_bias,
    default_satisfaction,
    expected_signals,
)

# Sweet pastry: qrels donut, muffin, scone = 1; the run ranks donut, bagel, muffin, croissant.
SWEET_PASTRY_GRADES = [1, None, 1, None]


def sweet_pastry(kind: str, **params) -> ClickModel:
    return ClickModel.for_list(kind, SWEET_PASTRY_GRADES, max_grade=1, **params)


def test_sweet_pastry_under_the_cascade_model_clicks_donut_half_the_time_and_abandons_a_quarter():
    signals = expected_signals(sweet_pastry("cascade"))
    assert signals.ctr_1 == 0.5
    assert signals.abandonment == 0.25  # (1 - 0.5)(1 - 0.5): donut and muffin both unattractive
    assert signals.click_probability.tolist() == [0.5, 0.0, 0.25, 0.0]
    assert signals.ctr == 0.75
    assert signals.clicks == 0.75  # the cascade user clicks at most once
    assert signals.first_click_rank == pytest.approx((1 * 0.5 + 3 * 0.25) / 0.75)
    assert signals.stop_reciprocal_rank == pytest.approx(0.5 / 1 + 0.25 / 3)


def test_sweet_pastry_under_pbm_examines_rank_r_with_probability_one_over_r():
    signals = expected_signals(sweet_pastry("pbm"))
    # theta = 1, 1/2, 1/3, 1/4; clicks independent: P(click) = theta_r * a_r
    assert signals.click_probability == pytest.approx([0.5, 0.0, 0.5 / 3, 0.0])
    assert signals.abandonment == pytest.approx((1 - 0.5) * (1 - 1 / 6))  # 5/12
    assert signals.ctr == pytest.approx(7 / 12)
    assert signals.clicks == pytest.approx(0.5 + 1 / 6)  # PBM may click twice
    assert signals.first_click_rank == pytest.approx((1 * 0.5 + 3 * 0.5 * (1 / 6)) / (7 / 12))  # 9/7


def test_pbm_with_a_steeper_curve_and_a_curve_of_ones():
    steep = expected_signals(sweet_pastry("pbm", eta=2.0))
    assert steep.click_probability[2] == pytest.approx(0.5 / 9)
    flat = expected_signals(sweet_pastry("pbm", position_bias=[1, 1, 1, 1]))
    assert flat.abandonment == pytest.approx(0.25)  # no position bias: the same chance as the cascade's here


def test_sweet_pastry_under_dbn_continues_with_gamma_after_each_unsatisfying_rank():
    signals = expected_signals(sweet_pastry("dbn", continuation=0.9))
    # grade 1 is the top grade: a click on it satisfies (s = 1). Rank 3 is examined after donut was skipped
    # (0.5) and the user went on twice (0.9 * 0.9): 0.405, and clicked with 0.5.
    assert signals.click_probability == pytest.approx([0.5, 0.0, 0.5 * 0.9 * 0.9 * 0.5, 0.0])
    assert signals.abandonment == pytest.approx(1 - 0.5 - 0.2025)


def test_dbn_with_partial_satisfaction_can_click_twice():
    # Grades 1 and 2 of gmax 2: a = 1/4 and 3/4, s = 1/3 and 1.
    model = ClickModel.for_list("dbn", [1, 2], max_grade=2, continuation=0.5)
    assert model.attractiveness.tolist() == [0.25, 0.75]
    assert model.satisfaction.tolist() == pytest.approx([1 / 3, 1.0])
    signals = expected_signals(model)
    examined_2 = 0.5 * (1 - 0.25 * (1 / 3))  # gamma * (1 - a_1 s_1)
    assert signals.click_probability == pytest.approx([0.25, examined_2 * 0.75])
    assert signals.clicks == pytest.approx(0.25 + examined_2 * 0.75)
    # The first click: rank 1, or no click there (0.75), go on (0.5), click at rank 2.
    first_2 = 0.75 * 0.5 * 0.75
    assert signals.ctr == pytest.approx(0.25 + first_2)
    assert signals.first_click_rank == pytest.approx((0.25 + 2 * first_2) / (0.25 + first_2))
    assert signals.stop_reciprocal_rank == pytest.approx(0.25 / 3 + examined_2 * 0.75 / 2)


def test_cascade_is_dbn_with_gamma_one_and_satisfaction_one():
    rng = np.random.default_rng(7)
    for _ in range(20):
        a = rng.random(rng.integers(0, 12))
        cascade = expected_signals(ClickModel("cascade", a))
        dbn = expected_signals(ClickModel("dbn", a, satisfaction=np.ones(a.size), continuation=1.0))
        for signal in (*SIGNALS, "stop_reciprocal_rank"):
            assert cascade.value(signal) == dbn.value(signal)
        assert cascade.click_probability.tolist() == dbn.click_probability.tolist()


@pytest.mark.parametrize("kind", MODELS)
def test_closed_forms_agree_with_brute_force_enumeration_of_every_click_pattern(kind):
    # Enumerate every session outcome of a 4-rank list by its probability (examination, click, satisfaction and
    # continuation draws), then read each signal off the outcomes.
    rng = np.random.default_rng(11)
    a, theta, s = rng.random(4), rng.random(4), rng.random(4)
    gamma = 0.7
    model = ClickModel(kind, a, position_bias=theta if kind == "pbm" else None,
                       satisfaction=s if kind == "dbn" else None, continuation=gamma if kind == "dbn" else 1.0)
    outcomes = _enumerate_sessions(model)
    signals = expected_signals(model)
    assert sum(p for p, _, _ in outcomes) == pytest.approx(1.0)
    clicked = [(p, clicks) for p, clicks, _ in outcomes if clicks]
    ctr = sum(p for p, _ in clicked)
    assert signals.ctr == pytest.approx(ctr)
    assert signals.ctr_1 == pytest.approx(sum(p for p, clicks in clicked if clicks[0] == 1))
    assert signals.clicks == pytest.approx(sum(p * len(clicks) for p, clicks, _ in outcomes))
    assert signals.first_click_rank == pytest.approx(sum(p * clicks[0] for p, clicks in clicked) / ctr)
    assert signals.stop_reciprocal_rank == pytest.approx(sum(p / stop for p, _, stop in outcomes if stop))
    for rank in range(1, 5):
        assert signals.click_probability[rank - 1] == pytest.approx(
            sum(p for p, clicks, _ in outcomes if rank in clicks))


def _enumerate_sessions(model: ClickModel) -> list[tuple[float, list[int], int | None]]:
    """Every session as (probability, ranks clicked, rank of the satisfying click or None)."""
    a = model.attractiveness
    n = a.size
    if model.kind == "pbm":
        outcomes = []
        for pattern in range(2**n):
            clicks = [r + 1 for r in range(n) if pattern >> r & 1]
            p = math.prod(model.position_bias[r] * a[r] if pattern >> r & 1 else 1 - model.position_bias[r] * a[r]
                          for r in range(n))
            outcomes.append((p, clicks, clicks[0] if clicks else None))
        return outcomes
    s = np.ones(n) if model.satisfaction is None else model.satisfaction
    gamma = model.continuation
    outcomes = []

    def walk(rank: int, p: float, clicks: list[int]) -> None:
        if rank > n:
            outcomes.append((p, clicks, None))
            return
        r = rank - 1
        # no click: go on with gamma, or stop
        walk(rank + 1, p * (1 - a[r]) * gamma, clicks)
        outcomes.append((p * (1 - a[r]) * (1 - gamma), clicks, None))
        # click and satisfied: stop here
        outcomes.append((p * a[r] * s[r], clicks + [rank], rank))
        # click, not satisfied: go on with gamma, or stop
        walk(rank + 1, p * a[r] * (1 - s[r]) * gamma, clicks + [rank])
        outcomes.append((p * a[r] * (1 - s[r]) * (1 - gamma), clicks + [rank], None))

    walk(1, 1.0, [])
    return outcomes


@pytest.mark.parametrize("k", [1, 3, 10, 25])
def test_err_is_the_expected_reciprocal_rank_of_the_stopping_click_under_the_cascade_model(k):
    # ERR@k (gdeval: R = (2^g - 1) / 2^4) equals, bit for bit, the cascade model's expected reciprocal rank of the
    # satisfying click on the top k, with attractiveness (2^g - 1) / 2^gmax and gmax = 4.
    rng = np.random.default_rng(k)
    qrels, run = {}, {}
    for q in range(200):
        n = int(rng.integers(0, 30))
        grades = rng.integers(-1, 5, n)  # -1: in the pool, unjudged
        qid = f"q{q}"
        qrels[qid] = {f"d{i}": int(g) for i, g in enumerate(grades) if rng.random() < 0.8}
        qrels[qid]["never-retrieved"] = 4
        run[qid] = {f"d{i}": float(n - i) for i in range(n)}
    err = metrics.evaluate(qrels, run, [f"ERR@{k}"])
    for qid, scores in run.items():
        ranking = list(scores)[:k]
        grades = [qrels[qid].get(doc) for doc in ranking]
        model = ClickModel.for_list("cascade", grades, max_grade=4)
        assert expected_signals(model).stop_reciprocal_rank == err[qid][f"ERR@{k}"], qid


@pytest.mark.parametrize("kind", ["cascade", "dbn"])
def test_without_leaving_early_the_ctr_is_one_minus_the_product_of_misses_in_any_order(kind):
    # The user goes on until a click (gamma = 1), so P(no click) = prod(1 - a_r): no order of the same documents
    # may change CTR or abandonment, not even in the last bit.
    rng = np.random.default_rng(12)
    for _ in range(200):
        a = rng.choice([0.0, 0.1, 0.125, 0.3, 0.37, 0.5, 0.61, 0.75, 0.9], size=int(rng.integers(1, 12)))
        signals = [expected_signals(ClickModel.for_list(kind, [0] * len(order), 1, attractiveness=order,
                                                        continuation=1.0))
                   for order in (a, rng.permutation(a), a[::-1])]
        assert len({(s.ctr, s.abandonment) for s in signals}) == 1
        assert signals[0].ctr == pytest.approx(1 - np.prod(1 - a), abs=1e-15)
        assert signals[0].abandonment == pytest.approx(np.prod(1 - a), abs=1e-15)


def test_default_attractiveness_by_grade_unjudged_and_negative_grades():
    assert default_attractiveness([3, 2, 1, 0, None, -1], max_grade=3).tolist() == [7 / 8, 3 / 8, 1 / 8, 0, 0, 0]
    assert default_attractiveness([0, None, -2], max_grade=0).tolist() == [0, 0, 0]  # gmax 0: nobody clicks
    assert default_attractiveness([], max_grade=2).tolist() == []
    huge = default_attractiveness([2**62, 1], max_grade=2**62)  # trec_eval's 64-bit grades never overflow
    assert huge.tolist() == [1.0, 0.0]
    largest = 2**63 - 1  # no float holds it: the check compares integers
    assert default_attractiveness([largest, 5], max_grade=largest).tolist() == [1.0, 0.0]
    with pytest.raises(InputError, match="max_grade"):
        default_attractiveness([3], max_grade=2)


def test_default_satisfaction_is_one_at_the_top_grade():
    assert default_satisfaction([3, 1, 0, None], max_grade=3).tolist() == pytest.approx([1, 1 / 7, 0, 0])
    assert default_satisfaction([1], max_grade=-1).tolist() == [0.0]


def test_default_position_bias_is_one_over_r_to_the_eta():
    assert default_position_bias(4).tolist() == [1, 1 / 2, 1 / 3, 1 / 4]
    assert default_position_bias(3, eta=0).tolist() == [1, 1, 1]
    assert default_position_bias(3, eta=2).tolist() == pytest.approx([1, 1 / 4, 1 / 9])
    assert default_position_bias(0).tolist() == []


@pytest.mark.parametrize("kind", MODELS)
@pytest.mark.parametrize("grades, max_grade", [([], 1), ([0, 0, None], 1), ([1, 2], 0), ([None], -1)],
                         ids=["empty", "no_relevant", "gmax_0", "unjudged_only"])
def test_lists_nobody_clicks_give_defined_values_never_nan(kind, grades, max_grade):
    if max_grade == 0:
        grades = [0, 0]
    signals = expected_signals(ClickModel.for_list(kind, grades, max_grade))
    assert (signals.ctr, signals.ctr_1, signals.abandonment, signals.clicks) == (0.0, 0.0, 1.0, 0.0)
    assert signals.first_click_rank is None
    assert signals.stop_reciprocal_rank == 0.0
    assert signals.click_probability.tolist() == [0.0] * len(grades)


def test_a_certain_click_at_rank_one():
    signals = expected_signals(ClickModel("cascade", [1.0, 1.0]))
    assert (signals.ctr, signals.abandonment, signals.first_click_rank, signals.clicks) == (1.0, 0.0, 1.0, 1.0)


@pytest.mark.parametrize("call, message", [
    (lambda: ClickModel("click", [0.5]), "Argument `kind` has to be one of cascade, pbm, dbn"),
    (lambda: ClickModel("cascade", [1.5]), "attractiveness` at rank 1: a probability has to lie in [0, 1]"),
    (lambda: ClickModel("cascade", [float("nan")]), "attractiveness` at rank 1"),
    (lambda: ClickModel("cascade", "0.5"), "has to be a list of probabilities"),
    (lambda: ClickModel("pbm", [0.5, 0.5], position_bias=[1.0]), "has 1 values for a list of 2"),
    (lambda: ClickModel("dbn", [0.5], continuation=1.1), "continuation` has to be a finite number from 0 to 1"),
    (lambda: ClickModel.for_list("pbm", [1], 1, eta=-1), "eta` has to be a finite number at least 0"),
    (lambda: ClickModel.for_list("cascade", [1.5], 2), "grades (rank 1)` has to be an integer grade"),
    (lambda: ClickModel.for_list("cascade", [1], True), "max_grade` has to be an integer grade"),
    (lambda: ClickModel.for_list("cascade", [0] * 100_001, 1), "the limit is 100,000"),
    (lambda: default_position_bias(-1), "Argument `n` has to be a whole number"),
    (lambda: expected_signals("cascade"), "has to be a metrics.online.ClickModel"),
])
def test_bad_parameters_get_one_clear_input_error(call, message):
    with pytest.raises(InputError) as raised:
        call()
    assert message in str(raised.value)


def test_a_model_is_read_only():
    model = sweet_pastry("pbm")
    with pytest.raises(ValueError):
        model.attractiveness[0] = 1.0
    with pytest.raises(AttributeError):
        model.kind = "dbn"
