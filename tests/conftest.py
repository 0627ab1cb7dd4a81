"""Shared fixtures: the seed's worked examples as qrels and runs; and the order the suite's tests are queued in."""

from __future__ import annotations

from pathlib import Path

import pytest

BROWSER_TESTS = Path(__file__).parent / "browser"


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


def pytest_collection_modifyitems(config, items) -> None:
    """Queue the suite's long chains first, one chain at the head of each pytest-xdist worker's queue.

    ``make test`` runs four workers with ``--dist worksteal``: each worker is first given one contiguous share of the
    collection (the first quarter, the second...), runs its share from the head, and a worker that runs dry takes
    half of the tail of the longest queue. Tests that run in a chain of their own — the browser tests, which wait on
    a Streamlit server and Chromium (one of each per worker), and the slow ones (a numba compile, a notebook, pip
    installs) — did not overlap with the rest where the collection order put them: the browser tests sat behind 284
    AppTest tests in the second share and ran to the end of the run alone. Here the browser tests, in two halves
    (by file: two servers, two Chromiums), and the slow tests each lead a share, and the rest fills the shares in
    collection order, so the short tests are what the other workers take from the tails. Every test still runs
    exactly once; only the order changes (and without pytest-xdist, the chains simply run first)."""
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    browser = [item for item in items if BROWSER_TESTS in item.path.parents]
    files = list(dict.fromkeys(item.path for item in browser))
    chains = [
        [item for item in browser if files.index(item.path) % 2 == 0],
        [item for item in browser if files.index(item.path) % 2 == 1],
        [item for item in items if item.get_closest_marker("slow") and BROWSER_TESTS not in item.path.parents],
    ]
    leading = {id(item) for chain in chains for item in chain}
    rest = iter([item for item in items if id(item) not in leading])
    heads: list[list] = [[] for _ in range(workers)]
    for index, chain in enumerate(chain for chain in chains if chain):
        heads[index % workers].extend(chain)
    ordered, pending = [], len(items)
    for worker, head in enumerate(heads):
        share = pending // (workers - worker)  # the share xdist's worksteal scheduler sends this worker first
        pending -= share
        ordered.extend(head)
        ordered.extend(item for _, item in zip(range(share - len(head)), rest))
    ordered.extend(rest)
    items[:] = ordered
