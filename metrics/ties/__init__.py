"""Tie intervals: what the order of equally scored documents can do to every measure.

trec_eval breaks ties by doc id, an order no system chose. For each query and for the mean, this package gives
the lowest and highest value over all orders of the tied documents (exact) and the expected value under a
uniformly random order of each tie group (exact: in closed form after McSherry & Najork, ECIR 2008, or by scoring
every order when there are few; otherwise not available, never sampled).

Modules:
    groups      a query's ranking as labels and tie groups; its distinct orders; the batch the engine scores
    expected    the closed forms of the expected values (P, recall, F, Success, R-precision, RR, AP, nDCG, RBP...)
    intervals   :func:`tie_intervals` for a run, :func:`ranking_intervals` for one list, :class:`TieTable`
"""

from .expected import CLOSED_FORM, expected_value
from .groups import ABSENT, POOLED, OrderCount, TiedQuery, multiset_permutations
from .intervals import (
    MAX_ORDERS,
    SORTED_EXTREMES,
    TieInterval,
    TieTable,
    query_intervals,
    ranking_intervals,
    tie_intervals,
    tie_table,
    tied_queries,
)

__all__ = ["ABSENT", "CLOSED_FORM", "MAX_ORDERS", "OrderCount", "POOLED", "SORTED_EXTREMES", "TieInterval", "TieTable",
           "TiedQuery", "expected_value", "multiset_permutations", "query_intervals", "ranking_intervals",
           "tie_intervals", "tie_table", "tied_queries"]
