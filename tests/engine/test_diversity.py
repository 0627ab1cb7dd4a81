"""The TREC Web track's diversity measures against NIST's ndeval (through pyndeval, which compiles ndeval.c 4.5).

pyndeval orders a query's documents by score descending, ties by doc id ascending (its Python wrapper sorts
``(-score, docno)``) and reads scores as doubles: ``tie_order="docid_ascending", score_precision="float64"`` here.
ndeval itself orders by the rank column, or with ``-traditional`` by score then doc id descending: trec_eval's
order, this engine's default.
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

import metrics
from metrics import bulk, many_runs, stream
from metrics.cli import main
from metrics.io.trec import read_run, read_subtopic_qrels, read_subtopic_table
from metrics.measures import diversity
from metrics.names import parse_measure
from tests.support.paths import REPO

pyndeval = pytest.importorskip("pyndeval")

PYNDEVAL_ORDER = {"tie_order": "docid_ascending", "score_precision": "float64"}
NDEVAL_NAMES = ["ERR-IA@1", "ERR-IA@5", "ERR-IA@20", "nERR-IA@1", "nERR-IA@10", "alpha-DCG@1", "alpha-DCG@5",
                "alpha-DCG@20", "alpha-nDCG@1", "alpha-nDCG@5", "alpha-nDCG@20", "NRBP", "nNRBP", "MAP-IA", "P-IA@1",
                "P-IA@5", "P-IA@20", "strec@1", "strec@5", "strec@20"]


def random_collection(seed: int, queries: int = 25):
    """Subtopic qrels with grades 0-2 (a query in seven has no relevant subtopic), and a run with tied integer
    scores, unjudged documents and documents judged for some subtopics only."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(queries):
        subtopics = int(rng.integers(1, 6))
        docs = rng.choice(50, size=int(rng.integers(1, 20)), replace=False)
        judgments = {f"d{doc}": {str(s): int(rng.integers(0, 3)) if q % 7 != 3 else 0
                                 for s in rng.choice(subtopics, size=int(rng.integers(1, subtopics + 1)),
                                                     replace=False)}
                     for doc in docs}
        qrels[f"q{q}"] = judgments
        retrieved = rng.choice(50, size=int(rng.integers(1, 30)), replace=False)
        run[f"q{q}"] = {f"d{doc}": float(rng.integers(0, 6)) for doc in retrieved}
    return qrels, run


def ndeval(qrels, run, names, **kwargs):
    # pyndeval numbers subtopics in order of first appearance in the whole file, ndeval by their own numbers: a first
    # query no run answers, judging subtopics 0-9 in order, makes the two the same.
    lines = [("order", str(s), "d", 0) for s in range(10)]
    lines += [(qid, s, doc, grade) for qid, docs in qrels.items() for doc, grades in docs.items()
              for s, grade in grades.items()]
    scored = [(qid, doc, score) for qid, docs in run.items() for doc, score in docs.items()]
    return pyndeval.RelevanceEvaluator(lines, names, **kwargs).evaluate(scored)


def assert_agrees(ours, theirs, pairs, tolerance=0.0):
    assert set(ours) == set(theirs)
    for qid in theirs:
        for key, name in pairs:
            expected = theirs[qid][name]
            if math.isnan(expected):  # ndeval's nNRBP divides 0 by 0 for a query without a relevant subtopic
                assert ours[qid][key] == 0.0, (qid, key)
            else:
                assert abs(ours[qid][key] - expected) <= tolerance, (qid, key, ours[qid][key], expected)


@pytest.mark.parametrize("seed", [1, 2])
def test_every_measure_equals_ndeval_to_the_bit_on_random_tied_collections(seed):
    qrels, run = random_collection(seed)
    ours = metrics.evaluate(qrels, run, NDEVAL_NAMES, **PYNDEVAL_ORDER)
    assert_agrees(ours, ndeval(qrels, run, NDEVAL_NAMES), [(name, name) for name in NDEVAL_NAMES])


@pytest.mark.parametrize("alpha, beta, rel", [(0.7, 0.8, 1), (0.3, 0.5, 2), (1.0, 0.2, 1), (0.0, 0.9, 1)])
def test_alpha_beta_and_the_relevance_level_are_ndevals_parameters_to_the_bit(alpha, beta, rel):
    qrels, run = random_collection(3)
    names = ["alpha-nDCG@10", "alpha-DCG@20", "ERR-IA@20", "nERR-IA@5", "NRBP", "nNRBP", "MAP-IA", "P-IA@10",
             "strec@10"]
    specs = [f"alpha_nDCG(alpha={alpha},rel={rel})@10", f"alpha_DCG(alpha={alpha},rel={rel})@20",
             f"ERR_IA(alpha={alpha},rel={rel})@20", f"nERR_IA(alpha={alpha},rel={rel})@5",
             f"NRBP(alpha={alpha},beta={beta},rel={rel})", f"nNRBP(alpha={alpha},beta={beta},rel={rel})",
             f"AP_IA(rel={rel})", f"P_IA(rel={rel})@10", f"StRecall(rel={rel})@10"]
    ours = metrics.evaluate(qrels, run, specs, **PYNDEVAL_ORDER)
    theirs = ndeval(qrels, run, names, relevance_level=rel, alpha=alpha, beta=beta)
    keys = [parse_measure(spec)[0].key for spec in specs]
    assert_agrees(ours, theirs, list(zip(keys, names)))


def test_with_trec_evals_tie_order_the_values_are_ndevals_on_that_order():
    qrels, run = random_collection(4)
    ours = metrics.evaluate(qrels, run, NDEVAL_NAMES)  # ties by doc id descending, as ndeval -traditional
    in_order = {qid: {doc: -rank for rank, doc in enumerate(metrics.model.order_documents(scores))}
                for qid, scores in run.items()}
    assert_agrees(ours, ndeval(qrels, in_order, NDEVAL_NAMES), [(name, name) for name in NDEVAL_NAMES])


def test_ordinary_qrels_are_one_subtopic_per_query_as_in_ir_measures_pyndeval_provider():
    qrels, run = random_collection(5)
    best = {qid: {doc: max(grades.values()) for doc, grades in docs.items()} for qid, docs in qrels.items()}
    one_subtopic = {qid: {doc: {"0": grade} for doc, grade in docs.items()} for qid, docs in best.items()}
    ours = metrics.evaluate(best, run, NDEVAL_NAMES, **PYNDEVAL_ORDER)
    assert_agrees(ours, ndeval(one_subtopic, run, NDEVAL_NAMES), [(name, name) for name in NDEVAL_NAMES])


def test_ir_measures_pyndeval_provider_test_case():
    case = json.loads((REPO / "tests/data/ndeval/ir_measures_pyndeval.json").read_text())
    qrels = read_subtopic_qrels(case["subtopic_qrels"].encode())
    run = read_run(case["run"].encode()).to_dict()
    values = metrics.evaluate(qrels, run, [case["measure"]], **PYNDEVAL_ORDER)
    key = parse_measure(case["measure"])[0].key
    for qid, expected in case["expected"]["per_query"].items():
        assert round(values[qid][key], case["places"]) == expected
    assert round(metrics.aggregate(values)[key], case["places"]) == case["expected"]["all"]


def test_both_notations_name_the_same_numbers():
    qrels, run = random_collection(6, queries=5)
    pairs = [("alpha-nDCG@20", "alpha_nDCG@20"), ("alpha-nDCG@20", "α_nDCG@20"), ("ERR-IA@5", "ERR_IA@5"),
             ("MAP-IA", "AP_IA"), ("MAP-IA", "MAP_IA"), ("P-IA@10", "P_IA@10"), ("strec@10", "StRecall@10"),
             ("nNRBP", "nNRBP(alpha=0.5,beta=0.5)"), ("alpha-nDCG@5", "alpha-nDCG.5")]
    values = metrics.evaluate(qrels, run, [name for pair in pairs for name in pair])
    for ndeval_name, ir_name in pairs:
        ndeval_key, ir_key = parse_measure(ndeval_name)[0].key, parse_measure(ir_name)[0].key
        assert all(values[qid][ndeval_key] == values[qid][ir_key] for qid in values), (ndeval_name, ir_name)
    (with_alpha,) = parse_measure("alpha_nDCG(alpha=0.7)@20")
    assert with_alpha.key == "alpha_nDCG(alpha=0.7)@20" and parse_measure(with_alpha.key) == [with_alpha]


def test_a_query_without_a_relevant_subtopic_scores_zero_everywhere_and_an_absent_query_is_not_evaluated():
    qrels = {"q1": {"a": {"1": 0}, "b": {"2": 0}}, "q2": {"a": {"1": 1}}}
    values = metrics.evaluate(qrels, {"q1": {"a": 1.0, "b": 0.5}}, NDEVAL_NAMES)
    assert list(values) == ["q1"] and set(values["q1"].values()) == {0.0}


def test_cut_offs_beyond_ndevals_depth_and_alpha_outside_0_1_get_one_message():
    qrels, run = {"q": {"a": {"1": 1}}}, {"q": {"a": 1.0}}
    with pytest.raises(metrics.InputError, match="ndeval computes alpha-nDCG down to rank 20 at most"):
        metrics.evaluate(qrels, run, "alpha-nDCG@21")
    with pytest.raises(metrics.InputError, match="alpha=1.5"):
        metrics.evaluate(qrels, run, "alpha_nDCG(alpha=1.5)@20")
    with pytest.raises(metrics.InputError, match="subtopic qrels map each document to its grades per subtopic"):
        metrics.evaluate({"q": {"a": {}}}, run, "alpha-nDCG@20")


def test_the_command_line_reads_subtopic_qrels_for_the_diversity_measures(tmp_path):
    case = json.loads((REPO / "tests/data/ndeval/ir_measures_pyndeval.json").read_text())
    (tmp_path / "qrels").write_text(case["subtopic_qrels"])
    (tmp_path / "run").write_text(case["run"])
    out, err = io.StringIO(), io.StringIO()
    status = main(["-q", "-m", "ERR-IA@20", "-m", "P.5", str(tmp_path / "qrels"), str(tmp_path / "run")], out, err)
    assert (status, err.getvalue()) == (0, "")
    lines = [line.split("\t") for line in out.getvalue().splitlines()]
    assert [(name.strip(), qid, value) for name, qid, value in lines if name.startswith("ERR")] == [
        ("ERR-IA@20", "0", "0.4659"), ("ERR-IA@20", "1", "0.1803"), ("ERR-IA@20", "all", "0.3231")]
    # P@5 sees each document's largest grade: query 0 retrieves D1, D2 and D3 relevant to some subtopic.
    assert ["P_5", "0", "0.6000"] in [[name.strip(), qid, value] for name, qid, value in lines]


@pytest.mark.parametrize("flags", [[], ["-J", "-l", "2"], ["-c", "-M", "5", "--tie-order", "docid_ascending"]])
def test_the_command_lines_bulk_path_prints_the_librarys_values(tmp_path, flags):
    qrels, run = random_collection(11, queries=20)
    run["unjudged query"] = {"d1": 1.0}
    del run["q5"]  # a judged query the run lacks (-c counts it)
    (tmp_path / "qrels").write_text("".join(f"{qid} {s} {doc} {grade}\n" for qid, docs in qrels.items()
                                            for doc, grades in docs.items() for s, grade in grades.items()))
    (tmp_path / "run").write_text("".join(f"{qid.replace(' ', '_')} Q0 {doc} 0 {score} tag\n"
                                          for qid, docs in run.items() for doc, score in docs.items()))
    specs = [*NDEVAL_NAMES, "P.5", "map", "ndcg_cut.10", "nDCG(judged_only=True)@10"]
    argv = ["-q", *flags, *[arg for spec in specs for arg in ("-m", spec)], str(tmp_path / "qrels"),
            str(tmp_path / "run")]
    out, err = io.StringIO(), io.StringIO()
    assert (main(argv, out, err), err.getvalue()) == (0, "")
    printed = {(name.strip(), qid): value for name, qid, value in (line.split("\t")
                                                                  for line in out.getvalue().splitlines())}
    conventions = metrics.cli.conventions_from(metrics.cli.build_parser().parse_args(argv))
    expected = metrics.evaluate(qrels, run, specs, conventions=conventions)
    assert {(key, qid): f"{value:.4f}" for qid, values in expected.items() for key, value in values.items()
            } == {pair: value for pair, value in printed.items() if pair[1] != "all"}


def test_queries_with_more_subtopics_than_bits_take_the_per_query_ideal():
    rng = np.random.default_rng(9)
    docs = [f"d{i}" for i in range(30)]
    qrels = {f"q{q}": {doc: {str(s): int(rng.integers(0, 2)) for s in rng.choice(70, size=5, replace=False)}
                       for doc in docs} for q in range(3)}
    run = {qid: {doc: float(rng.integers(0, 5)) for doc in rng.choice(docs, size=20, replace=False)} for qid in qrels}
    names = ["alpha-nDCG@20", "nERR-IA@10", "nNRBP", "MAP-IA"]
    lines = [("order", str(s), "d", 0) for s in range(70)]
    lines += [(qid, s, doc, grade) for qid, judged in qrels.items() for doc, grades in judged.items()
              for s, grade in grades.items()]
    scored = [(qid, doc, score) for qid, scores in run.items() for doc, score in scores.items()]
    theirs = pyndeval.RelevanceEvaluator(lines, names).evaluate(scored)
    assert_agrees(metrics.evaluate(qrels, run, names, **PYNDEVAL_ORDER), theirs, [(name, name) for name in names])


def write_subtopic_files(tmp_path, qrels, run, shuffled: bool = False):
    """The collection as files: subtopic qrels, and the run with each query's lines together (or shuffled)."""
    (tmp_path / "qrels").write_text("".join(f"{qid} {s} {doc} {grade}\n" for qid, docs in qrels.items()
                                            for doc, grades in docs.items() for s, grade in grades.items()))
    lines = [f"{qid.replace(' ', '_')} Q0 {doc} 0 {score} tag\n" for qid, docs in run.items()
             for doc, score in docs.items()]
    if shuffled:
        lines = [lines[i] for i in np.random.default_rng(0).permutation(len(lines))]
    (tmp_path / "run").write_text("".join(lines))
    return tmp_path / "qrels", tmp_path / "run"


def stream_collection(seed: int):
    qrels, run = random_collection(seed, queries=30)
    run["unjudged query"] = {"d1": 1.0}
    del run["q5"], run["q12"]  # judged queries the run lacks (-c scores them)
    return qrels, run


STREAMED_MEASURES = [*NDEVAL_NAMES, "P.5", "map", "ndcg_cut.10", "nDCG(judged_only=True)@10", "num_q", "num_rel",
                     "num_ret"]
STREAMED_CONVENTIONS = [metrics.Conventions(), metrics.Conventions(unjudged="removed", relevance_level=2),
                        metrics.Conventions(missing_queries="zero", depth=5, tie_order="docid_ascending"),
                        metrics.Conventions(missing_queries="zero", missing_ranking="placeholder"),
                        metrics.Conventions(tie_order="as_given", score_precision="float64")]


@pytest.mark.parametrize("conv", STREAMED_CONVENTIONS, ids=lambda c: c.describe())
@pytest.mark.parametrize("shuffled", [False, True], ids=["contiguous", "shuffled"])
def test_a_run_streamed_in_chunks_against_subtopic_qrels_gives_the_whole_files_values_to_the_bit(
        tmp_path, conv, shuffled):
    qrels, run = stream_collection(21)
    qrels_path, run_path = write_subtopic_files(tmp_path, qrels, run, shuffled=shuffled)
    matrix = bulk.subtopic_matrix(read_subtopic_table(qrels_path))
    measures = [measure for spec in STREAMED_MEASURES for measure in metrics.names.parse_measure(spec)]
    run = read_run(run_path)
    qids, values = bulk.evaluate_subtopic_run(matrix, run, measures, conv)
    order = sorted(range(len(qids)), key=qids.__getitem__)
    expected_missing = tuple(sorted(set(qrels) - set(run.qids)))
    # 1 byte: every query its own chunk; 10**6: the whole run in one chunk.
    for chunk_bytes in (1, 90, 700, 10**6):
        streamed = stream.stream_subtopic_run(matrix, run_path, measures, conv, chunk_bytes=chunk_bytes)
        assert streamed.grouped == (shuffled and chunk_bytes < 10**6)
        assert streamed.qids == [qids[i] for i in order]
        assert streamed.missing == expected_missing
        for measure in measures:
            # The bits of each double: -0.0 and 0.0 or two NaNs differ here as printed values would not show.
            assert streamed.values[measure.key].view(np.uint64).tolist() == \
                values[measure.key][order].view(np.uint64).tolist(), (chunk_bytes, measure.key)
    if conv.missing_queries == "zero":
        assert {"q5", "q12"} <= set(streamed.qids)


@pytest.mark.parametrize("flags", [["-q"], ["-q", "-J", "-l", "2"], ["-q", "-c", "-M", "5"],
                                   ["-q", "-c", "--trec-eval", "10.0"], ["-c"]])
@pytest.mark.parametrize("shuffled", [False, True], ids=["contiguous", "shuffled"])
def test_the_command_line_prints_the_same_bytes_with_the_subtopic_run_streamed(tmp_path, monkeypatch, flags,
                                                                               shuffled):
    qrels_path, run_path = write_subtopic_files(tmp_path, *stream_collection(22), shuffled=shuffled)
    chunks = []
    real = stream.stream_subtopic_run

    def in_small_chunks(*args, **kwargs):
        chunks.append(True)
        return real(*args, **kwargs, chunk_bytes=100)

    monkeypatch.setattr(stream, "stream_subtopic_run", in_small_chunks)
    argv = [*flags, *[arg for spec in STREAMED_MEASURES for arg in ("-m", spec)], str(qrels_path), str(run_path)]
    outputs = []
    for threshold in (1 << 62, 0):  # read whole, then streamed
        monkeypatch.setattr(many_runs, "STREAM_FROM_BYTES", threshold)
        out, err = io.StringIO(), io.StringIO()
        assert (main(argv, out, err), err.getvalue()) == (0, "")
        outputs.append(out.getvalue())
    assert chunks == [True] and outputs[0] == outputs[1]


def wide_collection(seed: int):
    """Queries of 70 to 200 subtopics (past the greedy's 62 bits): documents alone on their subtopics, documents
    sharing one set, and documents with overlapping sets, with tied scores."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(4):
        width = int(rng.integers(70, 200))
        judged = {}
        for i in range(int(rng.integers(20, 60))):
            kind = i % 3
            if kind == 0:  # alone: subtopics nobody else has
                chosen = [width + 4 * i + s for s in range(int(rng.integers(1, 4)))]
            elif kind == 1:  # one set shared by many documents
                chosen = [1, 5, 9]
            else:
                chosen = rng.choice(width, size=int(rng.integers(1, 8)), replace=False).tolist()
            judged[f"d{i}"] = {str(s): int(rng.integers(0, 3)) for s in chosen}
        qrels[f"q{q}"] = judged
        run[f"q{q}"] = {doc: float(rng.integers(0, 4)) for doc in rng.choice(list(judged), size=20, replace=False)}
    return qrels, run


def test_wide_queries_take_the_sparse_greedy_ideal_and_equal_ndeval_to_the_bit(monkeypatch):
    qrels, run = wide_collection(31)
    names = ["alpha-nDCG@20", "nERR-IA@10", "nNRBP", "MAP-IA", "P-IA@20", "strec@20"]
    # pyndeval numbers subtopics in order of first appearance, ndeval by their numbers: a first query judging them
    # all in order makes the two the same.
    used = sorted({int(s) for judged in qrels.values() for grades in judged.values() for s in grades})
    lines = [("order", str(s), "d", 0) for s in used]
    lines += [(qid, s, doc, grade) for qid, judged in qrels.items() for doc, grades in judged.items()
              for s, grade in grades.items()]
    scored = [(qid, doc, score) for qid, scores in run.items() for doc, score in scores.items()]
    for rel in (1, 2):
        theirs = pyndeval.RelevanceEvaluator(lines, names, relevance_level=rel).evaluate(scored)
        ours = metrics.evaluate(qrels, run, names, **PYNDEVAL_ORDER, relevance_level=rel)
        assert_agrees(ours, theirs, [(name, name) for name in names])
    # Every query of the narrow collections through the sparse greedy too: the same values as through the bits.
    qrels, run = random_collection(1)
    through_bits = metrics.evaluate(qrels, run, NDEVAL_NAMES, **PYNDEVAL_ORDER)
    monkeypatch.setattr(diversity, "_BITS_CELLS", -1)
    assert metrics.evaluate(qrels, run, NDEVAL_NAMES, **PYNDEVAL_ORDER) == through_bits


def test_twenty_thousand_subtopics_take_memory_linear_in_the_judgments():
    qrels = {"q": {f"d{i}": {str(i): 1} for i in range(20_000)}}
    run = {"q": {f"d{i}": float(-i) for i in range(0, 20_000, 200)}}
    values = metrics.evaluate(qrels, run, ["alpha-nDCG@20", "nNRBP", "MAP-IA"])["q"]
    # Every document covers a subtopic of its own: the ideal gains 1 at every rank, as does the run.
    assert values["alpha-nDCG@20"] == 1.0 and values["nNRBP"] == 1.0
    assert values["MAP-IA"] == pytest.approx(sum(1 / rank for rank in range(1, 101)) / 20_000, rel=1e-12)


def test_an_ideal_ranking_past_the_greedys_bound_is_refused_naming_it_and_the_measures_without_one_still_score(
        monkeypatch):
    # Every document shares subtopic 0 and has one of its own: with alpha near 0 each step changes every one's gain.
    qrels = {"q": {f"d{i}": {"0": 1, str(i + 1): 1} for i in range(1_000)}}
    run = {"q": {"d1": 1.0}}
    with monkeypatch.context() as patch, pytest.raises(
            metrics.InputError, match="ndeval's greedy ideal ranking of it takes more than 100,000 gain sums, the "
                                      "limit per query") as refused:
        patch.setattr(diversity, "MAX_IDEAL_SUMS", 100_000)  # 1,000 x 1,000 steps: about 2,000,000
        metrics.evaluate(qrels, run, ["nERR_IA(alpha=0.001)@20"])
    assert str(refused.value).startswith("nERR-IA: a query has 1,000 documents relevant to overlapping sets of its "
                                         "1,001 subtopics (1,000 different sets)") and "\n" not in str(refused.value)
    # At alpha = 0.5 the shared gain soon stops telling documents apart: within the bound.
    assert metrics.evaluate(qrels, run, ["alpha-nDCG@20"])["q"]["alpha-nDCG@20"] > 0
    assert metrics.evaluate(qrels, run, ["alpha_DCG(alpha=0.001)@1"])["q"]["alpha_DCG(alpha=0.001)@1"] == 2.0
