"""Comparing runs: two runs query by query, many runs with corrected tests, intervals, risk and a report table.

- :mod:`.pairs`: ``compare_runs`` / ``compare_values`` (two runs: deltas, wins/ties/losses, paired t-test and a
  seeded randomisation test).
- :mod:`.many`: ``compare_many`` (any number of runs and measures: t, randomisation, Wilcoxon or Tukey HSD,
  Holm / Benjamini-Hochberg / Bonferroni, effect sizes, bootstrap intervals of means and differences).
- :mod:`.intervals`: bootstrap intervals (percentile, BCa) of a mean over queries.
- :mod:`.risk`: wins/ties/losses with their magnitudes, URisk and TRisk against a baseline.
- :mod:`.multiverse`: ``multiverse`` (every pairwise conclusion under every plausible convention for a measure, and
  how stable the leaderboard is: Kendall's tau-b against the default order).
- :mod:`.report`: the results table with significance superscripts, in Markdown, LaTeX or text.
- ``python -m metrics.compare``: the command line.
"""

from .intervals import Interval, bootstrap_interval
from .many import ManyComparison, PairResult, RunMean, adjust_p_values, compare_many, compare_values_many
from .multiverse import Multiverse, multiverse
from .pairs import (
    TIE_TOLERANCE,
    Comparison,
    QueryDelta,
    RandomisationTest,
    TTest,
    compare_runs,
    compare_values,
    paired_t_test,
    randomisation_test,
    regularized_incomplete_beta,
    student_t_two_sided_p,
)
from .report import report_table, risk_report
from .risk import Risk, risk

__all__ = ["Comparison", "Interval", "ManyComparison", "Multiverse", "PairResult", "Risk", "RunMean", "adjust_p_values",
           "multiverse",
           "bootstrap_interval", "compare_many", "compare_values_many", "report_table", "risk", "QueryDelta",
           "risk_report",
           "RandomisationTest", "TIE_TOLERANCE", "TTest", "compare_runs",
           "compare_values", "paired_t_test", "randomisation_test", "regularized_incomplete_beta",
           "student_t_two_sided_p"]
