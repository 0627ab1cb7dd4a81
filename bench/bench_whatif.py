"""Time and peak memory of all what-if chart data for one list (target for 100 items: at most 20 ms), against
pytrec_eval.

"All chart data" is everything :func:`metrics.whatif.chart_data` computes, as the page's callouts read it: the six
metrics at every k, the swaps of the top ``--window`` ranks (40, as the app draws them; 780 swaps x 6 metrics),
every removal and the value range (1,000 seeded random orders). The peer, measured in the same run, evaluates the
same swapped rankings one at a time through pytrec_eval, as a chart that loops over it would; its values are
checked against ours before any time is reported. Peak memory is traced (tracemalloc) around one computation.

    python bench/bench_whatif.py [--items 100] [--k 10] [--window 40] [--repeats 200] [--peer-repeats 5]
    python bench/bench_whatif.py --items 1000 --repeats 10 --peer-repeats 1
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.whatif import (  # noqa: E402
    SWAP_WINDOW,
    Scenario,
    callouts,
    chart_data,
    metric_curves,
    removal_deltas,
    swap_deltas,
    value_range,
)

SEED = 20240611
BUDGET_MS = 20.0


def make_query(items: int, k: int, seed: int = SEED) -> Scenario:
    """A random list: half of its documents judged (grades 0-3, some relevant) plus 10 relevant ones never retrieved."""
    rng = np.random.default_rng(seed)
    ranking = [f"doc{i:04d}" for i in range(items)]
    judged = rng.choice(items, size=items // 2, replace=False)
    judgments = {ranking[i]: int(rng.choice([0, 0, 1, 2, 3])) for i in judged}
    judgments.update({f"missed{i}": int(rng.integers(1, 4)) for i in range(10)})
    return Scenario(ranking, judgments, k=k)


def median_ms(function, repeats: int) -> tuple[float, float]:
    """(median, fastest) wall time of ``function()`` in milliseconds, after one warm-up call."""
    function()
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings) * 1e3, min(timings) * 1e3


def pytrec_eval_swaps(query: Scenario, window: int) -> np.ndarray:
    """Every swap of the top ``window`` ranks evaluated one ranking at a time through pytrec_eval: (pairs, 6)."""
    import pytrec_eval

    k = query.k
    evaluator = pytrec_eval.RelevanceEvaluator({"q": dict(query.judgments)}, set(query.metrics.measures))
    keys = [measure.replace(".", "_") for measure in query.metrics.measures]
    ranking = list(query.ranking)
    n = len(ranking)
    scores = [float(n - rank) for rank in range(n)]  # distinct, descending: no tie-breaking involved
    rows = []
    for i, j in zip(*np.triu_indices(min(n, window), 1)):
        swapped = ranking.copy()
        swapped[i], swapped[j] = swapped[j], swapped[i]
        values = evaluator.evaluate({"q": dict(zip(swapped, scores))})["q"]
        rows.append([values[key] for key in keys])
    assert k == query.metrics.k
    return np.array(rows)


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--window", type=int, default=SWAP_WINDOW)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--peer-repeats", type=int, default=5)
    args = parser.parse_args(argv)

    query = make_query(args.items, args.k)
    window = min(args.items, args.window)
    pairs = window * (window - 1) // 2

    # Same numbers first: pytrec_eval's swapped rankings against our deltas.
    swaps = swap_deltas(query, window)
    rows, cols = np.triu_indices(window, 1)
    ours = swaps.current + swaps.deltas[:, rows, cols].T
    reference = pytrec_eval_swaps(query, window)
    worst = float(np.abs(ours - reference).max()) if pairs else 0.0
    assert worst < 1e-12, f"what-if swaps disagree with pytrec_eval by {worst}"

    results: dict[str, float] = {}
    parts = {
        "metric_curves": lambda: metric_curves(query),
        "swap_deltas": lambda: swap_deltas(query, window),
        "removal_deltas": lambda: removal_deltas(query),
        "value_range": lambda: value_range(query),
    }
    print(f"What-if chart data, {args.items} items, k={args.k}, {pairs:,} swaps (top {window}) x 6 metrics "
          f"(median of {args.repeats}, fastest in brackets)")
    for name, function in parts.items():
        median, fastest = median_ms(function, args.repeats)
        results[name] = median
        print(f"  {name:<16} {median:8.2f} ms  ({fastest:.2f})")
    def everything() -> None:
        callouts(chart_data(query, swap_window=window))  # the callouts read every analysis

    total, total_fastest = median_ms(everything, args.repeats)
    results["chart_data"] = total
    print(f"  {'all chart data':<16} {total:8.2f} ms  ({total_fastest:.2f})   budget {BUDGET_MS:.0f} ms"
          + (f" (for 100 items): {'within' if total <= BUDGET_MS else 'OVER'}" if args.items <= 100 else ""))
    tracemalloc.start()
    everything()
    results["peak_mb"] = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    print(f"  {'peak memory':<16} {results['peak_mb']:8.1f} MB (traced, one computation of all chart data)")

    peer, peer_fastest = median_ms(lambda: pytrec_eval_swaps(query, window), args.peer_repeats)
    results["pytrec_eval_swaps"] = peer
    print(f"  pytrec_eval, the {pairs:,} swaps one at a time: {peer:8.2f} ms  ({peer_fastest:.2f}), "
          f"same values (max difference {worst:.1e})")
    results["ratio"] = peer / total
    print(f"  ratio: all what-if chart data is {peer / total:.1f}x faster than the swaps alone through pytrec_eval")
    return results


if __name__ == "__main__":
    main()
