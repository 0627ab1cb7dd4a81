"""metrics.dask on a real cluster of two worker processes: the single-machine numbers, to the last bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import metrics  # noqa: E402
import metrics.dask  # noqa: E402
from metrics import InputError  # noqa: E402
from metrics.bulk import evaluate_files  # noqa: E402
from metrics.frames import evaluate_frames  # noqa: E402
from tests.io.test_frames import MEASURES, as_dicts, random_data  # noqa: E402
from tests.support.paths import TEST_DATA  # noqa: E402

DATA = TEST_DATA / "trec_eval"


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       memory_limit="1GiB")
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def spread(frame: pd.DataFrame, partitions: int) -> dd.DataFrame:
    """A Dask frame whose partitions cut through queries (the rows are in random order)."""
    return dd.from_pandas(frame, npartitions=partitions, sort=False)


def assert_identical(left, right) -> None:
    left_rows, left_means = left
    right_rows, right_means = right
    pd.testing.assert_frame_equal(left_rows, right_rows, check_exact=True)
    assert left_means == right_means  # == on floats: the same bits


@pytest.mark.parametrize("seed", [0, 1])
def test_the_cluster_gives_the_single_machine_values_and_means_bit_for_bit(client, seed: int) -> None:
    qrels, run = random_data(seed, queries=120)
    partitions = spread(run, 5)
    split = run.assign(part=np.repeat(np.arange(5), -(-len(run) // 5))[:len(run)]).groupby("qid")["part"].nunique()
    assert (split > 1).sum() > 20  # many queries start in one partition and end in another
    on_cluster = metrics.dask.evaluate(spread(qrels, 3), partitions, MEASURES, npartitions=4)
    single = evaluate_frames(qrels, run, MEASURES)
    assert_identical(on_cluster, single)
    assert on_cluster.per_query.set_index("qid").to_dict("index") == metrics.evaluate(*as_dicts(qrels, run), MEASURES)


@pytest.mark.parametrize("options", [{"missing_queries": "zero"}, {"depth": 3}, {"judged_docs_only": True},
                                     {"relevance_level": 2, "gain": "exponential"},
                                     {"missing_queries": "zero", "relevance_level": 2, "trec_eval": "10.0"}])
def test_trec_eval_flags_c_M_J_l_give_the_single_machine_numbers(client, options) -> None:
    qrels, run = random_data(7, queries=60)
    measures = [*MEASURES, "num_rel", "utility.1,-1,-2,0"]  # -c's num_rel all-line; 10.0's placeholder utility
    assert_identical(metrics.dask.evaluate(spread(qrels, 2), spread(run, 3), measures, **options),
                     evaluate_frames(qrels, run, measures, **options))


def test_more_partitions_than_queries_and_a_pandas_qrels(client) -> None:
    qrels, run = random_data(4, queries=5)
    assert_identical(metrics.dask.evaluate(qrels, spread(run, 2), ["map", "ndcg_cut.10"], npartitions=16),
                     evaluate_frames(qrels, run, ["map", "ndcg_cut.10"]))


def test_parquet_and_trec_files_read_by_dask_give_the_command_lines_numbers(client, tmp_path) -> None:
    _, run = random_data(9, queries=80)
    qrels, _ = random_data(9, queries=80)
    (tmp_path / "run").mkdir()
    for part, rows in enumerate(np.array_split(np.arange(len(run)), 3)):
        run.iloc[rows].to_parquet(tmp_path / "run" / f"part-{part}.parquet")
    from_parquet = metrics.dask.evaluate(qrels, dd.read_parquet(tmp_path / "run"), ["map", "P.10", "num_rel_ret"])
    assert_identical(from_parquet, evaluate_frames(qrels, run, ["map", "P.10", "num_rel_ret"]))

    per_query, means = metrics.dask.evaluate(metrics.dask.read_trec_qrels(DATA / "qrels.test"),
                                             metrics.dask.read_trec_run(DATA / "results.test", blocksize=4096),
                                             ["map", "P.5", "ndcg", "num_ret"])
    qids, values, expected = evaluate_files(DATA / "qrels.test", DATA / "results.test", ["map", "P.5", "ndcg",
                                                                                          "num_ret"])
    assert means == expected and list(per_query["qid"]) == sorted(qids)


def test_a_nan_score_is_named_by_its_input_partition_and_row(client) -> None:
    _, run = random_data(2, queries=10)
    run.loc[len(run) - 2, "score"] = np.nan  # in the last of three partitions
    qrels = pd.DataFrame({"qid": ["q0"], "docno": ["d1"], "label": [1]})
    with pytest.raises(InputError, match=r"^run \(partition 2\) row \d+, column 'score': the score is missing"):
        metrics.dask.evaluate(qrels, spread(run, 3), ["map"])


def test_a_pair_repeated_across_partitions_names_its_query_and_document(client) -> None:
    run = pd.DataFrame({"qid": ["q", "r", "q"], "docno": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]})
    qrels = pd.DataFrame({"qid": ["q"], "docno": ["a"], "label": [1]})
    with pytest.raises(InputError, match="^run: document 'a' of query 'q' appears twice; keep one row"):
        metrics.dask.evaluate(qrels, spread(run, 3), ["map"])


def test_missing_columns_are_refused_before_anything_runs() -> None:
    frame = dd.from_pandas(pd.DataFrame({"qid": ["q"], "docno": ["a"]}), npartitions=1)
    with pytest.raises(InputError, match="^run: no column of scores"):
        metrics.dask.evaluate(frame, frame, ["map"])


def test_a_bad_line_in_a_trec_file_names_the_file_block_and_line(client, tmp_path) -> None:
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q1 Q0 d{i} {i} {100 - i} tag\n" for i in range(50)) + "q1 Q0 dx 51 nan tag\n")
    with pytest.raises(InputError, match=r"^run\.txt \(block \d+\) line \d+: .*nan"):
        metrics.dask.evaluate(metrics.dask.read_trec_qrels(DATA / "qrels.test"),
                              metrics.dask.read_trec_run(run, blocksize=256), ["map"])


def test_the_task_based_shuffle_gives_the_same_bits(client) -> None:
    qrels, run = random_data(12, queries=50)
    assert_identical(metrics.dask.evaluate(qrels, spread(run, 3), MEASURES, shuffle_method="tasks"),
                     evaluate_frames(qrels, run, MEASURES))


def test_trec_files_as_a_list_cut_in_blocks_or_gzipped_give_the_same_means(client, tmp_path) -> None:
    import gzip

    lines = (DATA / "results.test").read_bytes().splitlines(keepends=True)
    (tmp_path / "a.run").write_bytes(b"".join(lines[:40]))
    (tmp_path / "b.run").write_bytes(b"".join(lines[40:]))
    (tmp_path / "all.run.gz").write_bytes(gzip.compress(b"".join(lines)))
    qrels = metrics.dask.read_trec_qrels(DATA / "qrels.test")
    expected = evaluate_files(DATA / "qrels.test", DATA / "results.test", ["map", "P.10"])[2]
    # 5,000-byte blocks: about 14, queries cut at their edges (1,000-byte blocks made 65 tasks for the same case)
    in_blocks = metrics.dask.read_trec_run([tmp_path / "a.run", tmp_path / "b.run"], blocksize=5000)
    assert in_blocks.npartitions > 10
    assert metrics.dask.evaluate(qrels, in_blocks, ["map", "P.10"]).means == expected
    assert metrics.dask.evaluate(qrels, metrics.dask.read_trec_run(tmp_path / "all.run.gz"), ["map", "P.10"]).means \
        == expected


def test_as_given_tie_order_keeps_the_input_order_of_rows_through_the_shuffle(client) -> None:
    qrels, run = random_data(21, queries=40)  # scores on a coarse grid: many ties, rows in no order
    single = evaluate_frames(qrels, run, MEASURES, tie_order="as_given")
    assert single.means != evaluate_frames(qrels, run, MEASURES).means  # the input order decides the ties
    assert_identical(metrics.dask.evaluate(spread(qrels, 2), spread(run, 4), MEASURES, tie_order="as_given"),
                     single)
    with dask.config.set(scheduler="sync"):  # the disk shuffle gathers the pieces of a query in another order
        assert_identical(metrics.dask.evaluate(spread(qrels, 2), spread(run, 4), MEASURES, tie_order="as_given",
                                               shuffle_method="disk"), single)


def test_a_grade_too_large_for_exponential_gain_is_named_by_its_input_partition_and_row(client) -> None:
    qrels = pd.DataFrame({"qid": [f"q{i % 4}" for i in range(20)], "docno": [f"d{i}" for i in range(20)],
                          "label": [1] * 19 + [2000]})
    run = pd.DataFrame({"qid": ["q0", "q3"], "docno": ["d0", "d19"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match="^qrels row 19: grade 2000 is too large for exponential gain"):
        metrics.evaluate(qrels, run, ["ndcg"], gain="exponential")
    with pytest.raises(InputError, match=r"^qrels \(partition 1\) row 9: grade 2000 is too large for exponential"):
        metrics.dask.evaluate(spread(qrels, 2), run, ["ndcg"], npartitions=4, gain="exponential")


def test_a_block_of_comments_only_inside_a_run_file_is_an_empty_piece(client, tmp_path) -> None:
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q1 Q0 d{i} {i} {10 - i} tag\n" for i in range(10)) + "# a comment line\n" * 30
                   + "".join(f"q2 Q0 d{i} {i} {10 - i} tag\n" for i in range(10)))
    qrels = pd.DataFrame({"qid": ["q1", "q2"], "docno": ["d3", "d0"], "label": [1, 1]})
    in_blocks = metrics.dask.read_trec_run(run, blocksize=200)
    assert in_blocks.npartitions >= 4  # 510 bytes of comments: at least one block holds nothing else
    assert metrics.dask.evaluate(qrels, in_blocks, ["map"]).means == {"map": (1 / 4 + 1) / 2}  # d3 4th, d0 1st


def test_an_empty_or_comments_only_run_file_is_one_input_error(client, tmp_path) -> None:
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "comments.txt").write_text("# nothing yet\n")
    for name in ("empty.txt", "comments.txt"):
        with pytest.raises(InputError, match=rf"^{name}: the file (is empty|has only comments and blank lines)"):
            metrics.dask.evaluate(metrics.dask.read_trec_qrels(DATA / "qrels.test"),
                                  metrics.dask.read_trec_run(tmp_path / name), ["map"])


def test_a_run_sharing_no_query_with_the_qrels_is_refused_not_averaged_to_zero(client) -> None:
    _, run = random_data(4, queries=6)
    qrels = pd.DataFrame({"qid": ["elsewhere"], "docno": ["d1"], "label": [1]})
    with pytest.raises(InputError, match="nothing to evaluate"):
        metrics.dask.evaluate(qrels, spread(run, 2), ["map"])


def test_a_partition_missing_its_score_column_is_one_input_error_naming_the_column():
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d2"], "score": [1.0, 0.5]})

    def drop_scores(part):  # one partition of the user's frame loses a column its meta still lists
        return part.drop(columns=["score"]) if (part["query_id"] == "q2").any() else part

    partitions = dd.from_pandas(run, npartitions=2)
    for enforced in (True, False):  # Dask's own meta check, or ours in the partition
        broken = partitions.map_partitions(drop_scores, meta=run.iloc[:0], enforce_metadata=enforced)
        with pytest.raises(InputError, match="'score'.*every partition needs the frame's columns"):
            metrics.dask.evaluate(dd.from_pandas(qrels, npartitions=1), broken, ["P.1"])
