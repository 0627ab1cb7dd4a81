"""ANN recall against retrieval recall.

- :mod:`.compare`: ``compare_ann`` (ANN recall@k, recall@k and nDCG@k of both lists, relevant documents lost and
  gained), per query and mean, from an exact run, an ANN run and optional qrels.
- :mod:`.definitions`: ``recall_definitions`` (recall@k as id overlap, ann-benchmarks' distance-epsilon recall and
  big-ann-benchmarks' tied true set, from the distances; where they disagree and why) and ``definition_costs``
  (what the queries each scores perfect lose in nDCG@k against the exact list).
- :mod:`.waterfall`: ``recall_waterfall`` follows every relevant document through the stages of a pipeline (exact
  top k, ANN top k, reranked top k, context cut-off) and names the stage that lost it.
- :mod:`.index`: a real approximate index (faiss HNSW or IVF) over vectors that ship with scikit-learn or are
  generated from a seed, with exact search as the reference; imported on demand (it needs faiss).
- ``python -m metrics.ann``: the command line.
"""

from .compare import AnnComparison, compare_ann
from .definitions import DefinitionCost, QueryRecalls, RecallDefinitions, definition_costs, recall_definitions
from .waterfall import QueryWaterfall, Stage, Waterfall, pipeline_stages, recall_waterfall

__all__ = ["AnnComparison", "DefinitionCost", "QueryRecalls", "QueryWaterfall", "RecallDefinitions", "Stage",
           "Waterfall", "compare_ann", "definition_costs", "pipeline_stages", "recall_definitions", "recall_waterfall"]
