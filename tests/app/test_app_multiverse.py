"""The "Compare runs" tab's multiverse panel through AppTest, on the built-in sample collection (two runs): nothing
computed while it is closed, then the library's conclusions and leaderboard, with the page's conventions (here
-l 2) as the default setting, and no recomputation on a rerun."""

from __future__ import annotations

from tests.app.support import assert_no_failure, count_calls, open_runs_page, open_tab
from ui.common.text import shown as as_shown
from ui.runs import multiverse as panel


def test_the_multiverse_panel_computes_only_once_opened_and_shows_the_librarys_conclusions(monkeypatch):
    calls = count_calls(monkeypatch, {"multiverse": (panel, "multiverse")})
    at = open_runs_page()
    at.toggle(key="runs_use_samples").set_value(True).run()
    at.number_input(key="runs_level").set_value(2).run()
    at = open_tab(at, "Compare runs")
    assert_no_failure(at)
    assert calls["multiverse"] == 0  # the panel is closed: nothing computed for it

    at.session_state["multiverse_measure"] = "recip_rank"
    at.session_state[panel.EXPANDER] = True  # the expander opened, as a click on it does
    at.run()
    assert_no_failure(at)
    assert calls["multiverse"] == 1
    assert [e.label for e in at.expander if "multiverse" in e.label] == [
        "Do the conclusions survive other conventions? (multiverse)"]  # the label docs/multiverse.md names
    key, expected = at.session_state[panel.RESULT]  # what the library computed for the panel
    assert key[1:3] == ("recip_rank", "holm") and key[3].relevance_level == 2
    assert len(expected.runs) == 2 and expected.settings[0] == key[3]
    table = next(frame.value for frame in at.dataframe if "holds in" in frame.value.columns)
    conclusions = expected.conclusions()
    assert list(table["conclusion (default setting)"]) == [c.claim for c in conclusions]
    assert list(table["holds in"]) == [f"{len(c.holds)} of {len(expected.settings)}" for c in conclusions]
    assert list(table["fails"]) == [c.condition or "never" for c in conclusions]
    texts = [as_shown(block.value) for block in at.markdown]
    assert expected.leaderboard_line() in texts and expected.tau_line() in texts
    assert any("Default setting: relevance_level=2." in as_shown(caption.value) for caption in at.caption)

    at.run()  # a rerun with the same choices reuses the result
    assert calls["multiverse"] == 1
