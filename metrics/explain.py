"""Per-metric explanations for one query: the formula, the computation with this list's numbers, and what the metric
rewards, for the six metrics of the explorer (P@k, Recall@k, RR, AP@k, nDCG@k, Success@k).

The worked computation is rebuilt here term by term, under the same conventions the engine uses (relevance level,
gain, where the ideal DCG comes from, the AP@k denominator, P@k on short lists, unjudged documents, depth). Its
final number is computed from those terms, and the tests check that it always equals the engine's value rounded to
three decimals, so an explanation cannot drift from the number shown next to it.

>>> ranking = ["donut", "bagel", "muffin", "croissant"]
>>> judgments = {"donut": 1, "muffin": 1, "scone": 1}
>>> print(explain(ranking, judgments, 4)[3].worked)
AP@4 = (1/1 + 2/3) / 3 = 0.556
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .conventions import Conventions
from .evaluate import evaluate_rankings
from .measures import MEASURES
from .measures.display import name_of
from .model import check_grades
from .names import MAP_AT_K_READING, Measure, measure_at, trec_spec
from .whatif import MetricSet

#: Sums with more terms than this are shown as their first terms, "…", and the last term.
MAX_TERMS = 8
_HEAD_TERMS = 6


@dataclass(frozen=True, slots=True)
class Explanation:
    """One metric explained for one query.

    label: how the explorer names it, e.g. ``AP@4``. measure: the trec_eval measure string, e.g. ``map_cut.4``.
    value: the engine's value. formula: LaTeX for ``st.latex``. worked: the computation with this list's numbers
    (plain text; the first line ends with the value, later lines name the conventions that shaped it).
    rewards: one sentence on what the metric rewards. parsed: the measure itself (``measure`` is its string), so a
    page reads its values by ``parsed.key`` without parsing the string back.
    """

    label: str
    measure: str
    value: float
    formula: str
    worked: str
    rewards: str
    parsed: Measure | None = None


class GuideEntry(NamedTuple):
    use_case: str
    metric: str
    why: str


#: A short guide to choosing a metric: (use case, metric, why).
METRIC_GUIDE: tuple[GuideEntry, ...] = (
    GuideEntry(
        "RAG: the top k chunks are handed to a language model",
        "Recall@k",
        "The model can only use what it is given, so what counts is how much of the needed evidence reaches the "
        "top k; the order inside it matters little.",
    ),
    GuideEntry(
        "Single-answer search: a known item, a fact, a home page",
        "RR (or Success@1)",
        "Only the first correct result matters: RR rewards putting it at rank 1, Success@1 asks whether it is there.",
    ),
    GuideEntry(
        "A result page that people read from the top",
        "nDCG@10",
        "It uses graded judgments and discounts lower ranks, as attention fades down the page.",
    ),
    GuideEntry(
        "Recommendation-style lists with many good items",
        "AP (or AP@k for a fixed-length list)",
        "It rewards ranking every relevant item early, not only the first one. A paper's MAP is usually uncut AP "
        f"averaged over queries (trec_eval map); {MAP_AT_K_READING}.",
    ),
    GuideEntry(
        "A fixed number of slots, such as a carousel of five",
        "P@k",
        "It counts the slots filled with something relevant and ignores the order inside them.",
    ),
    GuideEntry(
        "Deciding whether an offline win will hold with users",
        "An online test (A/B or interleaving) on top of the offline metric",
        "Offline metrics score judged documents with a model of attention; clicks come from people. Confirm online "
        "whenever one of the cases below holds.",
    ),
)

#: When an offline win needs online confirmation: (case, why), shown under the guide.
ONLINE_CONFIRMATION: tuple[tuple[str, str], ...] = (
    ("The delta is small, within the noise",
     "A difference that a paired test over the queries does not call significant, or that is smaller than the "
     "spread of per-query differences, may be an artefact of which queries were sampled."),
    ("Many documents in the new top k are unjudged",
     "trec_eval counts an unjudged document as non-relevant, so a system that finds new documents can win or "
     "lose on the holes alone: check Judged≥0@k of both runs (the run page's judgment holes), or judge the holes "
     "first."),
    ("The change sits below the fold",
     "Swaps at ranks people rarely examine move nDCG and AP a little but clicks hardly at all: position bias "
     "hides them, and it takes far more sessions to see the difference."),
    ("The metric and the user disagree on what matters",
     "A gain on the second relevant document (AP, recall) helps little when the user stops at the first good "
     "result (a cascade user), and a gain in grade helps only if people click better documents more."),
    ("The judgments are old or from assessors, not users",
     "Judged relevance is not attractiveness: a snippet that looks wrong is not clicked, and freshness or "
     "presentation never reach the qrels."),
)


def explorer_measures(k: int) -> list[tuple[str, str]]:
    """The explorer's metrics at cut-off ``k`` as (label, trec_eval measure string), in display order: the six of
    :class:`metrics.whatif.MetricSet` (shared with the what-if charts) and uncut AP (trec_eval ``map``) after AP@k.

    >>> explorer_measures(4)[:3]
    [('P@4', 'P.4'), ('Recall@4', 'recall.4'), ('RR', 'recip_rank')]
    """
    return [(label, trec_spec(measure)) for label, measure in explorer_metrics(k)]


def explorer_metrics(k: int) -> list[tuple[str, Measure]]:
    """:func:`explorer_measures` as measures built from the registry and ``k``, not as strings to parse."""
    specs = MetricSet(k).specs
    measures = [(spec.label, spec.parsed) for spec in specs]
    # Uncut AP (trec_eval's map) next to AP@k: the "MAP" of most papers, and the seed's own MAP.
    at = next(i for i, spec in enumerate(specs) if spec.family == "AP")
    return [*measures[: at + 1], (name_of("map"), measure_at("map", k)), *measures[at + 1:]]


def explain(
    ranking: Sequence[str], judgments: Mapping[str, int], k: int, conventions: Conventions | None = None
) -> list[Explanation]:
    """Explain the six explorer metrics for one ranked list (doc ids in rank order) and its judgments at ``k``."""
    conv = conventions if conventions is not None else Conventions()
    check_grades(judgments)
    measures = explorer_metrics(k)
    values = evaluate_rankings([list(ranking)], [judgments], [measure for _, measure in measures], conv)
    view = _View.build(ranking, judgments, conv)
    builders: dict[str, Callable[[_View, int], tuple[str, str]]] = {
        "P": _precision,
        "recall": _recall,
        "recip_rank": _reciprocal_rank,
        "map_cut": _average_precision,
        "map": _uncut_average_precision,
        "ndcg_cut": _ndcg,
        "success": _success,
    }
    explanations = []
    for label, measure in measures:
        formula, first_line = builders[measure.name](view, int(k))
        lines = [first_line, *view.notes(measure.name)]
        explanations.append(
            Explanation(
                label=label,
                measure=trec_spec(measure),
                value=float(values[measure.key][0]),
                formula=formula,
                worked="\n".join(lines),
                rewards=MEASURES[measure.name].rewards,
                parsed=measure,
            )
        )
    return explanations


def missed_relevant_note(conventions: Conventions | None = None) -> str:
    """What judged documents the list did not retrieve change, under ``conventions``.

    >>> missed_relevant_note()
    'Relevant documents the list missed still count in recall, AP@k and AP (they are in R) and in the ideal DCG.'
    >>> note = missed_relevant_note(Conventions(ideal_from="retrieved", ap_denominator="retrieved_relevant"))
    >>> note.split(" (ap_denominator")[0]
    'Relevant documents the list missed count in recall (they are in R) but not in AP@k, AP or the ideal DCG'
    >>> note.split("DCG ")[1]
    '(ap_denominator=retrieved_relevant, ideal_from=retrieved).'
    """
    conv = conventions if conventions is not None else Conventions()
    counted, ignored, why = ["recall"], [], []
    if conv.ap_denominator == "R":
        counted += ["AP@k", "AP"]
    elif conv.ap_denominator == "min_R_k":
        counted += ["AP@k (through min(R, k))", "AP"]
    else:
        ignored += ["AP@k", "AP"]
        why.append("ap_denominator=retrieved_relevant")
    if conv.ideal_from == "judgments":
        ideal_counts = True
    else:
        ideal_counts = False
        ignored.append("the ideal DCG")
        why.append("ideal_from=retrieved")
    counted_text = _join(counted) + " (they are in R)"
    if not ignored:
        return f"Relevant documents the list missed still count in {counted_text} and in the ideal DCG."
    if ideal_counts:
        counted_text += " and in the ideal DCG"
    return (f"Relevant documents the list missed count in {counted_text} but not in {_join(ignored, 'or')} "
            f"({', '.join(why)}).")


def _join(words: Sequence[str], last: str = "and") -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"


# ---- the evaluated list ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _View:
    """The list as the engine scores it: cut at the depth, unjudged documents removed if the conventions say so."""

    conv: Conventions
    docs: list[str]
    grades: list[int | None]  # None: unjudged (absent or a negative grade)
    judged_grades: list[int]  # every grade >= 0 of the query, retrieved or not
    removed: list[tuple[int, str]]  # (original rank, doc) of unjudged documents removed
    depth_cut: int  # documents dropped by the depth

    @classmethod
    def build(cls, ranking: Sequence[str], judgments: Mapping[str, int], conv: Conventions) -> _View:
        kept = list(ranking) if conv.depth is None else list(ranking)[: conv.depth]
        docs, grades, removed = [], [], []
        for rank, doc in enumerate(kept, start=1):
            grade = judgments.get(doc)
            grade = int(grade) if grade is not None and grade >= 0 else None
            if grade is None and conv.unjudged == "removed":
                removed.append((rank, doc))
                continue
            docs.append(doc)
            grades.append(grade)
        judged_grades = [int(g) for g in judgments.values() if g >= 0]
        return cls(conv, docs, grades, judged_grades, removed, len(ranking) - len(kept))

    @property
    def level(self) -> int:
        return self.conv.relevance_level

    def relevant(self, index: int) -> bool:
        grade = self.grades[index]
        return grade is not None and grade >= self.level

    @property
    def num_relevant(self) -> int:
        return sum(grade >= self.level for grade in self.judged_grades)

    def relevant_ranks(self, k: int | None = None) -> list[int]:
        """1-based ranks of the relevant documents, within the top k when given."""
        top = len(self.docs) if k is None else min(k, len(self.docs))
        return [index + 1 for index in range(top) if self.relevant(index)]

    def gain(self, grade: int) -> float:
        kind = self.conv.gain
        if kind == "linear":
            return float(grade)
        if kind == "exponential":
            return float(np.exp2(float(grade)) - 1.0)
        if kind == "thresholded":
            return float(grade) if grade >= self.level else 0.0
        return 1.0 if grade >= self.level else 0.0

    def gain_text(self, grade: int) -> str:
        kind = self.conv.gain
        if kind == "linear":
            return str(grade)
        if kind == "exponential":
            return f"(2^{grade}-1)"
        if kind == "thresholded":
            return str(grade)
        return "1"

    def notes(self, name: str) -> list[str]:
        """Lines naming the non-default conventions that shaped this metric's computation."""
        conv = self.conv
        lines = []
        if self.depth_cut:
            lines.append(f"Only the top {conv.depth} documents are evaluated (depth {conv.depth}, "
                         f"trec_eval -M {conv.depth}).")
        if self.removed:
            shown = _abbreviate([f"{doc} (rank {rank})" for rank, doc in self.removed], ", ")
            lines.append(f"Unjudged documents are removed and the ranks close up (trec_eval -J): {shown}.")
        graded = name == "ndcg_cut" and conv.gain not in ("binary", "thresholded")
        # nDCG's own lines below say how the level acts on its gains.
        if self.level != 1 and name != "ndcg_cut":
            lines.append(f"Relevant means grade ≥ {self.level} (relevance level {self.level}, "
                         f"trec_eval -l {self.level}).")
        if name == "ndcg_cut":
            if self.level != 1 and graded:
                lines.append(f"The relevance level ({self.level}) does not change nDCG: "
                             "every judged grade counts as gain.")
            if conv.gain == "exponential":
                lines.append("Gain is 2^grade - 1 (exponential gain), so higher grades weigh much more.")
            elif conv.gain == "binary":
                lines.append(f"Gain is 1 for a relevant document (grade ≥ {self.level}) and 0 otherwise (binary gain).")
            elif conv.gain == "thresholded":
                lines.append(f"Gain is the grade for a relevant document (grade ≥ {self.level}) and 0 otherwise "
                             "(thresholded gain, ranx's rel_lvl).")
            if conv.ideal_from == "retrieved":
                lines.append("The ideal ranking re-sorts the retrieved documents only, not every judged document.")
        if name == "recip_rank":
            lines.append(f"Averaged over queries, {name_of('recip_rank')} is {name_of('recip_rank', mean=True)} "
                         "(mean reciprocal rank), the number a paper or leaderboard reports.")
        if name == "map":
            lines.append(f"A paper's \"MAP\" is usually this uncut AP averaged over queries (trec_eval map); "
                         f"{MAP_AT_K_READING}.")
        if name == "map" and conv.ap_denominator == "retrieved_relevant":
            lines.append("AP divides by the relevant documents retrieved; "
                         f"trec_eval divides by all R = {self.num_relevant}.")
        if name == "map_cut" and conv.ap_denominator == "min_R_k":
            lines.append("AP@k divides by min(R, k), so a top k full of relevant documents scores 1 even when R > k.")
        if name == "map_cut" and conv.ap_denominator == "retrieved_relevant":
            lines.append(
                "AP@k divides by the relevant documents found in the top k; "
                f"trec_eval divides by all R = {self.num_relevant}."
            )
        return lines


# ---- one function per metric: (LaTeX formula, first line of the worked computation) ------------------


def _lines(*lines: str) -> str:
    """A formula of several short lines aligned at ``&`` (the explanation panel is about 300 px wide at 1280 px,
    and a display formula never wraps by itself)."""
    return r"\begin{aligned}" + r" \\[2pt] ".join(lines) + r"\end{aligned}"


def _precision(view: _View, k: int) -> tuple[str, str]:
    hits = len(view.relevant_ranks(k))
    retrieved = len(view.docs)
    if view.conv.precision_short_list == "retrieved":
        formula = r"\mathrm{P@}k = \frac{1}{\min(k,\,|L|)} \sum_{r=1}^{k} \mathrm{rel}_r"
        denominator = min(k, retrieved)
        if denominator == 0:
            return formula, f"P@{k} = {_fmt(0.0)} (no documents retrieved, so nothing to divide by)"
        if retrieved < k:
            value = hits / denominator
            return formula, f"P@{k} = {hits} / min({k}, {retrieved}) = {hits} / {retrieved} = {_fmt(value)}"
    else:
        formula = r"\mathrm{P@}k = \frac{1}{k} \sum_{r=1}^{k} \mathrm{rel}_r"
    line = f"P@{k} = {hits} / {k} = {_fmt(hits / k)}"
    if retrieved < k and view.conv.precision_short_list == "k":
        empty = k - retrieved
        line += (f" (only {_count(retrieved, 'document')} retrieved; "
                 f"the {_count(empty, 'empty rank')} {'counts' if empty == 1 else 'count'} as non-relevant)")
    return formula, line


def _recall(view: _View, k: int) -> tuple[str, str]:
    formula = r"\mathrm{Recall@}k = \frac{1}{R} \sum_{r=1}^{k} \mathrm{rel}_r"
    total = view.num_relevant
    if total == 0:
        return formula, f"Recall@{k} = {_fmt(0.0)} (no document is judged relevant, so R = 0)"
    hits = len(view.relevant_ranks(k))
    return formula, f"Recall@{k} = {hits} / {total} = {_fmt(hits / total)}"


def _reciprocal_rank(view: _View, k: int) -> tuple[str, str]:
    formula = _lines(r"\mathrm{RR} &= \frac{1}{r^{*}}", r"r^{*} &= \text{rank of the first}",
                     r"&\phantom{=}\ \text{relevant document}")
    ranks = view.relevant_ranks()
    if not ranks:
        return formula, f"RR = {_fmt(0.0)} (no relevant document retrieved)"
    first = ranks[0]
    remark = f"first relevant document: {view.docs[first - 1]} at rank {first}"
    if first > k:
        remark += (f"; RR has no cut-off, so it counts below the top {k}, while RR@{k} (the k chart's RR@k) "
                   f"is {_fmt(0.0)}")
    return formula, f"RR = 1 / {first} = {_fmt(1.0 / first)} ({remark})"


def _average_precision(view: _View, k: int) -> tuple[str, str]:
    rule = view.conv.ap_denominator
    ranks = view.relevant_ranks(k)
    total = view.num_relevant
    if rule == "R":
        denominator, denominator_text, symbol = total, str(total), "R"
    elif rule == "min_R_k":
        denominator, denominator_text, symbol = min(total, k), f"min({total}, {k})", r"\min(R,\,k)"
    else:
        denominator, denominator_text, symbol = len(ranks), str(len(ranks)), r"\sum_{r=1}^{k} \mathrm{rel}_r"
    formula = rf"\mathrm{{AP@}}k = \frac{{1}}{{{symbol}}} \sum_{{r=1}}^{{k}} \mathrm{{rel}}_r \, \mathrm{{P@}}r"
    if denominator == 0:
        why = (f"no relevant document in the top {k}, so the denominator is 0"
               if rule == "retrieved_relevant" else "no document is judged relevant, so R = 0")
        return formula, f"AP@{k} = {_fmt(0.0)} ({why})"
    if not ranks:
        return formula, f"AP@{k} = 0 / {denominator_text} = {_fmt(0.0)} (no relevant document in the top {k})"
    terms = [f"{hits}/{rank}" for hits, rank in enumerate(ranks, start=1)]
    summed = 0.0
    for hits, rank in enumerate(ranks, start=1):
        summed += hits / rank  # in rank order, as the engine accumulates
    value = summed / denominator
    line = f"AP@{k} = ({_abbreviate(terms)}) / {denominator_text}"
    if len(terms) > MAX_TERMS or rule == "min_R_k":
        line += f" = {_fmt(summed)} / {denominator}"
    return formula, f"{line} = {_fmt(value)}"


def _uncut_average_precision(view: _View, k: int) -> tuple[str, str]:
    """AP over the whole list (trec_eval map): min(R, k) with no k is R."""
    rule = view.conv.ap_denominator
    ranks = view.relevant_ranks()
    total = view.num_relevant
    if rule == "retrieved_relevant":
        denominator, symbol = len(ranks), r"\sum_{r} \mathrm{rel}_r"
    else:
        denominator, symbol = total, "R"
    formula = rf"\mathrm{{AP}} = \frac{{1}}{{{symbol}}} \sum_{{r=1}}^{{|L|}} \mathrm{{rel}}_r \, \mathrm{{P@}}r"
    if denominator == 0:
        why = ("no relevant document retrieved" if rule == "retrieved_relevant"
               else "no document is judged relevant, so R = 0")
        return formula, f"AP = {_fmt(0.0)} ({why})"
    if not ranks:
        return formula, f"AP = 0 / {denominator} = {_fmt(0.0)} (no relevant document retrieved)"
    terms = [f"{hits}/{rank}" for hits, rank in enumerate(ranks, start=1)]
    summed = 0.0
    for hits, rank in enumerate(ranks, start=1):
        summed += hits / rank
    line = f"AP = ({_abbreviate(terms)}) / {denominator}"
    if len(terms) > MAX_TERMS:
        line += f" = {_fmt(summed)} / {denominator}"
    return formula, f"{line} = {_fmt(summed / denominator)} (every rank of the list, no cut-off)"


def _ndcg(view: _View, k: int) -> tuple[str, str]:
    conv = view.conv
    numerator = {"linear": "g_r", "exponential": "2^{g_r} - 1", "binary": r"\mathrm{rel}_r",
                 "thresholded": r"g_r \mathrm{rel}_r"}[conv.gain]
    ideal_source = "judged" if conv.ideal_from == "judgments" else "retrieved"
    formula = _lines(
        r"\mathrm{nDCG@}k &= \frac{\mathrm{DCG@}k}{\mathrm{IDCG@}k}",
        rf"\mathrm{{DCG@}}k &= \sum_{{r=1}}^{{k}} \frac{{{numerator}}}{{\log_2(r+1)}}",
        r"\mathrm{IDCG@}k &= \mathrm{DCG@}k \text{ of the}",
        rf"&\phantom{{=}}\ \text{{{ideal_source} documents}}",
        r"&\phantom{=}\ \text{sorted by gain}",
    )
    top = min(k, len(view.docs))
    ranked_grades = view.grades[:top]
    gains = np.array([view.gain(g) if g is not None else 0.0 for g in ranked_grades], dtype=np.float64)
    dcg = float(np.cumsum(gains / np.log2(np.arange(1, top + 1, dtype=np.float64) + 1.0))[-1]) if top else 0.0
    dcg_terms = [
        f"{view.gain_text(g)}/log2({rank + 1})"
        for rank, g in enumerate(ranked_grades, start=1)
        if g is not None and view.gain(g) > 0
    ]
    pool = view.judged_grades if conv.ideal_from == "judgments" else [g for g in view.grades if g is not None]
    ideal_grades = sorted((g for g in pool if view.gain(g) > 0), key=view.gain, reverse=True)[:k]
    ideal_gains = np.array([view.gain(g) for g in ideal_grades], dtype=np.float64)
    discounts = np.log2(np.arange(2, len(ideal_grades) + 2, dtype=np.float64))
    idcg = float(np.cumsum(ideal_gains / discounts)[-1]) if ideal_grades else 0.0
    if idcg <= 0:
        where = "judged" if conv.ideal_from == "judgments" else "retrieved"
        return formula, f"nDCG@{k} = {_fmt(0.0)} (no {where} document has a positive gain, so IDCG@{k} = 0)"
    ideal_terms = [f"{view.gain_text(g)}/log2({rank + 1})" for rank, g in enumerate(ideal_grades, start=1)]
    head = f"nDCG@{k} = DCG@{k} / IDCG@{k} = "
    if not dcg_terms:
        return formula, (f"{head}0 / ({_abbreviate(ideal_terms)}) = {_fmt(0.0)} / {_fmt(idcg)} = {_fmt(0.0)} "
                         f"(no document in the top {k} has a positive gain)")
    value = dcg / idcg
    return formula, (f"{head}({_abbreviate(dcg_terms)}) / ({_abbreviate(ideal_terms)}) "
                     f"= {_fmt(dcg)} / {_fmt(idcg)} = {_fmt(value)}")


def _success(view: _View, k: int) -> tuple[str, str]:
    formula = r"\mathrm{Success@}k = \max_{1 \le r \le k} \mathrm{rel}_r"
    ranks = view.relevant_ranks(k)
    if not ranks:
        return formula, f"Success@{k} = 0 (no relevant document in the top {k})"
    first = ranks[0]
    return formula, f"Success@{k} = 1 ({view.docs[first - 1]} at rank {first} is within the top {k})"


# ---- text helpers -------------------------------------------------------------------------------------


def _fmt(value: float) -> str:
    return f"{value:.3f}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _abbreviate(terms: Sequence[str], separator: str = " + ") -> str:
    """All terms, or the first few, "…" and the last one when there are more than MAX_TERMS."""
    if len(terms) <= MAX_TERMS:
        return separator.join(terms)
    return separator.join([*terms[:_HEAD_TERMS], "…", terms[-1]])


__all__ = ["Explanation", "GuideEntry", "METRIC_GUIDE", "ONLINE_CONFIRMATION", "explain", "explorer_measures",
           "explorer_metrics", "missed_relevant_note"]
