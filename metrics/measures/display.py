"""How a measure and its value are shown to people: one name per measure and one rounding per place, read by the
pages, ``--help``, the sentences of the analyses and the README's tables alike.

A measure has three names. ``one_query`` labels its value on one query (a card, a chart): ``RR``, ``AP@4``.
``mean`` labels its mean over queries (a run's summary line): ``MRR``, ``MAP@4``. trec_eval's name (``recip_rank``,
``map_cut_4``) is what results are keyed by and what ``-m`` takes. ``{k}`` stands for the cut-off.

>>> name_of("recip_rank"), name_of("recip_rank", mean=True), name_of("map_cut", 4), name_of("map_cut", 4, mean=True)
('RR', 'MRR', 'AP@4', 'MAP@4')
>>> card(0.5555555), table(0.5555555), card_delta(0.0003), card_delta(-0.111111)
('0.556', '0.5556', '+<0.001', '-0.111')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Decimals of a value on a card, in a sentence or on a chart (a person reads it), and in a table or a command
#: line's output (trec_eval prints four).
CARD_DECIMALS = 3
TABLE_DECIMALS = 4
#: The same for Streamlit's NumberColumn and plotly's hover templates.
TABLE_FORMAT = f"%.{TABLE_DECIMALS}f"
TABLE_DELTA_FORMAT = f"%+.{TABLE_DECIMALS}f"
CARD_FORMAT = f"%.{CARD_DECIMALS}f"
CARD_DELTA_FORMAT = f"%+.{CARD_DECIMALS}f"


@dataclass(frozen=True, slots=True)
class MeasureName:
    """The names of one registered measure (``{k}``: its cut-off): on one query, as a mean over queries, in words."""

    one_query: str
    mean: str
    words: str


#: The measures the pages name, by registry name. Every page, ``--help`` and the README use these names.
NAMES: dict[str, MeasureName] = {
    "P": MeasureName("P@{k}", "P@{k}", "precision at {k}"),
    "recall": MeasureName("Recall@{k}", "Recall@{k}", "recall at {k}"),
    "success": MeasureName("Success@{k}", "Success@{k}", "success at {k}"),
    "recip_rank": MeasureName("RR", "MRR", "reciprocal rank"),
    "recip_rank_cut": MeasureName("RR@{k}", "MRR@{k}", "reciprocal rank cut at {k}"),
    "map": MeasureName("AP", "MAP", "average precision"),
    "map_cut": MeasureName("AP@{k}", "MAP@{k}", "average precision cut at {k}"),
    "ndcg": MeasureName("nDCG", "nDCG", "normalised discounted cumulative gain"),
    "ndcg_cut": MeasureName("nDCG@{k}", "nDCG@{k}", "nDCG cut at {k}"),
    "ERR": MeasureName("ERR@{k}", "ERR@{k}", "expected reciprocal rank cut at {k}"),
    "Judged": MeasureName("Judged@{k}", "Judged@{k}", "share of the top {k} with any qrels line"),
}

#: A judgment hole's own share of judged documents (metrics.holes): only grades >= 0 count, unlike the measure
#: Judged@k, where any qrels line counts (negative grades too).
HOLE_JUDGED = MeasureName("Judged≥0@{k}", "Judged≥0@{k}", "share of the top {k} with a grade ≥ 0")


def name_of(measure: str, k: int | str | None = None, *, mean: bool = False) -> str:
    """The name of registered measure ``measure`` at cut-off ``k`` (``"k"`` gives the generic ``AP@k``), on one
    query or (``mean``) as a mean over queries."""
    names = NAMES.get(measure)
    if names is None:
        raise KeyError(f"no display name for measure {measure!r}; named: {', '.join(NAMES)}")
    pattern = names.mean if mean else names.one_query
    if "{k}" in pattern and k is None:
        raise ValueError(f"measure {measure!r} is named with its cut-off ({pattern}); give k")
    return pattern.format(k=k)


def naming_lines() -> list[str]:
    """One line per named measure, trec_eval's name first: ``recip_rank: RR on one query, MRR as the mean``."""
    lines = []
    for measure, names in NAMES.items():
        k = "k"
        mean = "" if names.mean == names.one_query else f", {names.mean.format(k=k)} as the mean over queries"
        lines.append(f"{measure}: {names.one_query.format(k=k)} ({names.words.format(k=k)}){mean}")
    hole = HOLE_JUDGED
    lines.append(f"a judgment hole's {hole.one_query.format(k='k')} (--bounds, the pages): the "
                 f"{hole.words.format(k='k')}, not the measure Judged@k")
    return lines


# ---- one rounding per place -------------------------------------------------------------------------------------


def card(value: float | None) -> str:
    """A value on a card, in a sentence or a chart label: three decimals (``0.556``); a rate too (a fraction,
    never a percentage)."""
    return "–" if value is None or math.isnan(value) else f"{value:.{CARD_DECIMALS}f}"


def card_delta(delta: float) -> str:
    """A change on a card or in a sentence: ``+0.111``, ``-0.667``; changes too small for three decimals read
    ``+<0.001`` and ``-<0.001``, and none at all ``±0.000``."""
    if delta == 0:
        return "±" + f"{0:.{CARD_DECIMALS}f}"
    if abs(delta) < 0.5 * 10 ** -CARD_DECIMALS:
        return f"{'+' if delta > 0 else '-'}<{10 ** -CARD_DECIMALS:.{CARD_DECIMALS}f}"
    return f"{delta:+.{CARD_DECIMALS}f}"


def table(value: float) -> str:
    """A value in a table or a command line's output: four decimals, as trec_eval prints (``0.5556``)."""
    return f"{value:.{TABLE_DECIMALS}f}"


#: Why a ratio over a spread (TRisk, the effect size d_z) reads ``∞`` or ``-∞``: said beside every table that shows one.
UNBOUNDED_NOTE = ("∞ or -∞: every query's difference is the same, so there is no spread to divide by (the mean "
                  "difference is not 0, and the ratio is unbounded)")


def statistic(value: float) -> str:
    """A ratio over a spread (TRisk, an effect size) in a table or a download: four decimals (``-2.0312``); ``∞``
    or ``-∞`` where the spread is 0 and the mean is not (:data:`UNBOUNDED_NOTE`); ``n/a`` where it is undefined.

    >>> statistic(2.03125), statistic(float("inf")), statistic(float("-inf")), statistic(float("nan"))
    ('2.0312', '∞', '-∞', 'n/a')
    """
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return table(value)


def mean_names(keys) -> dict[str, str]:
    """The mean name of each result key that names a measure of :data:`NAMES` under another name: ``recip_rank``
    -> ``MRR``, ``map_cut_10`` -> ``MAP@10``, ``RR@10`` -> ``MRR@10`` (keys read as ``-m`` reads them)."""
    from ..names import parse_one_measure  # the names module reads the registry this layer also holds

    named = {}
    for key in keys:
        try:
            measure = parse_one_measure(key)
        except ValueError:
            continue
        if measure.name not in NAMES or measure.relevance_level is not None or measure.gain_map or measure.gain:
            continue
        cutoff = measure.cutoff if measure.cutoff is None else f"{measure.cutoff:g}"
        if "{k}" in NAMES[measure.name].mean and cutoff is None:
            continue
        name = name_of(measure.name, cutoff, mean=True)
        if name != key:
            named[key] = name
    return named
