"""Plain-language sentences about one change: ``Swapping ranks 2 and 3 (bagel and muffin) raises AP@4 (+0.111)``."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..measures.display import card_delta
from .scenario import SAME, Change, MetricSet


def format_delta(delta: float) -> str:
    """``+0.111``, ``-0.667``; changes too small for three decimals read ``+<0.001`` (the cards' rounding,
    :func:`metrics.measures.display.card_delta`)."""
    return card_delta(delta)


def join_words(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def _capitalised(text: str) -> str:
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first.islower() else text


def change_sentence(change: Change, deltas: Sequence[float], metrics: MetricSet, ranking: Sequence[str]) -> str:
    """``Swapping ranks 2 and 3 (bagel and muffin) raises AP@4 (+0.111) and nDCG@4 (+0.061). P@4, Recall@4, RR and
    Success@4 stay the same.``: each metric under its card's name."""
    return effect_sentence(change.describe(ranking), deltas, metrics)


def effect_sentence(subject: str, deltas: Sequence[float], metrics: MetricSet) -> str:
    """What ``subject`` does to each metric: the ones it raises, lowers, and leaves the same."""
    specs = metrics.specs
    raised = [f"{spec.name} ({format_delta(d)})" for spec, d in zip(specs, deltas) if d > SAME]
    lowered = [f"{spec.name} ({format_delta(d)})" for spec, d in zip(specs, deltas) if d < -SAME]
    same = [spec.name for spec, d in zip(specs, deltas) if abs(d) <= SAME or math.isnan(d)]
    effects = []
    if raised:
        effects.append(f"raises {join_words(raised)}")
    if lowered:
        effects.append(f"lowers {join_words(lowered)}")
    if not effects:
        return f"{subject} changes no metric."
    sentence = f"{subject} {' but '.join(effects)}."
    if same:
        verb = "stays" if len(same) == 1 else "stay"
        sentence += f" {_capitalised(join_words(same))} {verb} the same."
    return sentence
