"""``python -m metrics.ann EXACT_RUN ANN_RUN [QRELS] [-k 10 ...]``: ANN recall against retrieval recall.

Prints trec_eval's three columns (measure, query, value): ``ann_recall_k`` for every query of the exact run and
their mean. With QRELS it adds retrieval recall@k and nDCG@k of both lists, the relevant documents the ANN top k
lost and gained, and the recall waterfall: how many relevant documents each stage keeps (``waterfall_*``, summed
in the 'all' line) and how many each stage loses (``lost_at_*``). Exit status 0, or 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from ..cli import FIELD_WIDTH
from ..console import (
    OneLineParser,
    add_trec_eval_argument,
    help_description,
    real_number,
    run_command,
    run_guarded,
    trec_eval_preset,
    whole_number,
)
from ..engine import nothing_to_evaluate
from ..io.read import read_qrels_path, read_run_path
from ..model import InputError
from .compare import compare_ann
from .definitions import ANN_BENCHMARKS_EPSILON, DEFINITIONS, definition_costs, recall_definitions
from .waterfall import pipeline_stages, recall_waterfall

PROG = "python -m metrics.ann"


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=PROG, description=help_description(__doc__))
    parser.add_argument("exact_run", metavar="EXACT_RUN", help="run of the exact (flat, brute-force) search")
    parser.add_argument("ann_run", metavar="ANN_RUN", help="run of the approximate index, same queries")
    parser.add_argument("qrels", metavar="QRELS", nargs="?", help="judgments, for the retrieval side")
    parser.add_argument("-k", dest="cutoffs", type=whole_number, action="append",
                        help="cut-off; repeat for several (default 10)")
    parser.add_argument("-q", dest="per_query", action="store_true", help="print every query, then 'all'")
    parser.add_argument("-l", dest="relevance_level", type=whole_number, default=1,
                        help="lowest grade that counts as relevant (trec_eval -l, default 1)")
    parser.add_argument("--reranked", metavar="RUN", help="a reranked run: one more waterfall stage (needs QRELS)")
    parser.add_argument("--context", metavar="C", type=whole_number,
                        help="passages a prompt holds: the last waterfall stage keeps the top C (needs QRELS)")
    parser.add_argument("--definitions", action="store_true",
                        help="also recall@k as each benchmark defines it, from the distances in the score column: "
                             "recall_ids_k (id overlap), recall_epsilon_k (ann-benchmarks: within epsilon of the "
                             "k-th true distance, every copy counted), recall_ties_k (big-ann-benchmarks: the true set "
                             "widened to ids tied with a distance of the top k); then '#' lines naming each query "
                             "where they disagree and why, and with QRELS the ANN list's nDCG@k minus the exact "
                             "list's, over all queries and over those each definition scores 1 (docs/ties.md)")
    parser.add_argument("--distances", choices=["negated-score", "score"], default="negated-score",
                        help="what the score column holds for --definitions: minus the distance (default; higher is "
                             "nearer) or the distance itself")
    parser.add_argument("--epsilon", type=real_number, default=ANN_BENCHMARKS_EPSILON,
                        help=f"ann-benchmarks' epsilon for recall_epsilon_k (default {ANN_BENCHMARKS_EPSILON:g})")
    add_trec_eval_argument(parser)  # how scores order each list (trec_eval 9.0.8 compares them as C floats)
    return parser


def _line(name: str, qid: str, value: float, count: bool) -> str:
    shown = str(int(value)) if count else f"{value:6.4f}"
    return f"{name:<{FIELD_WIDTH}}\t{qid}\t{shown}"


def report(args: argparse.Namespace) -> str:
    cutoffs = args.cutoffs or [10]
    # TREC (plain or gzip) or Parquet, as every command line reads them
    exact = read_run_path(args.exact_run).to_dict()
    ann = read_run_path(args.ann_run).to_dict()
    qrels = read_qrels_path(args.qrels).to_dict() if args.qrels else None
    if qrels is None and (args.reranked or args.context):
        raise InputError("--reranked and --context describe the recall waterfall, which needs QRELS")
    if not exact.keys() & ann.keys():  # ANN recall 0 for every query would describe two unrelated files
        raise InputError(f"{args.ann_run} shares no query with {args.exact_run}: nothing to compare (are the query "
                         "ids written the same way in both, e.g. '1' and not '01'?)")
    if qrels is not None and not exact.keys() & qrels.keys():
        raise InputError(nothing_to_evaluate(args.exact_run, args.qrels))
    k = max(cutoffs)
    if args.context is not None and args.context > k:
        raise InputError(f"--context {args.context} is larger than the cut-off {k} (-k): the prompt can only hold "
                         f"passages of the top {k}; give --context at most {k}, or a larger -k")
    conventions = trec_eval_preset(args)
    comparison = compare_ann(exact, ann, qrels, cutoffs, conventions=conventions, relevance_level=args.relevance_level)
    lines = []
    is_count = {name: name.startswith(("lost_", "gained_")) for name in comparison.names}
    if args.per_query:
        for qid, values in comparison.per_query.items():
            lines += [_line(name, qid, value, is_count[name]) for name, value in values.items()]
    lines += [_line(name, "all", comparison.means[name], False) for name in comparison.names]
    if qrels is not None:
        reranked = read_run_path(args.reranked).to_dict() if args.reranked else None
        stages = pipeline_stages(exact, ann, max(cutoffs), reranked_run=reranked, context=args.context)
        waterfall = recall_waterfall(qrels, stages, conventions=conventions, relevance_level=args.relevance_level)
        if args.per_query:
            for query in waterfall.queries:
                lines.append(_line("waterfall_relevant", query.qid, query.relevant, True))
                for key, kept, lost in zip(waterfall.stage_keys, query.kept, query.lost):
                    lines += [_line(f"waterfall_{key}", query.qid, kept, True),
                              _line(f"lost_at_{key}", query.qid, len(lost), True)]
        lines.append(_line("waterfall_relevant", "all", waterfall.relevant, True))
        for key, kept, lost in zip(waterfall.stage_keys, waterfall.kept, waterfall.lost):
            lines += [_line(f"waterfall_{key}", "all", kept, True), _line(f"lost_at_{key}", "all", lost, True)]
    if args.definitions:
        lines += definition_lines(args, exact, ann, qrels, cutoffs)
    return "\n".join(lines) + "\n"


def definition_lines(args: argparse.Namespace, exact: dict, ann: dict, qrels: dict | None, cutoffs: list[int]
                     ) -> list[str]:
    """--definitions: the three recalls per query (-q) and their means, with QRELS nDCG@k of the ANN list minus the
    exact list's, then '#' lines."""
    found = recall_definitions(exact, ann, cutoffs, distances=args.distances, epsilon=args.epsilon)
    differences, costs = ({}, []) if qrels is None else definition_costs(
        found, qrels, exact, ann, distances=args.distances, relevance_level=args.relevance_level)
    lines = []
    for k in found.cutoffs:
        if args.per_query:
            for row in found.queries[k]:
                lines += [_line(f"recall_{name}_{k}", row.qid, getattr(row, name), False) for name in DEFINITIONS]
                if row.qid in differences.get(k, {}):
                    lines.append(_line(f"ndcg_cut_{k}_ann_minus_exact", row.qid, differences[k][row.qid], False))
        means = found.means(k)
        lines += [_line(f"recall_{name}_{k}", "all", means[name], False) for name in DEFINITIONS]
        if k in differences:
            lines.append(_line(f"ndcg_cut_{k}_ann_minus_exact", "all",
                               sum(differences[k].values()) / len(differences[k]), False))
    for k in found.cutoffs:
        disagree = found.disagreements(k)
        lines.append(f"# k = {k}: the three definitions disagree on {len(disagree):,} of {len(found.queries[k]):,} "
                     "queries" + (":" if disagree else ""))
        lines += [f"#   {row.why()}" for row in disagree]
    for cost in costs:
        head = f"# {cost.definition} at k = {cost.k}: mean {cost.mean_recall:.4f}; "
        if not cost.perfect:
            lines.append(head + "scores no judged query 1")
            continue
        lines.append(head + f"scores {cost.perfect:,} judged {'query' if cost.perfect == 1 else 'queries'} 1, on "
                     f"which the ANN list's nDCG@{cost.k} minus the exact list's is {cost.ndcg_difference:+.4f} on "
                     "average")
    lines += [f"# note: {note}" for note in found.notes]
    return lines


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run_command(PROG, build_parser, report, argv, out or sys.stdout, err or sys.stderr)


if __name__ == "__main__":
    run_guarded(main, PROG)
