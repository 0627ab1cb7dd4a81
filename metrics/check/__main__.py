"""``python -m metrics.check QRELS RUN --measure M --value V``: which conventions reproduce a reported score?

Prints one line per matching combination of conventions, most common first: the value it gives, then the
conventions that differ from trec_eval's defaults as ``name=value`` (or ``trec_eval defaults``), then the tools
whose whole profile for the measure gives that value (:mod:`metrics.profiles`), with the options they need;
``--explain`` also says why a tool whose conventions give the value is not named (one of its conditions fails on
these files, or it prints fewer digits).
Exits 0 when something matches, 1 when nothing does (the nearest values are printed
instead), and 2 on bad input, with one line on stderr naming the problem.

``python -m metrics.check --lint QRELS RUN... [-m M]... [-l N] [-M N]`` is the preflight lint
(:mod:`metrics.check.lint`): every check per run with its count, queries and effects; exits 0 when no check found
anything, 1 when one did.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from ..console import (
    OutputError,
    add_trec_eval_argument,
    cannot_write,
    run_guarded,
    trec_eval_preset,
    whole_number,
    write_output,
)
from ..conventions import Conventions, trec_eval_values
from ..io.read import read_qrels_path, read_run_path
from ..io.trec import read_subtopic_qrels
from ..many_runs import uses_subtopics
from ..model import InputError
from ..names import parse_measures
from .depth import DepthShortfall, finding_shortfalls
from .finder import Candidate, Finding, find_conventions
from .granularity import Granularity, check_granularity
from .lint import DEFAULT_MEASURES as LINT_MEASURES
from .lint import lint_runs, read_run_lines
from .table import TableCheck, check_table, read_table, utf8_text
from .variants import Variant, find_with_variants, read_query_subset

EXIT_MATCH, EXIT_NO_MATCH, EXIT_BAD_INPUT = 0, 1, 2


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="python -m metrics.check",
        description="Find the evaluation conventions under which QRELS and RUN give a reported score. "
                    "The tolerance follows the digits given: 0.412 matches [0.4115, 0.4125).",
        epilog="Example: python -m metrics.check qrels.txt run.txt --measure nDCG@10 --value 0.412",
    )
    parser.add_argument("qrels", metavar="QRELS", nargs="?", help="qrels file (qid iter docno rel), plain or gzip")
    parser.add_argument("run", metavar="RUN", nargs="*",
                        help="run file (qid Q0 docno rank score tag), plain or gzip; several with --lint")
    parser.add_argument("--measure", "-m", action="append",
                        help="one measure in trec_eval (ndcg_cut.10) or ir_measures (nDCG@10) notation; with --lint, "
                             "give it once per measure the effects are computed on (default: "
                             + ", ".join(LINT_MEASURES) + ")")
    parser.add_argument("--lint", action="store_true",
                        help="preflight lint: for each RUN, every check of what can silently move a score, with its "
                             "count, the queries concerned and its effect on the measures (see docs/lint.md)")
    parser.add_argument("--relevance-level", "-l", type=whole_number, default=None, metavar="N",
                        help="with --lint: the relevance threshold of the effects (trec_eval -l; default 1)")
    parser.add_argument("--value", "-v", help="the reported value as printed, e.g. 0.412, 41.2 or 41.2%%")
    parser.add_argument("--queries", type=whole_number, metavar="N",
                        help="number of queries the mean is over: says whether the value is possible at all "
                             "(needs no QRELS or RUN)")
    parser.add_argument("--table", metavar="CSV",
                        help="check a whole table: a CSV with the columns run, measure, value (run = a run file, "
                             "relative to the CSV's folder); give QRELS only")
    parser.add_argument("--subset", metavar="FILE", help="also try the mean over these query ids (one per line)")
    parser.add_argument("--cutoff", type=whole_number, metavar="K", help="for an uncut measure, also try it cut at K")
    parser.add_argument("--variants", action="store_true",
                        help="also try what papers vary besides conventions (tried anyway when nothing matches)")
    parser.add_argument("--depth", "-M", type=whole_number, default=None,
                        help="evaluate only the top N documents of each ranking (trec_eval -M); not searched")
    add_trec_eval_argument(parser)  # held, not searched, when given
    parser.add_argument("--nearest", type=whole_number, default=5,
                        help="how many nearest values to show when nothing matches")
    parser.add_argument("--explain", action="store_true",
                        help="after each line, say in plain words how it differs from trec_eval")
    return parser


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    args = build_parser().parse_args(argv)
    if args.lint:
        return _lint(args, out, err)
    if len(args.run) > 1:
        print("error: give one RUN (several only with --lint)", file=err)
        return EXIT_BAD_INPUT
    args.run = args.run[0] if args.run else None
    args.measure = args.measure[-1] if args.measure else None  # given twice, the last counts (as before)
    try:
        if args.table:
            return _report_table(_table(args), out)
        _require(args, "measure", "value")
        status = EXIT_MATCH
        if args.queries is not None:
            status = _report_granularity(check_granularity(args.measure, args.value, args.queries), out)
            if args.qrels is None and args.run is None:
                return status
        if args.qrels is None or args.run is None:
            raise InputError("give QRELS and RUN (or --queries N alone to check whether the value is possible)")
        finding, variants, shortfalls = _run(args)
    except BrokenPipeError:
        raise  # --queries and --table write here (write_output): a reader that went away stops quietly
    except (InputError, ValueError, OSError, OutputError) as error:
        print(f"error: {_one_line(error)}", file=err)
        return EXIT_BAD_INPUT
    try:
        finder_status = _report(finding, args, out, err, shortfalls)
        if variants:
            finder_status = _report_variants(variants, finding, out, finder_status)
        out.flush()
        return max(status, finder_status)
    except BrokenPipeError:
        raise  # the reader went away: metrics.console stops quietly
    except OSError as error:
        print(f"error: {cannot_write(error)}", file=err)
        return EXIT_BAD_INPUT


def _report(finding: Finding, args: argparse.Namespace, out: TextIO, err: TextIO,
            shortfalls: Sequence[DepthShortfall] = ()) -> int:
    if finding.reported.note:
        print(f"note: {finding.reported.note}", file=err)
    decimals = finding.reported.decimals + 2
    if finding.matches:
        for candidate in finding.matches:
            print(_line(candidate, decimals), file=out)
            if args.explain:
                _explain(candidate, out)
        return EXIT_MATCH
    reported = finding.reported
    print(f"no combination of conventions gives {finding.measure.key} = {reported.text} "
          f"(from {reported.low:.{decimals}f} up to {reported.high:.{decimals}f}) on {finding.num_queries} "
          f"queries; nearest:", file=out)
    for candidate in finding.nearest(args.nearest):
        print("  " + _line(candidate, decimals), file=out)
        if args.explain:
            _explain(candidate, out)
    if shortfalls:
        print(f"depth: {shortfalls[0].headline()}", file=out)
    for shortfall in shortfalls:
        print(f"depth: {shortfall.counts()}", file=out)
        print(f"  per query: {shortfall.per_query_text()}", file=out)
    return EXIT_NO_MATCH


#: The table (--table) and the query subset (--subset) are small text files; larger ones are refused unread.
MAX_SMALL_FILE_BYTES = 1024 * 1024


def _read_small_text(path: Path, what: str) -> str:
    with open(path, "rb") as handle:
        data = handle.read(MAX_SMALL_FILE_BYTES + 1)
    if len(data) > MAX_SMALL_FILE_BYTES:
        raise InputError(f"{path}: a {what} is at most 1 MiB; this file is larger")
    return utf8_text(data, str(path), what)


def _require(args: argparse.Namespace, *names: str) -> None:
    missing = [f"--{name}" for name in names if getattr(args, name) is None]
    if missing:
        raise InputError(f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} required (see --help)")


def _run(args: argparse.Namespace) -> tuple[Finding, list[Variant], list[DepthShortfall]]:
    """The plain finding; when asked or when it matches nothing, the variants that match; when it matches nothing,
    how the run falls short of the measure's depth."""
    if args.nearest < 1:
        raise ValueError(f"--nearest has to be a positive integer, got {args.nearest}")
    base = trec_eval_preset(args, Conventions(depth=args.depth))
    hold = trec_eval_values(args.trec_eval) if args.trec_eval else None
    # Paths, never file content: a file name with spaces is still a name.
    if uses_subtopics(parse_measures(args.measure)):  # ndeval's qid subtopic docno grade, as python -m metrics reads
        if args.qrels == "-":
            raise InputError("the subtopic qrels have to be a file, not '-'")
        qrels = read_subtopic_qrels(Path(args.qrels))
    else:
        qrels = read_qrels_path(args.qrels).to_dict()  # TREC (plain or gzip) or Parquet, as every command line reads
    run = read_run_path(args.run).to_dict()
    finding = find_conventions(qrels, run, args.measure, args.value, base=base, hold=hold)
    if finding.matches and not (args.variants or args.subset or args.cutoff):
        return finding, [], []
    shortfalls = [] if finding.matches else finding_shortfalls(qrels, run, finding, base, args.nearest)
    subset = read_query_subset(_read_small_text(Path(args.subset), "query subset")) if args.subset else None
    variants = find_with_variants(qrels, run, args.measure, args.value, base=base, subset=subset, cutoff=args.cutoff)
    return finding, variants[1:], shortfalls


def _lint(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``--lint QRELS RUN...``: every check on every run; exit 0 when nothing was found, 1 when something was."""
    try:
        if args.qrels is None or not args.run:
            raise InputError("with --lint, give QRELS and at least one RUN")
        if args.value is not None or args.table or args.queries is not None:
            raise InputError("--lint takes QRELS, RUN... and --measure, -l, -M; not --value, --table or --queries")
        base = Conventions(relevance_level=args.relevance_level or 1, depth=args.depth)
        qrels = read_qrels_path(args.qrels).to_dict()
        runs = [read_run_lines(path, name=Path(path).name) for path in args.run]
        lints = lint_runs(qrels, runs, args.measure or LINT_MEASURES, base)
    except (InputError, ValueError, OSError) as error:
        print(f"error: {_one_line(error)}", file=err)
        return EXIT_BAD_INPUT
    try:
        for lint in lints:
            print(f"{lint.run}: {len(lint.found)} of {len(lint.checks)} checks found something", file=out)
            for check in lint.checks:
                mark = "!" if check.found else "ok"
                where = f" in {check.queries_text()}" if check.queries else ""
                print(f"  [{mark}] {check.title}: {check.count_text()}{where}", file=out)
                if check.found:
                    print(f"       {check.note}", file=out)
                for effect in check.effects:
                    print(f"       {effect.text()}", file=out)
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        print(f"error: {cannot_write(error)}", file=err)
        return EXIT_BAD_INPUT
    return EXIT_NO_MATCH if any(lint.found for lint in lints) else EXIT_MATCH


def _report_variants(variants: list[Variant], finding: Finding, out: TextIO, status: int) -> int:
    decimals = finding.reported.decimals + 2
    for variant in variants:
        print(f"with {variant.label}:", file=out)
        for candidate in variant.finding.matches:
            print("  " + _line(candidate, decimals), file=out)
    return EXIT_MATCH if variants else status


def _report_granularity(verdict: Granularity, out: TextIO) -> int:
    label = {True: "possible", False: "impossible", None: "not decided"}[verdict.possible]
    write_output(out, f"{label}: {verdict.explanation}\n")
    return EXIT_NO_MATCH if verdict.possible is False else EXIT_MATCH


def _table(args: argparse.Namespace) -> TableCheck:
    if args.qrels is None or args.run is not None:
        raise InputError("with --table, give QRELS only: the runs are named in the table")
    table_path = Path(args.table)
    rows = read_table(_read_small_text(table_path, "table of scores"), name=table_path.name)
    qrels = read_qrels_path(args.qrels).to_dict()
    runs = {row.run: read_run_path(str(table_path.parent / row.run)).to_dict()
            for row in {r.run: r for r in rows}.values()}
    return check_table(qrels, runs, rows, base=trec_eval_preset(args, Conventions(depth=args.depth)))


def _report_table(check: TableCheck, out: TextIO) -> int:
    if check.explained:
        lines = [f"every row of the table is explained by: {check.describe(check.settings[0])}",
                 *(f"  and by: {check.describe(setting)}" for setting in check.settings[1:3])]
    else:
        lines = [f"no single set of conventions explains every row; the most common setting that explains the most "
                 f"({len(check.rows) - len(check.unexplained)} of {len(check.rows)}) is: "
                 f"{check.describe(check.best_partial or {})}",
                 *(f"  not explained: line {row.line}: {row.run} {row.measure} = {row.value}"
                   for row in check.unexplained)]
    write_output(out, "\n".join(lines) + "\n")
    return EXIT_MATCH if check.explained else EXIT_NO_MATCH


def _line(candidate: Candidate, decimals: int) -> str:
    tools = f"  ({', '.join(candidate.credits)})" if candidate.credits else ""
    return f"{candidate.value:.{max(decimals, 4)}f}  {candidate.description}{tools}"


def _explain(candidate: Candidate, out: TextIO) -> None:
    if not candidate.explanation:
        print("    Same conventions as trec_eval's defaults.", file=out)
    for sentence in candidate.explanation:
        print(f"    {sentence}", file=out)
    if candidate.no_difference:
        print(f"    Makes no difference on this data: {', '.join(candidate.no_difference)}.", file=out)
    if candidate.equivalent_descriptions:
        print(f"    Same values on this data: {'; '.join(candidate.equivalent_descriptions)}", file=out)
    for line in candidate.excluded:  # a tool whose conventions give this value, and the condition that fails
        print(f"    {line}", file=out)


def _one_line(error: BaseException) -> str:
    if isinstance(error, FileNotFoundError):
        return f"{error.filename}: no such file"
    if isinstance(error, IsADirectoryError):
        return f"{error.filename}: is a directory, expected a file"
    return " ".join(str(error).split())


def run() -> NoReturn:
    """The command line as a process: ``python -m metrics.check`` and the installed ``ir-metrics-check`` script."""
    run_guarded(main, "python -m metrics.check")


if __name__ == "__main__":
    run()
