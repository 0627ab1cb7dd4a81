"""Comparing runs: two runs query by query, many runs with corrected tests, intervals, risk and a report table.

- :mod:`.pairs`: ``compare_runs`` / ``compare_values`` (two runs: deltas, wins/ties/losses, paired t-test and a
  seeded randomisation test).
"""

from .pairs import (
    Comparison,
    QueryDelta,
    RandomisationTest,
    TIE_TOLERANCE,
    TTest,
    compare_runs,
    compare_values,
    paired_t_test,
    randomisation_test,
    regularized_incomplete_beta,
    student_t_two_sided_p,
)

__all__ = ["Comparison", "QueryDelta", "RandomisationTest", "TIE_TOLERANCE", "TTest", "compare_runs",
           "compare_values", "paired_t_test", "randomisation_test", "regularized_incomplete_beta",
           "student_t_two_sided_p"]
