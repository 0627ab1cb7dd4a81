"""Writing what the explorer holds: TREC qrels and run text, pytrec_eval-shaped JSON, a CSV of the metrics, and a
Python snippet that prints the same numbers.

Every export reproduces the page: the list shown is the ranking scored, so

- the run's scores put the documents in the order shown when trec_eval sorts them (the given scores when they do,
  even as trec_eval's C floats, else one score per rank: n, n-1, …, 1), see :func:`run_scores`;
- the CSV names the conventions that produced its numbers and the order they were computed on;
- the snippet uses pytrec_eval when pytrec_eval can express every convention in force, else this project's
  ``metrics.evaluate``, and its first lines say which and why (:func:`snippet_tool`).

>>> run_scores(["donut", "muffin", "bagel"], [0.95, 0.8, 0.9])
({'donut': 3.0, 'muffin': 2.0, 'bagel': 1.0}, True)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from .conventions import ORDER_CONVENTIONS, Conventions
from .ids import to_trec_id
from .io.csv_cells import csv_text
from .model import Qrels, Run, order_documents

#: Conventions pytrec_eval expresses, and the RelevanceEvaluator arguments that do so (trec_eval -l and -J).
PYTREC_EVAL_ARGUMENTS: dict[str, Callable[[object], dict[str, object]]] = {
    "relevance_level": lambda value: {"relevance_level": value},
    "unjudged": lambda value: {"judged_docs_only_flag": True} if value == "removed" else {},
}
# The conventions of ORDER_CONVENTIONS (``orders_only`` in the registry) only order the documents: the exported
# run's scores already give the order shown, so any value of these is reproduced by every tool that sorts by score.

#: The lowest relevance threshold pytrec_eval takes: its RelevanceEvaluator refuses 0 ("Argument relevance_level
#: should be positive"), which trec_eval itself accepts (``-l 0``: every grade >= 0 is relevant).
PYTREC_EVAL_MIN_LEVEL = 1


def pytrec_eval_cannot_express(conventions: Conventions) -> tuple[str, ...]:
    """The conventions in force that pytrec_eval cannot express (order-only ones are carried by the run's scores).

    >>> pytrec_eval_cannot_express(Conventions(relevance_level=0, gain="exponential"))
    ('relevance_level', 'gain')
    """
    return tuple(
        name for name in conventions.differences()
        if name not in ORDER_CONVENTIONS and (
            name not in PYTREC_EVAL_ARGUMENTS
            or (name == "relevance_level" and conventions.relevance_level < PYTREC_EVAL_MIN_LEVEL))
    )


#: The engine snippet's first lines after its header: what it needs, said before anything else runs. The package is
#: not on a registry, so the one way to have it is to install a clone: with it, the file runs from any directory.
NEEDS_THE_ENGINE = (
    "# Needs this project's `metrics` package (Python 3.11+; it brings numpy and pyarrow): run `pip install .`\n"
    "# once in a clone of IR Metrics Explorer, then run this file from any directory with that Python.\n"
    "try:\n"
    "    import metrics\n"
    "except ModuleNotFoundError:\n"
    "    raise SystemExit(\"This snippet needs IR Metrics Explorer's engine: run `pip install .` in a clone of the \"\n"
    "                     \"project, then run it again with that Python.\") from None\n\n"
)


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


def trec_query_id(qid: str) -> str:
    """``qid`` as a TREC file can hold it (:func:`metrics.ids.to_trec_id`: each space becomes ``_``; a leading
    ``#`` gets a ``_`` before it).

    >>> trec_query_id("sweet pastry")
    'sweet_pastry'
    """
    trec_id = to_trec_id(qid)
    # A line whose first character is '#' is a comment to trec_eval's newer readers and to ours: keep it a query.
    return "_" + trec_id if trec_id.startswith("#") else trec_id


def run_scores(docs: Sequence[str], scores: Sequence[float | None]) -> tuple[dict[str, float], bool]:
    """Scores under which trec_eval ranks ``docs`` exactly in the given order, and whether they were rewritten.

    The given scores are kept when every document has one and trec_eval's sort (score descending, ties by doc id
    descending) gives the order shown both in doubles (trec_eval 10) and as C floats (trec_eval 9 and
    pytrec_eval). Otherwise each rank gets a score: n, n-1, …, 1.
    """
    if docs and all(score is not None for score in scores):
        given = {doc: float(score) for doc, score in zip(docs, scores)}  # type: ignore[arg-type]
        in_doubles = order_documents(given, "trec_eval", score_precision="float64")
        if in_doubles == list(docs) == order_documents(given, "trec_eval", score_precision="float32"):
            return given, False
    return {doc: float(len(docs) - rank) for rank, doc in enumerate(docs)}, True


def snippet_tool(conventions: Conventions) -> tuple[str, tuple[str, ...]]:
    """``("pytrec_eval", ())`` when pytrec_eval can express every convention in force, else ``("metrics", names)``
    with the conventions it cannot express. Order-only conventions are carried by the run's scores."""
    missing = pytrec_eval_cannot_express(conventions)
    return ("metrics", missing) if missing else ("pytrec_eval", ())


def reproduction_snippet(qrels: Qrels, run: Run, measures: Sequence[str],
                         conventions: Conventions | None = None) -> str:
    """A self-contained Python program that prints ``measure<TAB>qid<TAB>value`` for every measure, equal to the
    engine's values on the run's order under ``conventions`` (``run`` from :func:`run_scores`)."""
    conventions = conventions or Conventions()
    tool, missing = snippet_tool(conventions)
    data = (
        f"qrels = {json.dumps(qrels, ensure_ascii=False)}\n"
        f"run = {json.dumps(run, ensure_ascii=False)}\n"
        f"measures = {json.dumps(sorted(set(measures)))}\n\n"
    )
    printing = (
        "for qid, values in results.items():\n"
        "    for name, value in sorted(values.items()):\n"
        "        print(f\"{name}\\t{qid}\\t{value:.4f}\")\n"
    )
    if tool == "pytrec_eval":
        arguments: dict[str, object] = {}
        for name, value in conventions.differences().items():
            if name in PYTREC_EVAL_ARGUMENTS:
                arguments.update(PYTREC_EVAL_ARGUMENTS[name](value))
        extra = "".join(f", {name}={value!r}" for name, value in arguments.items())
        conventions_text = conventions.describe()
        return (
            f"# Reproduces the explorer's numbers with pytrec_eval ({conventions_text}).\n"
            "# The run's scores put the documents in the order shown on the page.\n"
            "# pip install pytrec_eval-terrier\n"
            "import pytrec_eval\n\n"
            + data
            + f"evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures){extra})\n"
            "results = evaluator.evaluate(run)\n"
            + printing
        )
    kept = {name: value for name, value in conventions.differences().items() if name not in ORDER_CONVENTIONS}
    arguments_text = ", ".join(f"{name}={value!r}" for name, value in kept.items())
    return (
        f"# Reproduces the explorer's numbers with IR Metrics Explorer's engine (metrics.evaluate):\n"
        f"# pytrec_eval cannot express {', '.join(f'{name}={getattr(conventions, name)}' for name in missing)}.\n"
        "# The run's scores put the documents in the order shown on the page (trec_eval's tie rule).\n"
        + NEEDS_THE_ENGINE
        + data
        + f"results = metrics.evaluate(qrels, run, measures, {arguments_text})\n"
        + printing
    )


def metrics_csv(rows: Sequence[tuple[str, str, float]], conventions: Conventions, ranking: Sequence[str]) -> str:
    """``metric,measure,value,conventions,ranking`` rows: each value with the conventions and the order
    (doc ids, rank 1 first) that produced it; a doc id that a spreadsheet would run as a formula is made inert
    (:func:`metrics.io.csv_cells.csv_text`)."""
    order = " ".join(ranking)
    header = ["metric", "measure", "value", "conventions", "ranking"]
    return csv_text([header, *([label, measure, float(value), conventions.describe(), order]
                               for label, measure, value in rows)])
