"""``python -m metrics.online``: online signals per query and their means, in trec_eval's three columns. Bad input
is covered by the hostile-input catalogue (surface "online", tests/data/hostile_inputs.jsonl)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from metrics.io.trec import read_qrels, read_run
from metrics.online import MODELS, SIGNALS, run_signals
from metrics.online.__main__ import main
from tests.support.paths import DOCS, REPO, TEST_DATA

TREC_EVAL_DATA = TEST_DATA / "trec_eval"


@pytest.fixture
def pastry_files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("sweet_pastry 0 donut 1\nsweet_pastry 0 muffin 1\nsweet_pastry 0 scone 1\n"
                     "nothing 0 kale 1\nunanswered 0 pie 1\n")
    run.write_text("sweet_pastry Q0 donut 1 0.95 t\nsweet_pastry Q0 bagel 2 0.9 t\nsweet_pastry Q0 muffin 3 0.8 t\n"
                   "sweet_pastry Q0 croissant 4 0.7 t\nnothing Q0 bread 1 1 t\n")
    return str(qrels), str(run)


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_sweet_pastry_per_query_and_all_lines_in_trec_eval_columns(pastry_files):
    status, out, err = run_cli("-q", *pastry_files)
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "ctr                   \tnothing\t0.0000",
        "ctr_1                 \tnothing\t0.0000",
        "abandonment           \tnothing\t1.0000",  # no first_click_rank: nobody clicks a list without kale
        "clicks                \tnothing\t0.0000",
        "ctr                   \tsweet_pastry\t0.7500",
        "ctr_1                 \tsweet_pastry\t0.5000",
        "abandonment           \tsweet_pastry\t0.2500",
        "first_click_rank      \tsweet_pastry\t1.6667",
        "clicks                \tsweet_pastry\t0.7500",
        "num_q                 \tall\t2",
        "ctr                   \tall\t0.3750",
        "ctr_1                 \tall\t0.2500",
        "abandonment           \tall\t0.6250",
        "first_click_rank      \tall\t1.6667",  # over the queries with a click
        "clicks                \tall\t0.3750",
        "zero_result_rate      \tall\t0.3333",  # "unanswered" of 3 judged queries
        "abandonment_rate      \tall\t0.7500",  # (1 + 0.25 + 1) / 3
    ]


@pytest.mark.parametrize("kind", MODELS)
def test_the_all_lines_are_run_signals_means(kind):
    qrels, run = TREC_EVAL_DATA / "qrels.test", TREC_EVAL_DATA / "results.test"
    extra = {"pbm": ["--eta", "0.5"], "dbn": ["--gamma", "0.8"]}.get(kind, [])
    status, out, _ = run_cli(str(qrels), str(run), "--model", kind, *extra)
    assert status == 0
    printed = {line.split("\t")[0].strip(): line.split("\t")[2] for line in out.splitlines()}
    signals = run_signals(read_qrels(qrels), read_run(run), kind, eta=0.5, continuation=0.8)
    for signal in SIGNALS:
        assert printed[signal] == f"{signals.means[signal]:6.4f}"
    assert printed["num_q"] == str(len(signals.qids))


def test_sessions_print_the_simulated_means_reproducibly_from_the_seed(pastry_files):
    _, first, _ = run_cli(*pastry_files, "--sessions", "20000", "--seed", "7")
    _, again, _ = run_cli(*pastry_files, "--sessions", "20000", "--seed", "7")
    _, other, _ = run_cli(*pastry_files, "--sessions", "20000", "--seed", "8")
    _, exact, _ = run_cli(*pastry_files)
    assert first == again != other
    assert first != exact
    ctr = float(next(line for line in first.splitlines() if line.startswith("ctr ")).split("\t")[2])
    assert abs(ctr - 0.375) < 4 * (0.75 * 0.25 / 20_000) ** 0.5 / 2 + 1e-4  # mean of sweet pastry's and 0


def test_the_run_may_come_from_standard_input(pastry_files, monkeypatch):
    qrels, run = pastry_files
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(Path(run).read_bytes())))
    status, out, _ = run_cli(qrels, "-")
    assert status == 0 and "ctr                   \tall\t0.3750" in out


def test_help_explains_every_signal_and_model_in_plain_text():
    status, out, _ = run_cli("--help")
    assert status == 0
    for name in (*SIGNALS, *MODELS, "zero_result_rate", "abandonment_rate", "--sessions", "--seed", "--eta", "--gamma"):
        assert name in out
    assert "(2^g - 1) / 2^gmax" in out


def test_the_module_runs_as_a_command():
    done = subprocess.run([sys.executable, "-m", "metrics.online", str(TREC_EVAL_DATA / "qrels.test"),
                           str(TREC_EVAL_DATA / "results.test"), "--model", "pbm"],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "num_q                 \tall\t3"
    bad = subprocess.run([sys.executable, "-m", "metrics.online", "no-such-file", "x"], capture_output=True,
                         text=True, cwd=REPO, timeout=120)
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1 and "Traceback" not in bad.stderr


def test_the_documented_online_example_shows_what_it_computes():
    page = (DOCS / "command-line.md").read_text(encoding="utf-8")
    blocks = [part.split("```", 1)[0] for part in page.split("```python")[1:]]
    block = next(block for block in blocks if "from metrics.online import" in block)
    *setup, last = block.strip().splitlines()
    expression, shown = last.split("  # ")
    namespace: dict = {}
    exec("\n".join(setup), namespace)  # noqa: S102 - the page's own example
    ctr_before, ctr_after, needed = eval(expression, namespace)  # noqa: S307 - the page's own example
    assert f"({ctr_before:.3f}, {ctr_after:.3f}, {needed})" == shown


def test_trec_evals_extreme_grades_give_defined_values(tmp_path):
    # The largest grade a qrels line may hold, a negative one (in the pool, unjudged: never clicked) and a small
    # one: attractiveness 2^(g - gmax) - 2^-gmax never overflows, and the small grade rounds to 0.
    (tmp_path / "qrels").write_text("q1 0 d1 9223372036854775807\nq1 0 d2 -9223372036854775808\nq1 0 d3 5\n")
    (tmp_path / "run").write_text("q1 Q0 d2 1 2 t\nq1 Q0 d1 2 1 t\nq1 Q0 d3 3 0 t\n")
    status, out, err = run_cli("-q", str(tmp_path / "qrels"), str(tmp_path / "run"), "--model", "dbn")
    assert (status, err) == (0, "")
    assert "ctr                   \tq1\t0.9000" in out  # d1 is examined after d2 with gamma 0.9, and clicked
    assert "first_click_rank      \tq1\t2.0000" in out
    assert "nan" not in out.lower()


def long_query_files(tmp_path, relevant: int, retrieved: int) -> tuple[str, str]:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"long 0 d{i} 1\n" for i in range(relevant)))
    run.write_text("".join(f"long Q0 d{i} {i + 1} {retrieved - i} t\n" for i in range(retrieved)))
    return str(qrels), str(run)


def test_a_simulation_draws_only_to_the_last_clickable_rank_so_a_long_list_needs_no_rank_cap(tmp_path):
    files = long_query_files(tmp_path, relevant=2, retrieved=100_001)
    status, out, err = run_cli("--sessions", "10", *files)
    assert (status, err) == (0, "")
    (tmp_path / "short").mkdir()
    short = long_query_files(tmp_path / "short", relevant=2, retrieved=2)
    assert run_cli("--sessions", "10", *short) == (0, out, "")  # the unclickable tail changes no draw


def test_more_clickable_documents_than_a_simulation_takes_name_the_option_file_and_query(tmp_path):
    from metrics.online.models import MAX_LIST_LENGTH

    files = long_query_files(tmp_path, relevant=MAX_LIST_LENGTH + 1, retrieved=MAX_LIST_LENGTH + 1)
    status, out, err = run_cli("--sessions", "1", *files)
    assert (status, out) == (2, "")
    assert err.startswith("python -m metrics.online: --sessions: run.txt, query 'long': 100,001 clickable documents")
    assert err.endswith("without it the values are exact (no such limit)\n") and "Argument `" not in err
    assert run_cli(*files)[0] == 0  # the exact values have no such limit


def test_too_many_draws_name_the_option_and_the_file(tmp_path):
    files = long_query_files(tmp_path, relevant=300, retrieved=300)
    status, out, err = run_cli("--sessions", "1000000", *files)
    assert (status, out) == (2, "")
    assert err.startswith("python -m metrics.online: --sessions: run.txt: 1,000,000 sessions for each of 1 queries "
                          "make 300,000,000 draws")
