"""The built-in TREC DL 2020 collection: read from the package's gzip files, scored as trec_eval scores it.

The expected values come from trec_eval 9.0.8 run on the original files (``trec_eval -l 2 -m map -m recip_rank
-m recall.100 -m ndcg_cut.10 dl20-passage.qrels dl20.<run>.run``). This data comes from trec_eval, developed at the
National Institute of Standards and Technology (NIST).
"""

from __future__ import annotations

import pytest

import metrics
from metrics.real import DL20

#: trec_eval 9.0.8 -l 2 on each run: map, recip_rank, recall_100, ndcg_cut_10.
TREC_EVAL_L2 = {
    "BM25": (0.2685, 0.6583, 0.5599, 0.4796),
    "BM25 + RM3": (0.2821, 0.6208, 0.6182, 0.4896),
    "TAS-B": (0.4520, 0.8350, 0.7135, 0.6854),
    "OpenAI ada-002": (0.4587, 0.8431, 0.7237, 0.6759),
    "SPLADE++": (0.4826, 0.8434, 0.7653, 0.7197),
}


@pytest.mark.parametrize("name", list(TREC_EVAL_L2))
def test_every_dl20_run_scores_what_trec_eval_prints_at_level_2(name):
    values = metrics.aggregate(metrics.evaluate(DL20.qrels().to_dict(), DL20.run(name).to_dict(),
                                                ["map", "recip_rank", "recall.100", "ndcg_cut.10"],
                                                conventions=DL20.conventions))
    assert tuple(round(values[key], 4) for key in ("map", "recip_rank", "recall_100", "ndcg_cut_10")) == \
        TREC_EVAL_L2[name]


def test_the_collection_is_54_judged_queries_and_five_top_100_runs_with_level_2():
    assert len(DL20.qrels().qids) == 54 and sorted(set(DL20.qrels().grade.tolist())) == [0, 1, 2, 3]
    assert all(len(DL20.run(name)) == 5400 and len(DL20.run(name).qids) == 54 for name in DL20.run_names)
    assert DL20.conventions.relevance_level == 2 and "trec_eval -l 2" in DL20.convention_note


def test_level_1_changes_map_but_not_ndcg():
    """trec_eval -m map without -l 2 gives 0.3027 on BM25: grade 1 ("related") then counts as relevant."""
    qrels, run = DL20.qrels().to_dict(), DL20.run("BM25").to_dict()
    level1 = metrics.aggregate(metrics.evaluate(qrels, run, ["map", "ndcg_cut.10"]))
    assert round(level1["map"], 4) == 0.3027 and round(level1["ndcg_cut_10"], 4) == 0.4796


def test_an_unknown_run_name_lists_the_runs():
    with pytest.raises(metrics.InputError, match="its runs: BM25, BM25 \\+ RM3, TAS-B"):
        DL20.run("DPR")
