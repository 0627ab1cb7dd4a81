"""A reported score as written in a paper, and the interval of true values it stands for.

A value is only as precise as its digits: ``0.412`` is any score in [0.4115, 0.4125) and ``0.41`` any score in
[0.405, 0.415). Percentages are read too: ``41.2%``, or ``41.2`` for a measure whose values lie in [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ..model import InputError

#: A double holds 15 to 17 significant digits; no paper reports more decimals than that.
MAX_DECIMALS = 15
#: Counts (num_rel_ret summed over queries) stay far below 10^15.
MAX_INTEGER_DIGITS = 15


@dataclass(frozen=True, slots=True)
class ReportedValue:
    """A reported value and the half-open interval [low, high) of scores that round to it.

    text: the value as given; value: it as a score (a fraction when it was a percentage); low, high: the bounds,
    ``value ± half a unit in the last digit given``; percent: the text was read as a percentage; note: a sentence
    saying how the text was read, when that was not literal.
    """

    text: str
    value: float
    low: float
    high: float
    decimals: int
    percent: bool = False
    note: str | None = None

    def contains(self, score: float) -> bool:
        """Whether ``score`` rounds to the reported digits: low <= score < high."""
        return self.low <= score < self.high

    def shows(self, value: float, decimals: int | None = None) -> bool:
        """Whether a tool whose mean is ``value`` and which gives ``decimals`` decimals (None: every digit of a
        double) could have given this reported value: it is ``value`` rounded to the tool's digits, then perhaps to
        fewer. A value with more decimals than the tool gives is not its own (0.505831 is no 5-decimal value)."""
        if decimals is None:
            return self.contains(value)
        if self.decimals > decimals:
            return False
        printed = float(f"{value:.{decimals}f}")
        return f"{printed:.{self.decimals}f}" == f"{self.value:.{self.decimals}f}"

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def parse_reported_value(value: str | float | int, *, bounded: bool = True) -> ReportedValue:
    """Read a reported score; ``bounded`` says the measure's values lie in [0, 1] (not a count).

    ``"0.412"`` covers [0.4115, 0.4125). A float is read through its shortest repr (0.41 as ``"0.41"``), so pass
    text when trailing zeros matter (``"0.410"``). For a bounded measure, ``"41.2%"`` and ``"41.2"`` (a value above
    1) are read as the percentage 0.412 in [0.4115, 0.4125).
    """
    if isinstance(value, bool):
        raise InputError(f"reported value has to be a number such as 0.412, got {value!r}")
    text = repr(value) if isinstance(value, float) else str(value)
    text = text.strip()
    percent = text.endswith("%")
    digits = text[:-1].strip() if percent else text
    try:
        number = Decimal(digits)
    except InvalidOperation:
        raise InputError(f"reported value {text!r} is not a number; write it as printed, e.g. 0.412 or 41.2%") from None
    if not number.is_finite():
        raise InputError(f"reported value {text!r} has to be a finite number, e.g. 0.412")
    if number < 0:
        raise InputError(f"reported value {text!r} is negative; retrieval scores are >= 0")
    shown = text if len(text) <= 40 else text[:37] + "..."
    if -int(number.as_tuple().exponent) > MAX_DECIMALS:
        raise InputError(f"reported value {shown!r} has more than {MAX_DECIMALS} decimals, more than a double holds; "
                         "give the value as printed, e.g. 0.412")
    if number.adjusted() >= MAX_INTEGER_DIGITS:
        raise InputError(f"reported value {shown!r} is larger than any score or count (at most "
                         f"{MAX_INTEGER_DIGITS} digits before the point)")
    note = None
    if bounded and not percent and number > 1:
        if number > 100:
            raise InputError(
                f"reported value {text!r} is above 1 and also above 100, so it is neither a score in [0, 1] nor a "
                "percentage; check the measure"
            )
        percent = True
        note = f"{text} is above 1, so it is read as a percentage: {number / 100}"
    if percent and not bounded:
        raise InputError(f"reported value {text!r} is a percentage, but the measure is a count; give the count")
    if percent and number > 100:
        raise InputError(f"reported value {text!r} is a percentage above 100%")
    exponent = int(number.as_tuple().exponent)
    half_unit = Decimal(5).scaleb(exponent - 1)
    scale = Decimal(100) if percent else Decimal(1)
    return ReportedValue(
        text=text,
        value=float(number / scale),
        low=float((number - half_unit) / scale),
        high=float((number + half_unit) / scale),
        decimals=max(0, -exponent) + (2 if percent else 0),
        percent=percent,
        note=note,
    )
