"""IR Metrics Explorer's engine: trec_eval-exact retrieval measures with named conventions.

>>> qrels = {"sweet pastry": {"donut": 1, "muffin": 1, "scone": 1}}
>>> run = {"sweet pastry": {"donut": 0.95, "bagel": 0.9, "muffin": 0.8, "croissant": 0.7}}
>>> values = evaluate(qrels, run, ["P.4", "recall.4", "recip_rank", "map", "ndcg_cut.4"])["sweet pastry"]
>>> {name: round(value, 3) for name, value in values.items()}
{'P_4': 0.5, 'recall_4': 0.667, 'recip_rank': 1.0, 'map': 0.556, 'ndcg_cut_4': 0.704}
"""

from .conventions import (
    CONVENTION_INFO,
    DEFAULT_TREC_EVAL,
    TREC_EVAL,
    TREC_EVAL_BUILDS,
    Conventions,
    trec_eval_conventions,
)
from .engine import aggregate, evaluate_batch, is_count, make_conventions
from .evaluate import RelevanceEvaluator, evaluate, evaluate_rankings
from .many_runs import evaluate_runs
from .measures import MEASURES, TREC_DEFAULT_MEASURES, MeasureInfo
from .model import InputError, RankingBatch, order_documents
from .names import Measure, describe_reading, parse_measure, parse_measures, reading_note
from .preferences import evaluate_preferences

__all__ = [
    "CONVENTION_INFO",
    "Conventions",
    "DEFAULT_TREC_EVAL",
    "InputError",
    "MEASURES",
    "Measure",
    "describe_reading",
    "reading_note",
    "MeasureInfo",
    "RankingBatch",
    "RelevanceEvaluator",
    "TREC_DEFAULT_MEASURES",
    "TREC_EVAL",
    "TREC_EVAL_BUILDS",
    "aggregate",
    "evaluate",
    "evaluate_batch",
    "evaluate_preferences",
    "evaluate_rankings",
    "evaluate_runs",
    "is_count",
    "make_conventions",
    "order_documents",
    "parse_measure",
    "parse_measures",
    "trec_eval_conventions",
]
