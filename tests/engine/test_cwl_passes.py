"""The C/W/L passes over a batch (metrics/measures/cwl.py): rank-major, with the sums over ranks added in rank order
and the temporaries written into one workspace per batch. A ranking's ten quantities under every user model are the
same to the bit alone and in a batch of rankings of other lengths (shorter, longer, past cwl_eval's 1,000 ranks),
and whatever other models the batch evaluated before (they share the gains, their running sums and the workspace).
"""

from __future__ import annotations

import numpy as np

from metrics import RankingBatch, evaluate_batch, parse_measure
from metrics.measures.cwl import QUANTITIES, _running_product
from metrics.model import NO_JUDGMENT

MODELS = ("BPM(T=1,max_rel=3)@10", "BPM(T=2.5,min_rel=1,max_rel=2)@4", "INST(T=1,max_rel=3)", "INST(T=0.25)",
          "INSQ(T=2,max_rel=3)", "SDCG(max_rel=3)@10", "SDCG(min_rel=1,max_rel=2)@1000", "NERR8(max_rel=3)@10",
          "NERR9(max_rel=2)@5", "NERR10(p=0.7,max_rel=3)", "NERR11(T=2,max_rel=3)")
#: Lengths around the passes' edges: one rank, the cut-offs, cwl_eval's depth, and past it.
LENGTHS = (1, 2, 4, 9, 10, 11, 37, 999, 1000, 1001, 1200)


def specs_of(model: str) -> list[str]:
    return [model.replace(")", f",quantity={quantity})") for quantity in QUANTITIES]


def keys_of(specs: list[str]) -> list[str]:
    return [parse_measure(spec)[0].key for spec in specs]


def mixed_batch(lengths: tuple[int, ...], seed: int = 26) -> RankingBatch:
    """Rankings of the given lengths in one padded batch: grades -1..3 (-1: in the pool, unjudged), about half the
    ranked documents judged, and a few judged documents each ranking misses."""
    rng = np.random.default_rng(seed)
    width = max(lengths)
    filled = np.arange(width) < np.asarray(lengths)[:, None]
    judged = filled & (rng.random(filled.shape) < 0.5)
    grades = np.where(judged, rng.integers(0, 4, filled.shape), np.where(filled & (rng.random(filled.shape) < 0.1),
                                                                           -1, 0)).astype(np.float64)
    judgments = [np.sort(np.concatenate([grades[i][judged[i]], rng.integers(0, 4, 3)]))[::-1]
                 for i in range(len(lengths))]
    judged_grades = np.full((len(lengths), max(map(len, judgments))), float(NO_JUDGMENT))
    for i, row in enumerate(judgments):
        judged_grades[i, :len(row)] = row
    return RankingBatch(grades, judged, np.asarray(lengths, dtype=np.int64), judged_grades)


def alone(batch: RankingBatch, row: int) -> RankingBatch:
    """Ranking ``row`` of ``batch`` as a batch of its own, as wide as the ranking."""
    length = int(batch.lengths[row])
    judged_count = int(np.count_nonzero(batch.judged_grades[row] != NO_JUDGMENT))
    return RankingBatch(batch.grades[row:row + 1, :length], batch.judged[row:row + 1, :length],
                        batch.lengths[row:row + 1], batch.judged_grades[row:row + 1, :judged_count])


def test_a_ranking_scores_the_same_to_the_bit_alone_and_in_a_batch_of_other_lengths():
    batch = mixed_batch(LENGTHS)
    specs = [spec for model in MODELS for spec in specs_of(model)]
    together = evaluate_batch(batch, specs)
    for row, length in enumerate(LENGTHS):
        by_itself = evaluate_batch(alone(batch, row), specs)
        assert {key: by_itself[key][0] for key in together} == {key: together[key][row] for key in together}, length
    # Not vacuous: the residuals (best case minus worst) move, and the long rankings' EU differ from the short ones'.
    residual_keys = [key for key in keys_of(specs) if "quantity=Res" in key]
    assert sum(np.count_nonzero(together[key]) for key in residual_keys) > len(residual_keys)
    assert len(set(together[keys_of(specs_of("INST(T=1,max_rel=3)"))[0]].tolist())) == len(LENGTHS)


def test_each_model_scores_the_same_to_the_bit_whatever_the_batch_evaluated_before_it():
    batch = mixed_batch(LENGTHS, seed=27)
    specs = [spec for model in MODELS for spec in specs_of(model)]
    forwards, backwards = evaluate_batch(batch, specs), evaluate_batch(batch, specs[::-1])
    for model in MODELS:
        own = evaluate_batch(batch, specs_of(model))
        for key in keys_of(specs_of(model)):
            assert own[key].tolist() == forwards[key].tolist() == backwards[key].tolist(), key


def test_a_running_product_that_meets_a_zero_stops_there_with_the_same_bits():
    rng = np.random.default_rng(28)
    continuation = rng.random((1000, 7))
    continuation[rng.integers(0, 150, 7), np.arange(7)] = 0.0  # each ranking stops by rank 150 (a gain of 1)
    everywhere = np.cumprod(continuation, axis=0)
    products = np.full((1001, 7), np.nan)
    reached = _running_product(continuation, products, stops=True)
    assert reached < 1000 and not everywhere[reached - 1:].any()
    assert products[0].tolist() == [1.0] * 7 and products[1:reached + 1].tolist() == everywhere[:reached].tolist()
    assert np.isnan(products[reached + 1:]).all()  # the rest is not computed
    continuation[:, 3] = 0.5  # one ranking that never stops: the product runs to the end
    assert _running_product(continuation, products, stops=True) == 1000
    assert products[1:].tolist() == np.cumprod(continuation, axis=0).tolist()
