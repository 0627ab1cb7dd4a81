"""The page's plain-language callouts, derived from the chart data."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .curves import Curves, metric_curves
from .ranges import BaselineComparison, ValueRange, value_range
from .removals import RemovalDeltas, removal_deltas
from .scenario import SAME, Scenario, current_values
from .sentences import change_sentence, effect_sentence, join_words
from .swaps import SWAP_WINDOW, SwapDeltas, swap_deltas

# ---- everything the page draws, each part when it is first read -------------------------------------------------


class ChartData:
    """All what-if chart data for one query. Each analysis is computed when it is first read and then kept, so a
    page that draws one tab pays for that tab (and for what its callouts read) only. Moves and the baseline are
    computed on demand by :func:`~.swaps.preview` and :func:`~.ranges.compare_to_baseline`."""

    def __init__(self, query: Scenario, *, samples: int = 1000, seed: int = 0, swap_window: int | None = SWAP_WINDOW):
        self.query = query
        self.samples = samples
        self.seed = seed
        self.swap_window = swap_window

    @cached_property
    def current(self) -> np.ndarray:
        return current_values(self.query)

    @cached_property
    def curves(self) -> Curves:
        return metric_curves(self.query)

    @cached_property
    def swaps(self) -> SwapDeltas:
        return swap_deltas(self.query, self.swap_window)

    @cached_property
    def removals(self) -> RemovalDeltas:
        return removal_deltas(self.query)

    @cached_property
    def ranges(self) -> ValueRange:
        return value_range(self.query, samples=self.samples, seed=self.seed)

    def computed(self) -> tuple[str, ...]:
        """The analyses computed so far, in the order above."""
        return tuple(name for name in ("current", "curves", "swaps", "removals", "ranges") if name in self.__dict__)


def chart_data(query: Scenario, *, samples: int = 1000, seed: int = 0,
               swap_window: int | None = SWAP_WINDOW) -> ChartData:
    """Curves over k, the swaps among the top ``swap_window`` ranks, every removal and the value range, each
    computed when first read."""
    return ChartData(query, samples=samples, seed=seed, swap_window=swap_window)


def curve_callouts(curves: Curves) -> list[str]:
    """What the k chart shows: P@k falling as non-relevant documents enter, recall only rising, RR flat after
    the first hit."""
    ks, k = curves.ks, curves.current_k
    at_k = int(np.searchsorted(ks, k))
    sentences = []
    precision = curves.of("P")
    falls = ks[1:][np.diff(precision) < -SAME]
    if falls.size:
        shown = [str(int(c)) for c in falls[:4]]
        where = join_words(shown) if falls.size <= 4 else f"{', '.join(shown)} and {falls.size - 4} more"
        sentences.append(
            f"P@k falls whenever the top k grows without a relevant document (at k={where}): it is "
            f"{precision[0]:.3f} at k=1 and {precision[at_k]:.3f} at k={k}."
        )
    recall = curves.of("Recall")
    if recall[-1] <= SAME:
        sentences.append("Recall@k is 0 at every k: no relevant document is retrieved.")
    else:
        points = {1: recall[0], k: recall[at_k], int(ks[-1]): recall[-1]}
        sentences.append("Recall@k never falls (it is flat where no relevant document enters): "
                         + ", ".join(f"{v:.3f} at k={c}" for c, v in points.items()) + ".")
    rr = curves.of("RR")
    hits = np.flatnonzero(rr > SAME)
    if hits.size:
        first = int(ks[hits[0]])
        before = "" if first == 1 else f"is 0 until rank {first}, then "
        sentences.append(
            f"RR@k {before}stays at {rr[hits[0]]:.3f} from the first relevant document (rank {first}) on: "
            f"later documents cannot change it."
        )
    else:
        sentences.append("RR@k is 0 at every k: no relevant document is retrieved.")
    return sentences


def range_callouts(ranges: ValueRange) -> list[str]:
    """Which metrics reordering could still improve, and how this order compares with a random one."""
    labels = ranges.metrics.labels
    at_best = [label for label, now, top in zip(labels, ranges.current, ranges.maximum) if now >= top - SAME]
    could_rise = [f"{label} to {top:.3f}" for label, now, top in zip(labels, ranges.current, ranges.maximum)
                  if now < top - SAME]
    sentences = []
    if could_rise:
        sentence = f"A better order of the same documents could lift {join_words(could_rise)}."
        if at_best:
            sentence += f" {join_words(at_best)} {'is' if len(at_best) == 1 else 'are'} already at the best."
        sentences.append(sentence)
    else:
        sentences.append("No reordering of these documents can raise any metric: this order is already the best.")
    tolerance = np.maximum(2 * ranges.standard_error, SAME)
    above = [label for label, now, mean, tol in zip(labels, ranges.current, ranges.expected, tolerance)
             if now > mean + tol]
    below = [label for label, now, mean, tol in zip(labels, ranges.current, ranges.expected, tolerance)
             if now < mean - tol]
    parts = []
    if above:
        parts.append(f"better than a random order on {join_words(above)}")
    if below:
        parts.append(f"worse on {join_words(below)}" if above else f"worse than a random order on {join_words(below)}")
    if parts:
        sentences.append(f"This ranking is {' and '.join(parts)} ({ranges.describe_method()}).")
    else:
        sentences.append(f"This ranking scores about what a random order would ({ranges.describe_method()}).")
    return sentences


def callouts(data: ChartData, baseline: BaselineComparison | None = None, best_by: str | None = None) -> list[str]:
    """Plain-language sentences derived from the chart data: the k curves, the swap that raises ``best_by`` most
    (default the primary metric, nDCG@k; the sentence names it), the removals that help and hurt most, the range
    against a random order, and the change since the baseline."""
    query = data.query
    sentences = curve_callouts(data.curves)
    by = query.metrics.specs[query.metrics.index(best_by if best_by is not None else query.metrics.primary.family)]
    best_swap = data.swaps.best(by.family)
    window = f" in the top {data.swaps.window}" if data.swaps.windowed else ""
    if best_swap is not None:
        change, deltas = best_swap
        lead = f"Best single swap{window} for {by.label}: "
        sentences.append(lead + _lowered(change_sentence(change, deltas, query.metrics, query.ranking)))
    elif query.size > 1:
        among = f"within the top {data.swaps.window} ranks " if data.swaps.windowed else "of two ranks "
        sentences.append(f"No single swap {among}raises {by.label}.")
    for direction in ("raises", "lowers"):
        removal = data.removals.extreme(direction)  # type: ignore[arg-type]
        if removal is not None:
            change, deltas = removal
            lead = f"Removing one item {'helps' if direction == 'raises' else 'hurts'} most here: "
            sentences.append(lead + _lowered(change_sentence(change, deltas, query.metrics, query.ranking)))
    sentences.extend(range_callouts(data.ranges))
    if baseline is not None:
        sentences.append(effect_sentence("Compared with the pinned baseline, the current ranking", baseline.deltas,
                                         baseline.metrics))
    return sentences


def _lowered(sentence: str) -> str:
    return sentence[:1].lower() + sentence[1:]
