"""Micro-benchmark: every benchmark measure for one query of 100 documents, ours against pytrec_eval.

Ours is ``metrics.evaluate_rankings`` on an explicit ranking (what the app calls on every edit); pytrec_eval is
``RelevanceEvaluator.evaluate`` on the same query as a run dict, with the evaluator built once outside the timing.
Both are timed in the same process, alternating, best of several rounds of many calls.
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from pipelines import MEASURES  # noqa: E402

from metrics import evaluate_rankings  # noqa: E402


def one_query(seed: int = 7) -> tuple[dict[str, int], dict[str, float], list[str]]:
    """A TREC-DL-like query: 100 retrieved documents, 150 judged (grades 0-3), some ties in the scores."""
    rng = np.random.default_rng(seed)
    docs = [f"doc{i}" for i in rng.choice(100_000, size=200, replace=False)]
    qrel = {doc: int(grade) for doc, grade in zip(docs[:150], rng.choice(4, size=150, p=[0.5, 0.25, 0.15, 0.1]))}
    retrieved = list(rng.choice(docs, size=100, replace=False))
    scores = {doc: float(np.round(rng.normal(10, 2), 1)) for doc in retrieved}
    ranking = sorted(scores, key=lambda d: (-scores[d], tuple(-b for b in d.encode())))
    return qrel, scores, ranking


def main() -> None:
    import pytrec_eval

    qrel, scores, ranking = one_query()
    evaluator = pytrec_eval.RelevanceEvaluator({"q": qrel}, set(MEASURES))
    run = {"q": scores}
    ours_values = evaluate_rankings([ranking], [qrel], MEASURES)
    theirs = evaluator.evaluate(run)["q"]
    worst = max(abs(float(ours_values[key][0]) - theirs[key]) for key in theirs)
    assert worst <= 1e-9, f"one-query values differ from pytrec_eval by {worst}"

    ours = timeit.Timer(lambda: evaluate_rankings([ranking], [qrel], MEASURES))
    peer = timeit.Timer(lambda: evaluator.evaluate(run))
    number = 200
    ours_best, peer_best = float("inf"), float("inf")
    for _ in range(7):
        ours_best = min(ours_best, ours.timeit(number) / number)
        peer_best = min(peer_best, peer.timeit(number) / number)
    print(f"one query, 100 documents, {len(theirs)} values (agree to {worst:.0e}):")
    print(f"  ours (evaluate_rankings)         {ours_best * 1e3:.3f} ms")
    print(f"  pytrec_eval (evaluate, built once) {peer_best * 1e3:.3f} ms")
    print(f"  ratio ours / pytrec_eval         {ours_best / peer_best:.2f}")


if __name__ == "__main__":
    main()
