"""Shared fixtures: the seed's worked examples as qrels and runs."""

from __future__ import annotations

import pytest


@pytest.fixture
def pastry_qrels() -> dict[str, dict[str, int]]:
    """'sweet pastry': three relevant documents (binary)."""
    return {"sweet pastry": {"donut": 1, "muffin": 1, "scone": 1}}


@pytest.fixture
def pastry_run() -> dict[str, dict[str, float]]:
    return {"sweet pastry": {"donut": 0.95, "bagel": 0.9, "muffin": 0.8, "croissant": 0.7}}


@pytest.fixture
def jam_qrels() -> dict[str, dict[str, int]]:
    """'goes well with jam': bagel, croissant and roll are grade 2; scone, muffin and donut grade 1."""
    return {"jam": {"bagel": 2, "croissant": 2, "roll": 2, "scone": 1, "muffin": 1, "donut": 1}}


@pytest.fixture
def jam_run() -> dict[str, dict[str, float]]:
    """pretzel is unjudged; bagel, muffin and donut are judged."""
    return {"jam": {"pretzel": 0.9, "bagel": 0.85, "muffin": 0.7, "donut": 0.6}}
