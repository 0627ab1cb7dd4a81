"""The built-in samples: they load in order, they score the same in our engine and in pytrec_eval, and each
sample's one-line description tells the truth about its numbers."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
import pytrec_eval

import metrics
from metrics.samples import (
    SAMPLES_FOLDER,
    InputError,
    Sample,
    load_sample,
    load_samples,
    sample_to_trec,
    validate_query,
)
from tests.support.helpers import TOLERANCE, max_difference

SAMPLES = load_samples()
SLUGS = [sample.slug for sample in SAMPLES]


def explorer_values(sample: Sample, **conventions: object) -> dict[str, float]:
    """The sample's six explorer metrics at its own k, via the TREC run (so ties are resolved by the conventions)."""
    qrels, run = sample_to_trec(sample)
    k = sample.k
    measures = [f"P.{k}", f"recall.{k}", "recip_rank", f"map_cut.{k}", f"ndcg_cut.{k}", f"success.{k}"]
    values = metrics.evaluate(qrels, run, measures, **conventions)[sample.slug]
    return {"P": values[f"P_{k}"], "recall": values[f"recall_{k}"], "RR": values["recip_rank"],
            "AP": values[f"map_cut_{k}"], "nDCG": values[f"ndcg_cut_{k}"], "success": values[f"success_{k}"]}


# ---- loading -------------------------------------------------------------------------------------------


def test_samples_load_in_the_order_of_the_index():
    index = json.loads((SAMPLES_FOLDER / "index.json").read_text(encoding="utf-8"))
    assert SLUGS == index["order"]
    assert SLUGS[0] == "sweet-pastry"


def test_every_sample_has_a_one_line_description_and_a_usable_k():
    for sample in SAMPLES:
        assert sample.description.strip() and "\n" not in sample.description
        assert sample.title and sample.query
        assert 1 <= sample.k <= len(sample.ranking)


def test_load_sample_returns_the_same_sample_as_load_samples():
    assert load_sample("sweet-pastry") == SAMPLES[0]


def test_an_unknown_slug_names_the_known_samples():
    with pytest.raises(InputError, match="unknown sample 'croissants'; known samples: sweet-pastry, "):
        load_sample("croissants")


def test_sample_to_trec_uses_the_slug_as_query_id_and_keeps_every_judgment():
    qrels, run = sample_to_trec(load_sample("sweet-pastry"))
    assert qrels == {"sweet-pastry": {"donut": 1, "muffin": 1, "scone": 1}}
    assert run == {"sweet-pastry": {"donut": 0.95, "bagel": 0.9, "muffin": 0.8, "croissant": 0.7}}


def test_a_sample_without_scores_keeps_its_file_order_under_every_tie_order():
    sample = Sample("no-scores", "t", "d", "q", 2, (("b", None), ("c", None), ("a", None)), {"a": 1})
    _, run = sample_to_trec(sample)
    for tie_order in ("trec_eval", "as_given", "docid_ascending"):
        assert metrics.order_documents(run["no-scores"], tie_order) == ["b", "c", "a"]
        assert sample.ordered(tie_order) == ["b", "c", "a"]


# ---- every sample against pytrec_eval ----------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("relevance_level", [1, 2])
@pytest.mark.parametrize("judged_docs_only", [False, True])
def test_every_sample_scores_the_same_as_pytrec_eval(slug, relevance_level, judged_docs_only):
    sample = load_sample(slug)
    qrels, run = sample_to_trec(sample)
    k = sample.k
    measures = [f"P.{k}", f"recall.{k}", "recip_rank", f"map_cut.{k}", f"ndcg_cut.{k}", f"success.{k}",
                "map", "ndcg", "Rprec", "bpref", "P.5,10", "ndcg_cut.5,10,20"]
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, set(measures), relevance_level=relevance_level, judged_docs_only_flag=judged_docs_only
    ).evaluate(run)
    ours = metrics.evaluate(qrels, run, measures, relevance_level=relevance_level, judged_docs_only=judged_docs_only)
    assert max_difference(ours, reference) <= TOLERANCE


# ---- the seed examples ---------------------------------------------------------------------------------


def test_sweet_pastry_has_the_seed_values():
    values = explorer_values(load_sample("sweet-pastry"))
    assert values["P"] == 0.5
    assert values["recall"] == pytest.approx(2 / 3)
    assert values["RR"] == 1.0
    assert values["AP"] == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert round(values["nDCG"], 3) == 0.704


def test_suitable_for_lunch_finds_its_first_lunch_item_at_rank_3():
    values = explorer_values(load_sample("suitable-for-lunch"))
    assert values["RR"] == pytest.approx(1 / 3)
    assert values["P"] == 0.5
    assert values["recall"] == 0.5
    assert values["AP"] == pytest.approx((1 / 3 + 2 / 4) / 4)


def test_goes_well_with_jam_has_the_seed_graded_ndcg():
    assert round(explorer_values(load_sample("goes-well-with-jam"))["nDCG"], 5) == 0.46724


def test_judging_jam_in_binary_changes_only_ndcg():
    graded = explorer_values(load_sample("goes-well-with-jam"))
    binary = explorer_values(load_sample("goes-well-with-jam-binary"))
    for name in ("P", "recall", "RR", "AP", "success"):
        assert graded[name] == binary[name], name
    assert round(graded["nDCG"], 3) == 0.467 and round(binary["nDCG"], 3) == 0.610


# ---- each teaching sample shows what its description says -------------------------------------------


def test_dunk_in_coffee_tie_puts_scone_first_and_halves_rr():
    sample = load_sample("dunk-in-coffee")
    scores = dict(sample.ranking)
    assert scores["biscotti"] == scores["scone"]
    assert sample.ordered("trec_eval")[:2] == ["scone", "biscotti"]
    trec = explorer_values(sample)
    as_given = explorer_values(sample, tie_order="as_given")
    assert trec["RR"] == 0.5 and as_given["RR"] == 1.0
    assert trec["P"] == as_given["P"]
    assert trec["AP"] < as_given["AP"]


def test_gluten_free_breakfast_rr_doubles_when_unjudged_documents_are_removed():
    sample = load_sample("gluten-free-breakfast")
    unjudged = [doc for doc in sample.ordered() if doc not in sample.judgments]
    assert [sample.ordered().index(doc) + 1 for doc in unjudged] == [1, 3]
    kept = explorer_values(sample)
    removed = explorer_values(sample, judged_docs_only=True)
    assert kept["RR"] == 0.5 and removed["RR"] == 1.0
    assert removed["P"] > kept["P"] and removed["AP"] > kept["AP"]


def test_sourdough_rag_recall_at_5_ignores_the_order_inside_the_top_5():
    sample = load_sample("sourdough-starter-rag")
    assert sample.k == 5
    top, rest = sample.ordered()[:5], sample.ordered()[5:]
    assert round(explorer_values(sample)["recall"], 3) == 0.667
    judgments = [sample.judgments]
    for order in itertools.permutations(top):
        values = metrics.evaluate_rankings([list(order) + rest], judgments, ["recall.5"])
        assert values["recall_5"][0] == pytest.approx(2 / 3)


def test_laminating_butter_is_a_trec_dl_like_query_that_cannot_reach_ndcg_1():
    sample = load_sample("laminating-butter-temperature")
    retrieved = sample.ordered()
    grades = sample.judgments
    assert len(retrieved) == 20 and sample.k == 10
    assert set(grades.values()) == {0, 1, 2, 3}
    assert len([doc for doc in retrieved if doc not in grades]) == 4
    missed = [doc for doc, grade in grades.items() if grade >= 1 and doc not in retrieved]
    assert len(missed) == 4 and max(grades[doc] for doc in missed) == 3
    best_reordering = sorted(retrieved, key=lambda doc: grades.get(doc, 0), reverse=True)
    best = metrics.evaluate_rankings([best_reordering], [grades], ["ndcg_cut.10"])["ndcg_cut_10"][0]
    assert explorer_values(sample)["nDCG"] < best < 1.0


# ---- strict validation ---------------------------------------------------------------------------------

GOOD = {
    "title": "t", "description": "d", "query": "q", "k": 2,
    "ranking": [{"doc": "a", "score": 2.0}, {"doc": "b", "score": 1.0}],
    "judgments": {"a": 1},
}


def write_folder(folder: Path, samples: dict[str, object], order: list[str] | None = None) -> Path:
    for slug, content in samples.items():
        text = content if isinstance(content, str) else json.dumps(content, indent=2)
        (folder / f"{slug}.json").write_text(text, encoding="utf-8")
    (folder / "index.json").write_text(json.dumps({"order": order if order is not None else list(samples)}))
    return folder


def load_one(tmp_path: Path, **changes: object) -> list[Sample]:
    content = {key: value for key, value in {**GOOD, **changes}.items() if value is not ...}
    return load_samples(write_folder(tmp_path, {"one": content}))


def test_a_good_folder_loads(tmp_path):
    (sample,) = load_one(tmp_path)
    assert sample.slug == "one" and sample.ranking == (("a", 2.0), ("b", 1.0)) and sample.judgments == {"a": 1}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"k": ...}, r"one\.json: missing key 'k'"),
        ({"rating": 3}, r"one\.json: unknown key 'rating'"),
        ({"k": 0}, r"'k' must be a positive integer, got 0"),
        ({"description": "two\nlines"}, r"'description' must be one line"),
        ({"ranking": []}, r"'ranking' must be a non-empty list"),
        ({"ranking": [{"doc": "a", "rank": 1}]}, r"ranking\[0\] must look like"),
        ({"ranking": [{"doc": "a", "score": 1}, {"doc": "b", "score": 2}]},
         r"ranking rank 2 \(b\): score 2.0 is higher than rank 1's 1.0; list the documents in rank order"),
        ({"ranking": [{"doc": "a", "score": 1}, {"doc": "b"}]}, r"give a score for every document or for none"),
        ({"ranking": [{"doc": "a"}, {"doc": "a"}]}, r"document 'a' already appears at rank 1"),
        ({"ranking": [{"doc": "sweet pastry"}]}, r"doc id 'sweet pastry' contains whitespace"),
        ({"ranking": [{"doc": "a", "score": "high"}]}, r"score must be a finite number or null, got 'high'"),
        ({"judgments": {"a": 1.5}}, r"judgments\['a'\]: grade must be an integer"),
        ({"judgments": {"a": True}}, r"judgments\['a'\]: grade must be an integer"),
        ({"judgments": {}}, r"'judgments' must be a non-empty object"),
    ],
)
def test_bad_sample_files_are_rejected_with_a_message_naming_the_field(tmp_path, changes, message):
    with pytest.raises(InputError, match=message):
        load_one(tmp_path, **changes)


def test_invalid_json_names_the_file_and_line(tmp_path):
    write_folder(tmp_path, {"broken": '{\n  "title": "t",\n  "k": 4\n  "query": "q"\n}'})
    with pytest.raises(InputError, match=r"broken\.json line 4: invalid JSON"):
        load_samples(tmp_path)


def test_a_sample_file_missing_from_the_index_is_an_error(tmp_path):
    write_folder(tmp_path, {"one": GOOD, "two": GOOD}, order=["one"])
    with pytest.raises(InputError, match=r"sample file two\.json is not listed in \"order\""):
        load_samples(tmp_path)


def test_an_index_entry_without_a_file_is_an_error(tmp_path):
    write_folder(tmp_path, {"one": GOOD}, order=["one", "ghost"])
    with pytest.raises(InputError, match=r"order\[1\] names 'ghost' but .*ghost\.json does not exist"):
        load_samples(tmp_path)


def test_validate_query_accepts_plain_doc_ids_and_an_empty_ranking():
    validate_query(["donut", "bagel"], {"donut": 1, "scone": -1})
    validate_query([], {})


def test_validate_query_names_the_rank_of_a_repeated_document():
    with pytest.raises(InputError, match=r"editor: ranking rank 3: document 'donut' already appears at rank 1"):
        validate_query(["donut", "bagel", "donut"], {}, where="editor")
