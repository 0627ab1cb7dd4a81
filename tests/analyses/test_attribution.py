"""Delta attribution: the shares of a query's difference between two rankings, checked against brute force.

The reference below rebuilds each intermediate ranking from the documented rule (stable documents in their shared
order; every other document at its place in A or in B, by its offset inside the gap, B's first at equal offsets)
and scores it through the public engine; Shapley values are then averaged over every order of the edits.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from fractions import Fraction

import pytest

import metrics
import metrics.model
from metrics import Conventions, InputError
from metrics.real import DL20
from metrics.whatif import Judge, attribution, find_disagreement
from metrics.whatif.attribution import attribute_delta
from tests.support.paths import DOCS

JUDGMENTS = {"d0": 2, "d1": 0, "d2": 1, "d3": 3, "d4": 0, "d5": 1, "d6": -1}


def reference_ranking(a, b, stable, applied):
    """The ranking the set ``applied`` of edited documents gives, straight from the rule in the module docstring."""
    placed = []
    for side, ranking in (("A", a), ("B", b)):
        gap, offset = 0, 0
        for doc in ranking:
            if doc in stable:
                if side == "A":
                    placed.append(((gap, 1, 0, 0), doc))
                gap, offset = gap + 1, 0
                continue
            if (doc in applied) == (side == "B"):
                placed.append(((gap, 0, offset, 0 if side == "B" else 1), doc))
            offset += 1
    return [doc for _, doc in sorted(placed)]


@functools.cache
def _value(ranking, judgments, measure, conventions):
    (column,) = metrics.evaluate_rankings([list(ranking)], [dict(judgments)], [measure], conventions).values()
    return Fraction(float(column[0]))


def value(ranking, judgments, measure, conventions):
    """The engine's value of one written-out ranking, exactly (rankings recur along the orders: cached)."""
    return _value(tuple(ranking), tuple(judgments.items()), measure, conventions)


def as_read(ranking, conventions, judged_only):
    """The list as the measure reads it: cut at the depth, then its judged documents for a judged-only measure."""
    ranking = ranking[: conventions.depth] if conventions.depth else ranking
    return [doc for doc in ranking if JUDGMENTS.get(doc, -1) >= 0] if judged_only else ranking


def edits_of(a, b, stable):
    return [doc for doc in a if doc not in b] + [doc for doc in b if doc not in stable]


def random_lists(rng: random.Random, docs=("d0", "d1", "d2", "d3", "d4", "d5", "d6", "x", "y")):
    a = rng.sample(docs, rng.randint(0, 4))
    b = rng.sample(docs, rng.randint(0, 4))
    return a, b


CASES = [("map", Conventions()), ("P.3", Conventions()), ("ndcg_cut.3", Conventions(gain="exponential")),
         ("recip_rank", Conventions(relevance_level=2)), ("ndcg", Conventions(ideal_from="retrieved")),
         ("bpref", Conventions(unjudged="removed")), ("recall.2", Conventions(depth=3))]


@pytest.mark.parametrize(("measure", "conventions"), CASES)
def test_shapley_shares_equal_the_average_over_every_order_of_the_edits(measure, conventions):
    rng = random.Random(f"shapley {measure}")
    checked = 0
    for _ in range(10):
        a, b = random_lists(rng)
        delta = attribute_delta(JUDGMENTS, a, b, measure, conventions)
        assert delta.before == float(value(a, JUDGMENTS, measure, conventions))
        assert delta.after == float(value(b, JUDGMENTS, measure, conventions))
        assert sum(c.exact for c in delta.contributions) == delta.difference
        a, b = (as_read(ranking, conventions, measure == "bpref")[: delta.window] for ranking in (a, b))
        stable = set(delta.stable)
        edits = edits_of(a, b, stable)
        if len(edits) > 6:
            continue
        assert delta.method == ("no edits" if not edits else "shapley")
        assert sorted(c.doc for c in delta.contributions) == sorted(edits)
        totals = dict.fromkeys(edits, Fraction(0))
        for order in itertools.permutations(edits):
            applied: set[str] = set()
            previous = value(reference_ranking(a, b, stable, applied), JUDGMENTS, measure, conventions)
            assert reference_ranking(a, b, stable, applied) == a
            path = Fraction(0)
            for doc in order:
                applied.add(doc)
                now = value(reference_ranking(a, b, stable, applied), JUDGMENTS, measure, conventions)
                totals[doc] += now - previous
                path += now - previous
                previous = now
            assert reference_ranking(a, b, stable, applied) == b
            assert path == delta.difference  # every order's path sums to the difference
        orders = math.factorial(len(edits))
        assert {c.doc: c.exact for c in delta.contributions} == {doc: total / orders for doc, total in totals.items()}
        checked += 1
    assert checked >= 4


def test_the_stable_documents_are_a_longest_shared_order():
    rng = random.Random("stable")
    for _ in range(40):
        a, b = random_lists(rng)
        delta = attribute_delta(JUDGMENTS, a, b, "map")
        common = [doc for doc in a if doc in b]
        longest = max((len(subset) for size in range(len(common) + 1)
                       for subset in itertools.combinations(common, size)
                       if [doc for doc in b if doc in subset] == list(subset)), default=0)
        assert len(delta.stable) == longest
        assert [doc for doc in b if doc in delta.stable] == list(delta.stable)


def test_beyond_the_cap_the_shares_follow_the_fixed_order_removals_first_then_b_from_the_top(monkeypatch):
    monkeypatch.setattr(attribution, "SHAPLEY_UP_TO", 1)
    a, b = ["d1", "d0", "x", "d2", "d4"], ["d3", "d2", "d0", "y", "d5"]
    delta = attribute_delta(JUDGMENTS, a, b, "map")
    assert delta.method == "fixed order"
    stable = set(delta.stable)
    order = edits_of(a, b, stable)
    assert order[:3] == ["d1", "x", "d4"]  # A's documents that B does not have, in A's order
    applied: set[str] = set()
    expected = {}
    previous = value(a, JUDGMENTS, "map", Conventions())
    for doc in order:
        applied.add(doc)
        now = value(reference_ranking(a, b, stable, applied), JUDGMENTS, "map", Conventions())
        expected[doc], previous = now - previous, now
    assert {c.doc: c.exact for c in delta.contributions} == expected
    assert sum(c.exact for c in delta.contributions) == delta.difference
    sizes = [abs(c.exact) for c in delta.contributions]
    assert sizes == sorted(sizes, reverse=True)


def test_a_cut_measure_compares_the_top_k_and_names_documents_entering_and_leaving_it():
    a = ["d1", "d4", "d0", "d2", "d3", "x"]
    b = ["d3", "d0", "d1", "d2", "d4", "y"]
    delta = attribute_delta(JUDGMENTS, a, b, "P@2")
    assert delta.window == 2
    assert (delta.before, delta.after) == (0.0, 1.0)
    described = [c.describe(delta.window) for c in delta.contributions]
    assert described == ["d3 entered the top 2 at rank 1", "d0 entered the top 2 at rank 2",
                         "d1 (rank 1) left the top 2", "d4 (rank 2) left the top 2"]
    # The two relevant documents that entered carry most of the difference; d4 leaving changes nothing by itself.
    assert [c.exact for c in delta.contributions] == [Fraction(5, 12), Fraction(5, 12), Fraction(1, 6), 0]


def test_scores_are_ordered_as_the_run_is_with_ties_by_doc_id_descending():
    judgments = {"a": 1, "b": 0}
    tied = {"a": 0.5, "b": 0.5}  # trec_eval: b before a
    delta = attribute_delta(judgments, tied, ["a", "b"], "recip_rank")
    assert (delta.before, delta.after) == (0.5, 1.0)
    assert attribute_delta(judgments, tied, ["a", "b"], "recip_rank",
                           Conventions(tie_order="docid_ascending")).method == "no edits"


def test_the_ends_are_evaluates_values_on_a_real_query():
    qrels, bm25, splade = DL20.qrels().to_dict(), DL20.run("BM25").to_dict(), DL20.run("SPLADE++").to_dict()
    qid = sorted(qrels)[0]
    for measure in ("ndcg_cut.10", "map"):
        delta = attribute_delta(qrels[qid], bm25[qid], splade[qid], measure, DL20.conventions, qid=qid)
        expected = [metrics.evaluate({qid: qrels[qid]}, {qid: run[qid]}, [measure], conventions=DL20.conventions)
                    [qid][delta.measure] for run in (bm25, splade)]
        assert [delta.before, delta.after] == expected
        assert sum(c.exact for c in delta.contributions) == delta.difference


def test_a_missing_query_is_empty_under_minus_c_and_refused_when_skipped():
    delta = attribute_delta({"a": 1}, None, ["a"], "P@1", Conventions(missing_queries="zero"))
    assert (delta.before, delta.after) == (0.0, 1.0)
    assert [(c.kind, c.exact) for c in delta.contributions] == [("inserted", 1)]
    assert delta.method_sentence == "Edits between the whole lists: one, which carries the whole difference."
    with pytest.raises(InputError, match="run A does not have this query: trec_eval skips it"):
        attribute_delta({"a": 1}, None, ["a"], "P@1", qid="q1")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"measure": "gm_map"}, "gm_map is a summary over queries"),
    ({"measure": "P.5,10"}, "names 2 measures"),
    ({"conventions": Conventions(tied_gains="averaged")}, "tied_gains='averaged'"),
    ({"judgments": {}}, "no judgments"),
    ({"run_a": "abc"}, "has to be one query's scores"),
    ({"run_b": ["a", "a"]}, "appears twice"),
])
def test_bad_input_gets_one_clear_message(kwargs, message):
    arguments = {"judgments": {"a": 1}, "run_a": ["a"], "run_b": ["b"], "measure": "map"} | kwargs
    with pytest.raises(InputError, match=message):
        attribute_delta(arguments.pop("judgments"), arguments.pop("run_a"), arguments.pop("run_b"),
                        arguments.pop("measure"), **arguments)


def test_the_dl20_examples_of_the_library_page_are_what_the_engine_gives():
    """docs/library.md: BM25 against SPLADE++ on query 23849 (nDCG@10), and the disagreement lab on query 1037496."""
    page = " ".join((DOCS / "library.md").read_text(encoding="utf-8").split())
    qrels, bm25 = DL20.qrels().to_dict(), DL20.run("BM25").to_dict()
    splade, rm3 = DL20.run("SPLADE++").to_dict(), DL20.run("BM25 + RM3").to_dict()
    delta = attribute_delta(qrels["23849"], bm25["23849"], splade["23849"], "nDCG@10", DL20.conventions)
    assert (round(delta.before, 4), round(delta.after, 4)) == (0.0212, 0.7884)
    assert (delta.method, delta.window, len(delta.contributions)) == ("fixed order", 10, 18)
    assert [(c.describe(delta.window), round(c.value, 4)) for c in delta.contributions[:2]] == [
        ("8010561 entered the top 10 at rank 1", 0.193), ("2647769 entered the top 10 at rank 2", 0.1293)]
    entered = [c for c in delta.contributions if c.kind == "inserted"]
    assert len(entered) == 9 and f"{float(sum(c.exact for c in entered)):+.4f}" == "+0.7150"
    assert f"{float(delta.difference):+.4f}" == "+0.7672" and qrels["23849"]["8010561"] == 3
    for quoted in ("0.0212 (BM25) and 0.7884 (SPLADE++)", "nine documents into the top 10", "+0.7150 of the +0.7672",
                   "(+0.1930) the grade-3 passage it puts first"):
        assert quoted in page

    top10 = [metrics.model.order_documents(run["1037496"])[:10] for run in (bm25, rm3)]
    judges = (Judge("P@10", DL20.conventions), Judge("nDCG@10", DL20.conventions))
    found = find_disagreement(*top10, qrels["1037496"], judges)
    assert found.edit.describe(found.list_b, found.judgments) == "Judging 7766585 grade 2 (was grade 1)"
    before = [(round(a, 4), round(b, 4)) for a, b in found.values_before]
    after = [(round(a, 4), round(b, 4)) for a, b in found.values_after]
    assert (before, after) == ([(0.4, 0.3), (0.5776, 0.5753)], [(0.5, 0.4), (0.6092, 0.6119)])
    assert found.verdicts_before == (-1, -1) and found.verdicts_after == (-1, 1)
    for quoted in ("P@10 says A (0.4 against 0.3) and so does nDCG@10 (0.5776 against 0.5753)",
                   "judging passage 7766585 grade 2 instead of 1 keeps P@10 on A (0.5 against 0.4) but turns "
                   "nDCG@10 to B (0.6092 against 0.6119)"):
        assert quoted in page
