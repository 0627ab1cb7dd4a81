"""Many runs against one qrels: ``python -m metrics QRELS RUN RUN...`` prints, for each run in the order given,
exactly the block a call with that run alone prints with ``-m runid`` (its label; runs that share a tag add their
file name to it), then names on standard error the runs that lack a judged query another run answers and the runs
that share a tag; ``metrics.evaluate_runs`` returns
one long table with the same numbers; both read the qrels once and evaluate the runs in parallel
(metrics/many_runs.py)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

import metrics
from metrics.cli import main, select_measures
from metrics.conventions import Conventions
from metrics.io.read import read_checked_qrels
from metrics.many_runs import MAX_RUNS, evaluate_each
from tests.support.paths import REPO, TEST_DATA
from tests.support.strategies import pytrec_eval_safe, random_collection

TREC_EVAL = TEST_DATA / "trec_eval"
QRELS = str(TREC_EVAL / "qrels.test")
RUNS = [str(TREC_EVAL / "results.test"), str(TREC_EVAL / "results.trunc")]
#: Both files carry the tag STANDARD: given together, each block's runid line names its file too.
LABELS = ["STANDARD (results.test)", "STANDARD (results.trunc)"]
DL20 = REPO / "samples" / "dl20"

#: trec_eval's own option sets of the conformance data (EXPECTED_OUTPUTS.tsv), plus -J, -l and -n.
OPTION_SETS = [[], ["-q"], ["-m", "all_trec"], ["-m", "all_trec", "-q"], ["-m", "all_trec", "-q", "-c"],
               ["-m", "all_trec", "-q", "-c", "-M", "5"], ["-m", "all_trec", "-q", "-l", "2"], ["-q", "-J"],
               ["-q", "-n", "-m", "P.5,10", "-m", "nDCG@10", "-m", "relstring.3"], ["-m", "runid", "-m", "map"]]


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def alone(options: list[str], qrels: str, run: str) -> str:
    status, out, err = cli(*options, qrels, run)
    assert status == 0, err
    return out


def labelled(options: list[str]) -> list[str]:
    """The options of one run alone that print the block several runs print: with its runid line."""
    return [*options, "-m", "runid"] if "-m" in options else options


def relabelled(block: str, label: str) -> str:
    """``block`` with its runid line (if it has one) saying ``label``."""
    return "".join(f"runid                 \tall\t{label}\n" if line.startswith("runid ") else line
                   for line in block.splitlines(keepends=True))


def only_warnings(err: str) -> bool:
    return all(line.startswith("python -m metrics: warning: run '") for line in err.splitlines())


def write_trec(path: Path, run: dict[str, dict[str, float]], tag: str) -> str:
    path.write_text("".join(f"{qid} Q0 {doc} {rank} {score!r} {tag}\n" for qid, docs in run.items()
                            for rank, (doc, score) in enumerate(docs.items(), 1)), encoding="utf-8")
    return str(path)


def write_qrels(path: Path, qrels: dict[str, dict[str, int]]) -> str:
    path.write_text("".join(f"{qid} 0 {doc} {grade}\n" for qid, judged in qrels.items()
                            for doc, grade in judged.items()), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def random_files(tmp_path_factory) -> tuple[str, list[str]]:
    """One qrels and four runs over its queries, with many tied scores (each run's own draw of the scores)."""
    folder = tmp_path_factory.mktemp("many")
    rng = np.random.default_rng(15)
    qrels, _ = random_collection(rng, 30)
    runs = []
    for i in range(4):
        _, run = random_collection(np.random.default_rng(100 + i), 30)
        runs.append(write_trec(folder / f"run{i}.txt", run, f"tag{i}"))
    return write_qrels(folder / "qrels.txt", qrels), runs


@pytest.mark.parametrize("options", OPTION_SETS, ids=" ".join)
def test_each_block_is_byte_identical_to_the_run_evaluated_alone_with_its_runid(options):
    status, out, err = cli(*options, QRELS, *RUNS)
    assert status == 0
    assert out == "".join(relabelled(alone(labelled(options), QRELS, run), label) for run, label in zip(RUNS, LABELS))
    # results.trunc lacks query 302, which results.test answers; both files carry the tag STANDARD.
    lacks = (f"python -m metrics: warning: run {RUNS[1]!r} lacks 1 judged query (302)"
             + (": scored 0 there (-c)" if "-c" in options else " that another run answers: its 'all' lines are "
                "over 2 queries, not those of the other blocks; -c scores a missing query 0 in every run"))
    assert err.splitlines() == [lacks, f"python -m metrics: note: runs {RUNS[0]!r}, {RUNS[1]!r} share the tag "
                                       "'STANDARD': their runid lines name the file after the tag, in parentheses"]


def test_runs_that_share_a_tag_are_labelled_by_their_files_and_one_run_prints_what_trec_eval_prints(tmp_path):
    """The five DL 2020 runs all carry the tag 'rank': alone, each prints trec_eval's output (no runid line with
    -m map); together, each block's runid line is the tag and the file, so no two blocks read alike."""
    qrels, runs = str(DL20 / "dl20-passage.qrels.gz"), sorted(str(path) for path in DL20.glob("*.run.gz"))
    status, out, err = cli("-m", "map", qrels, *runs)
    assert status == 0
    blocks = [alone(["-m", "map"], qrels, run) for run in runs]
    assert all(block.startswith("map ") and "runid" not in block for block in blocks)
    labels = [line.split("\t")[2] for line in out.splitlines() if line.startswith("runid ")]
    assert labels == [f"rank ({Path(run).name})" for run in runs]
    assert labels[0] == "rank (dl20.BM25.run.gz)"
    assert out == "".join(f"runid                 \tall\t{label}\n{block}" for label, block in zip(labels, blocks))
    assert err.count("\n") == 1 and "share the tag 'rank'" in err
    # Only the runs whose tag repeats name their file: a run with a tag of its own keeps trec_eval's runid line.
    other = tmp_path / "other.run"
    other.write_text(Path(RUNS[0]).read_text(encoding="utf-8").replace("STANDARD", "other"), encoding="utf-8")
    status, out, _ = cli("-m", "map", QRELS, RUNS[0], str(other), RUNS[1])
    assert [line.split("\t")[2] for line in out.splitlines() if line.startswith("runid ")] == [LABELS[0], "other",
                                                                                               LABELS[1]]


def test_a_block_names_its_run_as_trec_eval_does_and_a_run_lacking_a_query_is_named(tmp_path):
    qrels = write_qrels(tmp_path / "qrels", {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}})
    full = write_trec(tmp_path / "full.run", {"q1": {"d1": 2.0}, "q2": {"x": 2.0, "d2": 1.0}, "q3": {"d3": 1.0}},
                      "bm25")
    short = write_trec(tmp_path / "short.run", {"q1": {"d1": 2.0}, "q3": {"x": 1.0}}, "dense")
    status, out, err = cli("-m", "P.1", qrels, full, short)
    assert status == 0
    assert out == ("runid                 \tall\tbm25\nP_1                   \tall\t0.6667\n"
                   "runid                 \tall\tdense\nP_1                   \tall\t0.5000\n")
    assert err == (f"python -m metrics: warning: run {short!r} lacks 1 judged query (q2) that another run answers: "
                   "its 'all' lines are over 2 queries, not those of the other blocks; -c scores a missing query 0 "
                   "in every run\n")
    status, out, err = cli("-m", "P.1", "-c", qrels, full, short)
    assert out.splitlines()[-1] == "P_1                   \tall\t0.3333"
    assert err == f"python -m metrics: warning: run {short!r} lacks 1 judged query (q2): scored 0 there (-c)\n"
    status, out, err = cli("-m", "P.1", qrels, full)  # one run: trec_eval's output, no runid line, nothing on stderr
    assert (status, out, err) == (0, "P_1                   \tall\t0.6667\n", "")


@pytest.mark.parametrize("options", [["-q"], ["-q", "-c", "-m", "all_trec"], ["-J", "-M", "3", "-l", "2", "-q"]],
                         ids=" ".join)
def test_random_runs_with_ties_print_what_each_prints_alone_in_the_order_given(random_files, options):
    qrels, runs = random_files
    for order, labels in ((runs, ["tag0", "tag1", "tag2", "tag3"]), (runs[::-1], ["tag3", "tag2", "tag1", "tag0"]),
                          ([runs[2], runs[0], runs[2]], ["tag2 (run2.txt)", "tag0", "tag2 (run2.txt (3))"])):
        status, out, err = cli(*options, qrels, *order)
        assert status == 0
        assert all(line.startswith(("python -m metrics: warning: run '", "python -m metrics: note: runs "))
                   for line in err.splitlines())
        assert out == "".join(relabelled(alone(labelled(options), qrels, run), label)
                              for run, label in zip(order, labels))


def test_parallel_and_serial_evaluation_give_the_same_values_in_the_same_order(random_files):
    qrels_path, runs = random_files
    selection = select_measures(["all_trec"])
    conv = Conventions(missing_queries="zero")
    qrels = read_checked_qrels(qrels_path, selection.measures, conv)
    sources = [(path, path) for path in runs * 2]
    serial = list(evaluate_each(qrels, sources, selection.measures, conv, workers=1))
    parallel = list(evaluate_each(qrels, sources, selection.measures, conv, workers=3))
    assert [r.name for r in parallel] == [r.name for r in serial] == runs * 2
    for one, other in zip(serial, parallel):
        assert (one.qids, one.runid) == (other.qids, other.runid)
        assert one.values.keys() == other.values.keys()
        for key in one.values:
            assert np.array_equal(one.values[key], other.values[key]), key


def test_large_runs_stream_as_they_do_alone_and_print_the_same_blocks(random_files, monkeypatch):
    from metrics import many_runs, stream

    qrels, runs = random_files
    expected = "".join(alone(["-q", "-c"], qrels, run) for run in runs)
    streamed: list[str] = []
    original = stream.stream_run

    def counting(qrels_table, run_path, *args, **kwargs):
        streamed.append(str(run_path))
        return original(qrels_table, run_path, *args, **kwargs)

    monkeypatch.setattr(many_runs, "STREAM_FROM_BYTES", 0)  # every file counts as large
    monkeypatch.setattr(stream, "stream_run", counting)
    status, out, err = cli("-q", "-c", qrels, *runs)
    assert status == 0 and only_warnings(err)
    assert out == expected and sorted(streamed) == sorted(runs)


def test_a_run_given_twice_is_evaluated_twice():
    status, out, _ = cli(QRELS, RUNS[0], RUNS[0])
    assert status == 0
    assert out == (relabelled(alone([], QRELS, RUNS[0]), "STANDARD (results.test)")
                   + relabelled(alone([], QRELS, RUNS[0]), "STANDARD (results.test (2))"))


def test_a_missing_run_among_several_is_named_before_anything_is_printed(tmp_path):
    missing = str(tmp_path / "no-such.run")
    status, out, err = cli(QRELS, RUNS[0], missing, RUNS[1])
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "no-such.run" in err and "no such file" in err


def test_a_bad_run_stops_there_after_the_whole_blocks_of_the_runs_before_it(tmp_path):
    bad = tmp_path / "broken.run"
    bad.write_text("301 Q0 doc1 1 0.5 tag\n301 Q0 doc2 2 high tag\n")
    status, out, err = cli("-q", QRELS, RUNS[0], str(bad), RUNS[1])
    assert status == 2
    assert out == alone(["-q"], QRELS, RUNS[0])  # nothing of broken.run, nothing of the run after it
    assert err.count("\n") == 1 and "broken.run line 2" in err


def test_a_run_without_judged_queries_is_named(tmp_path):
    unjudged = tmp_path / "elsewhere.run"
    unjudged.write_text("999 Q0 doc1 1 0.5 tag\n")
    status, out, err = cli(QRELS, RUNS[0], str(unjudged))
    assert status == 2 and out == alone([], QRELS, RUNS[0])
    assert "no query of" in err and "elsewhere.run" in err


def test_standard_input_can_be_one_of_the_runs_but_only_once():
    command = [sys.executable, "-m", "metrics", "-q", QRELS, RUNS[0], "-", RUNS[1]]
    with open(RUNS[1], "rb") as stdin:
        done = subprocess.run(command, stdin=stdin, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == "".join(relabelled(alone(["-q"], QRELS, run), label) for run, label in
                                           [(RUNS[0], LABELS[0]), (RUNS[1], "STANDARD (standard input)"),
                                            (RUNS[1], LABELS[1])])
    status, out, err = cli(QRELS, "-", RUNS[0], "-")
    assert (status, out) == (2, "")
    assert "standard input" in err and "more than once" in err


def test_help_documents_several_runs():
    status, out, _ = cli("--help")
    assert status == 0
    assert "QRELS RUN [RUN ...]" in out and "Several RUNs" in out and "'-' (standard input) can be given once" in out


# ---- the library: one table ----------------------------------------------------------------------------------------


def pytrec_eval_values(qrels, run, measures, **options):
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures), **options).evaluate(run)


def test_the_table_holds_each_run_as_pytrec_eval_scores_it_alone_with_ties():
    rng = np.random.default_rng(7)
    qrels, _ = random_collection(rng, 40)
    runs = {f"system {i}": random_collection(np.random.default_rng(70 + i), 40)[1] for i in range(3)}
    for run in runs.values():
        pytrec_eval_safe(qrels, run)
    measures = ["map", "P.5", "ndcg_cut.10", "recip_rank", "bpref", "num_rel_ret"]
    table = metrics.evaluate_runs(qrels, runs, measures, relevance_level=2)
    assert list(table.columns) == ["run", "qid", "measure", "value"]
    assert list(dict.fromkeys(table["run"])) == list(runs)
    for name, run in runs.items():
        reference = pytrec_eval_values(qrels, run, ["map", "P", "ndcg_cut", "recip_rank", "bpref", "num_rel_ret"],
                                       relevance_level=2)
        ours = table[(table["run"] == name) & (table["qid"] != "all")]
        assert set(ours["qid"]) == set(reference)
        for row in ours.itertuples():
            assert row.value == pytest.approx(reference[row.qid][row.measure], abs=1e-12), (name, row)
        means = table[(table["run"] == name) & (table["qid"] == "all")].set_index("measure")["value"]
        for key in ("map", "P_5", "ndcg_cut_10", "recip_rank", "bpref"):
            assert means[key] == pytest.approx(np.mean([q[key] for q in reference.values()]), abs=1e-12)
        assert means["num_rel_ret"] == sum(q["num_rel_ret"] for q in reference.values())


def test_the_table_equals_evaluating_each_file_alone_and_takes_paths_tables_dicts_and_frames(random_files):
    import pandas as pd

    from metrics.io.trec import read_run

    qrels, paths = random_files
    frame = pd.DataFrame([{"qid": qid, "docno": doc, "score": score}
                          for qid, docs in read_run(paths[3]).to_dict().items() for doc, score in docs.items()])
    runs = {"path": paths[0], "table": read_run(paths[1]), "dict": read_run(paths[2]).to_dict(), "frame": frame}
    table = metrics.evaluate_runs(qrels, runs, ["map", "nDCG@10", "num_q", "gm_map"], missing_queries="zero")
    for name, path in zip(runs, paths):
        status, out, err = cli("-q", "-c", "-m", "map", "-m", "nDCG@10", "-m", "num_q", "-m", "gm_map", qrels, path)
        assert status == 0, err
        rows = (line.split("\t") for line in out.splitlines())
        printed = {(name_.rstrip(), qid): value for name_, qid, value in rows}
        rows = table[table["run"] == name]
        # The same lines (the table keeps the measures in the order asked, the command line in trec_eval's).
        assert {(m, qid): str(int(v)) if m == "num_q" else f"{v:6.4f}"
                for m, qid, v in zip(rows["measure"], rows["qid"], rows["value"])} == printed
        assert len(rows) == len(printed)
        queries = [qid for qid in dict.fromkeys(rows["qid"]) if qid != "all"]
        assert queries == sorted(queries) and rows["qid"].tolist()[-4:] == ["all"] * 4  # trec_eval -q's order


def test_the_table_refuses_more_runs_than_the_cap_and_bad_arguments():
    qrels = {"q1": {"d1": 1}}
    with pytest.raises(metrics.InputError, match=f"at most {MAX_RUNS} per call"):
        metrics.evaluate_runs(qrels, {str(i): {"q1": {"d1": 1.0}} for i in range(MAX_RUNS + 1)}, "map")
    with pytest.raises(metrics.InputError, match="Argument `runs` has to be a dict"):
        metrics.evaluate_runs(qrels, [{"q1": {"d1": 1.0}}], "map")
    with pytest.raises(metrics.InputError, match="at least one run"):
        metrics.evaluate_runs(qrels, {}, "map")
    with pytest.raises(metrics.InputError, match="has to be a finite number"):
        metrics.evaluate_runs(qrels, {"a": {"q1": {"d1": float("nan")}}}, "map")
    with pytest.raises(metrics.InputError, match="standard input"):
        metrics.evaluate_runs(qrels, {"a": "-", "b": "-"}, "map")
    with pytest.raises(metrics.InputError, match="Argument `workers` has to be a positive integer"):
        metrics.evaluate_runs(qrels, {"a": {"q1": {"d1": 1.0}}, "b": {"q1": {"d1": 1.0}}}, "map", workers=0)


def test_runs_whose_names_are_the_same_text_are_refused_not_merged_into_one_block():
    qrels = {"q1": {"d1": 1, "d2": 1}}
    runs = {1: {"q1": {"d1": 1.0}}, "1": {"q1": {"d2": 1.0, "d1": 0.5}}}
    with pytest.raises(metrics.InputError, match="runs 1 and '1' are both named '1'"):
        metrics.evaluate_runs(qrels, runs, "map")


def test_the_comparison_reads_its_runs_through_the_same_mechanism_and_gets_the_same_means(random_files):
    from metrics.compare import compare_many
    from metrics.io.trec import read_qrels, read_run

    qrels, paths = random_files
    from_files = compare_many(qrels, {"a": paths[0], "b": paths[1], "c": paths[2]}, ["map", "nDCG@10"])
    from_dicts = compare_many(read_qrels(qrels).to_dict(), {name: read_run(path).to_dict() for name, path in
                                                            zip("abc", paths)}, ["map", "nDCG@10"])
    assert from_files.means == from_dicts.means and from_files.pairs == from_dicts.pairs
    table = metrics.evaluate_runs(qrels, dict(zip("abc", paths)), ["map", "nDCG@10"])
    for measure in ("map", "nDCG@10"):
        for run in "abc":
            compared = from_files.queries[measure]  # the queries every run answers
            values = table[(table["run"] == run) & (table["measure"] == measure) & table["qid"].isin(compared)]
            assert dict(zip(values["qid"], values["value"])) == dict(zip(compared,
                                                                          from_files.values[measure][run].tolist()))


#: Two streamed runs evaluated at once in a fresh interpreter (its main thread is the one Ctrl-C interrupts, as in a
#: terminal), read in 4 KiB blocks. Each run is read twice (a contiguous pass that meets q0 again at the end, then
#: the grouped pass that writes temporary bucket files); each run's reader holds still PARK_AT blocks into its second
#: reading. Once both hold, the child says "inside" and every reader waits for the KeyboardInterrupt, so the
#: parent's SIGINT lands inside both grouped passes whatever the load and however the threads interleave (no count
#: shared by the two threads decides it). The child then prints how many blocks were read after that point and what
#: is left on disk. A hang prints every thread's stack (faulthandler) instead of timing out silently.
_CTRL_C_CHILD = """
import faulthandler, json, signal, sys, tempfile, threading
from pathlib import Path
faulthandler.dump_traceback_later(240, exit=True)
# As a terminal starts a command: Ctrl-C raises KeyboardInterrupt. A child inherits an ignored SIGINT (or a blocked
# one): a suite started in the background by a non-interactive shell (`make test &` in a script) runs with SIGINT
# ignored, as POSIX has it, and this child then never saw the parent's signal and hung until faulthandler ended it.
inherited = {"handler": repr(signal.getsignal(signal.SIGINT)),
             "blocked": signal.SIGINT in signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})}
signal.signal(signal.SIGINT, signal.default_int_handler)
from metrics import many_runs, stream
from metrics.cli import select_measures
from metrics.conventions import Conventions
from metrics.io.read import read_checked_qrels
from metrics.many_runs import evaluate_each
from metrics.stream import buckets, chunks

qrels, scratch, park_at, runs = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
tempfile.tempdir = str(scratch)
many_runs.STREAM_FROM_BYTES = 0  # every file streams
chunks._READ_STEP = 4096
original = stream.stream_run
stream.stream_run = lambda *args, **kwargs: original(*args, chunk_bytes=4096, **kwargs)
lock, inside, caught = threading.Lock(), threading.Event(), threading.Event()
openings, parked, counted = {}, [], {"blocks": 0, "at_inside": 0}
reading = chunks.open_run

def counting(path, *args, **kwargs):
    with lock:
        openings[str(path)] = openings.get(str(path), 0) + 1
        grouped = openings[str(path)] == 2
    for number, block in enumerate(reading(path, *args, **kwargs), 1):
        if inside.is_set():
            caught.wait()  # every reader waits until the KeyboardInterrupt is out of evaluate_each
        with lock:
            counted["blocks"] += 1
        if grouped and number == park_at:
            with lock:
                parked.append(str(path))
                last = len(parked) == len(runs)
                if last:
                    counted["at_inside"] = counted["blocks"]
            if last:
                inside.set()
                print(json.dumps({"inside": True, "temporary_files": any(scratch.iterdir()), "inherited": inherited}),
                      flush=True)
            caught.wait()
        yield block

chunks.open_run = stream.open_run = buckets.open_run = counting
measures = select_measures(["map"]).measures
table = read_checked_qrels(qrels, measures, Conventions())
try:
    list(evaluate_each(table, [(run, run) for run in runs], measures, Conventions(), workers=2))
    outcome = "finished"
except KeyboardInterrupt:
    outcome = "interrupted"
finally:
    caught.set()  # whatever happened, no reader is left waiting
for thread in threading.enumerate():
    if thread.name.startswith(("metrics-run", "metrics-stream")):
        thread.join()
print(json.dumps({"outcome": outcome, "blocks_after": counted["blocks"] - counted["at_inside"],
                  "left": sorted(path.name for path in scratch.iterdir())}), flush=True)
"""


def test_ctrl_c_during_several_streamed_runs_stops_them_promptly_and_removes_their_temporary_files(tmp_path):
    import json
    import signal

    lines = "".join(f"q{q} Q0 d{d} {d} {1000 - d} tag\n" for q in range(400) for d in range(100))
    runs = []
    for i in range(2):
        (tmp_path / f"run{i}.txt").write_text(lines + "q0 Q0 again 1 1 tag\n")  # q0 again at the end: grouped
        runs.append(str(tmp_path / f"run{i}.txt"))
    qrels = write_qrels(tmp_path / "qrels.txt", {"q0": {"d1": 1}})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    blocks = len(lines) // 4096  # blocks in one reading of a run
    child = subprocess.Popen([sys.executable, "-c", _CTRL_C_CHILD, qrels, str(scratch), "40", *runs],
                             cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        reached = json.loads(child.stdout.readline() or "{}")  # waits for the state, however long the load makes it
        inherited = reached.pop("inherited", None)  # what SIGINT was in the child before it reset it, for the report
        if reached != {"inside": True, "temporary_files": True}:
            child.kill()
            pytest.fail(f"the child did not reach both grouped passes: {reached}; {child.communicate()[1]}")
        child.send_signal(signal.SIGINT)  # Ctrl-C
        out, err = child.communicate(timeout=300)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 0, (inherited, err)
    report = json.loads(out)
    assert report["outcome"] == "interrupted"
    assert report["blocks_after"] <= 2 < 2 * blocks  # at most the block each reader held, not the rest of the runs
    assert report["left"] == []
