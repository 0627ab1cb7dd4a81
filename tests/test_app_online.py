"""The explorer's online signals and the metric guide's advice on online confirmation, through AppTest."""

from __future__ import annotations

from apptest_support import assert_no_failure, open_app


def test_the_metric_guide_lists_when_an_offline_win_needs_online_confirmation():
    at = open_app()
    assert_no_failure(at)
    guide = next(e for e in at.expander if e.label == "Which metric should I use?")
    text = "\n".join(m.value for m in guide.markdown)
    assert "When an offline win needs online confirmation" in text
    assert "below the fold" in text and "unjudged" in text
