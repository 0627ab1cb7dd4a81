"""Seeded simulation of click sessions (metrics.online.simulate): it agrees with the closed forms within 4 standard
errors, is reproducible, bounded, and defined on lists nobody clicks."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import InputError
from metrics.online import MODELS, ClickModel, expected_signals, simulate_signals
from metrics.online.simulate import MAX_DRAWS, MAX_SESSIONS

SIGNALS_AND_STOP = ("ctr", "ctr_1", "abandonment", "first_click_rank", "clicks", "stop_reciprocal_rank")


def random_model(kind: str, rng: np.random.Generator) -> ClickModel:
    n = int(rng.integers(1, 15))
    grades = [None if rng.random() < 0.2 else int(g) for g in rng.integers(0, 4, n)]
    max_grade = max([g for g in grades if g is not None] + [int(rng.integers(1, 4))])
    return ClickModel.for_list(kind, grades, max_grade, eta=float(rng.uniform(0, 2)),
                               continuation=float(rng.uniform(0.5, 1.0)))


@pytest.mark.parametrize("kind", MODELS)
def test_closed_forms_lie_within_four_standard_errors_of_the_simulation(kind):
    rng = np.random.default_rng(2026)
    for case in range(12):
        model = random_model(kind, rng)
        exact = expected_signals(model)
        simulated = simulate_signals(model, 20_000, seed=case)
        for signal in SIGNALS_AND_STOP:
            expected, observed = exact.value(signal) if signal != "stop_reciprocal_rank" else \
                exact.stop_reciprocal_rank, getattr(simulated.signals, signal)
            if expected is None:
                assert observed is None
                continue
            error = simulated.standard_error[signal]
            assert abs(observed - expected) <= 4 * error + 1e-12, (kind, case, signal, observed, expected, error)
        # Per rank, the standard error of the true proportion: a rank clicked once in 100,000 sessions may show
        # no click in 20,000, and a sample error of 0.
        p = exact.click_probability
        within = np.abs(simulated.signals.click_probability - p) <= 4 * np.sqrt(p * (1 - p) / 20_000) + 1e-12
        assert within.all(), (kind, case)


def test_the_sweet_pastry_simulation_of_a_million_sessions():
    model = ClickModel.for_list("cascade", [1, None, 1, None], 1)
    simulated = simulate_signals(model, 1_000_000, seed=0)
    assert simulated.signals.ctr_1 == pytest.approx(0.5, abs=4 * simulated.standard_error["ctr_1"])
    assert simulated.signals.abandonment == pytest.approx(0.25, abs=4 * simulated.standard_error["abandonment"])
    assert simulated.standard_error["abandonment"] == pytest.approx((0.25 * 0.75 / 1e6) ** 0.5, rel=0.01)


def test_the_same_seed_gives_the_same_sessions_and_another_seed_others():
    model = ClickModel.for_list("dbn", [2, 0, 1, 2, None], 2)
    first, again, other = (simulate_signals(model, 5_000, seed) for seed in (3, 3, 4))
    assert first.signals.as_dict() == again.signals.as_dict()
    assert first.signals.as_dict() != other.signals.as_dict()
    assert (first.sessions, first.seed) == (5_000, 3)


def test_many_sessions_are_drawn_in_chunks_and_equal_one_pass_statistics():
    # The chunking is invisible: with a list of 3 ranks a million sessions take several chunks.
    model = ClickModel.for_list("pbm", [1, 1, 0], 1)
    simulated = simulate_signals(model, MAX_SESSIONS, seed=1)
    assert simulated.sessions == MAX_SESSIONS
    assert simulated.signals.clicks == pytest.approx(0.5 + 0.25, abs=4 * simulated.standard_error["clicks"])


@pytest.mark.parametrize("kind", MODELS)
@pytest.mark.parametrize("grades, max_grade", [([], 1), ([0, None], 1), ([0, 0], 0)],
                         ids=["empty", "no_relevant", "gmax_0"])
def test_lists_nobody_clicks_simulate_to_defined_values(kind, grades, max_grade):
    simulated = simulate_signals(ClickModel.for_list(kind, grades, max_grade), 1_000, seed=0)
    signals = simulated.signals
    assert (signals.ctr, signals.ctr_1, signals.abandonment, signals.clicks) == (0.0, 0.0, 1.0, 0.0)
    assert signals.first_click_rank is None and simulated.standard_error["first_click_rank"] is None
    assert simulated.standard_error["ctr"] == 0.0
    assert signals.click_probability.tolist() == [0.0] * len(grades)


def test_ranks_below_the_last_clickable_document_cost_no_draws():
    # 100,000 ranks of which only the first is relevant: a million sessions draw one column, not 10^11 cells.
    model = ClickModel.for_list("cascade", [1] + [0] * 99_999, 1)
    simulated = simulate_signals(model, MAX_SESSIONS, seed=0)
    assert simulated.signals.click_probability.shape == (100_000,)
    assert simulated.signals.ctr == pytest.approx(0.5, abs=0.002)


@pytest.mark.parametrize("call, message", [
    (lambda m: simulate_signals(m, 0, 1), "Argument `sessions` has to be a whole number from 1 to 1,000,000"),
    (lambda m: simulate_signals(m, MAX_SESSIONS + 1, 1), "from 1 to 1,000,000"),
    (lambda m: simulate_signals(m, 10.0, 1), "`sessions` has to be a whole number"),
    (lambda m: simulate_signals(m, 10, -1), "Argument `seed` has to be a whole number from 0"),
    (lambda m: simulate_signals(m, 10, True), "Argument `seed`"),
    (lambda m: simulate_signals("cascade", 10, 1), "has to be a metrics.online.ClickModel"),
    (lambda m: simulate_signals(ClickModel("cascade", np.full(1_000, 0.1)), MAX_SESSIONS, 1),
     f"more than {MAX_DRAWS:,} draws; use at most 200,000 sessions"),
])
def test_bad_simulation_arguments_get_one_clear_input_error(call, message):
    with pytest.raises(InputError) as raised:
        call(ClickModel("cascade", [0.5]))
    assert message in str(raised.value)
