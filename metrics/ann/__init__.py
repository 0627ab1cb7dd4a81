"""ANN recall against retrieval recall.

- :mod:`.compare`: ``compare_ann`` (ANN recall@k, recall@k and nDCG@k of both lists, relevant documents lost and
  gained), per query and mean, from an exact run, an ANN run and optional qrels.
- :mod:`.waterfall`: ``recall_waterfall`` follows every relevant document through the stages of a pipeline (exact
  top k, ANN top k, reranked top k, context cut-off) and names the stage that lost it.
- :mod:`.index`: a real approximate index (faiss HNSW or IVF) over vectors that ship with scikit-learn or are
  generated from a seed, with exact search as the reference; imported on demand (it needs faiss).
- ``python -m metrics.ann``: the command line.
"""

from .compare import AnnComparison, compare_ann
from .waterfall import QueryWaterfall, Stage, Waterfall, pipeline_stages, recall_waterfall

__all__ = ["AnnComparison", "QueryWaterfall", "Stage", "Waterfall", "compare_ann", "pipeline_stages",
           "recall_waterfall"]
