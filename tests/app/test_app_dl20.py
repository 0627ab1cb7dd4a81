"""TREC DL 2020 on both pages through AppTest: the run page's collection at -l 2 with its attribution, the lint
panel computed only once opened, the finder's depth note, and a real query opened in the explorer."""

from __future__ import annotations

from metrics.real import DL20
from tests.app.support import assert_no_failure, count_calls, open_app, open_runs_page, open_tab
from ui.common import state
from ui.common.text import shown as as_shown
from ui.runs import lint


def _dl20(at):
    at.toggle(key="runs_use_dl20").set_value(True).run()
    assert_no_failure(at)
    return at


def test_the_run_page_offers_dl20_at_level_2_with_its_attribution_and_lints_it_once_opened(monkeypatch):
    calls = count_calls(monkeypatch, {"lint": (lint, "lint_runs")})
    at = _dl20(open_runs_page())
    assert at.number_input(key="runs_level").value == 2  # set by the switch, shown and changeable
    captions = [as_shown(caption.value) for caption in at.caption]
    assert DL20.convention_note in captions and any(DL20.attribution in caption for caption in captions)
    means = at.dataframe[0].value.iloc[0]  # the first run, BM25: trec_eval -l 2 prints these
    assert (round(means["map"], 4), round(means["ndcg_cut_10"], 4), round(means["recip_rank"], 4)) == \
        (0.2685, 0.4796, 0.6583)
    assert calls["lint"] == 0  # the lint panel is closed: nothing computed for it

    at.session_state["runs_lint_open"] = True  # the expander opened, as a click on it does
    at.run()
    assert_no_failure(at)
    assert calls["lint"] == 1
    tables = [frame.value for frame in at.dataframe if "what it means" in frame.value.columns]
    assert len(tables) == len(DL20.run_names) and all(len(table) == 12 for table in tables)
    bm25 = tables[0].set_index("check")
    assert bm25.loc["run shallower than a measure's depth", "found"] == "2 measures"  # map and recip_rank
    assert "map 0.2685 (this run) vs 0.3620 (at most, with a run to depth 1000)" in \
        bm25.loc["run shallower than a measure's depth", "effect (mean with vs without)"]
    assert bm25.loc["document retrieved twice for one query", "found"] == "0 lines"

    at.number_input(key="runs_level").set_value(1).run()
    means = next(frame.value for frame in at.dataframe if "map" in frame.value.columns).iloc[0]
    assert round(means["map"], 4) == 0.3027  # trec_eval without -l 2

    at.toggle(key="runs_use_samples").set_value(True).run()  # one built-in collection at a time
    assert not at.toggle(key="runs_use_dl20").value
    assert not any(DL20.attribution in as_shown(caption.value) for caption in at.caption)


def test_the_finder_on_dl20_bm25_says_the_run_stops_at_rank_100():
    at = open_tab(_dl20(open_runs_page()), "Check a reported score")
    at.text_input(key="check_measure").input("MAP").run()
    at.text_input(key="check_value").input("0.2856").run()
    assert_no_failure(at)
    notes = [as_shown(info.value) for info in at.info]
    assert any(note.startswith("The run stops at rank 100, but AP reads every rank") and
               "Grade >= 2: 1053 judged relevant documents lie beyond what the run holds" in note for note in notes)


def test_the_explorer_opens_a_dl20_query_at_level_2():
    at = open_app()
    at.session_state["dl20_picker"] = True  # the picker's expander opened
    at.run()
    at.selectbox(key="dl20_run").select("TAS-B").run()
    at.selectbox(key="dl20_query").select("23849").run()
    at.button(key="dl20_open").click().run()
    assert_no_failure(at)
    query = at.session_state[state.QUERY]
    assert (len(query.ranking), query.query, query.conventions.relevance_level) == (100, "23849", 2)
    assert at.number_input(key="level_input").value == 2
