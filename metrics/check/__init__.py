"""Check a reported score: which conventions turn your files into the number a paper reports?

``find_conventions(qrels, run, "nDCG@10", "0.412")`` evaluates the measure under every applicable combination
of conventions and returns the outcomes that round to the reported digits, most common first, each with the
tools that use it and a plain-words explanation of how it differs from trec_eval. The command line is
``python -m metrics.check QRELS RUN --measure M --value V``.
"""

from .finder import (
    TOOL_FAMILIES,
    Candidate,
    Finding,
    Option,
    convention_options,
    describe_changes,
    find_conventions,
    tool_family,
)
from .reported import ReportedValue, parse_reported_value

__all__ = [
    "Candidate",
    "Finding",
    "Option",
    "ReportedValue",
    "TOOL_FAMILIES",
    "convention_options",
    "describe_changes",
    "find_conventions",
    "parse_reported_value",
    "tool_family",
]
