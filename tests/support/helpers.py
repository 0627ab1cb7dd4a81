"""Comparison helpers for results in pytrec_eval's shape, ``{qid: {key: value}}``."""

from __future__ import annotations

from collections.abc import Mapping

#: Values must agree to this absolute difference; in practice they are bit-identical (see test_differential).
TOLERANCE = 1e-12


def max_difference(
    ours: Mapping[str, Mapping[str, float]], reference: Mapping[str, Mapping[str, float]]
) -> float:
    """The largest absolute difference over every query and key; asserts that both hold the same queries and keys."""
    assert set(ours) == set(reference), (
        f"queries differ: only ours {sorted(set(ours) - set(reference))[:5]}, "
        f"only reference {sorted(set(reference) - set(ours))[:5]}"
    )
    worst = 0.0
    for qid, values in reference.items():
        assert set(ours[qid]) == set(values), f"query {qid!r}: keys differ {set(ours[qid]) ^ set(values)}"
        for key, expected in values.items():
            worst = max(worst, abs(ours[qid][key] - expected))
    return worst


def first_mismatch(
    ours: Mapping[str, Mapping[str, float]], reference: Mapping[str, Mapping[str, float]], tolerance: float
) -> str:
    """A readable description of the first value that differs by more than ``tolerance``."""
    for qid, values in reference.items():
        for key, expected in values.items():
            if abs(ours[qid][key] - expected) > tolerance:
                return f"query {qid!r} {key}: ours {ours[qid][key]!r}, reference {expected!r}"
    return "none"
