"""DataFrames and Arrow tables in: the same numbers as the dicts and as pytrec_eval, and one clear line for bad rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval

import metrics
from metrics import Conventions, InputError
from metrics.frames import evaluate_frames
from metrics.io.frames import qrels_table, run_table

MEASURES = ["map", "P.5", "recall.10", "ndcg", "ndcg_cut.10", "recip_rank", "bpref", "Rprec", "num_rel_ret"]


def random_data(seed: int, queries: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A qrels and a run frame with ties (scores on a coarse grid), graded and negative labels, queries without
    judgments and judged queries without a run."""
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for q in range(queries):
        qid = f"q{q}"
        docs = [f"d{d}" for d in rng.choice(60, size=int(rng.integers(1, 30)), replace=False)]
        if q % 7 != 3:  # some queries have no run
            run_rows += [(qid, doc, float(rng.integers(0, 5)) / 4, rank) for rank, doc in enumerate(docs)]
        if q % 9 != 4:  # and some no judgments
            judged = rng.choice(60, size=int(rng.integers(1, 15)), replace=False)
            qrels_rows += [(qid, f"d{d}", int(rng.integers(-1, 4))) for d in judged]
    run = pd.DataFrame(run_rows, columns=["qid", "docno", "score", "rank"])
    qrels = pd.DataFrame(qrels_rows, columns=["qid", "docno", "label"])
    return qrels, run.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # rows in no order


def as_dicts(qrels: pd.DataFrame, run: pd.DataFrame) -> tuple[dict, dict]:
    qrels_dict: dict = {}
    for qid, doc, label in qrels[["qid", "docno", "label"]].itertuples(index=False):
        qrels_dict.setdefault(qid, {})[doc] = int(label)
    run_dict: dict = {}
    for qid, doc, score in run[["qid", "docno", "score"]].itertuples(index=False):
        run_dict.setdefault(qid, {})[doc] = float(score)
    return qrels_dict, run_dict


@pytest.mark.parametrize("seed", range(4))
def test_frames_give_the_dict_values_and_pytrec_evals(seed: int) -> None:
    qrels, run = random_data(seed)
    qrels_dict, run_dict = as_dicts(qrels, run)
    from_frames = metrics.evaluate(qrels, run, MEASURES)
    assert from_frames == metrics.evaluate(qrels_dict, run_dict, MEASURES)
    reference = pytrec_eval.RelevanceEvaluator(qrels_dict, set(MEASURES)).evaluate(run_dict)
    assert set(from_frames) == set(reference)
    for qid, values in from_frames.items():
        for key, value in values.items():
            assert value == pytest.approx(reference[qid][key], abs=1e-12), (qid, key)


def test_arrow_tables_and_frames_in_ir_measures_and_ranx_columns_agree() -> None:
    qrels, run = random_data(11)
    expected = metrics.evaluate(qrels, run, MEASURES)
    ir_measures_qrels = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    ir_measures_run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
    assert metrics.evaluate(ir_measures_qrels, ir_measures_run, MEASURES) == expected
    ranx_qrels = qrels.rename(columns={"qid": "q_id", "docno": "doc_id", "label": "score"})
    ranx_run = run.rename(columns={"qid": "q_id", "docno": "doc_id"})
    assert metrics.evaluate(ranx_qrels, ranx_run, MEASURES) == expected
    assert metrics.evaluate(pa.Table.from_pandas(qrels), pa.Table.from_pandas(run), MEASURES) == expected
    # A frame beside a dict: the dict is read as a table too.
    assert metrics.evaluate(as_dicts(qrels, run)[0], run, MEASURES) == expected


def test_the_rank_column_is_ignored_as_trec_eval_ignores_ranks() -> None:
    qrels = pd.DataFrame({"qid": ["q"], "docno": ["a"], "label": [1]})
    run = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "score": [1.0, 2.0], "rank": [0, 1]})
    assert metrics.evaluate(qrels, run, ["recip_rank"])["q"]["recip_rank"] == 0.5


def test_float64_scores_equal_in_float32_tie_and_break_by_docno_descending_like_trec_eval() -> None:
    qrels = pd.DataFrame({"qid": ["q"], "docno": ["a"], "label": [1]})
    run = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "score": [0.1, 0.1 + 1e-12]})
    assert metrics.evaluate(qrels, run, ["recip_rank"])["q"]["recip_rank"] == 0.5  # tied: b before a
    assert metrics.evaluate(qrels, run, ["recip_rank"], score_precision="float64")["q"]["recip_rank"] == 0.5
    run.loc[0, "score"] = 0.1 + 2e-12
    assert metrics.evaluate(qrels, run, ["recip_rank"], score_precision="float64")["q"]["recip_rank"] == 1.0
    qrels_dict, run_dict = as_dicts(qrels, run)
    assert metrics.evaluate(qrels, run, ["recip_rank"]) == pytrec_eval.RelevanceEvaluator(
        qrels_dict, {"recip_rank"}).evaluate(run_dict)


def test_categorical_and_integer_query_ids_are_read_as_their_text() -> None:
    qrels, run = random_data(5)
    expected = metrics.evaluate(qrels, run, MEASURES)
    categorical = run.assign(qid=run["qid"].astype("category"), docno=run["docno"].astype("category"))
    assert metrics.evaluate(qrels.assign(qid=qrels["qid"].astype("category")), categorical, MEASURES) == expected
    numbered_run = run.assign(qid=run["qid"].str[1:].astype(np.int64))
    numbered_qrels = qrels.assign(qid=qrels["qid"].str[1:].astype(np.int32))
    assert metrics.evaluate(numbered_qrels, numbered_run, MEASURES) == {
        qid[1:]: values for qid, values in expected.items()}


def test_whole_float_labels_are_grades_as_in_the_dict_path() -> None:
    qrels, run = random_data(3)
    assert metrics.evaluate(qrels.assign(label=qrels["label"].astype(float)), run, MEASURES) == metrics.evaluate(
        qrels, run, MEASURES)


def test_empty_frames_evaluate_to_nothing() -> None:
    qrels = pd.DataFrame({"qid": pd.Series([], dtype=object), "docno": pd.Series([], dtype=object),
                          "label": pd.Series([], dtype=np.int64)})
    run = pd.DataFrame({"qid": pd.Series([], dtype=object), "docno": pd.Series([], dtype=object),
                        "score": pd.Series([], dtype=np.float64)})
    assert metrics.evaluate(qrels, run, ["map"]) == {}  # pytrec_eval's shape: no query, no entry
    # A mean over no query would be a number describing nothing: refused, as trec_eval and the command line do.
    with pytest.raises(InputError, match="nothing to evaluate"):
        evaluate_frames(qrels, run, ["map"])


def test_query_ids_written_differently_are_refused_not_averaged_to_zero() -> None:
    qrels = pd.DataFrame({"qid": ["01", "02"], "docno": ["a", "b"], "label": [1, 1]})
    run = pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "b"], "score": [1.0, 1.0]})
    with pytest.raises(InputError, match="nothing to evaluate .*'1' and not '01'"):
        evaluate_frames(qrels, run, ["map"])
    with pytest.raises(InputError, match="no query of run 'bm25' has judgments"):
        metrics.evaluate_runs(qrels, {"bm25": run}, ["map"])


def test_conventions_and_trec_eval_flags_reach_the_frame_path() -> None:
    qrels, run = random_data(8)
    qrels_dict, run_dict = as_dicts(qrels, run)
    for options in ({"judged_docs_only": True}, {"relevance_level": 2}, {"depth": 5},
                    {"missing_queries": "zero"}, {"gain": "exponential"}, {"tied_gains": "averaged"},
                    {"conventions": Conventions(tie_order="docid_ascending")}):
        assert metrics.evaluate(qrels, run, MEASURES, **options) == metrics.evaluate(
            qrels_dict, run_dict, MEASURES, **options), options


def test_evaluate_frames_returns_per_query_rows_sorted_by_qid_and_the_means_of_aggregate() -> None:
    qrels, run = random_data(2)
    per_query, means = evaluate_frames(qrels, run, ["map", "P.5", "num_ret"])
    assert list(per_query["qid"]) == sorted(per_query["qid"])
    as_dict = metrics.evaluate(qrels, run, ["map", "P.5", "num_ret"])
    assert means == metrics.aggregate(as_dict)  # the same sums in the same order: equal to the last bit
    assert per_query.set_index("qid").to_dict("index") == as_dict


# ---- refusals: one line naming the input, the column, the row and the fix --------------------------


def refusal(qrels: pd.DataFrame, run: pd.DataFrame) -> str:
    with pytest.raises(InputError) as error:
        metrics.evaluate(qrels, run, ["map"])
    message = str(error.value)
    assert "\n" not in message
    return message


QRELS = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "label": [1, 0]})
RUN = pd.DataFrame({"qid": ["q", "q", "q"], "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})


def test_a_nan_score_is_refused_with_its_row() -> None:
    message = refusal(QRELS, RUN.assign(score=[3.0, np.nan, 1.0]))
    assert message.startswith("run row 1, column 'score': the score is missing") and "finite numbers" in message
    assert "inf" in refusal(QRELS, RUN.assign(score=[3.0, 2.0, np.inf]))


def test_a_missing_id_is_refused_with_its_row() -> None:
    assert refusal(QRELS, RUN.assign(docno=["a", None, "c"])).startswith(
        "run row 1, column 'docno': the document id is missing")
    assert refusal(QRELS.assign(qid=["q", None]), RUN).startswith("qrels row 1, column 'qid': the query id is missing")


def test_ids_with_control_characters_or_empty_are_refused_as_the_readers_do() -> None:
    assert "contains a line break" in refusal(QRELS, RUN.assign(docno=["a", "b\nq 0 x", "c"]))
    assert "run row 2, column 'docno'" in refusal(QRELS, RUN.assign(docno=["a", "b", ""]))


def test_a_repeated_pair_names_both_rows() -> None:
    message = refusal(QRELS, RUN.assign(docno=["a", "b", "a"]))
    assert message == ("run row 2: document 'a' of query 'q' already appears in row 0; keep one row per (qid, docno)")
    assert "qrels row 1: judgment 'a'" in refusal(QRELS.assign(docno=["a", "a"]), RUN)


def test_a_fractional_or_missing_label_is_refused() -> None:
    assert refusal(QRELS.assign(label=[1.5, 0.0]), RUN).startswith(
        "qrels row 0, column 'label': the grade is 1.5; grades have to be whole numbers")
    assert "missing" in refusal(QRELS.assign(label=[1.0, np.nan]), RUN)
    assert refusal(QRELS.assign(label=["1", "0"]), RUN).startswith(
        "qrels, column 'label': grades have to be whole numbers, got")


def test_missing_and_doubled_columns_are_named() -> None:
    assert refusal(QRELS, RUN.drop(columns="score")).startswith("run: no column of scores; name it 'score'")
    assert "both 'qid' and 'query_id'" in refusal(QRELS, RUN.assign(query_id=RUN["qid"]))
    assert refusal(RUN, QRELS).endswith("it has 'label': are qrels and run swapped? (the order is qrels, run)")
    assert "text or integers" in refusal(QRELS, RUN.assign(qid=[1.0, 1.0, 1.0]))


def test_a_grade_too_large_for_exponential_gain_names_its_row() -> None:
    with pytest.raises(InputError, match="qrels row 1: grade 5000 is too large for exponential gain"):
        metrics.evaluate(QRELS.assign(label=[1, 5000]), RUN, ["ndcg"], gain="exponential")


def test_tables_are_built_from_columns_without_a_python_object_per_row() -> None:
    qrels, run = random_data(1)
    table = run_table(pa.Table.from_pandas(run))
    assert isinstance(table.qid, pa.Array) and table.score.dtype == np.float64 and len(table) == len(run)
    assert qrels_table(qrels).grade.dtype == np.int64


def test_a_control_character_after_non_ascii_text_or_in_a_slice_is_found_in_its_row() -> None:
    run = pd.DataFrame({"qid": ["q"] * 4, "docno": ["naïve", "日本", "é\x01", "ok"], "score": [4.0, 3.0, 2.0, 1.0]})
    assert refusal(QRELS, run).startswith("run row 2, column 'docno': document id 'é\\x01' contains the control")
    sliced = pa.Table.from_pandas(run).slice(1, 2)  # an arrow slice starts inside the buffers
    with pytest.raises(InputError, match="^run row 1, column 'docno'"):
        metrics.evaluate(QRELS, sliced, ["map"])


def test_the_bulk_path_takes_frames_and_gives_the_means_of_the_files(tmp_path) -> None:
    from metrics.bulk import evaluate_files, evaluate_tables

    qrels, run = random_data(6)
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels.itertuples(index=False)))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} {r} {s!r} tag\n"
                                          for q, d, s, r in run.itertuples(index=False)))
    qids, values, means = evaluate_tables(qrels, pa.Table.from_pandas(run), MEASURES)
    file_qids, file_values, file_means = evaluate_files(tmp_path / "qrels", tmp_path / "run", MEASURES)
    assert means == file_means and sorted(qids) == sorted(file_qids)


def test_pyterrier_retrieval_output_with_docid_and_docno_is_read_by_its_docno() -> None:
    """PyTerrier's transformers return ``qid, docid, docno, rank, score, query``: docid is Terrier's internal
    integer id, docno the document's name, the one qrels use."""
    results = pd.DataFrame({"qid": ["1", "1", "2"], "docid": [10, 11, 12], "docno": ["d10", "d11", "d12"],
                            "rank": [0, 1, 0], "score": [2.0, 1.0, 3.0], "query": ["a", "a", "b"]})
    qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["d11", "d12"], "label": [1, 1]})
    expected = {"1": {"map": 0.5}, "2": {"map": 1.0}}
    assert metrics.evaluate(qrels, results, ["map"]) == expected
    assert metrics.evaluate(qrels.assign(docid=[1, 2]), results, ["map"]) == expected
    assert evaluate_frames(qrels, results, ["map"]).means == {"map": 0.75}


@pytest.mark.parametrize("label", [np.array([1, 2**63], dtype=np.uint64), pd.Series([1, 2**70], dtype=object)])
def test_a_grade_beyond_64_bits_is_out_of_range_naming_its_row_as_in_the_dict_path(label) -> None:
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "label": label})
    with pytest.raises(InputError, match=r"^qrels row 1, column 'label': grade \d+ is out of range; grades are whole "
                                         r"numbers from -2\^63 to 2\^63-1"):
        qrels_table(frame)
    with pytest.raises(InputError, match="is out of range; grades are whole numbers from -2\\^63 to 2\\^63-1"):
        metrics.evaluate({"q1": {"a": 1, "b": int(label[1])}}, {"q1": {"a": 1.0}}, "map")


def test_a_column_error_lists_every_column_of_the_frame() -> None:
    assert refusal(QRELS, pd.DataFrame({"query": ["q"], "doc": ["a"], "s": [1.0]})).endswith(
        "(columns: query, doc, s)")
    assert refusal(RUN, QRELS).endswith("(columns: qid, docno, label); it has 'label': are qrels and run swapped? "
                                        "(the order is qrels, run)")


def test_a_dictionary_of_one_long_id_over_many_rows_is_refused_before_it_is_expanded() -> None:
    # 100,000 rows of one 100,000-character docno: 400 KB of indices that expand to 10 GB. Refused from the
    # dictionary's lengths, as the Parquet reader refuses such a file; a categorical that expands little is read.
    rows = 100_000
    docno = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, dtype=np.int32)), pa.array(["x" * 100_000]))
    table = pa.table({"qid": pa.array([f"q{i}" for i in range(rows)]), "docno": docno, "score": np.zeros(rows)})
    with pytest.raises(metrics.InputError, match=r"run: its columns take more than 100 times the table's size "
                                                 r"\(2\.2 MiB\) once decoded, past the cap of 218 MiB"):
        run_table(table)
    small = table.set_column(1, "docno", pa.DictionaryArray.from_arrays(docno.indices, pa.array(["d1"])))
    assert run_table(small).docno[0].as_py() == "d1"
