"""The online-signal figure builders plot the numbers they are given: checked on the pastry example by hand.

Cascade model, attractiveness (2^g - 1) / 2^gmax = 0.5 for donut and muffin, 0 for bagel and croissant:
P(click) per rank = 0.5, 0.5 * 0 = 0, 0.5 * 1 * 0.5 = 0.25, 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from ui.explore.online_charts import CLICK_RANKS_SHOWN, ab_figure, click_figure

DOCS = ["donut", "bagel", "muffin", "croissant"]
CLICKS = [0.5, 0.0, 0.25, 0.0]
ATTRACTIVENESS = [0.5, 0.0, 0.5, 0.0]


def test_click_bars_sit_below_the_attractiveness_dots_where_the_user_rarely_looks():
    fig = click_figure(DOCS, CLICKS, ATTRACTIVENESS, grades=[1, None, 1, None])
    bars, dots = fig.data
    assert list(bars.y) == CLICKS and list(dots.y) == ATTRACTIVENESS
    assert list(bars.x) == [1, 2, 3, 4]
    assert bars.y[2] < dots.y[2]  # muffin is as attractive as donut but examined only half the time
    assert [tuple(row) for row in dots.customdata] == [("donut", "grade 1"), ("bagel", "unjudged"),
                                                       ("muffin", "grade 1"), ("croissant", "unjudged")]
    assert "cascade" in fig.layout.title.text


def test_pbm_adds_its_position_bias_and_a_simulation_its_two_standard_errors():
    bias = (1 / np.arange(1, 5)) ** 1.0
    fig = click_figure(DOCS, bias * ATTRACTIVENESS, ATTRACTIVENESS, position_bias=bias, simulated=[0.52, 0, 0.16, 0],
                       sessions=100, model="pbm")
    names = [trace.name for trace in fig.data]
    assert names[2].startswith("position bias") and names[3] == "simulated (100 sessions, ±2 SE)"
    assert list(fig.data[2].y) == pytest.approx([1, 0.5, 1 / 3, 0.25])
    assert fig.data[3].error_y.array[0] == pytest.approx(2 * np.sqrt(0.52 * 0.48 / 100))
    assert fig.data[3].error_y.array[1] == 0


def test_a_long_list_shows_its_top_ranks_and_says_so():
    docs = [f"d{i}" for i in range(100)]
    fig = click_figure(docs, np.zeros(100), np.zeros(100))
    assert len(fig.data[0].x) == CLICK_RANKS_SHOWN
    assert f"top {CLICK_RANKS_SHOWN} of 100 ranks" in fig.layout.title.subtitle.text


def test_doc_ids_reach_the_hover_text_as_typed_never_as_html():
    fig = click_figure(["<b>x</b>"], [0.5], [0.5])
    assert fig.data[0].customdata[0] == "&lt;b&gt;x&lt;/b&gt;"


@pytest.mark.parametrize("arguments, message", [
    (dict(click_probability=[0.5, 0.1]), "one value per rank"),
    (dict(attractiveness=[np.nan, 0, 0, 0]), "finite numbers"),
    (dict(simulated=[0, 0, 0, 0]), "`sessions` has to be a positive integer"),
    (dict(window=0), "`window` has to be a positive integer"),
])
def test_bad_arguments_get_one_precise_message(arguments, message):
    call = dict(docs=DOCS, click_probability=CLICKS, attractiveness=ATTRACTIVENESS) | arguments
    with pytest.raises(ValueError, match=message):
        click_figure(**call)


def test_ab_chart_shows_each_simulated_difference_with_its_interval_and_the_expected_one():
    fig = ab_figure([("CTR", 0.1, 0.12, 0.05, 0.19), ("abandonment", -0.1, -0.12, -0.19, -0.05)], 1000)
    simulated, expected = fig.data
    assert list(simulated.y) == ["CTR", "abandonment"]
    assert list(simulated.x) == [0.12, -0.12] and list(expected.x) == [0.1, -0.1]
    assert list(simulated.error_x.array) == pytest.approx([0.07, 0.07])
    assert list(simulated.error_x.arrayminus) == pytest.approx([0.07, 0.07])
    assert "1,000 sessions per arm" in simulated.name


def test_ab_chart_refuses_an_interval_upside_down():
    with pytest.raises(ValueError, match="low <= high"):
        ab_figure([("CTR", 0.1, 0.12, 0.19, 0.05)], 1000)
