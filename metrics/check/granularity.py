r"""Is a reported mean possible at all? A GRIM test for IR (after Brown and Heathers' GRIM for psychology).

A measure whose per-query values form a finite set V makes means of |Q| queries that are (1/|Q|) times a sum of
|Q| elements of V: not every number in [0, 1]. P@k takes the values j/k, so a mean of P@10 over 43 queries is a
multiple of 1/430; Success@k takes 0 and 1, so its mean is a multiple of 1/|Q|; RR@k takes 0 and 1/r for
r = 1..k. A reported value stands for an interval (0.4123 for [0.41225, 0.41235], ends included so that no
rounding rule is ruled out); if no achievable mean lies in it, the number cannot come from |Q| queries under
trec_eval's conventions, whatever the run. Measures with many possible per-query values (AP, nDCG, recall with
unknown R) are not decided: granularity says nothing there.

Needs no run and no qrels: the measure, the value as printed and the number of queries.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from ..model import InputError, short_repr
from ..names import Measure, parse_one_measure
from .reported import ReportedValue, parse_reported_value

MAX_QUERIES = 1_000_000
#: Largest dynamic programme tried for a non-lattice value set such as RR@k's: at most 20 million sums (80 MB) and
#: 100,000 blocks of the recurrence (one numpy step per value each), about a second, so the page answers at once.
#: MS MARCO's MRR@10 over its 6,980 dev queries needs 5.5 million sums in 21,800 blocks.
MAX_SUMS = 20_000_000
MAX_BLOCKS = 100_000
#: per_query_values lists at most this many values; the check itself never lists them (P@k is a lattice, RR@k
#: stops at its common denominator).
MAX_LISTED_VALUES = 10_000


@dataclass(frozen=True)
class Granularity:
    """The verdict for one reported mean.

    decided: whether the measure's per-query values are a finite set this test handles; possible: whether some
    mean of ``queries`` values lies in the reported interval (None when not decided); below, above: the nearest
    achievable means outside the interval when impossible; step: the spacing of achievable means when they form
    a lattice; explanation: one or two sentences saying why.
    """

    measure: str
    queries: int
    reported: ReportedValue
    decided: bool
    possible: bool | None
    explanation: str
    below: Fraction | None = None
    above: Fraction | None = None
    step: Fraction | None = None


def check_granularity(measure: str | Measure, value: str | float, queries: int) -> Granularity:
    """Whether ``value`` (as printed) can be the mean of ``measure`` over ``queries`` queries."""
    if isinstance(queries, bool) or not isinstance(queries, int) or not 1 <= queries <= MAX_QUERIES:
        got = (f"a number of {len(str(abs(queries))):,} digits" if isinstance(queries, int) and abs(queries) > 10**20
               else short_repr(queries))
        raise InputError(f"the number of queries has to be an integer from 1 to {MAX_QUERIES:,}, got {got}")
    parsed = parse_one_measure(measure)
    reported = parse_reported_value(value)
    verdict = _verdict(parsed, reported, queries)
    if reported.note:
        verdict = dataclasses.replace(verdict, explanation=f"{reported.note}. {verdict.explanation}")
    return verdict


def _verdict(parsed: Measure, reported: ReportedValue, queries: int) -> Granularity:
    low, high = _exact_interval(reported)
    name = parsed.ir_name if parsed.notation == "ir_measures" else parsed.trec_name
    k = parsed.cutoff
    if not (parsed.name in ("P", "recip_rank_cut") and k is not None) and parsed.name != "success":
        return Granularity(name, queries, reported, False, None,
                           f"{name} takes too many different values per query for granularity to rule anything out; "
                           "every mean in [0, 1] may be possible.")
    if high < 0 or low > 1:
        return Granularity(name, queries, reported, True, False, f"{name} lies in [0, 1]; {reported.text} does not.")
    # The value sets are described, never listed: P@10000000 is the lattice of step 1/10000000 in O(1).
    if parsed.name == "P":
        return _on_lattice(name, queries, reported, low, high, Fraction(1, k))
    if parsed.name == "success":
        return _on_lattice(name, queries, reported, low, high, Fraction(1))
    return _reciprocal_ranks(name, queries, reported, low, high, k)


def per_query_values(measure: Measure) -> list[Fraction] | None:
    """The values one query can take under trec_eval's conventions, or None when there are too many to list
    (another measure, or more than MAX_LISTED_VALUES values)."""
    k = measure.cutoff
    if k is not None and k + 1 > MAX_LISTED_VALUES:
        return None
    if measure.name == "P" and k is not None:
        return [Fraction(j, k) for j in range(k + 1)]
    if measure.name == "success":
        return [Fraction(0), Fraction(1)]
    if measure.name == "recip_rank_cut" and k is not None:
        return [Fraction(0)] + [Fraction(1, r) for r in range(1, k + 1)]
    return None


def _exact_interval(reported: ReportedValue) -> tuple[Fraction, Fraction]:
    text = reported.text[:-1].strip() if reported.text.endswith("%") else reported.text
    number = Fraction(Decimal(text))
    half = Fraction(1, 2) * Fraction(10) ** (-(reported.decimals - (2 if reported.percent else 0)))
    scale = 100 if reported.percent else 1
    return (number - half) / scale, (number + half) / scale


def _digits(reported: ReportedValue) -> int:
    """Decimals that show a mean next to the reported value: 6, or one more than the value has (as a fraction:
    ``decimals`` of 41.23% is 4)."""
    return max(6, reported.decimals + 1)


def _decimal(value: Fraction, digits: int) -> str:
    """``value`` (>= 0) rounded to ``digits`` decimals, exactly (no float in between)."""
    scaled = round(value * 10 ** digits)
    return f"{scaled // 10 ** digits}.{scaled % 10 ** digits:0{digits}d}"


def _nearest(below: Fraction | None, above: Fraction | None, reported: ReportedValue) -> str:
    """The nearest achievable means around the reported value, with as many decimals as it takes to tell them
    apart (they differ by at least one step of the achievable means, so 30 decimals always do)."""
    shown = [x for x in (below, above) if x is not None]
    digits = _digits(reported)
    while len(shown) == 2 and digits < 30 and _decimal(shown[0], digits) == _decimal(shown[1], digits):
        digits += 1
    return " and ".join(_decimal(x, digits) for x in shown)


def _on_lattice(name: str, queries: int, reported: ReportedValue, low: Fraction, high: Fraction,
                step: Fraction) -> Granularity:
    unit = step / queries  # means are multiples of unit from 0 to 1
    first = math.ceil(max(low, Fraction(0)) / unit)
    last = math.floor(min(high, Fraction(1)) / unit)
    spacing = f"a multiple of 1/{unit.denominator}" if unit.numerator == 1 else f"a multiple of {unit}"
    if first <= last:
        example = first * unit
        return Granularity(name, queries, reported, True, True,
                           f"A mean of {name} over {queries} queries is {spacing}; {example.numerator}/"
                           f"{example.denominator} = {_decimal(example, _digits(reported))} rounds to "
                           f"{reported.text}.", step=unit)
    below, above = last * unit, first * unit
    return Granularity(name, queries, reported, True, False,
                       f"A mean of {name} over {queries} queries is {spacing}; the nearest are "
                       f"{_nearest(below, above, reported)}, and neither rounds to {reported.text}.",
                       below=below if below >= 0 else None, above=above if above <= 1 else None, step=unit)


def _reciprocal_ranks(name: str, queries: int, reported: ReportedValue, low: Fraction, high: Fraction,
                      k: int) -> Granularity:
    """RR@k: each query scores 0 or 1/r for r = 1..k. The common denominator lcm(1..r) passes MAX_SUMS by r = 23
    (it at least doubles every few r), so at most that many steps decide whether the sums can be counted."""
    scale = 1
    for r in range(1, k + 1):  # the common denominator, given up on as soon as it is too large to work with
        scale = math.lcm(scale, r)
        if scale > MAX_SUMS:
            return Granularity(name, queries, reported, False, None,
                               f"Deciding {name} exactly would take too long here (its per-query values need a "
                               f"common denominator above {MAX_SUMS:,}, the limit of this check); not decided.")
    values = [Fraction(0)] + [Fraction(1, r) for r in range(1, k + 1)]
    return _by_sums(name, queries, reported, low, high, values, scale)


def _by_sums(name: str, queries: int, reported: ReportedValue, low: Fraction, high: Fraction,
             values: list[Fraction], scale: int) -> Granularity:
    """Whether ``queries`` values can sum into the interval: values scaled to integers by their common denominator
    ``scale`` ("coins", 0 always among them), then the fewest coins that make each sum, by the coin-change
    recurrence fewest[s] = 1 + min_c fewest[s - c]; a sum is reachable when it needs at most ``queries`` coins. The
    recurrence is evaluated a block of the smallest coin's length at a time, which only reads finished blocks."""
    whole_coins = sorted({int(v * scale) for v in values if v > 0})
    target_low = math.ceil(max(low, Fraction(0)) * queries * scale)
    target_high = math.floor(min(high, Fraction(1)) * queries * scale)
    top = min(queries * scale, max(target_high, target_low) + whole_coins[-1])  # room for the nearest mean above
    if top > MAX_SUMS or top // whole_coins[0] > MAX_BLOCKS:
        return Granularity(name, queries, reported, False, None,
                           f"Deciding {name} over {queries:,} queries exactly would take too long here (the "
                           f"per-query values have a common denominator of {scale:,}, so up to {top:,} sums; the "
                           f"limit of this check is {MAX_SUMS:,} sums in {MAX_BLOCKS:,} blocks); not decided.")
    coins = np.array(whole_coins, dtype=np.int64)
    unreachable = np.iinfo(np.int32).max // 2
    fewest = np.full(top + 1, unreachable, dtype=np.int32)
    fewest[0] = 0
    block = int(coins[0])
    for start in range(1, top + 1, block):
        stop = min(start + block, top + 1)
        best = fewest[start:stop]
        for coin in coins:
            first = max(start, int(coin))
            if first < stop:
                np.minimum(best[first - start:], fewest[first - coin:stop - coin] + 1, out=best[first - start:])
    reachable = fewest <= queries
    del fewest
    window = reachable[target_low:target_high + 1] if target_low <= target_high else reachable[:0]
    if window.any():
        mean = Fraction(int(window.argmax()) + target_low, queries * scale)
        return Granularity(name, queries, reported, True, True,
                           f"{queries} per-query {'value' if queries == 1 else 'values'} of {name} can have the mean "
                           f"{_decimal(mean, _digits(reported))}, which "
                           f"rounds to {reported.text}.")
    # The reachable sums nearest the window on either side, found without listing every reachable sum.
    before, after = reachable[:max(target_low, 0)], reachable[target_high + 1:]
    below = (Fraction(int(before.shape[0] - 1 - before[::-1].argmax()), queries * scale) if before.any() else None)
    above = Fraction(int(target_high + 1 + after.argmax()), queries * scale) if after.any() else None
    return Granularity(name, queries, reported, True, False,
                       f"No {queries} per-query values of {name} (each 0 or 1/r, r <= {len(coins)}) have a mean "
                       f"that rounds to {reported.text}; the nearest achievable means are "
                       f"{_nearest(below, above, reported)}.",
                       below=below, above=above)
