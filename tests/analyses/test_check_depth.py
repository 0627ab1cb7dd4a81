"""The finder knows about depth: a run shallower than the measure says where it stops, how many judged relevant
documents per query lie beyond it, and the most a deeper run could give (computed by the engine)."""

from __future__ import annotations

import io

import pytest

from metrics import Conventions
from metrics.check.__main__ import main
from metrics.check.depth import depth_shortfall
from metrics.real import DL20

QRELS = {"q": {"a": 1, "b": 1, "c": 1, "x": 0}}
TWO_DEEP = {"q": {"a": 2.0, "x": 1.0}}


def test_a_two_document_run_asked_for_p_at_4_lacks_two_relevant_documents():
    shortfall = depth_shortfall(QRELS, TWO_DEEP, "P@4")
    assert (shortfall.run_depth, shortfall.measure_depth, shortfall.beyond) == (2, 4, {"q": 2})
    assert (shortfall.value, shortfall.best_value) == (0.25, 0.75)  # a x b c: 3 relevant in the top 4
    assert shortfall.headline() == "the run stops at rank 2, but P@4 reads down to rank 4: P@4 at depth 4 needs a " \
                                   "deeper run."


def test_map_reads_every_rank_so_its_depth_is_trec_s_1000():
    shortfall = depth_shortfall(QRELS, TWO_DEEP, "map")
    assert (shortfall.measure_depth, shortfall.assumed, shortfall.beyond) == (1000, True, {"q": 2})
    assert shortfall.value == pytest.approx(1 / 3)
    assert shortfall.best_value == pytest.approx((1 / 1 + 2 / 3 + 3 / 4) / 3)


def test_a_run_cut_by_minus_m_is_shallower_than_the_measure():
    run = {"q": {"a": 4.0, "x": 3.0, "b": 2.0, "y": 1.0}}
    assert depth_shortfall(QRELS, run, "P@4") is None  # four deep: P@4 sees it all
    shortfall = depth_shortfall(QRELS, run, "P@4", Conventions(depth=2))
    assert (shortfall.cut_by, shortfall.run_depth, shortfall.beyond, shortfall.value) == (2, 2, {"q": 2}, 0.25)
    assert shortfall.headline().startswith("the run is cut at rank 2 (-M 2), but P@4 reads down to rank 4")


def test_no_shortfall_when_the_run_holds_every_relevant_document():
    assert depth_shortfall(QRELS, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, "map") is None


def test_binary_measures_count_grades_at_the_level_and_ndcg_counts_every_positive_grade():
    qrels = {"q": {"a": 2, "b": 1, "c": 2}}
    run = {"q": {"a": 1.0}}
    assert depth_shortfall(qrels, run, "P@3", Conventions(relevance_level=2)).beyond == {"q": 1}
    graded = depth_shortfall(qrels, run, "ndcg_cut.3", Conventions(relevance_level=2))
    assert (graded.relevant_grade, graded.beyond, graded.best_value) == (1, {"q": 2}, 1.0)


def test_dl20_bm25_against_a_map_reported_at_depth_1000_says_the_run_stops_at_100():
    """Anserini's regression page gives BM25 (default) on DL 2020 passage AP@1000 = 0.2856 (-l 2, depth 1000): no
    convention gives it from the top 100."""
    out = io.StringIO()
    status = main([str(DL20.path()), str(DL20.path("BM25")), "--measure", "MAP", "--value", "0.2856"], out=out,
                  err=io.StringIO())
    lines = out.getvalue().splitlines()
    assert status == 1 and lines[0].startswith("no combination of conventions gives AP = 0.2856")
    depth = [line for line in lines if line.startswith("depth: ")]
    assert depth[0] == ("depth: the run stops at rank 100, but AP reads every rank, which TREC runs give to depth "
                        "1000: AP at depth 1000 needs a deeper run.")
    assert ("depth: grade >= 2: 1053 judged relevant documents lie beyond what the run holds, within rank 1000 "
            "(19.5 per query, from 0 to 104, in 43 of 54 queries); with them right after rank 100, AP would be at "
            "most 0.3620 (0.2685 here).") in depth
    per_query = lines[lines.index(next(line for line in depth if "grade >= 2" in line)) + 1]
    assert per_query.startswith("  per query: 1037496: 12, 1043135: 12, 1051399: 6,")
