"""The "Evaluate a run" figure builders: data in, figure out, checked trace by trace."""

from __future__ import annotations

import numpy as np

from ui.runs.charts import difference_figure, distribution_figure

VALUES = {"P_10": np.array([0.2, 0.3, 0.7]), "ndcg_cut_10": np.array([0.5, 0.55, 0.84])}
QIDS = ["301", "302", "303"]


def test_each_query_is_a_dot_named_by_its_query_for_every_measure():
    fig = distribution_figure(VALUES, QIDS)
    assert [box.name for box in fig.data] == ["P_10", "ndcg_cut_10"]
    for box, column in zip(fig.data, VALUES.values()):
        assert box.boxpoints == "all" and list(box.y) == column.tolist() and list(box.text) == QIDS


def test_the_dots_sit_beside_their_box_not_on_its_whiskers():
    """pointpos is in box half-widths from the centre, and jitter spreads the dots over ± jitter half-widths around
    it: the whole strip must stay outside the box (beyond one half-width)."""
    for box in distribution_figure(VALUES, QIDS).data:
        assert abs(box.pointpos) - box.jitter > 1


def test_the_difference_axis_title_stays_short_whatever_the_run_names():
    """The title names the runs; an axis title naming them too ran up into the subtitle on long names."""
    fig = difference_figure(QIDS, [0.1, 0.0, -0.2], "ndcg_cut_10", "bm25-baseline.run", "monoT5-rerank.run")
    assert fig.layout.yaxis.title.text == "Δ ndcg_cut_10"
    assert "monoT5-rerank.run" in fig.layout.title.text
