"""Live agreement with trec_eval (through pytrec_eval-terrier) for one query.

trec_eval never sees a hand-made order: it sorts by score, breaking ties by doc id descending. So the check
compares three things: the engine on the list as shown, the engine on trec_eval's order, and pytrec_eval itself.
The engine and pytrec_eval must agree on trec_eval's order; the list as shown may differ from it, and then the
causes are named (tied scores, an order that conflicts with the scores, missing scores).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .conventions import Conventions
from .evaluate import evaluate_rankings
from .export import PYTREC_EVAL_MIN_LEVEL
from .model import order_documents
from .names import parse_measures
from .optional import require

#: Values closer than this count as equal (the engine matches pytrec_eval to the last bit in tests).
TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class Agreement:
    measures: tuple[str, ...]  # trec_eval output names, e.g. "P_4"
    shown_order: tuple[str, ...]
    trec_order: tuple[str, ...]
    scores_used: Mapping[str, float]  # the scores handed to pytrec_eval
    engine_shown: Mapping[str, float]  # engine, list as shown, trec_eval conventions
    engine_trec: Mapping[str, float]  # engine, trec_eval's order
    pytrec_eval: Mapping[str, float]
    causes: tuple[str, ...]

    @property
    def engine_agrees(self) -> bool:
        """The engine reproduces pytrec_eval on trec_eval's order (this should always hold)."""
        return all(abs(self.engine_trec[m] - self.pytrec_eval[m]) <= TOLERANCE for m in self.measures)

    @property
    def same_numbers(self) -> bool:
        """The list as shown gets trec_eval's numbers."""
        return all(abs(self.engine_shown[m] - self.pytrec_eval[m]) <= TOLERANCE for m in self.measures)


def scores_for_pytrec_eval(docs: Sequence[str], scores: Sequence[float | None]) -> tuple[dict[str, float], bool]:
    """The scores trec_eval sees: the given ones when every document has one, else a descending score per rank
    so that trec_eval keeps the order as shown. The flag says whether the given scores were used."""
    if docs and all(score is not None for score in scores):
        return {doc: float(score) for doc, score in zip(docs, scores)}, True  # type: ignore[arg-type]
    return {doc: float(len(docs) - rank) for rank, doc in enumerate(docs)}, False


def live_check_skipped(conventions: Conventions) -> str | None:
    """Why pytrec_eval cannot check a list under ``conventions`` (None when it can): it refuses a relevance
    threshold below 1, which trec_eval takes (``-l 0``).

    >>> live_check_skipped(Conventions(relevance_level=0)).split(":")[0]
    'pytrec_eval refuses a relevance threshold of 0'
    >>> live_check_skipped(Conventions()) is None
    True
    """
    level = conventions.relevance_level
    if level < PYTREC_EVAL_MIN_LEVEL:
        return (f"pytrec_eval refuses a relevance threshold of {level}: it takes {PYTREC_EVAL_MIN_LEVEL} or more, "
                f"while trec_eval accepts -l {level} (every grade >= {level} is relevant)")
    return None


def check_against_trec_eval(
    docs: Sequence[str],
    scores: Sequence[float | None],
    judgments: Mapping[str, int],
    measures: Sequence[str],
    conventions: Conventions | None = None,
) -> Agreement:
    """Evaluate one query three ways (see the module docstring). Only ``relevance_level`` and ``unjudged``
    (-l and -J) are taken from ``conventions``: the others are not trec_eval's and pytrec_eval cannot follow them.
    A ValueError when pytrec_eval cannot take them (:func:`live_check_skipped` says why)."""
    conventions = conventions or Conventions()
    skipped = live_check_skipped(conventions)
    if skipped:
        raise ValueError(f"Argument `conventions` cannot be checked live: {skipped}; see live_check_skipped")
    pytrec_eval = require("pytrec_eval", needed_by="metrics.reference (the live trec_eval check)")

    trec = Conventions(relevance_level=conventions.relevance_level, unjudged=conventions.unjudged)
    parsed = parse_measures(measures)
    names = tuple(m.key for m in parsed)
    run, from_scores = scores_for_pytrec_eval(docs, scores)
    trec_order = tuple(order_documents(run, "trec_eval")) if docs else ()
    shown = tuple(docs)
    engine = evaluate_rankings([list(shown), list(trec_order)], [judgments, judgments], parsed, trec)
    qrels = {"q": {doc: int(grade) for doc, grade in judgments.items()}}
    if not qrels["q"]:
        reference = {name: 0.0 for name in names}  # trec_eval evaluates no query without judgments
    else:
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels, {f"{m.name}.{m.cutoff}" if m.cutoff else m.name for m in parsed},
            relevance_level=trec.relevance_level, judged_docs_only_flag=trec.unjudged == "removed",
        )
        result = evaluator.evaluate({"q": run} if run else {"q": {}})
        reference = {name: float(result.get("q", {}).get(name, 0.0)) for name in names}
    causes = _causes(shown, trec_order, list(scores), from_scores)
    return Agreement(
        names, shown, trec_order, run,
        {n: float(engine[n][0]) for n in names}, {n: float(engine[n][1]) for n in names}, reference, causes,
    )


def _causes(shown, trec_order, scores, from_scores) -> tuple[str, ...]:
    if not from_scores:
        if any(score is not None for score in scores):
            return ("Some documents have no score, so trec_eval was given one score per rank in the order shown.",)
        return ()
    causes: list[str] = []
    if shown != trec_order and any(a < b for a, b in zip(scores, scores[1:])):
        causes.append("The order shown conflicts with the scores: trec_eval ignores the order and sorts by score.")
    if len(set(scores)) < len(scores):
        causes.append(
            "Some scores tie: trec_eval breaks ties by doc id, descending (byte order)"
            + (", which is the order shown." if shown == trec_order else ", not by the order shown.")
        )
    return tuple(causes)
