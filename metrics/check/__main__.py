"""``python -m metrics.check QRELS RUN --measure M --value V``: which conventions reproduce a reported score?

Prints one line per matching combination of conventions, most common first: the value it gives, then the
conventions that differ from trec_eval's defaults as ``name=value`` (or ``trec_eval defaults``), then the tools
that use that combination. Exits 0 when something matches, 1 when nothing does (the nearest values are printed
instead), and 2 on bad input, with one line on stderr naming the problem.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from ..console import cannot_write, run_guarded
from ..conventions import Conventions
from ..model import InputError
from .finder import Candidate, Finding, find_conventions

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
    parser.add_argument("qrels", metavar="QRELS", help="qrels file (qid iter docno rel), plain or gzip")
    parser.add_argument("run", metavar="RUN", help="run file (qid Q0 docno rank score tag), plain or gzip")
    parser.add_argument("--measure", "-m", required=True,
                        help="one measure in trec_eval (ndcg_cut.10) or ir_measures (nDCG@10) notation")
    parser.add_argument("--value", "-v", required=True,
                        help="the reported value as printed, e.g. 0.412, 41.2 or 41.2%%")
    parser.add_argument("--depth", "-M", type=int, default=None,
                        help="evaluate only the top N documents of each ranking (trec_eval -M); not searched")
    parser.add_argument("--nearest", type=int, default=5, help="how many nearest values to show when nothing matches")
    parser.add_argument("--explain", action="store_true",
                        help="after each line, say in plain words how it differs from trec_eval")
    return parser


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    args = build_parser().parse_args(argv)
    try:
        finding = _run(args)
    except (InputError, ValueError, OSError) as error:
        print(f"error: {_one_line(error)}", file=err)
        return EXIT_BAD_INPUT
    try:
        status = _report(finding, args, out, err)
        out.flush()
        return status
    except BrokenPipeError:
        raise  # the reader went away: metrics.console stops quietly
    except OSError as error:
        print(f"error: {cannot_write(error)}", file=err)
        return EXIT_BAD_INPUT


def _report(finding: Finding, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
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
    return EXIT_NO_MATCH


def _run(args: argparse.Namespace) -> Finding:
    from ..trec_io import read_qrels, read_run

    if args.nearest < 1:
        raise ValueError(f"--nearest has to be a positive integer, got {args.nearest}")
    base = Conventions(depth=args.depth)
    # Paths, never file content: a file name with spaces is still a name.
    qrels = read_qrels(Path(args.qrels)).to_dict()
    run = read_run(Path(args.run)).to_dict()
    return find_conventions(qrels, run, args.measure, args.value, base=base)


def _line(candidate: Candidate, decimals: int) -> str:
    tools = f"  ({', '.join(candidate.tools)})" if candidate.tools else ""
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
