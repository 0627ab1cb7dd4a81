"""The lessons, in the order the article teaches them. Each is a prepared state, a question asked before the numbers
show, the reveal in two or three plain sentences, a "now try" change and a second question (ui.lessons.model).

No number is typed into a text: every one is a fact the lesson's ``facts`` function computes with the engine from
its two scenes, and the texts name the facts. Samples come from samples/ and TREC DL 2020 (metrics.real); the
other lists are written here, each small enough to read.
"""

from __future__ import annotations

from metrics.ann import compare_ann
from metrics.explain import METRIC_GUIDE
from metrics.holes import query_holes
from metrics.model import order_documents
from metrics.online import ClickModel, expected_signals, sessions_needed
from metrics.profiles import PROFILES
from metrics.real import DL20
from metrics.samples import load_sample

from .model import Lesson, Listing, Question, Scene, hits, moved, profile_conventions, rank_of, relevant, tool_value
from .model import value as v


def _sample_scene(slug: str, k: int | None = None) -> Scene:
    sample = load_sample(slug)
    scores = dict(sample.ranking)
    order = tuple(sample.ordered(sample.conventions.tie_order))
    listed = tuple(float(scores[doc]) for doc in order) if sample.has_scores else None
    return Scene((Listing(sample.query, order, dict(sample.judgments), listed),), k or sample.k, sample.conventions)


def _sign(before: float, after: float) -> str:
    return "rises" if after > before else "falls" if after < before else "stays"


# ---- 1. P@k and Recall@k -------------------------------------------------------------------------------------

def _precision_recall_facts(before: Scene, after: Scene) -> dict[str, object]:
    k, k_after = before.k, after.k
    return {
        "k": k, "k_after": k_after, "precision": v(before, f"P.{k}"), "recall": v(before, f"recall.{k}"),
        "precision_after": v(after, f"P.{k_after}"), "recall_after": v(after, f"recall.{k_after}"),
        "hits": hits(before), "hits_after": hits(after), "relevant": len(relevant(before.lists[0])),
    }


def _higher(precision: float, recall: float) -> str:
    return "P@k" if precision > recall else "Recall@k" if recall > precision else "they are equal"


def _trade(facts) -> str:
    p = _sign(facts["precision"], facts["precision_after"])
    r = _sign(facts["recall"], facts["recall_after"])
    return {("falls", "rises"): "P falls, recall rises", ("rises", "falls"): "P rises, recall falls",
            ("rises", "rises"): "both rise", ("falls", "falls"): "both fall"}.get((p, r), "neither moves")


PRECISION_RECALL = Lesson(
    "precision-recall", "P@k and Recall@k", "How raising k trades precision for recall.",
    lambda: _sample_scene("sweet-pastry", k=1),
    Question("The list is scored at k = {k}: only the top document counts. Which is higher, P@{k} or Recall@{k}?",
             "P@{k} = {precision}: the one document looked at is relevant. Recall@{k} = {recall}: it is one of the "
             "{relevant} sweet pastries judged relevant, and the others are not in the top {k} yet.",
             ("P@k", "Recall@k", "they are equal"), lambda f: _higher(f["precision"], f["recall"])),
    "Raise k from {k} to {k_after}: the whole list counts.",
    lambda scene: Scene(scene.lists, 4, scene.conventions),
    Question("At k = {k_after}, what happens to P and to recall?",
             "P@{k_after} = {precision_after}: {hits_after} of the top {k_after} are relevant, so precision falls. "
             "Recall@{k_after} = {recall_after}: {hits_after} of the {relevant} relevant pastries are found. A "
             "larger k can only keep or raise recall, and it lowers precision whenever the new ranks are not "
             "relevant.",
             ("P falls, recall rises", "P rises, recall falls", "both rise", "both fall", "neither moves"), _trade),
    _precision_recall_facts,
)


# ---- 2. order blindness ----------------------------------------------------------------------------------------

def _order_facts(before: Scene, after: Scene) -> dict[str, object]:
    k = before.k
    specs = {"precision": f"P.{k}", "recall": f"recall.{k}", "ap": f"map_cut.{k}", "ndcg": f"ndcg_cut.{k}"}
    facts: dict[str, object] = {"k": k, "from_rank": rank_of(before, "muffin"), "to_rank": rank_of(after, "muffin"),
                                "hits": hits(before)}
    for name, spec in specs.items():
        facts[name], facts[name + "_after"] = v(before, spec), v(after, spec)
    return facts


def _which_changed(facts) -> str:
    counts = any(facts[n] != facts[n + "_after"] for n in ("precision", "recall"))
    order = any(facts[n] != facts[n + "_after"] for n in ("ap", "ndcg"))
    return {(True, True): "all four", (True, False): "P@k and Recall@k only",
            (False, True): "AP@k and nDCG@k only"}.get((counts, order), "none of them")


ORDER_BLINDNESS = Lesson(
    "order-blindness", "Order blindness", "Moving a relevant document up changes AP and nDCG, not P@k or Recall@k.",
    lambda: _sample_scene("sweet-pastry"),
    Question("What is P@{k} of this list? (two decimals)",
             "P@{k} = {precision}: {hits} of the top {k} are relevant. It counts them and never asks where they are.",
             number="precision"),
    "Move muffin, a relevant document, up from rank {from_rank} to rank {to_rank}.",
    lambda scene: scene.with_list(0, docs=moved(scene.lists[0].docs, "muffin", 2), scores=None),
    Question("Which of P@{k}, Recall@{k}, AP@{k} and nDCG@{k} change?",
             "AP@{k} rises from {ap} to {ap_after} and nDCG@{k} from {ndcg} to {ndcg_after}; P@{k} stays "
             "{precision_after} and Recall@{k} {recall_after}. P and recall count what is in the top k; AP and "
             "nDCG also ask how early it comes.",
             ("P@k and Recall@k only", "AP@k and nDCG@k only", "all four", "none of them"), _which_changed),
    _order_facts,
)


# ---- 3. two systems that tie on P@10 (TREC DL 2020) --------------------------------------------------------------

#: A TREC DL 2020 query where two real runs tie on P@10 (at TREC DL's threshold) and their first relevant passage
#: sits at rank 1 for one and rank 5 for the other (tests/app/test_app_lessons.py checks it on the data).
TIE_QUERY, TIE_RUNS = "940547", ("BM25 + RM3", "BM25")


def _tie_scene() -> Scene:
    judgments = DL20.qrels().query(TIE_QUERY)
    lists = []
    for name in TIE_RUNS:
        order = order_documents(DL20.run(name).query(TIE_QUERY), "trec_eval")[:10]
        lists.append(Listing(name, tuple(order), dict(judgments)))
    return Scene(tuple(lists), 10, DL20.conventions)


def _first_relevant(scene: Scene, index: int) -> int:
    listing, level = scene.lists[index], scene.conventions.relevance_level
    return next(rank for rank, doc in enumerate(listing.docs, start=1) if listing.judgments.get(doc, -1) >= level)


def _raise_first_relevant(scene: Scene) -> Scene:
    docs = scene.lists[1].docs
    return scene.with_list(1, docs=moved(docs, docs[_first_relevant(scene, 1) - 1], 1))


def _tie_facts(before: Scene, after: Scene) -> dict[str, object]:
    facts: dict[str, object] = {"k": before.k, "query": TIE_QUERY, "system_a": TIE_RUNS[0], "system_b": TIE_RUNS[1],
                                "level": before.conventions.relevance_level, "hits": hits(before, 0),
                                "first_b": _first_relevant(before, 1)}
    for side, index in (("a", 0), ("b", 1)):
        facts[f"precision_{side}"] = v(before, f"P.{before.k}", index)
        facts[f"rr_{side}"] = v(before, "recip_rank", index)
        facts[f"ndcg_{side}"] = v(before, f"ndcg_cut.{before.k}", index)
        facts[f"precision_{side}_after"] = v(after, f"P.{before.k}", index)
    facts["skipped"] = facts["first_b"] - 1
    facts["rr_b_after"] = v(after, "recip_rank", 1)
    facts["ndcg_b_after"] = v(after, f"ndcg_cut.{before.k}", 1)
    return facts


def _tie_answer(a: float, b: float, names: tuple[str, str]) -> str:
    return "they tie" if a == b else (names[0] if a > b else names[1])


TIE_ON_P10 = Lesson(
    "tie-on-p10", "Two systems tie on P@10", "Two real systems with the same P@10 that differ for the people using "
    "them: the two lists side by side, over the same judgments.",
    _tie_scene,
    Question("TREC DL 2020, query {query}: the top {k} of {system_a} (list A) and of {system_b} (list B), judged by "
             "NIST (grade {level} and up counts as relevant). Which list has the higher P@{k}?",
             "P@{k} is {precision_a} for A and {precision_b} for B: a tie, {hits} relevant passages in each top {k}. "
             "But a reader of A meets a relevant passage first (RR {rr_a}), while a reader of B skips {skipped} "
             "passages before the first one (RR {rr_b}); nDCG@{k} says so too, {ndcg_a} against {ndcg_b}.",
             ("list A", "list B", "they tie"),
             lambda f: _tie_answer(f["precision_a"], f["precision_b"], ("list A", "list B"))),
    "In list B, move its first relevant passage (rank {first_b}) to the top.",
    _raise_first_relevant,
    Question("Do the two lists still tie on P@{k}?",
             "Yes: P@{k} is {precision_a_after} and {precision_b_after}, as before, since the same passages are in "
             "each top {k}. RR of B is now {rr_b_after} and its nDCG@{k} {ndcg_b_after}: what changed for the reader "
             "is the order inside the top {k}, which P@{k} cannot see.",
             ("yes", "no"), lambda f: "yes" if f["precision_a_after"] == f["precision_b_after"] else "no"),
    _tie_facts,
)


# ---- 4. RR and MRR ---------------------------------------------------------------------------------------------

_MRR_QUERIES = (
    ("capital of France", ("paris", "lyon", "marseille", "nice"), "paris"),
    ("tallest mountain", ("k2", "everest", "kilimanjaro", "denali"), "everest"),
    ("largest ocean", ("atlantic", "indian", "arctic", "pacific"), "pacific"),
)


def _mrr_scene() -> Scene:
    lists = tuple(Listing(query, docs, {answer: 1, **{d: 0 for d in docs if d != answer}})
                  for query, docs, answer in _MRR_QUERIES)
    return Scene(lists, 4)


def _mean(scene: Scene, spec: str) -> float:
    return sum(v(scene, spec, i) for i in range(len(scene.lists))) / len(scene.lists)


def _mrr_facts(before: Scene, after: Scene) -> dict[str, object]:
    facts: dict[str, object] = {"queries": len(before.lists), "mrr": _mean(before, "recip_rank"),
                                "p_one": _mean(before, "P.1"), "mrr_after": _mean(after, "recip_rank"),
                                "p_one_after": _mean(after, "P.1"), "last_query": before.lists[-1].name,
                                "last_rank": rank_of(before, _MRR_QUERIES[-1][2], 2),
                                "last_rank_after": rank_of(after, _MRR_QUERIES[-1][2], 2)}
    for number, index in (("first", 0), ("second", 1), ("third", 2)):
        facts[f"rr_{number}"] = v(before, "recip_rank", index)
    return facts


def _which_mean(facts) -> str:
    rr = facts["mrr"] != facts["mrr_after"]
    p1 = facts["p_one"] != facts["p_one_after"]
    return {(True, True): "both", (True, False): "MRR only", (False, True): "mean P@1 only"}.get((rr, p1), "neither")


RR_MRR = Lesson(
    "rr-mrr", "RR and MRR", "One right answer per query, then the mean over queries: MRR against mean P@1.",
    _mrr_scene,
    Question("Each of the {queries} queries has one right answer. RR is one over the rank of the first right "
             "answer; MRR is the mean of RR over the queries. What is MRR here? (two decimals)",
             "RR is {rr_first}, {rr_second} and {rr_third} for the {queries} queries, so MRR = {mrr}. Mean P@1 asks "
             "only whether the answer is first: {p_one}. MRR gives partial credit to an answer found lower down.",
             number="mrr"),
    "Move the right answer of “{last_query}” from rank {last_rank} up to rank {last_rank_after}.",
    lambda scene: scene.with_list(2, docs=moved(scene.lists[2].docs, _MRR_QUERIES[-1][2], 2)),
    Question("Which mean moves: MRR, mean P@1, both or neither?",
             "MRR rises from {mrr} to {mrr_after}; mean P@1 stays {p_one_after}, since the answer is still not "
             "first. Report MRR when the rank of the one right answer matters; P@1 (Success@1) when only the top "
             "result is shown.",
             ("MRR only", "mean P@1 only", "both", "neither"), _which_mean),
    _mrr_facts,
    explore_list=2,
)


# ---- 5. AP and MAP ---------------------------------------------------------------------------------------------

def _ap_facts(before: Scene, after: Scene) -> dict[str, object]:
    k = before.k
    listing = before.lists[0]
    found = [rank for rank, doc in enumerate(listing.docs, start=1) if listing.judgments.get(doc, 0) >= 1]
    return {
        "k": k, "ap": v(before, "map"), "ap_k": v(before, f"map_cut.{k}"), "relevant": len(relevant(listing)),
        "retrieved_relevant": len(found), "precision_first": v(before, f"P.{found[0]}"),
        "precision_second": v(before, f"P.{found[1]}"),
        "ap_retrieved_only": v(before, "map", conventions=before.conventions.replace(
            ap_denominator="retrieved_relevant")),
        "rank_added": rank_of(after, "scone"), "ap_after": v(after, "map"), "ap_k_after": v(after, f"map_cut.{k}"),
    }


def _missing_counts(facts) -> str:
    return "a zero" if facts["ap"] < facts["ap_retrieved_only"] else "nothing"


def _which_ap(facts) -> str:
    cut = facts["ap_k"] != facts["ap_k_after"]
    uncut = facts["ap"] != facts["ap_after"]
    return {(True, True): "both", (True, False): "AP@k only", (False, True): "uncut AP only"}.get((cut, uncut),
                                                                                                 "neither")


AP_MAP = Lesson(
    "ap-map", "AP and MAP", "A relevant document never retrieved counts as zero; AP@k against uncut AP.",
    lambda: _sample_scene("sweet-pastry"),
    Question("Scone is a relevant sweet pastry that the list never retrieved. What does it add to AP?",
             "It adds a zero: AP = {ap} sums the precision at each relevant document retrieved ({precision_first} "
             "and {precision_second}) and divides by all {relevant} relevant documents, retrieved or not. Dividing "
             "by the {retrieved_relevant} retrieved only would give {ap_retrieved_only} and hide the miss.",
             ("nothing", "a zero"), _missing_counts),
    "Add scone to the list at rank {rank_added}, below the cut-off k = {k}.",
    lambda scene: scene.with_list(0, docs=(*scene.lists[0].docs, "scone"), scores=None),
    Question("Which changes: AP@{k}, uncut AP, both or neither?",
             "Uncut AP rises from {ap} to {ap_after}: it reads the whole list, and scone now adds its precision. "
             "AP@{k} stays {ap_k_after}: it stops at rank {k}, where scone still counts as a zero. A paper's MAP is "
             "usually uncut AP averaged over the queries (trec_eval's map).",
             ("AP@k only", "uncut AP only", "both", "neither"), _which_ap),
    _ap_facts,
)


# ---- 6. graded judgments and nDCG ------------------------------------------------------------------------------

def _ndcg_facts(before: Scene, after: Scene) -> dict[str, object]:
    k = before.k
    listing = before.lists[0]
    top = max(listing.judgments.values())
    missing_top = sum(1 for doc, grade in listing.judgments.items() if grade == top and doc not in listing.docs)
    return {"k": k, "ndcg_k": v(before, f"ndcg_cut.{k}"), "ndcg": v(before, "ndcg"), "missing_top": missing_top,
            "flat_grade": max(after.lists[0].judgments.values()),
            "judged": len(before.lists[0].judgments), "ndcg_k_after": v(after, f"ndcg_cut.{k}"),
            "precision": v(before, f"P.{k}"), "precision_after": v(after, f"P.{k}"),
            "ap": v(before, f"map_cut.{k}"), "ap_after": v(after, f"map_cut.{k}")}


def _graded_changes(facts) -> str:
    changed = [name for name, key in (("P@k", "precision"), ("AP@k", "ap"), ("nDCG@k", "ndcg_k"))
               if facts[key] != facts[key + "_after"]]
    return changed[0] if len(changed) == 1 else "all three" if len(changed) == 3 else "none"


NDCG_GRADED = Lesson(
    "ndcg-graded", "Graded judgments and nDCG", "Gain, discount and the ideal DCG; why nDCG@k can exceed uncut nDCG.",
    lambda: _sample_scene("goes-well-with-jam"),
    Question("nDCG@{k} divides the list's DCG by the best DCG possible in {k} ranks; uncut nDCG divides by the best "
             "DCG of all {judged} judged documents. The list has only {k} documents. Which is larger?",
             "nDCG@{k} = {ndcg_k} and uncut nDCG = {ndcg}. The DCG on top is the same, but the uncut ideal places "
             "every judged document, the {missing_top} of the top grade the list missed included, so its larger "
             "denominator gives the smaller score.",
             ("nDCG@k", "uncut nDCG", "they are equal"),
             lambda f: "nDCG@k" if f["ndcg_k"] > f["ndcg"] else "uncut nDCG" if f["ndcg"] > f["ndcg_k"]
             else "they are equal"),
    "Flatten the grades: judge every match {flat_grade}, whether it was great with jam or just fine.",
    lambda scene: scene.with_list(0, judgments={doc: 1 for doc in scene.lists[0].judgments}),
    Question("Which of P@{k}, AP@{k} and nDCG@{k} changes?",
             "Only nDCG@{k}, from {ndcg_k} to {ndcg_k_after}; P@{k} stays {precision_after} and AP@{k} "
             "{ap_after}. P and AP read a grade only as relevant or not; nDCG's gain is the grade itself, so "
             "flattening the grades changes the ideal list it is measured against.",
             ("P@k", "AP@k", "nDCG@k", "all three", "none"), _graded_changes),
    _ndcg_facts,
)


# ---- 7. RAG: Recall@5 ------------------------------------------------------------------------------------------

def _rag_facts(before: Scene, after: Scene) -> dict[str, object]:
    k = before.k
    return {"k": k, "recall": v(before, f"recall.{k}"), "recall_after": v(after, f"recall.{k}"),
            "hits": hits(before), "relevant": len(relevant(before.lists[0])),
            "ndcg": v(before, f"ndcg_cut.{k}"), "ndcg_after": v(after, f"ndcg_cut.{k}"),
            "from_rank": rank_of(before, "baking-faq#7"), "to_rank": rank_of(after, "baking-faq#7")}


RAG_RECALL = Lesson(
    "rag-recall", "RAG: recall in the prompt", "Recall@5 says whether the evidence reached the language model at all.",
    lambda: _sample_scene("sourdough-starter-rag"),
    Question("A chatbot hands the top {k} chunks to its language model. What share of the chunks that hold the "
             "answer reach it, Recall@{k}? (two decimals)",
             "Recall@{k} = {recall}: {hits} of the {relevant} answer chunks are in the prompt, whatever their "
             "order. The model cannot use the one left out, however well it reads.",
             number="recall"),
    "Move baking-faq#7, the missing answer chunk, from rank {from_rank} to rank {to_rank}.",
    lambda scene: scene.with_list(0, docs=moved(scene.lists[0].docs, "baking-faq#7", 5), scores=None),
    Question("What is Recall@{k} now? (two decimals)",
             "Recall@{k} = {recall_after}: all the evidence now reaches the model. nDCG@{k} moves less, from "
             "{ndcg} to {ndcg_after}, because it discounts the chunk's low rank; the model reads the whole prompt, "
             "so for RAG Recall@k is the number to watch.",
             number="recall_after"),
    _rag_facts,
)


# ---- 8. judgment holes -----------------------------------------------------------------------------------------

def _holes_facts(before: Scene, after: Scene) -> dict[str, object]:
    k = before.k
    spec = f"P.{k}"
    hole = query_holes(list(before.lists[0].docs), before.lists[0].judgments, [spec], before.conventions)
    hole_after = query_holes(list(after.lists[0].docs), after.lists[0].judgments, [spec], after.conventions)
    (only,), (only_after,) = hole.values(), hole_after.values()
    unjudged = [doc for doc in before.lists[0].docs[:k] if before.lists[0].judgments.get(doc, -1) < 0]
    return {"k": k, "precision": only.value, "low": only.low, "high": only.high, "judged_share": only.judged,
            "unjudged": len(unjudged), "precision_after": only_after.value, "low_after": only_after.low,
            "high_after": only_after.high, "bounded": only.bounded, "chia_rank": rank_of(before, "chia-pudding"),
            "width": only.high - only.low,
            "width_after": only_after.high - only_after.low,
            "unjudged_after": sum(1 for doc in after.lists[0].docs[:k] if after.lists[0].judgments.get(doc, -1) < 0)}


HOLES = Lesson(
    "holes", "Judgment holes", "An unjudged document in the top k, and what the score could be once it is judged.",
    lambda: _sample_scene("gluten-free-breakfast"),
    Question("{unjudged} dishes in the top {k} were never judged, and trec_eval counts them as not relevant. If "
             "both turned out relevant, what would P@{k} be? (two decimals)",
             "P@{k} = {precision} as judged, and {high} if both holes are relevant: whatever the assessors say, "
             "P@{k} lies between {low} and {high}. Judged≥0@{k} = {judged_share}: only part of the top {k} is "
             "judged, so the score rests partly on a guess.",
             number="high"),
    "Judge chia-pudding, the unjudged dish at rank {chia_rank}, as relevant.",
    lambda scene: scene.with_list(0, judgments={**scene.lists[0].judgments, "chia-pudding": 1}),
    Question("What is the lowest P@{k} could now be? (two decimals)",
             "P@{k} = {precision_after}, between {low_after} and {high_after}: {unjudged_after} hole is left, so "
             "the range shrinks from {width} to {width_after}. These bounds cover the documents in the top {k} "
             "only; a judgment further down cannot move P@{k}.",
             number="low_after"),
    _holes_facts,
)


# ---- 9. offline and online -------------------------------------------------------------------------------------

def _grades(listing: Listing) -> list[int | None]:
    return [listing.judgments.get(doc) for doc in listing.docs]


def _online_facts(before: Scene, after: Scene) -> dict[str, object]:
    listing = before.lists[0]
    top_grade = max(listing.judgments.values())
    pbm = expected_signals(ClickModel.for_list("pbm", _grades(listing), top_grade))
    donut_low = moved(listing.docs, "donut", 3)
    pbm_low = expected_signals(ClickModel.for_list("pbm", [listing.judgments.get(d) for d in donut_low], top_grade))
    cascade = expected_signals(ClickModel.for_list("cascade", _grades(listing), top_grade))
    cascade_after = expected_signals(ClickModel.for_list("cascade", _grades(after.lists[0]), top_grade))
    needed = sessions_needed(cascade.ctr, cascade_after.ctr)
    k = before.k
    return {"top": 1, "low_rank": 3, "click_top": float(pbm.click_probability[0]),
            "click_low": float(pbm_low.click_probability[2]),
            "ratio": float(pbm.click_probability[0] / pbm_low.click_probability[2]),
            "k": k, "ap": v(before, f"map_cut.{k}"), "ap_after": v(after, f"map_cut.{k}"),
            "ctr": cascade.ctr, "ctr_after": cascade_after.ctr, "sessions": needed if needed is not None else 0,
            "first_click": cascade.first_click_rank, "first_click_after": cascade_after.first_click_rank,
            "from_rank": rank_of(before, "muffin"), "to_rank": rank_of(after, "muffin")}


def _sessions_choice(facts) -> str:
    sessions = facts["sessions"]
    return "no number of sessions" if sessions == 0 else "under ten thousand" if sessions < 10_000 \
        else "ten thousand or more"


ONLINE = Lesson(
    "online", "Offline and online", "Position bias, and a ranking change no A/B test on CTR can see.",
    lambda: _sample_scene("sweet-pastry"),
    Question("In the position-based click model a user looks at rank r with a chance of one in r. How many times "
             "more often is donut clicked at rank {top} than the same donut at rank {low_rank}? (two decimals)",
             "At rank {top} donut is clicked with probability {click_top}, at rank {low_rank} with {click_low}: "
             "the same document, {ratio} times the clicks. Clicks say where a document was shown as much as how "
             "good it is.",
             number="ratio"),
    "Move muffin up from rank {from_rank} to rank {to_rank}, and test the two orders on CTR (the chance of at least "
    "one click) with cascade users, who read down and stop at their first click.",
    lambda scene: scene.with_list(0, docs=moved(scene.lists[0].docs, "muffin", 2), scores=None),
    Question("How many sessions per arm does an A/B test on CTR need to see the difference?",
             "No number of sessions: CTR is {ctr} on both orders ({ctr_after} after the move), because the chance "
             "of clicking something does not depend on the order a cascade user meets the documents in. AP@{k} "
             "rose from {ap} to {ap_after}, and the first click comes earlier (rank {first_click} on average, now "
             "{first_click_after}): a test on the first click's rank, or interleaving, can see what CTR cannot.",
             ("under ten thousand", "ten thousand or more", "no number of sessions"), _sessions_choice),
    _online_facts,
)


# ---- 10. ANN recall against retrieval recall -------------------------------------------------------------------

#: One query of a small embedding search: the exact nearest neighbours and the approximate index's list, scored
#: by similarity. The index misses a non-relevant neighbour and returns a relevant document from further out.
_ANN_JUDGMENTS = {"feeding-schedule": 1, "starter-smells": 0, "revive-a-starter": 1, "jar-sizes": 0,
                  "starter-names": 0, "rye-starter": 1, "flour-types": 1}
_EXACT = (("feeding-schedule", 0.93), ("starter-smells", 0.91), ("revive-a-starter", 0.9), ("jar-sizes", 0.88),
          ("starter-names", 0.87), ("rye-starter", 0.85), ("flour-types", 0.8))
_ANN = (("feeding-schedule", 0.93), ("revive-a-starter", 0.9), ("starter-smells", 0.89), ("rye-starter", 0.86),
        ("jar-sizes", 0.84))


def _ann_scene() -> Scene:
    return Scene((Listing("exact search", tuple(d for d, _ in _EXACT[:5]), _ANN_JUDGMENTS,
                          tuple(score for _, score in _EXACT[:5])),
                  Listing("ANN index", tuple(d for d, _ in _ANN), _ANN_JUDGMENTS, tuple(score for _, score in _ANN))),
                 5)


def _ann_compare(scene: Scene) -> dict[str, float]:
    """ANN recall and both lists' retrieval side (metrics.ann), the exact run being the whole exact search."""
    ann = scene.lists[1]
    comparison = compare_ann({"q": dict(_EXACT)}, {"q": dict(zip(ann.docs, ann.scores or ()))},
                             {"q": _ANN_JUDGMENTS}, scene.k)
    return comparison.per_query["q"]


def _ann_facts(before: Scene, after: Scene) -> dict[str, object]:
    k = before.k
    first, second = _ann_compare(before), _ann_compare(after)
    return {"k": k, "ann_recall": first[f"ann_recall_{k}"], "recall_exact": first[f"recall_{k}_exact"],
            "recall_ann": first[f"recall_{k}_ann"], "lost": int(first[f"lost_relevant_{k}"]),
            "gained": int(first[f"gained_relevant_{k}"]), "missed": round(k * (1 - first[f"ann_recall_{k}"])),
            "ann_recall_after": second[f"ann_recall_{k}"], "recall_after": second[f"recall_{k}_ann"]}


ANN = Lesson(
    "ann-recall", "ANN recall against retrieval recall",
    "The exact list is what the index converges to, not a ceiling on retrieval recall.",
    _ann_scene,
    Question("The ANN index returns only part of the exact search's top {k}. Can its list hold more relevant "
             "documents than the exact one?",
             "Yes. ANN recall@{k} = {ann_recall}: the index missed {missed} of the exact top {k}. Yet retrieval "
             "Recall@{k} is {recall_ann} for the ANN list against {recall_exact} for the exact one "
             "(relevant documents lost: {lost}, gained: {gained}): the index returned a relevant document that "
             "the embedding placed just outside the exact top {k}.",
             ("yes", "no, the exact list is a ceiling"),
             lambda f: "yes" if f["recall_ann"] > f["recall_exact"] else "no, the exact list is a ceiling"),
    "Widen the index's search until it returns exactly the exact top {k}.",
    lambda scene: scene.with_list(1, docs=scene.lists[0].docs, scores=scene.lists[0].scores),
    Question("What is the ANN list's retrieval Recall@{k} now? (two decimals)",
             "ANN recall@{k} = {ann_recall_after}, a perfect index, and retrieval Recall@{k} = {recall_after}, "
             "lower than before. The exact list is what the index converges to as its search widens, not a bound: "
             "to find more relevant documents, change the embedding or the retriever.",
             number="recall_after"),
    _ann_facts,
)


# ---- 11. ties and conventions: three tools, three numbers ------------------------------------------------------

TIE_TOOLS = ("trec_eval 9.0.8", "ranx", "scikit-learn ndcg_score")


def _tools_facts(before: Scene, after: Scene) -> dict[str, object]:
    k = before.k
    spec = f"ndcg_cut.{k}"
    profiles = {profile.name: profile for profile in PROFILES}
    facts: dict[str, object] = {"k": k}
    for slot, name in zip(("trec", "ranx", "sklearn"), TIE_TOOLS):
        conventions = profile_conventions(profiles[name])
        facts[f"{slot}_tool"] = name
        facts[slot] = tool_value(before.lists[0], spec, conventions)
        facts[f"{slot}_after"] = tool_value(after.lists[0], spec, conventions)
    listing = before.lists[0]
    facts["trec_first"] = order_documents(dict(zip(listing.docs, listing.scores or ())), "trec_eval")[0]
    facts["distinct"] = len({round(facts[s], 3) for s in ("trec", "ranx", "sklearn")})
    facts["distinct_after"] = len({round(facts[s + "_after"], 3) for s in ("trec", "ranx", "sklearn")})
    facts["new_score"] = after.lists[0].scores[0]
    return facts


def _untie(scene: Scene) -> Scene:
    listing = scene.lists[0]
    scores = list(listing.scores or ())
    scores[listing.docs.index("biscotti")] += 0.01
    return scene.with_list(0, scores=tuple(scores))


TOOLS_LESSON = Lesson(
    "ties-and-tools", "Ties and conventions", "The same run, three tools, three numbers.",
    lambda: Scene((Listing("dunk in coffee", ("biscotti", "scone", "croissant", "donut"),
                           load_sample("dunk-in-coffee").judgments, (0.8, 0.8, 0.6, 0.5)),), 4),
    Question("biscotti (relevant) and scone (not relevant) have the same score. Which does trec_eval rank first?",
             "{trec_first}: trec_eval breaks a tie by document id, descending. That one choice already splits the "
             "tools: nDCG@{k} is {trec} in {trec_tool}, {ranx} in {ranx_tool}, which here keeps the run's own "
             "order (on a list this short, numba's quicksort is a stable insertion sort), "
             "and {sklearn} in {sklearn_tool}, which averages the gains of tied documents and builds its ideal "
             "from the retrieved documents only.",
             ("biscotti", "scone"),
             lambda f: f["trec_first"]),
    "Give biscotti a slightly higher score ({new_score}), so nothing ties.",
    _untie,
    Question("How many different nDCG@{k} values do the three tools give now?",
             "{distinct_after}: without the tie {trec_tool} and {ranx_tool} agree on {trec_after}, while "
             "{sklearn_tool} still says {sklearn_after}, because its ideal leaves out shortbread, judged relevant "
             "and never retrieved. Ties and conventions, not bugs, make tools disagree: name the tool and its "
             "settings with every number.",
             ("one", "two", "three"),
             lambda f: {1: "one", 2: "two", 3: "three"}[f["distinct_after"]]),
    _tools_facts,
)


# ---- 12. which metric when -------------------------------------------------------------------------------------

def _guide(words: str):
    """The metric guide's entry (metrics.explain.METRIC_GUIDE) whose use case holds ``words``."""
    return next(entry for entry in METRIC_GUIDE if words in entry.use_case)


_READ_FROM_TOP, _RAG = "read from the top", "RAG"
#: The guide's measures, but for its last entry (an online test on top of any of them).
_CHOICES = tuple(entry.metric for entry in METRIC_GUIDE if "online" not in entry.metric.lower())


def _which_facts(before: Scene, after: Scene) -> dict[str, object]:
    k, k_after = before.k, after.k
    holes = query_holes(list(before.lists[0].docs), before.lists[0].judgments, [f"ndcg_cut.{k}"],
                        before.conventions)
    return {"k": k, "k_after": k_after, "ndcg": v(before, f"ndcg_cut.{k}"), "recall": v(before, f"recall.{k}"),
            "judged_share": next(iter(holes.values())).judged, "level": before.conventions.relevance_level,
            "recall_after": v(after, f"recall.{k_after}"), "ndcg_after": v(after, f"ndcg_cut.{k_after}"),
            "rr_after": v(after, "recip_rank"), "primary": _guide(_READ_FROM_TOP).metric,
            "primary_after": _guide(_RAG).metric, "why": _guide(_READ_FROM_TOP).why,
            "why_after": _guide(_RAG).why}


WHICH_METRIC = Lesson(
    "which-metric", "Which metric when", "One primary measure for the question asked, and one or two supporting "
    "ones.",
    lambda: _sample_scene("laminating-butter-temperature"),
    Question("People read this result page from the top, and the passages are graded. Which measure should lead "
             "the report?",
             "{primary}, here {ndcg}. {why} Support it with Recall@{k} ({recall}: how much of what is relevant "
             "the page holds, at grade {level} and up) and Judged≥0@{k} ({judged_share}: how much of the score "
             "rests on judgments).",
             _CHOICES, lambda f: f["primary"]),
    "The same passages now feed a chatbot, whose prompt holds the top {k_after}.",
    lambda scene: Scene(scene.lists, 5, scene.conventions),
    Question("Which measure should lead now?",
             "{primary_after}, here Recall@{k_after} = {recall_after}. {why_after} nDCG@{k_after} ({ndcg_after}) "
             "and RR ({rr_after}) can support it, but the question has changed from how well people are served "
             "to whether the evidence arrived.",
             _CHOICES, lambda f: f["primary_after"]),
    _which_facts,
)


#: Every lesson, in the article's order.
LESSONS: tuple[Lesson, ...] = (PRECISION_RECALL, ORDER_BLINDNESS, TIE_ON_P10, RR_MRR, AP_MAP, NDCG_GRADED,
                               RAG_RECALL, HOLES, ONLINE, ANN, TOOLS_LESSON, WHICH_METRIC)
BY_SLUG = {lesson.slug: lesson for lesson in LESSONS}

__all__ = ["BY_SLUG", "LESSONS"]
