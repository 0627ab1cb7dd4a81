"""Every sentence a user reads is a claim (issue 23, "Say it right"). Phrasings a lecturer found wrong are kept
below as data and looked for in every user-facing text: the pages (ui/), the command lines' help and messages
(metrics/), README, docs/, the notebook and the samples. One naming table (metrics.measures.display) names each
measure on the pages, in ``--help`` and in README, and one rounding per place formats its values."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from metrics import evaluate
from metrics.cli import help_epilog
from metrics.explain import METRIC_GUIDE, explorer_measures
from metrics.measures import MEASURES
from metrics.measures.display import NAMES, card, card_delta, mean_names, name_of, naming_lines, table
from metrics.names import AMBIGUOUS, MAP_AT_K_READING
from metrics.whatif import MetricSet
from tests.support.paths import DOCS, REPO

#: (pattern, the phrasing it was written for, what is wrong with it). Each pattern is searched in every user-facing
#: file, whitespace folded.
BANNED: tuple[tuple[str, str, str], ...] = (
    (r"embedding's ceiling", "missing from the exact top 10 are the embedding's ceiling",
     "the exact list is what the index converges to, not a bound: an ANN list can beat it"),
    (r"no index setting brings", "no index setting brings them back",
     "an ANN list can hold relevant documents from beyond the exact top k"),
    (r"recall stops at the exact", "the system's recall stops at the exact list's",
     "the system's recall converges to the exact list's; it does not stop there"),
    (r"exact list \(ceiling\)", "Recall@10 of the exact list (ceiling)", "the exact list is not a ceiling"),
    (r"cascade is (?:dbn|DBN) with (?:gamma|γ)? ?=? ?1(?! and)", "cascade is dbn with 1)",
     "cascade is DBN with gamma = 1 and s = 1"),
    (r"grades 0-2", '("goes well with jam", grades 0-2)', "the jam sample has grades 1 and 2"),
    (r"MAP@k is AP@k", "MAP@k is AP@k.", "--help calls MAP@k ambiguous (sentence-transformers divides by min(R, k))"),
    (r"against relevance per rank", "Clicks per rank against relevance per rank", "the chart plots attractiveness"),
    (r"Best single swap: ", "Best single swap: swapping ranks 2 and 3",
     "best by what: the sentence names the metric it was chosen by"),
    (r"(?:raises|lowers) AP \(", "(bagel and muffin) raises AP (+0.111)",
     "a what-if sentence names AP@k as its card does, not as uncut AP"),
    (r"Precision, recall, RR and success", "Precision, recall, RR and success stay the same.",
     "one name per measure: P@k, Recall@k, RR, Success@k"),
    (r"rate:\.\d%", 'f"{result.zero_result_rate:.1%}"', "a rate is a fraction, as CTR and abandonment are elsewhere"),
    (r"Judged@k and what the score", "its judgment hole: Judged@k and what the score would be",
     "the judgment hole's share is Judged≥0@k (grades >= 0), not the measure Judged@k"),
)

_TEXT_SUFFIXES = {".py", ".md", ".ipynb", ".json"}


@functools.cache
def user_facing_texts() -> dict[str, str]:
    """Each user-facing file's folded text, by its path in the repository (read once for every pattern)."""
    return {str(path.relative_to(REPO)): folded(path) for path in user_facing_files()}


def user_facing_files() -> list[Path]:
    """The files a user reads from: pages, engine messages and help, README, docs, the notebook, the samples."""
    roots = [REPO / "ui", REPO / "metrics", DOCS, REPO / "examples", REPO / "samples"]
    files = [REPO / "README.md", REPO / "app.py"]
    for root in roots:
        files += [path for path in sorted(root.rglob("*")) if path.suffix in _TEXT_SUFFIXES and path.is_file()]
    return files


def folded(path: Path) -> str:
    """The file's text with Python's implicit string joins ("...ceiling: no " "index...") and line breaks folded,
    so a phrase split across lines of source is still found."""
    text = path.read_text(encoding="utf-8", errors="replace")
    text = re.sub(r"\"\s*\n\s*f?\"", "", text)  # "a "\n    "b" -> "a b"
    text = text.replace("\\n", " ")
    return " ".join(text.split())


@pytest.mark.parametrize("pattern,old,why", BANNED, ids=[old[:40] for _, old, _ in BANNED])
def test_no_user_facing_text_says_what_a_lecturer_found_wrong(pattern, old, why):
    assert re.search(pattern, old)  # the pattern finds the phrasing it was written for
    found = [name for name, text in user_facing_texts().items() if re.search(pattern, text)]
    assert not found, f"{pattern!r} ({why}) in {found}"


def test_the_cascade_pattern_lets_the_right_sentence_through():
    assert not re.search(BANNED[4][0], "cascade is dbn with gamma = 1 and s = 1")


# ---- one name per measure ---------------------------------------------------------------------------------------


def test_every_named_measure_is_registered_and_names_its_mean_where_papers_do():
    assert set(NAMES) <= set(MEASURES)
    assert (name_of("recip_rank"), name_of("recip_rank", mean=True)) == ("RR", "MRR")
    assert (name_of("map"), name_of("map", mean=True)) == ("AP", "MAP")
    assert (name_of("map_cut", 10), name_of("map_cut", 10, mean=True)) == ("AP@10", "MAP@10")
    with pytest.raises(ValueError, match="give k"):
        name_of("P")


def test_the_explorer_and_the_what_if_charts_take_their_labels_from_the_table():
    labels = [label for label, _ in explorer_measures(4)]
    assert labels == ["P@4", "Recall@4", "RR", "AP@4", "AP", "nDCG@4", "Success@4"]
    for spec in MetricSet(4).specs:
        assert spec.label == spec.name == name_of(spec.parsed.name, 4)  # sentences say what the card says
        assert spec.curve_label == name_of(spec.curve_measure, "k")


def test_help_lists_the_same_names_the_pages_use():
    epilog = " ".join(help_epilog().split())
    for line in naming_lines():
        assert " ".join(line.split()) in epilog
    assert "recip_rank: RR (reciprocal rank), MRR as the mean over queries" in epilog


def test_the_measures_page_lists_the_same_table():
    page = (DOCS / "measures.md").read_text(encoding="utf-8")
    for line in naming_lines():
        assert f"- {line}\n" in page


def test_the_run_page_names_each_mean_as_the_other_pages_do():
    assert mean_names(["recip_rank", "map", "map_cut_10", "P_10", "nDCG@10", "num_q", "runid"]) == {
        "recip_rank": "MRR", "map": "MAP", "map_cut_10": "MAP@10", "P_10": "P@10"}


def test_readme_names_mrr_and_map_as_the_means_of_rr_and_ap():
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "RR (reciprocal rank; its mean over queries is MRR)" in readme
    assert "AP (average precision; its mean is MAP)" in readme
    for label in ("P@4", "Recall@4", "RR", "AP@4", "nDCG@4"):
        assert f"| {label} |" in readme  # the worked example's table, under the cards' names


def test_the_guide_reads_map_at_k_as_help_does():
    guide = next(entry.why for entry in METRIC_GUIDE if entry.metric.startswith("AP"))
    assert MAP_AT_K_READING in guide
    assert "divides by R" in AMBIGUOUS["MAP@k"] and "min(R, {k})" in AMBIGUOUS["MAP@k"]
    assert "dividing by R" in MAP_AT_K_READING and "min(R, k)" in MAP_AT_K_READING


# ---- one rounding per place -------------------------------------------------------------------------------------


@pytest.mark.parametrize("value,on_card,in_table", [(5 / 9, "0.556", "0.5556"), (0.0625, "0.062", "0.0625"),
                                                    (1.0, "1.000", "1.0000")])
def test_cards_show_three_decimals_and_tables_four(value, on_card, in_table):
    assert (card(value), table(value)) == (on_card, in_table)


def test_a_change_too_small_for_three_decimals_is_said_so_and_none_is_plus_minus_zero():
    assert [card_delta(d) for d in (1 / 9, -2 / 3, 0.0003, -0.0003, 0.0)] == [
        "+0.111", "-0.667", "+<0.001", "-<0.001", "±0.000"]


def test_the_err_sentence_in_docs_holds_the_engines_numbers():
    qrels = {"sweet pastry": {"donut": 1, "muffin": 1, "scone": 1}}
    run = {"sweet pastry": {"donut": 0.95, "bagel": 0.9, "muffin": 0.8, "croissant": 0.7}}
    values = evaluate(qrels, run, ["ERR@4", "recip_rank"])["sweet pastry"]
    page = " ".join((DOCS / "app.md").read_text(encoding="utf-8").split())
    assert f"ERR@4 = {card(values['ERR@4'])} beside RR = {card(values['recip_rank'])}" in page
