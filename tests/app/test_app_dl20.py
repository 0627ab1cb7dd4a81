"""TREC DL 2020 on both pages through AppTest: the run page's collection at -l 2 with its attribution, the lint
panel computed only once opened, the finder's depth note, what a second session gets from the first without
computing it again, and a real query opened in the explorer."""

from __future__ import annotations

from metrics.real import DL20
from tests.app.support import assert_no_failure, count_calls, open_app, open_runs_page, open_tab
from ui.common import state
from ui.common.text import shown as as_shown
from ui.runs import data, lint


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


def _switched_linted_and_checked(at):
    """DL 2020 on, the lint panel opened, and a reported nDCG@10 of BM25 typed into the finder: the big switches."""
    at = _dl20(at)
    at.session_state["runs_lint_open"] = True
    at = open_tab(at.run(), "Check a reported score")
    at.text_input(key="check_value").input("0.48").run()
    assert_no_failure(at)
    return at


def test_a_second_session_gets_the_evaluation_the_lint_and_the_finding_of_the_first_without_computing_them(
        monkeypatch):
    calls = count_calls(monkeypatch, {"evaluate": (data, "evaluate_tables"), "lint": (lint, "lint_runs"),
                                      "finder": (data, "find_conventions")})
    first = _switched_linted_and_checked(open_runs_page())
    assert calls == {"evaluate": len(DL20.run_names), "lint": 1, "finder": 1}
    second = _switched_linted_and_checked(open_runs_page())
    assert calls == {"evaluate": len(DL20.run_names), "lint": 1, "finder": 1}  # nothing computed again
    for at in (first, second):
        assert (_lint_reports(at)["BM25"][0].keys() ==
                {"run shallower than a measure's depth", "grades that suggest a relevance level"})
        assert any("combination(s) reproduce 0.48" in as_shown(success.value) for success in at.success)
    means = [open_tab(at, "Per-query results").dataframe[0].value for at in (first, second)]
    assert means[0].equals(means[1]) and round(means[1].iloc[0]["map"], 4) == 0.2685

    # Another session's choices are its own: its threshold is evaluated (and linted) for it, the first keeps -l 2.
    second.number_input(key="runs_level").set_value(1).run()
    assert calls["evaluate"] == 2 * len(DL20.run_names) and calls["lint"] == 2
    assert round(second.dataframe[0].value.iloc[0]["map"], 4) == 0.3027
    assert round(first.run().dataframe[0].value.iloc[0]["map"], 4) == 0.2685


def test_judgments_added_on_dl20_are_evaluated_for_their_session_only():
    qrels, bm25 = DL20.qrels().to_dict(), DL20.run("BM25").to_dict()
    qid = sorted(qrels)[0]
    unjudged = next(doc for doc in sorted(bm25[qid], key=bm25[qid].get, reverse=True) if doc not in qrels[qid])
    mine, other = _dl20(open_runs_page()), _dl20(open_runs_page())
    mine.session_state[data.ADDED] = {"qrels": data.DL20_KEY[0], "grades": {(qid, unjudged): 3}}
    mine.run()
    assert_no_failure(mine)
    assert not mine.session_state["added_collection"].built_in  # the judged collection is this session's own
    assert round(mine.dataframe[0].value.iloc[0]["map"], 4) != 0.2685  # one more relevant document counted
    assert round(other.run().dataframe[0].value.iloc[0]["map"], 4) == 0.2685


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
