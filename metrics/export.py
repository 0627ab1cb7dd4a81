"""Writing what the explorer holds: TREC qrels and run text, pytrec_eval-shaped JSON, and a Python snippet that
reproduces the numbers with pytrec_eval."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from .model import Qrels, Run


def qrels_to_trec(qrels: Qrels) -> str:
    """``qid 0 docno grade`` lines."""
    return "".join(f"{qid} 0 {doc} {grade}\n" for qid, docs in qrels.items() for doc, grade in docs.items())


def run_to_trec(rankings: Mapping[str, Sequence[tuple[str, float]]], tag: str = "explorer") -> str:
    """``qid Q0 docno rank score tag`` lines; each ranking's (doc, score) pairs are in rank order."""
    return "".join(
        f"{qid} Q0 {doc} {rank} {score!r} {tag}\n"
        for qid, ranking in rankings.items()
        for rank, (doc, score) in enumerate(ranking, start=1)
    )


def to_json(qrels: Qrels, run: Run) -> str:
    """``{"qrels": {...}, "run": {...}}`` in pytrec_eval's dict shapes."""
    return json.dumps({"qrels": qrels, "run": run}, indent=2, ensure_ascii=False)


def pytrec_eval_snippet(qrels: Qrels, run: Run, measures: Sequence[str], *, relevance_level: int = 1,
                        judged_docs_only: bool = False) -> str:
    """A self-contained Python program that prints the same numbers with pytrec_eval."""
    options = []
    if relevance_level != 1:
        options.append(f"relevance_level={relevance_level}")
    if judged_docs_only:
        options.append("judged_docs_only_flag=True")
    extra = "".join(f", {option}" for option in options)
    return (
        "# pip install pytrec_eval-terrier\n"
        "import pytrec_eval\n\n"
        f"qrels = {json.dumps(qrels, ensure_ascii=False)}\n"
        f"run = {json.dumps(run, ensure_ascii=False)}\n"
        f"measures = {json.dumps(sorted(set(measures)))}\n\n"
        f"evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures){extra})\n"
        "for qid, values in evaluator.evaluate(run).items():\n"
        "    for name, value in sorted(values.items()):\n"
        "        print(f\"{name}\\t{qid}\\t{value:.4f}\")\n"
    )
