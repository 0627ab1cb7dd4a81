"""``python -m metrics.online QRELS RUN [--model cascade|pbm|dbn] [--sessions N --seed S] [-q]``: online signals.

A click model (a simulated user) reads each query's ranking, as trec_eval orders it, and clicks documents with a
probability set by their grades: attractiveness (2^g - 1) / 2^gmax, gmax the query's highest grade, 0 for
unjudged documents and grades <= 0. The command prints trec_eval's three columns (signal, query, value): with -q
every query's signals, then their means over the evaluated queries (the 'all' lines). Values are exact expected
values from the model's closed forms, or, with --sessions N, the means of N simulated sessions per query.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from typing import TextIO

from ..console import (
    OneLineParser,
    add_trec_eval_argument,
    help_description,
    real_number,
    run_command,
    run_guarded,
    trec_eval_preset,
)
from ..conventions import TREC_EVAL
from ..io.read import read_checked_qrels, read_run_path
from ..model import InputError
from .models import DEFAULT_CONTINUATION, DEFAULT_ETA, MODEL_HELP, MODELS, SIGNAL_HELP, SIGNALS
from .run import run_signals
from .simulate import MAX_SESSIONS

PROG = "python -m metrics.online"
#: trec_eval's first column: "%-22s".
FIELD_WIDTH = 22

def _item(name: str, text: str) -> str:
    """One entry of the help's lists: the name, then its text wrapped under itself."""
    return textwrap.fill(text, width=100, initial_indent=f"  {name:<18}", subsequent_indent=" " * 20)


_EPILOG = "\n".join([
    "signals (per query with -q, then their mean on the 'all' lines):",
    *(_item(name, text) for name, text in SIGNAL_HELP.items()),
    "  first_click_rank is left out for a query nobody can click (no relevant document retrieved), and its mean",
    "  is over the queries with a click.",
    "",
    "run-level lines ('all' only):",
    "  num_q             the queries evaluated: judged queries the run answers (trec_eval's rule)",
    "  zero_result_rate  the share of the qrels' queries without any retrieved document",
    "  abandonment_rate  P(no click) averaged over every query of the qrels, a query without results counting 1",
    "",
    "models (--model):",
    *(_item(name, text) for name, text in MODEL_HELP.items()),
    "  dbn's satisfaction after a click is (2^g - 1) / (2^gmax - 1): 1 for the query's best grade.",
    "",
    "examples:",
    "  python -m metrics.online -q QRELS RUN                      # cascade model, expected values",
    "  python -m metrics.online QRELS RUN --model pbm --eta 1.5   # a steeper position bias",
    "  python -m metrics.online QRELS RUN --model dbn --gamma 0.8 --sessions 10000 --seed 7",
    "",
])


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=PROG, description=textwrap.fill(help_description(__doc__), 100),
                           epilog=_EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("qrels", metavar="QRELS", help="judgments in TREC format (qid 0 docno grade), plain or .gz")
    parser.add_argument("run", metavar="RUN", help="a run in TREC format (qid Q0 docno rank score tag); - reads stdin")
    parser.add_argument("--model", choices=MODELS, default="cascade", help="the click model (default cascade)")
    parser.add_argument("-q", dest="per_query", action="store_true", help="print every query, then 'all'")
    parser.add_argument("--sessions", metavar="N", type=_whole_number, default=None,
                        help=f"simulate N sessions per query (1 to {MAX_SESSIONS:,}) instead of the expected values")
    parser.add_argument("--seed", metavar="S", type=_whole_number, default=None,
                        help="the simulation's seed (default 0; needs --sessions)")
    parser.add_argument("--eta", metavar="E", type=real_number, default=None,
                        help=f"pbm: rank r is examined with probability (1/r)^E (default {DEFAULT_ETA:g}; 0: no bias)")
    parser.add_argument("--gamma", metavar="G", type=real_number, default=None,
                        help=f"dbn: the chance to go on after a rank that did not satisfy (default "
                             f"{DEFAULT_CONTINUATION:g}; cascade is dbn with gamma = 1 and satisfaction s = 1)")
    add_trec_eval_argument(parser)  # how scores order each list (trec_eval 9.0.8 compares them as C floats)
    return parser


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def report(args: argparse.Namespace) -> str:
    if args.seed is not None and args.sessions is None:
        raise InputError("--seed sets the simulation's seed: give --sessions N too (without it the values are exact)")
    if args.eta is not None and args.model != "pbm":
        raise InputError(f"--eta shapes pbm's position bias; it has no effect with --model {args.model}")
    if args.gamma is not None and args.model != "dbn":
        raise InputError(f"--gamma is dbn's continuation; it has no effect with --model {args.model} "
                         "(cascade's is 1)")
    qrels = read_checked_qrels(args.qrels, [], TREC_EVAL)
    run = read_run_path(args.run)
    try:
        signals = run_signals(qrels, run, args.model,
                              eta=DEFAULT_ETA if args.eta is None else args.eta,
                              continuation=DEFAULT_CONTINUATION if args.gamma is None else args.gamma,
                              sessions=args.sessions, seed=0 if args.seed is None else args.seed,
                              conventions=trec_eval_preset(args))
    except InputError as error:  # name the options, not the library's arguments
        raise InputError(str(error).replace("Argument `eta`", "--eta").replace("Argument `continuation`", "--gamma")
                         .replace("Argument `sessions`", "--sessions").replace("Argument `seed`", "--seed")) from None
    lines = []
    if args.per_query:
        for i, qid in enumerate(signals.qids):
            for signal in SIGNALS:
                if signal == "first_click_rank" and not signals.has_click[i]:
                    continue
                lines.append(_line(signal, qid, signals.per_query[signal][i]))
    lines.append(f"{'num_q':<{FIELD_WIDTH}}\tall\t{len(signals.qids)}")
    for signal in SIGNALS:
        if signal == "first_click_rank" and not signals.has_click.any():
            continue
        lines.append(_line(signal, "all", signals.means[signal]))
    lines.append(_line("zero_result_rate", "all", signals.zero_result_rate))
    lines.append(_line("abandonment_rate", "all", signals.abandonment_rate))
    return "\n".join(lines) + "\n"


def _line(name: str, qid: str, value: float) -> str:
    return f"{name:<{FIELD_WIDTH}}\t{qid}\t{value:6.4f}"


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run_command(PROG, build_parser, report, argv, out or sys.stdout, err or sys.stderr)


def run() -> None:
    """The command line as a process: ``python -m metrics.online``."""
    run_guarded(main, PROG)


if __name__ == "__main__":
    run()
