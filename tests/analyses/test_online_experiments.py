"""Online experiments against a baseline (metrics.online.experiments): the simulated A/B test, the sessions it needs
(checked against statsmodels), and team-draft interleaving."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import InputError
from metrics.online import ClickModel, ab_test, expected_signals, sessions_needed, team_draft
from metrics.online.experiments import interleave, wilson_interval

# statsmodels is imported in the tests that use it, not at collection, where every pytest-xdist worker
# would pay for it (scipy.stats and statsmodels: about 2 s of CPU per worker).

PASTRY = {"donut": 1, "muffin": 1, "scone": 1}
RUN = ["donut", "bagel", "muffin", "croissant"]
MUFFIN_UP = ["donut", "muffin", "bagel", "croissant"]


def pastry_model(ranking: list[str], kind: str = "pbm") -> ClickModel:
    return ClickModel.for_list(kind, [PASTRY.get(doc) for doc in ranking], max_grade=1)


def test_under_the_cascade_model_the_order_changes_no_ctr():
    # The cascade user stops at the first click, so the page's CTR is 1 - prod(1 - a_r): any order of the same
    # documents gives the same CTR; only where the first click lands moves.
    before, after = expected_signals(pastry_model(RUN, "cascade")), expected_signals(pastry_model(MUFFIN_UP, "cascade"))
    assert before.ctr == after.ctr == 0.75
    assert after.first_click_rank < before.first_click_rank
    test = ab_test(pastry_model(RUN, "cascade"), pastry_model(MUFFIN_UP, "cascade"), 10_000, seed=0)
    assert test.ctr.expected == 0.0 and test.ctr.sessions_needed is None


def test_moving_muffin_up_raises_pbm_ctr_and_the_ab_test_sees_it_with_enough_sessions():
    a, b = pastry_model(RUN), pastry_model(MUFFIN_UP)
    expected = expected_signals(b).ctr - expected_signals(a).ctr  # muffin examined with 1/2 instead of 1/3
    assert expected == pytest.approx((1 - 0.5 * 0.75) - (1 - 0.5 * (1 - 1 / 6)))
    needed = sessions_needed(expected_signals(a).ctr, expected_signals(b).ctr)
    test = ab_test(a, b, sessions=4 * needed, seed=1)
    assert test.ctr.expected == pytest.approx(expected)
    assert test.abandonment.expected == pytest.approx(-expected)
    assert test.ctr.ci[0] < test.ctr.simulated < test.ctr.ci[1]
    assert abs(test.ctr.simulated - expected) <= 4 * (test.ctr.ci[1] - test.ctr.ci[0]) / (2 * 1.96)
    assert test.ctr.significant and test.abandonment.significant
    assert test.abandonment.simulated == pytest.approx(-test.ctr.simulated)
    assert test.abandonment.ci == pytest.approx((-test.ctr.ci[1], -test.ctr.ci[0]))
    assert test.ctr.sessions_needed == needed
    # The interval's half-width is z * sqrt(pa qa / N + pb qb / N)
    pa, pb, n = test.simulated_a.signals.ctr, test.simulated_b.signals.ctr, 4 * needed
    half = 1.959963984540054 * ((pa * (1 - pa) + pb * (1 - pb)) / n) ** 0.5
    assert test.ctr.ci == pytest.approx((pb - pa - half, pb - pa + half))


def test_an_ab_test_is_reproducible_from_its_seed():
    a, b = pastry_model(RUN), pastry_model(MUFFIN_UP)
    assert ab_test(a, b, 2_000, seed=5).ctr == ab_test(a, b, 2_000, seed=5).ctr
    assert ab_test(a, b, 2_000, seed=5).ctr != ab_test(a, b, 2_000, seed=6).ctr


def test_the_ci_covers_the_expected_difference_about_95_percent_of_the_time():
    a, b = pastry_model(RUN), pastry_model(MUFFIN_UP)
    expected = expected_signals(b).ctr - expected_signals(a).ctr
    covered = sum(ab_test(a, b, 2_000, seed=seed).ctr.ci[0] <= expected <= ab_test(a, b, 2_000, seed=seed).ctr.ci[1]
                  for seed in range(200))
    assert 180 <= covered <= 199  # 95% of 200 is 190; binomial sd about 3


@pytest.mark.parametrize("p_a, p_b", [(0.5, 0.6), (0.1, 0.12), (0.3, 0.2), (0.0, 0.01), (0.99, 1.0), (0.75, 0.7501),
                                      (0.583, 0.6875)])
@pytest.mark.parametrize("alpha, power", [(0.05, 0.8), (0.01, 0.9)])
def test_sessions_needed_is_statsmodels_normal_ind_power_rounded_up(p_a, p_b, alpha, power):
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    reference = NormalIndPower().solve_power(effect_size=proportion_effectsize(p_b, p_a), alpha=alpha, power=power,
                                             ratio=1.0, alternative="two-sided")
    assert sessions_needed(p_a, p_b, alpha=alpha, power=power) == int(np.ceil(reference))


def test_sessions_needed_for_cohens_small_effect_is_392_and_none_without_a_difference():
    # Cohen's h = 0.2 (p 0.5 against 0.5986...) needs 392 per arm at alpha 0.05 and power 0.8 (Cohen 1988, table 6.4.1)
    p_b = np.sin(np.arcsin(np.sqrt(0.5)) + 0.1) ** 2
    assert sessions_needed(0.5, float(p_b)) == 393  # 392.4: 393 sessions reach power 0.8
    assert sessions_needed(0.4, 0.4) is None


def test_probabilities_equal_but_for_float_rounding_need_no_sessions_they_are_no_change():
    assert sessions_needed(0.8771499999999999, 0.87715) is None
    assert sessions_needed(0.75, 0.75 + 2**-52) is None
    assert sessions_needed(0.5, 0.5 + 1e-9) > 10**18  # a real (if tiny) difference keeps its figure


def test_team_draft_interleaving_follows_radlinski_et_al():
    # Both rankings start with donut: the coin picks who takes it, the other team takes its next document.
    docs, teams = interleave(RUN, MUFFIN_UP, coins=0b11, depth=4)  # A first, then A first again
    assert (docs, teams) == (["donut", "muffin", "bagel", "croissant"], ["a", "b", "a", "b"])
    docs, teams = interleave(RUN, MUFFIN_UP, coins=0b01, depth=4)  # A first, then B first
    assert (docs, teams) == (["donut", "muffin", "bagel", "croissant"], ["a", "b", "b", "a"])
    docs, teams = interleave(RUN, MUFFIN_UP, coins=0b00, depth=4)  # B first, then B first again
    assert (docs, teams) == (["donut", "bagel", "muffin", "croissant"], ["b", "a", "b", "a"])
    # The paper's loop runs while both rankings hold an unshown document: once B has none left, the list ends.
    assert interleave(RUN, ["bagel"], coins=0, depth=10) == (["bagel"], ["b"])
    assert interleave(RUN, ["bagel"], coins=1, depth=10) == (["donut", "bagel"], ["a", "b"])
    assert interleave(RUN, RUN, coins=0b11, depth=3) == (["donut", "bagel", "muffin"], ["a", "b", "a"])


def test_the_ranking_with_muffin_higher_wins_the_interleaving():
    result = team_draft(RUN, MUFFIN_UP, PASTRY, "cascade", sessions=20_000, seed=0)
    assert result.wins_a + result.wins_b + result.ties == 20_000
    assert result.win_rate_a == result.wins_a / (result.wins_a + result.wins_b)
    assert result.ci[0] < result.win_rate_a < result.ci[1] < 0.5  # B wins
    assert (result.clicks_a, result.clicks_b) == (result.wins_a, result.wins_b)  # the cascade user clicks once


def test_identical_rankings_tie_on_average_and_no_clicks_give_no_win_rate():
    result = team_draft(RUN, RUN, PASTRY, "dbn", sessions=20_000, seed=3)
    assert result.ci[0] < 0.5 < result.ci[1]
    nothing = team_draft(RUN, MUFFIN_UP, {"scone": 1}, "pbm", sessions=1_000, seed=3)
    assert (nothing.wins_a, nothing.wins_b, nothing.ties, nothing.win_rate_a, nothing.ci) == (0, 0, 1_000, None, (0, 1))


def test_team_draft_is_reproducible_from_its_seed():
    first = team_draft(RUN, MUFFIN_UP, PASTRY, "pbm", sessions=5_000, seed=9, eta=0.5)
    assert first == team_draft(RUN, MUFFIN_UP, PASTRY, "pbm", sessions=5_000, seed=9, eta=0.5)


def test_wilson_interval_stays_inside_zero_one():
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)


@pytest.mark.parametrize("call, message", [
    (lambda: ab_test(pastry_model(RUN), "list", 10, 0), "Argument `model_b` has to be a metrics.online.ClickModel"),
    (lambda: ab_test(pastry_model(RUN), pastry_model(RUN), 10, 0, alpha=1.0), "`alpha` has to lie strictly between"),
    (lambda: sessions_needed(0.5, 1.5), "Argument `p_b` has to be a finite number from 0 to 1"),
    (lambda: sessions_needed(0.5, 0.6, power=0.01), "Argument `power` has to lie between alpha / 2 and 1"),
    (lambda: team_draft("donut", RUN, PASTRY, "cascade", 10, 0), "a string would be read as its characters"),
    (lambda: team_draft(["a", "a"], RUN, PASTRY, "cascade", 10, 0), "document 'a' appears twice"),
    (lambda: team_draft(RUN, RUN, {"donut": 0.5}, "cascade", 10, 0), "grade must be an integer"),
    (lambda: team_draft(RUN, RUN, PASTRY, "ubm", 10, 0), "Argument `kind` has to be one of cascade, pbm, dbn"),
    (lambda: team_draft(RUN, RUN, PASTRY, "cascade", 10, 0, depth=31), "`depth` has to be a whole number from 1 to 30"),
    (lambda: team_draft(RUN, RUN, PASTRY, "dbn", 10, 0, continuation=2), "`continuation` has to be a finite number"),
])
def test_bad_experiment_arguments_get_one_clear_input_error(call, message):
    with pytest.raises(InputError) as raised:
        call()
    assert message in str(raised.value)


# ---- team draft with the full click model: typed attractiveness, satisfaction and θ per rank ----------------------
# A = x, y and B = y, x, top 2 interleaved: team A always contributes x, team B always y; whichever team picks first
# (a fair coin) fills rank 1.


def test_typed_attractiveness_per_document_replaces_the_grade_default_in_interleaving():
    # x always attracts, y never: every session clicks x, which is always team A's: A wins them all (closed form).
    result = team_draft(["x", "y"], ["y", "x"], {}, "cascade", sessions=2_000, seed=1,
                        attractiveness={"x": 1.0, "y": 0.0})
    assert (result.wins_a, result.wins_b, result.ties) == (2_000, 0, 0)


def test_a_position_bias_of_zero_everywhere_decides_no_interleaved_session():
    result = team_draft(RUN, MUFFIN_UP, PASTRY, "pbm", sessions=2_000, seed=1, position_bias=[0, 0, 0, 0])
    assert (result.wins_a, result.wins_b, result.win_rate_a) == (0, 0, None)


def test_typed_theta_per_rank_lets_only_rank_one_be_clicked_so_the_first_picker_wins_half_the_sessions():
    # θ = 1, 0: only rank 1 is examined; both always attract, so the team that picked first wins: a fair coin.
    result = team_draft(["x", "y"], ["y", "x"], {}, "pbm", sessions=20_000, seed=2, position_bias=[1, 0],
                        attractiveness={"x": 1.0, "y": 1.0})
    assert result.ties == 0 and result.ci[0] < 0.5 < result.ci[1]


def test_typed_satisfaction_ends_the_dbn_session_at_the_first_click():
    # Both attract always; satisfaction 1 stops after the first click: one click per session, no tie.
    both = {"x": 1.0, "y": 1.0}
    stops = team_draft(["x", "y"], ["y", "x"], {}, "dbn", sessions=2_000, seed=4, attractiveness=both,
                       satisfaction=both, continuation=1.0)
    assert stops.ties == 0 and stops.clicks_a + stops.clicks_b == 2_000
    goes_on = team_draft(["x", "y"], ["y", "x"], {}, "dbn", sessions=2_000, seed=4, attractiveness=both,
                         satisfaction={"x": 0.0, "y": 0.0}, continuation=1.0)
    assert goes_on.ties == 2_000  # each session clicks both: one click per team


def test_a_typed_interleaving_parameter_that_is_not_a_probability_gets_one_message():
    with pytest.raises(InputError, match="attractiveness"):
        team_draft(["x"], ["y"], {}, "cascade", sessions=100, seed=0, attractiveness={"x": 1.5})
    with pytest.raises(InputError, match="position_bias"):
        team_draft(["x"], ["y"], {}, "pbm", sessions=100, seed=0, position_bias=[2])
