"""Every download reproduces the page. For every sample, every single convention value and a hand-reordered
variant: the TREC files go through pytrec_eval, and the snippet runs in a fresh interpreter; both print the page's
numbers (the TREC files under trec_eval's own conventions, the snippet under the page's)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval

import metrics
from metrics import CONVENTION_INFO, Conventions
from metrics.cli import main as cli_main
from metrics.explain import explain
from metrics.export import reproduction_snippet, run_scores, snippet_tool, trec_query_id
from metrics.samples import load_samples
from tests.support.paths import REPO
from ui.common.query_state import (
    CONVENTION_PARAMS,
    ORDER_CONVENTIONS,
    QueryState,
    decode_url,
    move,
    set_order_convention,
)
from ui.common.state import state_from_sample
from ui.explore.exports import query_exports


def convention_changes() -> list[tuple[str, object]]:
    """Each value of each convention the explorer exposes, one change at a time (the defaults included)."""
    changes: list[tuple[str, object]] = [("relevance_level", 1), ("relevance_level", 2)]
    for info in CONVENTION_INFO:
        if info.name in CONVENTION_PARAMS:
            changes += [(info.name, choice.value) for choice in info.choices]
    return changes


def with_convention(query: QueryState, name: str, value: object) -> QueryState:
    if name in ORDER_CONVENTIONS:
        return set_order_convention(query, name, value)  # as the page does: a list that follows its scores re-sorts
    return query.replace(conventions=query.conventions.replace(**{name: value}))


def hand_reordered(query: QueryState) -> QueryState:
    """The last document moved to the top by hand: an order the scores contradict."""
    return move(query, len(query.ranking) - 1, 1)


def page_cases(sample) -> list[tuple[str, QueryState]]:
    base = state_from_sample(sample)
    cases = []
    for name, value in convention_changes():
        for variant, query in (("as loaded", base), ("hand-reordered", hand_reordered(base))):
            cases.append((f"{sample.slug} {name}={value} {variant}", with_convention(query, name, value)))
    return cases


def page_numbers(query: QueryState) -> dict[str, float]:
    """The cards' values keyed by trec_eval output name (``P_4``), as the page computes them."""
    explained = explain(query.ranking, dict(query.judgments), query.k, query.conventions)
    return {metrics.parse_measure(e.measure)[0].key: e.value for e in explained}


def trec_file_numbers(files, query: QueryState) -> dict[str, float]:
    """pytrec_eval on the downloaded qrels and run, with trec_eval's -l and -J as the page's conventions set them."""
    qrels = pytrec_eval.parse_qrel(io.StringIO(files.qrels_trec))
    run = pytrec_eval.parse_run(io.StringIO(files.run_trec))
    measures = {e.measure for e in explain(query.ranking, dict(query.judgments), query.k)}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, measures, relevance_level=query.conventions.relevance_level,
        judged_docs_only_flag=query.conventions.unjudged == "removed")
    return evaluator.evaluate(run)[trec_query_id(query.query)]


def snippet_outputs(snippets: list[str], tmp_path: Path) -> list[str]:
    """Run each snippet file in one fresh interpreter (runpy, stdout captured per snippet), from the repository."""
    paths = []
    for number, snippet in enumerate(snippets):
        path = tmp_path / f"snippet_{number}.py"
        path.write_text(snippet, encoding="utf-8")
        paths.append(str(path))
    driver = (
        "import contextlib, io, json, runpy, sys\n"
        "outputs = []\n"
        "for path in sys.argv[1:]:\n"
        "    out = io.StringIO()\n"
        "    with contextlib.redirect_stdout(out):\n"
        "        runpy.run_path(path, run_name='__main__')\n"
        "    outputs.append(out.getvalue())\n"
        "print(json.dumps(outputs))\n"
    )
    done = subprocess.run([sys.executable, "-c", driver, *paths], cwd=REPO, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def printed(output: str) -> dict[str, str]:
    return {line.split("\t")[0]: line.split("\t")[2] for line in output.splitlines()}


@pytest.mark.parametrize("sample", load_samples(), ids=lambda s: s.slug)
def test_every_export_reproduces_the_page_under_every_convention_and_a_hand_made_order(sample, tmp_path):
    cases = page_cases(sample)
    exports = []
    for name, query in cases:
        numbers = page_numbers(query)
        rows = [(e.label, e.measure, e.value)
                for e in explain(query.ranking, dict(query.judgments), query.k, query.conventions)]
        files = query_exports(query, rows)
        exports.append((name, query, numbers, files))

        # The TREC files rank the documents as shown: pytrec_eval gives the engine's numbers on the order shown
        # under trec_eval's conventions (the page's own numbers whenever pytrec_eval can express its conventions).
        trec = Conventions(relevance_level=query.conventions.relevance_level, unjudged=query.conventions.unjudged)
        expected = page_numbers(query.replace(conventions=trec))
        assert trec_file_numbers(files, query) == pytest.approx(expected, abs=1e-12), name
        if files.tool == "pytrec_eval":
            assert expected == pytest.approx(numbers, abs=1e-12), name

        # The CSV holds the page's values with the conventions and order that produced them.
        table = list(csv.DictReader(io.StringIO(files.csv)))
        assert {row["measure"]: float(row["value"]) for row in table} == {m: v for _, m, v in rows}, name
        assert {row["conventions"] for row in table} == {query.conventions.describe()}
        assert {row["ranking"] for row in table} == {" ".join(query.ranking)}

    outputs = snippet_outputs([files.snippet for _, _, _, files in exports], tmp_path)
    for (name, _, numbers, files), output in zip(exports, outputs):
        assert printed(output) == {key: f"{value:.4f}" for key, value in numbers.items()}, name
        assert files.snippet.splitlines()[0].startswith(
            "# Reproduces the explorer's numbers with "
            + ("pytrec_eval" if files.tool == "pytrec_eval" else "IR Metrics"))


def test_near_tied_double_scores_export_the_order_each_score_precision_shows(tmp_path):
    # 0.1 + 1e-9 and 0.1 are one C float: trec_eval 9 and pytrec_eval tie them and put y (doc id descending) first.
    query = decode_url({"ranking": "x:0.100000001,y:0.1", "qrels": "y:1,x:0", "k": "2"})
    assert query.ranking == ["y", "x"]
    doubles = set_order_convention(query, "score_precision", "float64")
    assert doubles.ranking == ["x", "y"]
    for shown in (query, doubles):
        rows = [(e.label, e.measure, e.value) for e in explain(shown.ranking, dict(shown.judgments), shown.k,
                                                               shown.conventions)]
        files = query_exports(shown, rows)
        assert files.tool == "pytrec_eval"
        assert trec_file_numbers(files, shown)["recip_rank"] == page_numbers(shown)["recip_rank"]
        assert printed(snippet_outputs([files.snippet], tmp_path)[0])["recip_rank"] == \
            f"{page_numbers(shown)['recip_rank']:.4f}"


def test_the_snippet_says_which_tool_it_uses_and_why():
    assert snippet_tool(Conventions(relevance_level=2, unjudged="removed", tie_order="as_given")) == ("pytrec_eval", ())
    assert snippet_tool(Conventions(gain="exponential")) == ("metrics", ("gain",))
    text = reproduction_snippet({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["ndcg_cut.4"], Conventions(gain="exponential"))
    assert "pytrec_eval cannot express gain=exponential" in text and "gain='exponential'" in text


def test_the_run_keeps_scores_that_give_the_order_shown_and_rewrites_others():
    assert run_scores(["b", "a"], [0.5, 0.5]) == ({"b": 0.5, "a": 0.5}, False)  # trec_eval puts b first
    assert run_scores(["a", "b"], [0.5, 0.5]) == ({"a": 2.0, "b": 1.0}, True)
    assert run_scores(["a", "b"], [0.9, None]) == ({"a": 2.0, "b": 1.0}, True)
    # Distinct doubles that trec_eval 9 and pytrec_eval read as one C float would tie there: rewritten.
    assert run_scores(["a", "b"], [0.1 + 1e-9, 0.1])[1] is True


def test_a_query_id_with_a_space_gets_four_column_trec_lines_and_the_page_says_so():
    query = state_from_sample(next(s for s in load_samples() if s.slug == "sweet-pastry"))
    files = query_exports(query, [("P@4", "P.4", 0.5)])
    assert {len(line.split()) for line in files.qrels_trec.splitlines()} == {4}
    assert {len(line.split()) for line in files.run_trec.splitlines()} == {6}
    assert any("sweet_pastry" in note for note in files.notes)
    assert json.loads(files.json)["qrels"] == {"sweet pastry": dict(query.judgments)}


def test_at_relevance_threshold_0_the_snippet_uses_the_engine_and_the_trec_files_give_trec_eval_l0s_numbers(tmp_path):
    # pytrec_eval refuses -l 0, which trec_eval takes (tests/data/trec_eval/out.test.aql0: the engine's command line
    # reproduces trec_eval -l0 byte for byte), so the files are replayed through that command line.
    query = decode_url({"ranking": "donut,bagel,muffin,croissant", "qrels": "donut:1,muffin:1,scone:1,bagel:0",
                        "k": "4", "level": "0"})
    assert snippet_tool(query.conventions) == ("metrics", ("relevance_level",))
    rows = [(e.label, e.measure, e.value) for e in explain(query.ranking, dict(query.judgments), query.k,
                                                           query.conventions)]
    files = query_exports(query, rows)
    numbers = page_numbers(query)
    (tmp_path / "q.qrels").write_text(files.qrels_trec)
    (tmp_path / "q.run").write_text(files.run_trec)
    out = io.StringIO()
    assert cli_main(["-q", "-l", "0", *(f"-m{m}" for _, m, _ in rows), str(tmp_path / "q.qrels"),
                     str(tmp_path / "q.run")], stdout=out, stderr=io.StringIO()) == 0
    lines = (line.split("\t") for line in out.getvalue().splitlines())
    trec_eval_lines = {name.strip(): value for name, qid, value in lines if qid != "all"}
    assert trec_eval_lines == {key: f"{value:.4f}" for key, value in numbers.items()}
    assert numbers["P_4"] == 3 / 4 and numbers["map_cut_4"] == 3 / 4  # bagel (grade 0) is relevant at -l 0
    (output,) = snippet_outputs([files.snippet], tmp_path)
    assert printed(output) == {key: f"{value:.4f}" for key, value in numbers.items()}
    assert "pytrec_eval cannot express relevance_level=0" in files.snippet
