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
    reports = _lint_reports(at)
    assert list(reports) == list(DL20.run_names)
    for run, (findings, fold, clean) in reports.items():  # each finding before the fold, the fold holding the rest
        assert fold == f"{12 - len(findings)} checks found nothing" and len(clean) == 12 - len(findings), run
    findings, _, clean = reports["BM25"]
    assert list(findings) == ["run shallower than a measure's depth", "grades that suggest a relevance level"]
    shallow = findings["run shallower than a measure's depth"]
    assert shallow[0].startswith("2 measures in ")  # map and recip_rank
    assert "- map 0.2685 (this run) vs 0.3620 (at most, with a run to depth 1000)" in shallow[2].splitlines()
    assert "document retrieved twice for one query: 0 lines" in clean

    at.number_input(key="runs_level").set_value(1).run()
    means = next(frame.value for frame in at.dataframe if "map" in frame.value.columns).iloc[0]
    assert round(means["map"], 4) == 0.3027  # trec_eval without -l 2

    at.toggle(key="runs_use_samples").set_value(True).run()  # one built-in collection at a time
    assert not at.toggle(key="runs_use_dl20").value
    assert not any(DL20.attribution in as_shown(caption.value) for caption in at.caption)


def _lint_reports(at) -> dict[str, tuple[dict[str, list[str]], str, list[str]]]:
    """The lint panel as shown, run by run: ``{run: (findings, fold, clean)}``, where ``findings`` maps each finding's
    title to the rest of its first line and its other paragraphs, in the order shown, ``fold`` is the label of the
    expander after them and ``clean`` the lines in it. Every paragraph of the panel is one of these, in this order."""
    panel = next(expander for expander in at.expander if expander.label.startswith("Preflight lint"))
    reports: dict[str, tuple[dict[str, list[str]], str, list[str]]] = {}
    for node in panel.children.values():
        if node.type == "markdown" and node.value.startswith("**"):  # a run's header
            run = as_shown(node.value).removeprefix("**").partition("**")[0]
            findings: dict[str, list[str]] = {}
        elif node.type == "expander":
            assert run not in reports, f"{run}: a second fold"
            reports[run] = (findings, node.label, [as_shown(line).removeprefix("- ")
                                                    for line in node.markdown[0].value.splitlines()])
        elif node.type == "flex_container":  # a finding's block: its title and count, what it means, its effects
            assert run not in reports, f"{run}: a finding after the fold"
            title, *paragraphs = [as_shown(markdown.value) for markdown in node.markdown]
            name, _, count = title.removeprefix("**").partition("**: ")
            findings[name] = [count, *paragraphs]
    return reports


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
