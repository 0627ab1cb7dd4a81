"""What-if analysis of one query: how six metrics respond to the cut-off k, to swapping, moving or removing items,
and how far reordering alone could move them.

Every question is answered the same way ("One kernel, many rankings"): the changed rankings become the rows of a
:class:`~metrics.model.RankingBatch` built with :meth:`RankingBatch.reordered` from the query's own row, scored by
:func:`~metrics.evaluate.evaluate_batch` in chunks of bounded size. Row 0 of each batch is the unchanged ranking,
so every delta is ``after - current`` from the same kernel.

>>> query = Scenario(["donut", "bagel", "muffin", "croissant"], {"donut": 1, "muffin": 1, "scone": 1}, k=4)
>>> swaps = swap_deltas(query)
>>> round(float(swaps.of("AP@4")[1, 2]), 3)  # ranks 2 and 3 swap
0.111
>>> sentence = change_sentence(Change("swap", 1, 2), swaps.deltas[:, 1, 2], query.metrics, query.ranking)
>>> print(sentence.replace(". ", ".\\n"))
Swapping ranks 2 and 3 (bagel and muffin) raises AP@4 (+0.111) and nDCG@4 (+0.061).
P@4, Recall@4, RR and Success@4 stay the same.

Items are addressed by their 0-based position in the current ranking (``index``); sentences and charts speak of
1-based ranks. Work is bounded for any list the explorer accepts: swaps are scored for the top ``SWAP_WINDOW``
ranks, every batch is cut into chunks of at most ``CHUNK_CELLS`` ranks, and :class:`ChartData` computes each
analysis only when it is first read.

Contents:

- :mod:`.scenario`: the six metrics (:class:`MetricSet`), one query (:class:`Scenario`), edits (:class:`Change`)
- :mod:`.curves`: 1. every metric at every cut-off k
- :mod:`.swaps`: 2. swapping two ranks, and the preview of one move
- :mod:`.removals`: 3. removing one item
- :mod:`.ranges`: 4. the range under reordering and a random order; 5. a pinned baseline
- :mod:`.sentences` and :mod:`.callouts`: the plain-language sentences, and :class:`ChartData`
- :mod:`.attribution`: 6. one query's difference between two rankings, split exactly over its document edits
- :mod:`.disagree`: 7. the smallest edit after which two metrics (or conventions) disagree on which list is better
"""

from .attribution import SHAPLEY_UP_TO, Contribution, DeltaAttribution, attribute_delta
from .callouts import ChartData, callouts, chart_data, curve_callouts, range_callouts
from .curves import Curves, metric_curves
from .disagree import Disagreement, Judge, LabEdit, find_disagreement, verdict_words
from .ranges import (
    EXACT_ORDERINGS_UP_TO,
    BaselineComparison,
    ValueRange,
    compare_to_baseline,
    value_range,
)
from .removals import RemovalDeltas, removal_deltas
from .scenario import CHUNK_CELLS, SAME, Change, ChangeKind, MetricSet, MetricSpec, Scenario, current_values
from .sentences import change_sentence, effect_sentence, format_delta, join_words
from .swaps import SWAP_WINDOW, MovePreview, SwapDeltas, move_preview, preview, swap_deltas

__all__ = [
    "BaselineComparison", "CHUNK_CELLS", "Change", "ChangeKind", "ChartData", "Contribution", "Curves",
    "DeltaAttribution", "Disagreement", "EXACT_ORDERINGS_UP_TO", "Judge", "LabEdit", "MetricSet", "MetricSpec",
    "MovePreview", "RemovalDeltas", "SAME", "SHAPLEY_UP_TO", "SWAP_WINDOW", "Scenario", "SwapDeltas", "ValueRange",
    "attribute_delta", "callouts", "change_sentence", "chart_data", "compare_to_baseline", "current_values",
    "curve_callouts", "effect_sentence", "find_disagreement", "format_delta", "join_words", "metric_curves",
    "move_preview", "preview", "range_callouts", "removal_deltas", "swap_deltas", "value_range", "verdict_words",
]
