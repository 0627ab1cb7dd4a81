"""``python -m metrics.compare QRELS RUN RUN... -m nDCG@10 -m AP``: a results table with significance.

Evaluates every run on every measure, compares every pair of runs (or each against ``--baseline``) with a
paired test and a multiple-testing correction, and prints a report table: each mean with superscripts naming the
runs it beats significantly. ``--details`` adds every pair (difference, bootstrap interval, effect size, raw and
adjusted p) and, with a baseline, the risk of each run against it (wins/ties/losses, URisk, TRisk). ``--multiverse``
prints instead, for one measure, every pair's conclusion under every plausible convention and how stable the
leaderboard is (:mod:`metrics.compare.multiverse`). Exit status 0, or 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from ..cli import add_convention_arguments, conventions_from
from ..console import OneLineParser, help_description, real_number, run_command, run_guarded, run_names, whole_number
from ..model import InputError
from .intervals import METHODS
from .many import CORRECTIONS, MAX_RUNS, TESTS, ManyComparison, compare_many
from .multiverse import MAX_SETTINGS, PLAUSIBLE, multiverse, multiverse_report
from .report import FORMATS, report_table

PROG = "python -m metrics.compare"


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=PROG, description=help_description(__doc__), allow_abbrev=False)
    parser.add_argument("qrels", metavar="QRELS", help="judgments (TREC qrels, plain or gzip)")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="two or more runs (TREC, plain or gzip)")
    parser.add_argument("-m", "--measure", dest="measures", action="append", metavar="MEASURE",
                        help="measure, repeatable, in trec_eval or ir_measures notation (default nDCG@10)")
    parser.add_argument("--test", choices=TESTS, default="t", help="paired test (default t)")
    parser.add_argument("--correction", choices=CORRECTIONS, default="holm",
                        help="multiple-testing correction over each measure's pairs (default holm)")
    parser.add_argument("--alpha", type=real_number, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--baseline", metavar="RUN", help="compare each run with this one (a RUN as given)")
    parser.add_argument("--format", dest="fmt", choices=FORMATS, default="text", help="table format (default text)")
    parser.add_argument("--interval", choices=METHODS, default="bca", help="bootstrap interval (default bca)")
    parser.add_argument("--resamples", type=whole_number, default=10_000, help="bootstrap resamples (default 10000)")
    parser.add_argument("--permutations", type=whole_number, default=10_000, help="randomisation test permutations")
    parser.add_argument("--seed", type=whole_number, default=0, help="seed of the bootstrap and the randomisation test")
    parser.add_argument("--risk-alpha", type=real_number, default=1.0, help="risk aversion of URisk/TRisk (default 1)")
    parser.add_argument("--details", action="store_true", help="also print every pair and the risk table")
    parser.add_argument("--multiverse", action="store_true",
                        help="instead of the table: each pair's conclusion under every plausible convention of one "
                             f"measure (at most {MAX_SETTINGS} settings), and the leaderboard's Kendall tau-b")
    parser.add_argument("--vary", metavar="NAME,NAME", type=_names,
                        help=f"with --multiverse: vary only these conventions (of {', '.join(PLAUSIBLE)})")
    add_convention_arguments(parser)
    return parser


def details(comparison: ManyComparison, risk_alpha: float) -> list[str]:
    lines = ["", f"{'measure':<16} {'B':<20} {'A':<20} {'B - A':>8} {'interval':>19} {'d_z':>7} {'p':>8} "
             f"{'p adj.':>8}  W/T/L"]
    for pair in comparison.pairs:
        interval = f"[{pair.interval.low:+.4f}, {pair.interval.high:+.4f}]"
        lines.append(f"{pair.measure:<16} {pair.run_b[:20]:<20} {pair.run_a[:20]:<20} {pair.difference:>+8.4f} "
                     f"{interval:>19} {pair.effect_size:>7.2f} {pair.p_value:>8.4f} {pair.p_adjusted:>8.4f}"
                     f"{'*' if pair.significant else ' '} {pair.wins}/{pair.ties}/{pair.losses}")
    if comparison.baseline is not None:
        lines += ["", f"Risk against {comparison.baseline} (alpha = {risk_alpha:g}): TRisk below -2 is significantly "
                      "riskier, above 2 significantly safer", f"{'measure':<16} {'run':<20} {'W/T/L':>11} "
                      f"{'total loss':>10} {'worst loss':>10} {'URisk':>8} {'TRisk':>7}"]
        for measure, run, result in comparison.risks(risk_alpha):
            lines.append(f"{measure:<16} {run[:20]:<20} {f'{result.wins}/{result.ties}/{result.losses}':>11} "
                         f"{result.total_loss:>10.4f} {result.largest_loss:>10.4f} {result.urisk:>+8.4f} "
                         f"{result.trisk:>+7.2f}")
    return lines


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    err = err or sys.stderr
    return run_command(PROG, build_parser, lambda args: report(args, err=err), argv, out or sys.stdout, err)


def missing_warnings(comparison: ManyComparison) -> list[str]:
    """One stderr line per run that lacks judged queries: its name, what it lacks, what that does to the table, and
    the alternative (-c)."""
    queries = len(next(iter(comparison.queries.values())))
    lines = []
    for run, qids in comparison.incomplete_runs().items():
        shown = ", ".join(qids[:10]) + (f" and {len(qids) - 10:,} more" if len(qids) > 10 else "")
        lacks = f"run {run!r} lacks {len(qids):,} judged {'query' if len(qids) == 1 else 'queries'} ({shown})"
        if comparison.conventions.missing_queries == "zero":
            lines.append(f"{PROG}: warning: {lacks}: scored 0 there (-c)")
        else:
            lines.append(f"{PROG}: warning: {lacks}: every run's mean is over the {queries:,} queries all runs "
                         "answer; -c scores a missing query 0 instead")
    return lines


def report(args: argparse.Namespace, *, err: TextIO | None = None) -> str:
    """The table (and with --details every pair and the risk) for the parsed command line; a warning per run that
    lacks judged queries goes to ``err`` (default standard error)."""
    if len(args.runs) < 2:
        raise InputError("give at least two runs to compare")
    if len(args.runs) > MAX_RUNS:
        raise InputError(f"{len(args.runs)} runs: at most {MAX_RUNS} can be compared at once (one letter each)")
    conventions = conventions_from(args)
    names = run_names(args.runs)
    if args.multiverse:
        return multiverse_text(args, names, conventions)
    if args.vary is not None:
        raise InputError("--vary names the conventions of --multiverse; add --multiverse")
    baseline = None
    if args.baseline is not None:
        matches = [name for name, path in zip(names, args.runs) if args.baseline in (path, name)]
        if not matches:
            raise InputError(f"--baseline {args.baseline}: not one of the runs given")
        baseline = matches[0]
    # The qrels read once, the runs in parallel: the mechanism of `python -m metrics QRELS RUN RUN...`.
    comparison = compare_many(args.qrels, dict(zip(names, args.runs)), args.measures or ["nDCG@10"], test=args.test,
                              correction=args.correction, alpha=args.alpha, baseline=baseline, interval=args.interval,
                              resamples=args.resamples, permutations=args.permutations, seed=args.seed,
                              conventions=conventions)
    warnings = missing_warnings(comparison)
    if warnings:
        (err or sys.stderr).write("\n".join(warnings) + "\n")
    text = report_table(comparison, fmt=args.fmt, qrels_name=os.path.basename(args.qrels))
    if args.details:
        text += "\n".join(details(comparison, args.risk_alpha)) + "\n"
    return text


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def multiverse_text(args: argparse.Namespace, names: list[str], conventions) -> str:
    """The --multiverse report for the parsed command line."""
    for given, option in ((args.baseline, "--baseline"), (args.details or None, "--details")):
        if given is not None:
            raise InputError(f"{option} does not apply to --multiverse, which compares every pair of runs")
    if args.fmt == "latex":
        raise InputError("--multiverse prints --format text or markdown, not latex")
    if args.vary == []:
        raise InputError(f"--vary names no convention; give one or more of {', '.join(PLAUSIBLE)}, comma-separated")
    if args.measures is not None and len(args.measures) > 1:
        given = " -m ".join(args.measures)
        raise InputError(f"--multiverse compares one measure, got {len(args.measures)} (-m {given})")
    result = multiverse(args.qrels, dict(zip(names, args.runs)), (args.measures or ["nDCG@10"])[0], test=args.test,
                        correction=args.correction, alpha=args.alpha, vary=args.vary, permutations=args.permutations,
                        seed=args.seed, conventions=conventions)
    return multiverse_report(result, fmt=args.fmt)


if __name__ == "__main__":
    run_guarded(main, PROG)
