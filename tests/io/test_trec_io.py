"""Reading qrels and runs: what is accepted, what is refused, and how each refusal names the line and the fix."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pytest

from metrics import InputError
from metrics.io.trec import TrecFormatError, docno_keys, read_qrels, read_run

RUN = "q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5 bm25\nq2 Q0 d1 1 0.5 bm25\n"
QRELS = "q1 0 d1 1\nq1 0 d3 0\nq2 0 d1 2\nq2 0 d9 -1\n"


def run_error(text: str | bytes, **kwargs) -> str:
    with pytest.raises(TrecFormatError) as caught:
        read_run(text, name="run.txt", **kwargs)
    return str(caught.value)


def qrels_error(text: str | bytes, **kwargs) -> str:
    with pytest.raises(TrecFormatError) as caught:
        read_qrels(text, name="qrels.txt", **kwargs)
    return str(caught.value)


# ---- what a well-formed file gives ----------------------------------------------------------------


def test_a_run_reads_into_pytrec_eval_shaped_dicts_with_the_tag_of_the_last_line() -> None:
    run = read_run(RUN.replace("q2 Q0 d1 1 0.5 bm25", "q2 Q0 d1 1 0.5 final"))
    assert run.to_dict() == {"q1": {"d1": 2.5, "d2": 1.5}, "q2": {"d1": 0.5}}
    assert run.qids == ["q1", "q2"]
    assert run.query("q1") == {"d1": 2.5, "d2": 1.5}
    assert run.query("nope") == {}
    assert run.runid == "final"  # trec_eval keeps the run_id of the last line
    assert len(run) == 3


def test_qrels_keep_negative_grades_as_in_the_pool_but_unjudged() -> None:
    qrels = read_qrels(QRELS)
    assert qrels.to_dict() == {"q1": {"d1": 1, "d3": 0}, "q2": {"d1": 2, "d9": -1}}
    assert qrels.query("q2") == {"d1": 2, "d9": -1}
    assert qrels.qids == ["q1", "q2"]


def test_query_ids_stay_strings_so_leading_zeros_survive() -> None:
    assert read_run("007 Q0 d1 1 1 t\n").qids == ["007"]


@pytest.mark.parametrize("separator", [" ", "\t", "  ", " \t ", "\t\t"], ids=repr)
def test_fields_may_be_separated_by_any_run_of_spaces_and_tabs(separator: str) -> None:
    text = "".join(separator.join(line.split()) + "\n" for line in RUN.splitlines())
    assert read_run(text).to_dict() == read_run(RUN).to_dict()


def test_leading_and_trailing_whitespace_and_crlf_line_ends_are_ignored() -> None:
    text = "".join(f"  \t{line} \r\n" for line in RUN.splitlines())
    assert read_run(text).to_dict() == read_run(RUN).to_dict()


def test_comment_lines_and_blank_lines_are_skipped() -> None:
    text = "# produced by bm25\n\n" + RUN.replace("\nq2", "\n   # a note\n\nq2")
    assert read_run(text).to_dict() == read_run(RUN).to_dict()


def test_columns_after_the_run_tag_are_ignored_as_trec_eval_does() -> None:
    text = "".join(f"{line} extra 42\n" for line in RUN.splitlines())
    run = read_run(text)
    assert run.to_dict() == read_run(RUN).to_dict()
    assert run.runid == "bm25"


def test_some_lines_with_extra_columns_are_accepted_too() -> None:
    text = RUN.replace("q1 Q0 d2 2 1.5 bm25", "q1 Q0 d2 2 1.5 bm25 trailing")
    assert read_run(text).to_dict() == read_run(RUN).to_dict()


def test_scores_may_use_exponents_signs_and_integers() -> None:
    run = read_run("q Q0 a 1 1e3 t\nq Q0 b 2 -2.5E-1 t\nq Q0 c 3 +7 t\nq Q0 d 4 .5 t\n")
    assert run.query("q") == {"a": 1000.0, "b": -0.25, "c": 7.0, "d": 0.5}


def test_gzip_is_detected_by_its_magic_bytes_not_its_name(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"  # no .gz suffix
    path.write_bytes(gzip.compress(RUN.encode()))
    assert read_run(path).to_dict() == read_run(RUN).to_dict()
    assert read_qrels(gzip.compress(QRELS.encode())).to_dict() == read_qrels(QRELS).to_dict()


def test_sources_may_be_paths_bytes_text_or_binary_files(tmp_path: Path) -> None:
    path = tmp_path / "bm25.run"
    path.write_text(RUN)
    expected = read_run(RUN).to_dict()
    assert read_run(path).to_dict() == expected
    assert read_run(str(path)).to_dict() == expected
    assert read_run(RUN.encode()).to_dict() == expected
    assert read_run(io.BytesIO(RUN.encode())).to_dict() == expected


def test_a_utf8_byte_order_mark_is_dropped() -> None:
    assert read_run(b"\xef\xbb\xbf" + RUN.encode()).qids == ["q1", "q2"]


def test_non_ascii_spaces_and_zero_width_characters_are_part_of_the_id_as_in_trec_eval() -> None:
    run = read_run("q Q0 d1\u200b 1 2 t\nq Q0 d1 2 1 t\nq Q0 d\u00a02 3 0 t\n")
    assert list(run.query("q")) == ["d1\u200b", "d1", "d\u00a02"]


def test_a_missing_file_is_named() -> None:
    assert "no such file" in run_error("does/not/exist.run")


# ---- refusals: each names the file, the line and the fix ----------------------------------------------


def test_a_run_line_with_too_few_columns_names_its_line() -> None:
    text = RUN + "q3 Q0 d4 1\n"
    assert run_error(text) == "run.txt line 4: expected 6 columns (qid Q0 docno rank score tag), found 4"


def test_a_qrels_line_with_a_fifth_column_is_refused_as_trec_eval_does() -> None:
    message = qrels_error(QRELS + "q3 0 d4 1 extra\n")
    assert message.startswith("qrels.txt line 5: expected 4 columns (qid iter docno rel), found 5")


def test_a_qrels_line_with_too_few_columns_names_its_line() -> None:
    assert qrels_error("q1 0 d1 1\nq1 d2 1\n").startswith("qrels.txt line 2: expected 4 columns")


def test_line_numbers_count_comments_and_blank_lines() -> None:
    assert run_error("# header\n\nq1 Q0 d1 1 2.5\n").startswith("run.txt line 3: expected 6 columns")


@pytest.mark.parametrize("score", ["nan", "NaN", "inf", "-inf", "Infinity"])
def test_non_finite_scores_are_refused(score: str) -> None:
    message = run_error(RUN + f"q3 Q0 d1 1 {score} bm25\n")
    assert message.startswith(f"run.txt line 4: score '{score}' is not finite")


@pytest.mark.parametrize("score", ["high", "1,5", "0x10", "1_000", ""])
def test_non_numeric_scores_are_refused_not_read_as_zero(score: str) -> None:
    line = f"q3 Q0 d1 1 {score} bm25 x\n" if score else "q3 Q0 d1 1 bm25 x\n"
    assert "is not a number" in run_error(RUN + line)


def test_a_score_too_large_for_a_double_is_refused() -> None:
    assert "overflows" in run_error("q Q0 d 1 1e999 t\n")


@pytest.mark.parametrize("grade", ["1.5", "1.0", "high", "nan"])
def test_non_integer_grades_are_refused(grade: str) -> None:
    message = qrels_error(f"q1 0 d1 1\nq1 0 d2 {grade}\n")
    assert message.startswith(f"qrels.txt line 2: relevance grade '{grade}' is not an integer")


def test_a_document_twice_in_one_query_of_a_run_names_both_lines() -> None:
    message = run_error(RUN + "q1 Q0 d2 3 0.1 bm25\n")
    assert message == ("run.txt line 4: document 'd2' of query 'q1' already appears on line 2; "
                       "keep one line per (qid, docno)")


def test_a_judgment_twice_in_qrels_names_both_lines() -> None:
    message = qrels_error(QRELS + "\nq2 0 d9 1\n")
    assert message.startswith("qrels.txt line 6: judgment 'd9' of query 'q2' already appears on line 4")


def test_a_duplicate_in_a_file_on_disk_is_named_after_the_file(tmp_path: Path) -> None:
    path = tmp_path / "dup.run"
    path.write_text(RUN + "q2 Q0 d1 9 0.1 bm25\n")
    refusal = r"^dup.run line 4: document 'd1' of query 'q2' already appears on line 3"
    with pytest.raises(TrecFormatError, match=refusal):
        read_run(path)


def test_the_same_document_in_two_queries_is_not_a_duplicate() -> None:
    assert read_run("a Q0 d 1 1 t\nb Q0 d 1 1 t\n").qids == ["a", "b"]


@pytest.mark.parametrize("text", ["", "\n\n", "   \n"], ids=["empty", "newlines", "spaces"])
def test_an_empty_file_is_refused_clearly(text: str) -> None:
    assert run_error(text.encode()) == (
        "run.txt: the file is empty; expected lines of 'qid Q0 docno rank score tag'")


def test_a_file_of_comments_only_is_refused_clearly() -> None:
    assert qrels_error("# nothing yet\n") == (
        "qrels.txt: the file has only comments and blank lines; expected lines of 'qid iter docno rel'")


def test_invalid_utf8_is_refused_with_its_line() -> None:
    message = run_error(RUN.encode() + b"q3 Q0 d\xff1 1 0.5 bm25\n")
    assert message.startswith("run.txt line 4: the docno 'd\\xff1' is not valid UTF-8")


def test_a_size_cap_refuses_big_files_before_reading_them(tmp_path: Path) -> None:
    path = tmp_path / "big.run"
    path.write_text(RUN * 100)
    message = run_error(path, max_bytes=1000)
    assert "more than the 0.0 MB limit" in message or "limit" in message
    assert read_run(RUN, max_bytes=1000).qids == ["q1", "q2"]


def test_a_size_cap_also_bounds_what_a_gzip_file_decompresses_to() -> None:
    bomb = gzip.compress(RUN.encode() * 1000)
    assert len(bomb) < 2000
    assert "decompresses to more than" in run_error(bomb, max_bytes=2000)


def test_a_corrupt_gzip_file_is_refused() -> None:
    assert "cannot be decompressed" in run_error(b"\x1f\x8b" + b"not really gzip")


def test_format_errors_are_input_errors() -> None:
    assert issubclass(TrecFormatError, InputError)


# ---- the keys that make duplicate checks and tie-breaks fast ---------------------------------------------


def test_short_doc_ids_get_exact_keys_that_sort_in_byte_order() -> None:
    import pyarrow as pa

    docs = ["b", "a", "ab", "abcdefgh", "B", "a\u00e9"]
    keys, exact = docno_keys(pa.array(docs))
    assert exact
    assert [docs[i] for i in np.argsort(keys)] == sorted(docs, key=lambda d: d.encode())


def test_long_doc_ids_get_hash_keys_equal_for_equal_strings() -> None:
    import pyarrow as pa

    keys, exact = docno_keys(pa.array(["clueweb09-en0000-00-00001", "clueweb09-en0000-00-00002",
                                       "clueweb09-en0000-00-00001"]))
    assert not exact
    assert keys[0] == keys[2] != keys[1]


def test_hash_keys_of_a_string_do_not_depend_on_the_other_strings_hashed_with_it() -> None:
    import pyarrow as pa

    alone, _ = docno_keys(pa.array(["bagel"]), hashed=True)
    with_longer, _ = docno_keys(pa.array(["bagel", "a-much-longer-document-id-than-bagel"]), hashed=True)
    assert alone[0] == with_longer[0]


MESSY_RUN = (
    "\t q1  Q0\td1 1 2.5 \t bm25  \r\n"
    "q1 \t Q0 d2\t\t2 1.5 bm25\x0b\n"
    "   \n"
    "\x0cq2 Q0 d1 1 0.5 bm25\t\n"
    "  q2 Q0   d7 2 0.25 bm25"
)


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 24])
def test_messy_whitespace_is_normalised_the_same_at_every_chunk_boundary(
        chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import metrics.io.trec as trec_io

    monkeypatch.setattr(trec_io, "_NORMALISE_CHUNK", chunk)
    monkeypatch.setattr(trec_io, "_slow_parse", None)  # the fast path must handle it
    run = read_run(MESSY_RUN)
    assert run.to_dict() == {"q1": {"d1": 2.5, "d2": 1.5}, "q2": {"d1": 0.5, "d7": 0.25}}
    assert run.runid == "bm25"


def test_normalised_text_has_single_spaces_and_no_blanks_at_line_ends() -> None:
    from metrics.io.trec import _normalise_whitespace

    text = _normalise_whitespace(MESSY_RUN.encode()).tobytes()
    assert text == (b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5 bm25\n\nq2 Q0 d1 1 0.5 bm25\n"
                    b"q2 Q0 d7 2 0.25 bm25")
