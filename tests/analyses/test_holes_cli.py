"""``python -m metrics -m Judged@10`` and ``--bounds``: trec_eval-style lines for the judgment holes."""

from __future__ import annotations

import io

import numpy as np
import pytest

import metrics
from metrics.cli import main
from metrics.holes import holes
from tests.support.strategies import random_collection

QRELS = "sweet_pastry 0 donut 1\nsweet_pastry 0 muffin 1\nsweet_pastry 0 scone 1\nother 0 x 2\n"
RUN = ("sweet_pastry Q0 donut 1 0.95 t\nsweet_pastry Q0 bagel 2 0.9 t\nsweet_pastry Q0 muffin 3 0.8 t\n"
       "sweet_pastry Q0 croissant 4 0.7 t\n")


def _run(tmp_path, *args, qrels=QRELS, run=RUN):
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    out, err = io.StringIO(), io.StringIO()
    status = main([*args, str(tmp_path / "qrels"), str(tmp_path / "run")], out, err)
    return status, out.getvalue(), err.getvalue()


def test_judged_at_10_prints_a_trec_eval_line(tmp_path):
    status, out, _ = _run(tmp_path, "-q", "-m", "Judged@10")
    assert status == 0
    # bagel and croissant are not in the qrels: 2 of the 4 documents retrieved are judged.
    assert out == f"{'Judged@10':<22}\tsweet_pastry\t0.5000\n{'Judged@10':<22}\tall\t0.5000\n"


def test_bounds_prints_low_and_high_after_each_value(tmp_path):
    status, out, err = _run(tmp_path, "-q", "--bounds", "-m", "P.4", "-m", "map", "-m", "num_rel")
    assert status == 0, err
    expected = []
    for qid in ("sweet_pastry", "all"):
        expected += [f"{'num_rel':<22}\t{qid}\t3", f"{'num_rel:low':<22}\t{qid}\t3", f"{'num_rel:high':<22}\t{qid}\t5",
                     f"{'map':<22}\t{qid}\t0.5556", f"{'map:low':<22}\t{qid}\t0.5556",
                     f"{'map:high':<22}\t{qid}\t0.8000",
                     f"{'P_4':<22}\t{qid}\t0.5000", f"{'P_4:low':<22}\t{qid}\t0.5000",
                     f"{'P_4:high':<22}\t{qid}\t1.0000"]
    assert out.splitlines() == expected


def test_without_bounds_the_output_is_unchanged(tmp_path):
    _, plain, _ = _run(tmp_path, "-q", "-m", "P.4")
    _, bounded, _ = _run(tmp_path, "-q", "--bounds", "-m", "P.4")
    assert [line for line in bounded.splitlines() if ":low" not in line and ":high" not in line] == plain.splitlines()


def _parse(out: str) -> dict[tuple[str, str], float]:
    return {(key.strip(), qid): float(value) for key, qid, value in (line.split("\t") for line in out.splitlines())}


@pytest.mark.parametrize("options,conventions", [
    ([], metrics.Conventions()),
    (["-c"], metrics.Conventions(missing_queries="zero")),
    (["-J"], metrics.Conventions(unjudged="removed")),
    (["-M", "6", "-l", "2"], metrics.Conventions(depth=6, relevance_level=2)),
], ids=["default", "-c", "-J", "-M6_-l2"])
def test_bounds_lines_are_the_library_holes_and_their_means(tmp_path, options, conventions):
    rng = np.random.default_rng(40)
    qrels, run = random_collection(rng, 60, max_docs=15)
    qrels = {qid.replace(" ", "_"): j for qid, j in qrels.items()}
    qrels_text = "".join(f"{q} 0 {d} {g}\n" for q, j in qrels.items() for d, g in j.items())
    run_text = "".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, scores in run.items() for d, s in scores.items())
    specs = ["P.5", "recall.10", "map", "ndcg_cut.10", "bpref", "Judged@10", "gm_map", "num_rel_ret"]
    args = ["-q", "--bounds", *options] + [a for spec in specs for a in ("-m", spec)]
    status, out, err = _run(tmp_path, *args, qrels=qrels_text, run=run_text)
    assert status == 0, err
    printed = _parse(out)
    table = holes(qrels, run, specs, conventions=conventions)
    means = table.means()
    for m in table.measures:
        for i, qid in enumerate(table.qids):
            # trec_eval 9.0.8 (the default build) prints no line for a query missing from the run, even under -c;
            # its values still count in the means below
            if m.info.per_query and qid in run:
                assert printed[(m.key + ":low", qid)] == pytest.approx(table.low[m.key][i], abs=5e-5)
                assert printed[(m.key + ":high", qid)] == pytest.approx(table.high[m.key][i], abs=5e-5)
        assert printed[(m.key + ":low", "all")] == pytest.approx(means[m.key].low, abs=5e-5)
        assert printed[(m.key + ":high", "all")] == pytest.approx(means[m.key].high, abs=5e-5)
        assert printed[(m.key + ":low", "all")] <= printed[(m.key, "all")] <= printed[(m.key + ":high", "all")]


def test_bounds_refuses_a_run_from_standard_input(tmp_path, monkeypatch):
    (tmp_path / "qrels").write_text(QRELS)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(RUN.encode())))
    out, err = io.StringIO(), io.StringIO()
    assert main(["--bounds", str(tmp_path / "qrels"), "-"], out, err) == 2
    assert err.getvalue() == "python -m metrics: --bounds reads the run a second time: give RUN as a file, not '-'\n"


def test_help_explains_bounds():
    out = io.StringIO()
    main(["--help"], out, io.StringIO())
    text = " ".join(out.getvalue().split())
    assert "--bounds" in text and "MEASURE:low and MEASURE:high" in text and "only the range between" in text


def test_bounds_with_several_runs_gives_each_block_its_own_lines(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "a").write_text(RUN)
    (tmp_path / "b").write_text(RUN.replace("bagel 2 0.9", "bagel 2 0.1"))  # bagel drops to rank 4
    out, err = io.StringIO(), io.StringIO()
    status = main(["--bounds", "-m", "P.2", str(tmp_path / "qrels"), str(tmp_path / "a"), str(tmp_path / "b")],
                  out, err)
    assert status == 0, err.getvalue()
    highs = [line.split("\t")[2] for line in out.getvalue().splitlines() if line.startswith("P_2:high")]
    assert highs == ["1.0000", "1.0000"]  # a: donut, bagel (unjudged); b: donut, muffin
    lows = [line.split("\t")[2] for line in out.getvalue().splitlines() if line.startswith("P_2:low")]
    assert lows == ["0.5000", "1.0000"]
