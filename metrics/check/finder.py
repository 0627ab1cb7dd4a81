"""The convention finder: which conventions turn these files into the reported score?

Given qrels, a run, a measure and a reported value, evaluate the measure under every applicable combination of
conventions and keep those whose mean rounds to the reported digits. A convention is *applicable* when it can
change the measure: the ones its registry entry names (``MeasureInfo.conventions``), plus tie order, unjudged
documents and missing queries, which can change any measure. The relevance level is searched from 1 to the
highest grade in the qrels. Depth (trec_eval -M) is never searched; pass it in ``base``.

Combinations that give identical per-query values on this data are one *outcome* (tie orders are the same when
no scores tie, ``missing_queries`` does nothing when every judged query was run, ...). Each outcome is named by
its most common combination; the others are listed as equivalent. Outcomes are ranked by commonness, a prior
that multiplies one weight per convention: a choice's number of tools in ``CONVENTION_INFO`` over the number of
trec_eval's choice, so trec_eval's defaults weigh 1 and come first.

Speed: the run is flattened into numpy arrays once. Tie order and unjudged documents change which documents
stand at which rank, so each distinct pair gives one batch (tie orders that order this run identically share
one); missing queries only change which rows the mean counts; every other convention only changes the kernel's
``Context``. A TREC DL run (43 queries x 1000 documents) takes a few tens of milliseconds. Memory follows the
number of lines: a lopsided run (many short rankings, one long) is batched in groups of similar lengths, as the
engine's bulk path does, and a measure cut at k reads only the top k ranks.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..conventions import CONVENTION_INFO, TREC_EVAL, Conventions
from ..engine import MAX_EXPONENTIAL_GRADE, aggregate_columns, check_qrels, check_run, evaluate_batch, is_count
from ..evaluate import split_subtopic_qrels
from ..io.frames import as_qrels_table, as_run_table, is_frame
from ..io.trec import QrelsTable, RunTable
from ..model import (
    NO_JUDGMENT,
    InputError,
    Qrels,
    RankingBatch,
    Run,
    SubtopicRows,
    compared_scores,
    in_ranking_order,
    nonpositive_not_relevant,
    order_documents,
    ties_by_keys,
)
from ..names import Measure, parse_one_measure
from ..profiles import (
    ALL_RULES_HOLD,
    ANY,
    ANY_LEVEL,
    PROFILES,
    RULES,
    TOOLS,
    Profile,
    Switch,
    matching_profiles,
    profiles_for,
)
from .reported import ReportedValue, parse_reported_value

#: The tools the finder names, in the order it lists them (the tool profiles' order, trec_eval first).
TOOL_FAMILIES = TOOLS

#: Conventions that can change every measure, searched in this order after the measure's own.
_ALWAYS_SEARCHED = ("tie_order", "score_precision", "nonpositive_scores", "unjudged", "missing_queries")
_DIMENSION_ORDER = ("relevance_level", "gain", "ideal_from", "discount", "tied_gains", "empty_ideal", "ap_denominator",
                    "recall_cutoff",
                    "precision_short_list", "tie_order", "score_precision", "nonpositive_scores", "unjudged",
                    "missing_queries")


@dataclass(frozen=True, slots=True)
class Option:
    """One value of one convention as the finder sees it: its prior weight, meaning and tools."""

    convention: str
    value: object
    weight: float
    meaning: str
    used_by: tuple[str, ...]
    label: str  # the convention's label, e.g. "Gain of a graded judgment"


#: The highest relevance threshold the finder tries (thresholds above are not reported in practice).
MAX_SEARCHED_LEVEL = 10


def convention_options(name: str, max_grade: int = 1) -> tuple[Option, ...]:
    """The values the finder tries for convention ``name``; trec_eval's comes first with weight 1.

    For ``relevance_level`` the values are 1..max_grade (a document is relevant when grade >= level), at most
    ``MAX_SEARCHED_LEVEL`` of them, weighted 1 (trec_eval's -l 1), 0.6 for 2 (TREC Deep Learning's passage runs
    use -l 2) and 0.3 above.
    """
    if name == "relevance_level":
        options = []
        # Bounded whatever the qrels hold: a grade of 10^8 must not ask for 10^8 thresholds.
        for level in range(1, min(max(1, max_grade), MAX_SEARCHED_LEVEL) + 1):
            if level == 1:
                options.append(Option(name, 1, 1.0, "a document is relevant when its grade is >= 1",
                                      ("trec_eval", "pytrec_eval", "ir_measures"), "Relevance threshold"))
                continue
            used_by = (f"trec_eval -l {level}", f"pytrec_eval relevance_level={level}", f"ir_measures rel={level}")
            if level == 2:
                used_by += ("TREC Deep Learning passage task (-l 2)",)
            options.append(Option(name, level, 0.6 if level == 2 else 0.3,
                                  f"a document is relevant only when its grade is >= {level}", used_by,
                                  "Relevance threshold"))
        return tuple(options)
    info = _CONVENTIONS.get(name)
    if info is None:
        raise ValueError(f"convention {name!r} is not searched by the finder; known: {', '.join(_DIMENSION_ORDER)}")
    default = getattr(TREC_EVAL, name)
    default_choice = next(choice for choice in info.choices if choice.value == default)
    default_tools = max(1, len(default_choice.used_by))
    ordered = sorted(info.choices, key=lambda choice: choice.value != default)
    return tuple(
        Option(name, choice.value, min(1.0, len(choice.used_by) / default_tools), choice.meaning, choice.used_by,
               info.label)
        for choice in ordered
    )


_CONVENTIONS = {info.name: info for info in CONVENTION_INFO}


def tool_family(tool: str) -> str | None:
    """The tool of a ``used_by`` entry or credit: ``"ranx ndcg_burges"`` -> ``"ranx"``; None for descriptions."""
    return next((family for family in TOOL_FAMILIES if tool.startswith(family)), None)


def describe_changes(changes: Mapping[str, object]) -> str:
    """``trec_eval defaults`` for no changes, else ``name=value`` pairs separated by spaces."""
    if not changes:
        return "trec_eval defaults"
    return " ".join(f"{name}={value}" for name, value in changes.items())


@dataclass(frozen=True, slots=True)
class Candidate:
    """One outcome: a value of the measure and the conventions that give it.

    conventions: the most common combination giving it (reproduce it with ``metrics.evaluate(qrels, run,
    measure, conventions=conventions)``); value: the mean (or sum, for counts) over the queries counted;
    per_query: each counted query's value; commonness: the prior weight of ``conventions`` (1 = trec_eval's);
    changes: the searched conventions that differ from trec_eval's, name -> value; explanation: one sentence
    per change; tools: tool families whose own conventions give this outcome; equivalents: other combinations
    that give identical per-query values on this data, and equivalent_changes their changes; no_difference: the
    searched conventions that can take any value without changing this outcome (no tied scores: tie_order);
    matches: the value rounds to the reported digits (or a tool credited, which rounds its mean to fewer digits,
    prints them); read_to: the uncut measure read only to this rank (the measure cut there), the way the credited
    tools compute it (XGBoost's map and ndcg stop at rank 32); excluded: one line per tool whose conventions give
    this outcome but which is not named, saying which of its conditions fails on these files and why.
    """

    conventions: Conventions
    value: float
    per_query: dict[str, float]
    commonness: float
    changes: dict[str, object]
    explanation: tuple[str, ...]
    tools: tuple[str, ...]
    equivalents: tuple[Conventions, ...] = ()
    credits: tuple[str, ...] = ()
    equivalent_changes: tuple[dict[str, object], ...] = ()
    no_difference: tuple[str, ...] = ()
    matches: bool = False
    distance: float = 0.0  # |value - reported value|
    read_to: int | None = None
    excluded: tuple[str, ...] = ()

    @property
    def description(self) -> str:
        """``trec_eval defaults`` or the changed conventions as ``name=value`` pairs (the CLI's wording), and the
        rank the measure is read to when it is not the whole ranking."""
        read_to = f" (read to rank {self.read_to})" if self.read_to is not None else ""
        return describe_changes(self.changes) + read_to

    @property
    def equivalent_descriptions(self) -> tuple[str, ...]:
        """Other combinations giving this outcome, in the wording of :attr:`description`, leaving out those that
        differ only in conventions listed in :attr:`no_difference`."""
        seen = {self.description}
        descriptions = []
        members = {self.conventions, *self.equivalents}
        for conventions, changes in zip(self.equivalents, self.equivalent_changes):
            # A convention is left out only where its default gives this outcome too: "score_precision=float64"
            # must not become "trec_eval defaults" when the defaults give another value.
            kept = {k: v for k, v in changes.items() if k not in self.no_difference
                    or conventions.replace(**{k: getattr(TREC_EVAL, k)}) not in members}
            text = describe_changes(kept)
            if text not in seen:
                seen.add(text)
                descriptions.append(text)
        return tuple(descriptions)


@dataclass(frozen=True, slots=True)
class Finding:
    """The finder's answer for one measure and reported value.

    candidates: every distinct outcome, most common first; matches: those within the reported precision, most
    common first; searched: each searched convention and the values tried; fixed: conventions the measure's
    own notation sets (``P(rel=2)@5`` fixes relevance_level=2); combinations: how many were evaluated.
    """

    measure: Measure
    reported: ReportedValue
    candidates: tuple[Candidate, ...]
    searched: dict[str, tuple[object, ...]]
    fixed: dict[str, object] = field(default_factory=dict)
    combinations: int = 0
    num_queries: int = 0
    num_missing_queries: int = 0

    @property
    def matches(self) -> tuple[Candidate, ...]:
        return tuple(candidate for candidate in self.candidates if candidate.matches)

    def nearest(self, count: int = 5) -> tuple[Candidate, ...]:
        """The ``count`` outcomes closest to the reported value (the more common first among equals)."""
        ranked = sorted(self.candidates, key=lambda c: (c.distance, -c.commonness))
        return tuple(ranked[:count])


def find_conventions(
    qrels: Qrels,
    run: Run,
    measure: str | Measure,
    value: str | float | ReportedValue,
    *,
    base: Conventions | None = None,
    hold: Mapping[str, object] | None = None,
) -> Finding:
    """Evaluate ``measure`` under every applicable combination of conventions and compare with ``value``.

    ``measure`` is one measure in trec_eval (``ndcg_cut.10``) or ir_measures (``nDCG@10``) notation; parameters
    written in it (``P(rel=2)@5``, ``nDCG(dcg='exp-log2')@10``, ``judged_only=True``) are fixed, not searched.
    ``value`` is the reported score as text (``"0.412"``, ``"41.2%"``); its digits set the tolerance.
    ``base`` supplies the conventions that are not searched (``depth``); the searched ones start from trec_eval's.
    ``hold``: conventions held at the given values, not searched (``metrics.conventions.trec_eval_values("10.0")``
    looks only at what trec_eval 10.0 could have printed).

    >>> qrels = {"jam": {"bagel": 2, "croissant": 2, "roll": 2, "scone": 1, "muffin": 1, "donut": 1}}
    >>> run = {"jam": {"pretzel": 0.9, "bagel": 0.85, "muffin": 0.7, "donut": 0.6}}
    >>> [m.description for m in find_conventions(qrels, run, "nDCG@4", "0.4138").matches]
    ['gain=exponential']
    """
    parsed = parse_one_measure(measure)
    reported = value if isinstance(value, ReportedValue) else parse_reported_value(
        value, bounded=not is_count(parsed.key))
    return _find(parsed, reported, _PreparedRun(qrels, run), base, hold)


def _find(parsed: Measure, reported: ReportedValue, data: _PreparedRun, base: Conventions | None,
          hold: Mapping[str, object] | None, read_to: tuple[str, Profile] | None = None) -> Finding:
    """:func:`find_conventions` on prepared data. ``read_to``: (the uncut measure, a profile of it with a
    :attr:`~metrics.profiles.Profile.depth`) when ``parsed`` is that measure cut at the depth: only that profile
    is credited, as the uncut measure's (the search is the cut measure's whole search, so that each line says
    every convention it changes)."""
    plain = Measure(parsed.name, parsed.cutoff, gain_map=parsed.gain_map, gain_param_text=parsed.gain_param_text,
                    params=parsed.params)

    fixed: dict[str, object] = {}
    if parsed.relevance_level is not None:
        fixed["relevance_level"] = parsed.relevance_level
    if parsed.gain is not None:
        fixed["gain"] = parsed.gain
    if parsed.judged_only is not None:
        fixed["unjudged"] = "removed" if parsed.judged_only else "nonrelevant"
    fixed = dict(hold or {}) | fixed
    dimensions = _searched_dimensions(parsed, fixed)
    options = {name: convention_options(name, data.max_grade) for name in dimensions}
    if data.max_grade > MAX_EXPONENTIAL_GRADE and "gain" in options:
        # 2^grade - 1 overflows for such grades: no tool reported a number computed with exponential gain here.
        options["gain"] = tuple(option for option in options["gain"] if option.value != "exponential")
    if data.subtopics is not None and "nonpositive_scores" in options:
        # No tool clears a subtopic judgment by its score (the engine refuses the combination).
        options["nonpositive_scores"] = options["nonpositive_scores"][:1]
    start = base if base is not None else TREC_EVAL
    # Searched conventions start from trec_eval's; the rest come from `base`, then the measure's own parameters.
    reference = start.replace(**{name: getattr(TREC_EVAL, name) for name in dimensions}, **fixed)

    # Profiles of an uncut measure that read only its top ranks: on a run longer than that they are credited
    # with the measure cut at their depth (a second search), not with the whole ranking's value.
    longest = data.longest(start.depth)
    shallow = () if read_to is not None or plain.cutoff is not None or plain.info.cut_form is None else tuple(
        profile for profile in profiles_for(plain.name)
        if profile.reproducible and profile.depth is not None and longest > profile.depth
        and all(fixed.get(name, value) == value for name, value in _fixed_settings(profile).items()))
    outcomes: dict[tuple[bytes, int], list[tuple[float, int, Conventions, dict[str, object]]]] = {}
    values: dict[tuple[bytes, int], np.ndarray] = {}
    column_cache: dict[tuple, np.ndarray] = {}
    # The searched conventions that reach the kernels once the batch is built; the others are in its batch_id or
    # only choose the queries counted. Every other field is the reference's, the same for every combination.
    evaluated = [index for index, name in enumerate(dimensions) if name not in _IN_BATCH_OR_MEAN]
    combinations = 0
    for combo in itertools.product(*(options[name] for name in dimensions)):
        chosen = {option.convention: option.value for option in combo}
        if "relevance_level" in chosen and chosen["relevance_level"] != 1 and not _level_matters(
                plain, chosen.get("gain", reference.gain)):
            continue
        if chosen.get("gain") == "thresholded" and chosen.get("relevance_level", reference.relevance_level) <= 1:
            continue  # at level 1 the thresholded gain is the grade itself: linear's combination already

        combinations += 1
        conventions = reference.replace(**chosen)
        batch_id = data.batch_id(conventions)
        context_key = (batch_id, *(combo[index].value for index in evaluated))
        if context_key not in column_cache:
            batches, effective = data.batch_for(batch_id, plain, conventions)
            column_cache[context_key] = _evaluate_groups(batches, plain, effective, data.num_queries)
        counted = data.num_run_queries if conventions.missing_queries == "skip" else data.num_queries
        column = column_cache[context_key][:counted]
        key = (column.tobytes(), counted)
        values[key] = column
        weight = math.prod(option.weight for option in combo)
        changes = {name: chosen[name] for name in dimensions if chosen[name] != getattr(reference, name)}
        outcomes.setdefault(key, []).append((weight, len(changes), conventions, changes))

    candidates = []
    for key, members in outcomes.items():
        members.sort(key=lambda member: (-member[0], member[1]))
        weight, _, conventions, changes = members[0]
        column = values[key]
        # Summed in trec_eval's query order (sorted ids), as its 'all' line is; sum, mean or geometric mean.
        ordered = column[data.sorted_rows(column.size)]
        aggregated = aggregate_columns({plain.key: ordered})[plain.key]
        qids = data.qids[: column.size]
        no_difference = _no_difference(conventions, members, options, dimensions)
        credited, excluded = _credits(members, [*dimensions, *fixed], plain, data, no_difference, shallow, read_to)
        # A tool that rounds each query's value averages those: its own mean (gdeval's per-query %.5f).
        means = {p.name: p.mean_of(ordered.tolist(), aggregated,
                                   lambda rounded: aggregate_columns({plain.key: np.array(rounded)})[plain.key])
                 for p, _ in credited}
        matches = reported.contains(aggregated) or any(reported.shows(means[p.name], p.decimals) for p, _ in credited)
        if matches:  # a tool that rounds its mean is named only where its digits give the reported value
            excluded.extend(f"{p.name}: not named: it gives {p.precision_text}, so {p.shown(means[p.name]):g} here, "
                            f"which {reported.text} is not" for p, _ in credited
                            if not reported.shows(means[p.name], p.decimals))
            credited = [(p, credit) for p, credit in credited if reported.shows(means[p.name], p.decimals)]
        found = {p.tool for p, _ in credited}
        tools = tuple(tool for tool in TOOL_FAMILIES if tool in found)
        credits = tuple(dict.fromkeys(credit for _, credit in credited))
        candidates.append(Candidate(
            conventions=conventions,
            value=aggregated,
            per_query={qid: float(v) for qid, v in zip(qids, column)},
            commonness=weight,
            changes=changes,
            explanation=tuple(_explain(name, changes[name], options[name]) for name in changes) + (
                () if read_to is None else (f"Depth: {read_to[1].name} reads only the top {plain.cutoff} ranks of "
                                            f"each ranking: its {read_to[0]} is {plain.key}.",)),
            tools=tools,
            credits=credits,
            equivalents=tuple(member[2] for member in members[1:]),
            equivalent_changes=tuple(member[3] for member in members[1:]),
            no_difference=no_difference,
            matches=matches,
            distance=abs(aggregated - reported.value),
            read_to=None if read_to is None else plain.cutoff,
            excluded=tuple(excluded) if matches else (),
        ))
    if read_to is None:
        for profile in shallow:
            candidates = _merge_read_to(candidates, _find(
                dataclasses.replace(parsed, name=plain.info.cut_form, cutoff=profile.depth), reported, data, base,
                hold, (plain.name, profile)), profile)
    candidates.sort(key=lambda c: (-c.commonness, len(c.changes)))
    return Finding(
        measure=parsed,
        reported=reported,
        candidates=tuple(candidates),
        searched={name: tuple(option.value for option in options[name]) for name in dimensions},
        fixed=fixed,
        combinations=combinations,
        num_queries=data.num_run_queries,
        num_missing_queries=data.num_queries - data.num_run_queries,
    )


def _evaluate_groups(batches: Sequence[tuple[np.ndarray | None, RankingBatch]], measure: Measure,
                     conventions: Conventions, size: int) -> np.ndarray:
    """The measure's value for every row, from batches that each cover some rows (``None``: all of them)."""
    if len(batches) == 1 and batches[0][0] is None:
        return evaluate_batch(batches[0][1], [measure], conventions)[measure.key]
    column = None
    for rows, batch in batches:
        values = evaluate_batch(batch, [measure], conventions)[measure.key]
        if column is None:
            column = np.zeros(size, dtype=values.dtype)
        column[rows] = values
    return column


def _searched_dimensions(measure: Measure, fixed: Mapping[str, object]) -> list[str]:
    own = set(measure.info.conventions)
    if measure.gain_map is not None:
        own.discard("gain")
    if "gain" in own and "gain" not in fixed:
        own.add("relevance_level")  # binary gain counts grades >= the level
    if "gain" in fixed and fixed["gain"] != "binary" and "relevance_level" not in measure.info.conventions:
        own.discard("relevance_level")
    own.update(_ALWAYS_SEARCHED)
    return [name for name in _DIMENSION_ORDER if name in own and name not in fixed]


def _no_difference(representative: Conventions, members: Sequence[tuple], options: Mapping[str, Sequence[Option]],
                   dimensions: Sequence[str]) -> tuple[str, ...]:
    """Searched conventions every value of which, the others held, gives this same outcome. The members differ
    only in the searched conventions, so each is compared by its values of those."""
    present = {tuple(getattr(member[2], name) for name in dimensions) for member in members}
    held = [getattr(representative, name) for name in dimensions]
    return tuple(
        name for place, name in enumerate(dimensions)
        if len(options[name]) > 1 and all(
            (*held[:place], option.value, *held[place + 1:]) in present for option in options[name])
    )


def _level_matters(measure: Measure, gain: str) -> bool:
    """Whether the relevance level can change ``measure`` (nDCG only reads it through binary gain)."""
    if "relevance_level" in measure.info.conventions:
        return True
    return measure.gain_map is None and gain in ("binary", "thresholded")


def _explain(name: str, value: object, options: Sequence[Option]) -> str:
    chosen = next(option for option in options if option.value == value)
    default = options[0]
    tools = ", ".join(chosen.used_by)
    return (f"{chosen.label}: {chosen.meaning}, where trec_eval's default is: {default.meaning}."
            + (f" Used by {tools}." if tools else ""))


def _credits(members: Sequence[tuple], conventions: Sequence[str], measure: Measure, data: _PreparedRun,
             no_difference: Sequence[str], shallow: Sequence[Profile] = (),
             read_to: tuple[str, Profile] | None = None) -> tuple[list[tuple[Profile, str]], list[str]]:
    """The profiles, with their credits, whose whole profile for the measure is one of the combinations giving this
    outcome (each combination read on the conventions searched or fixed), where the profile's rules hold; and one
    line for each profile whose conventions give it but one of whose rules fails, or which reads only the top ranks
    of ``shallow`` profiles' depth. Each profile is credited once, with the fewest options; an option for a
    convention that makes no difference here is left out (ranx needs make_comparable=True only when queries are
    missing). Rules on the rankings (what the top k holds) are read on the combination's own rankings, and only for
    a measure whose profiles list them. ``read_to``: credit only that profile, as the uncut measure's."""
    best: dict[int, tuple[int, Profile, str]] = {}
    failed: dict[int, str] = {}
    name, among = (measure.name, None) if read_to is None else (read_to[0], (read_to[1].name,))
    if among is None and shallow:
        among = tuple(p.name for p in profiles_for(name) if p not in shallow)
    ranking_rules = _RANKING_RULES.intersection(rule for profile in profiles_for(name) for rule in profile.rules)
    for member in members:
        combination = {name_: getattr(member[2], name_) for name_ in conventions}
        level = combination.get("relevance_level", 1)
        with_missing = combination.get("missing_queries", "skip") == "zero"
        holds = data.rules_holding(level, with_missing)
        if ranking_rules:
            holds = holds | data.ranking_rules(data.batch_id(member[2]), level, measure.cutoff, with_missing)
        shown = {key: value for key, value in combination.items() if key not in no_difference}
        for profile, _ in matching_profiles(name, [combination], ALL_RULES_HOLD):
            index = PROFILES.index(profile)
            if among is not None and profile.name not in among:
                if index not in failed and profile in shallow:
                    failed[index] = data.depth_fact(profile, name)
                continue
            failing = [rule for rule in profile.rules if not holds.get(rule, False)]
            if failing:
                if index not in failed:
                    failed[index] = (f"{profile.name}: not named: {data.rule_fact(failing[0], member[2], measure)}"
                                     f" ({RULES[failing[0]]})")
                continue
            options = profile.options_for(shown)
            if index not in best or len(options) < best[index][0]:
                best[index] = (len(options), profile, profile.credit(shown))
    excluded = [failed[index] for index in sorted(failed) if index not in best]
    return [best[index][1:] for index in sorted(best)], excluded


def _fixed_settings(profile: Profile) -> dict[str, object]:
    """The conventions a profile fixes to one value (no option of the tool changes them)."""
    return {name: value for name, value in profile.settings.items()
            if not isinstance(value, Switch) and value not in (ANY, ANY_LEVEL)}


def _merge_read_to(candidates: list[Candidate], cut: Finding, profile: Profile) -> list[Candidate]:
    """The candidates with the credited outcomes of ``cut`` (the measure cut at a profile's depth) added: to the
    candidate with the same per-query values when there is one, else as a line read to that depth."""
    for extra in cut.candidates:
        if not extra.credits:
            continue
        same = next((i for i, c in enumerate(candidates) if c.per_query.keys() == extra.per_query.keys() and all(
            abs(c.per_query[q] - v) <= 1e-12 for q, v in extra.per_query.items())), None)
        if same is None:
            candidates.append(extra)
            continue
        found = candidates[same]
        candidates[same] = dataclasses.replace(
            found, credits=tuple(dict.fromkeys((*found.credits, *extra.credits))),
            tools=tuple(t for t in TOOL_FAMILIES if t in {*found.tools, *extra.tools}),
            excluded=tuple(line for line in found.excluded if not line.startswith(f"{profile.name}: ")),
            matches=found.matches or extra.matches)
    return candidates


#: Conventions that change a measure's batch (its :meth:`_PreparedRun.batch_id`) or only which queries its mean
#: counts, not what the kernels compute from the batch.
_IN_BATCH_OR_MEAN = frozenset({"tie_order", "unjudged", "missing_queries", "score_precision", "nonpositive_scores"})

#: The rules of :data:`metrics.profiles.RULES` read on one combination's rankings (:meth:`_PreparedRun.ranking_rules`).
_RANKING_RULES = frozenset({"relevant_and_nonrelevant_in_top_k"})


class _PreparedRun:
    """A run flattened into numpy arrays once, and the batches built from it on demand.

    Rows are the judged queries of the run in run order (trec_eval's), then the judged queries absent from the
    run as empty rankings (trec_eval -c), exactly as :func:`metrics.evaluate` orders them.
    """

    def __init__(self, qrels: Qrels, run: Run):
        # What metrics.evaluate takes: dicts, pandas or Arrow frames in the columns it reads, the readers' tables.
        if is_frame(qrels) or isinstance(qrels, QrelsTable):
            qrels = as_qrels_table(qrels).to_dict()
        if is_frame(run) or isinstance(run, RunTable):
            run = as_run_table(run).to_dict()
        # Subtopic qrels (the diversity measures'): the other measures see each document's best grade, as in evaluate.
        qrels, self.subtopics = split_subtopic_qrels(qrels)
        check_qrels(qrels)
        check_run(run)
        run_qids = [qid for qid in run if qid in qrels]
        if not run_qids:
            raise InputError(
                "no query of the run has judgments in the qrels; check that both files use the same query ids"
            )
        missing = [qid for qid in qrels if qid not in run]
        self.same_queries = not missing and len(run_qids) == len(run)
        self.qids = run_qids + missing
        self.num_run_queries = len(run_qids)
        self.num_queries = len(self.qids)
        # Every query's grades >= 0, sorted descending, one after the other (ragged: a query with 100,000
        # judgments pads no other).
        grade_lists = [sorted((g for g in qrels[qid].values() if g >= 0), reverse=True) for qid in self.qids]
        self._qrels = qrels  # read again only for the order of its lines (rule relevant_ties_in_qrels_order)
        self.judgment_counts = np.fromiter(map(len, grade_lists), dtype=np.int64, count=self.num_queries)
        self.judgment_grades = np.fromiter(itertools.chain.from_iterable(grade_lists), dtype=np.float64,
                                           count=int(self.judgment_counts.sum()))
        self.max_grade = int(max(self.judgment_grades.max(initial=NO_JUDGMENT), 1))

        counts = np.fromiter((len(run[qid]) for qid in run_qids), dtype=np.int64, count=len(run_qids))
        self.docs: list[str] = list(itertools.chain.from_iterable(run[qid].keys() for qid in run_qids))
        scores = np.array(list(itertools.chain.from_iterable(run[qid].values() for qid in run_qids)))
        if scores.size and (scores.dtype.kind not in "iuf" or np.isnan(scores).any()):
            for qid in run_qids:
                order_documents(run[qid], qid=qid)  # raises the precise InputError
        self.scores = scores.astype(np.float64, copy=False)
        self.grades = np.fromiter(
            itertools.chain.from_iterable(
                map(qrels[qid].get, run[qid].keys(), itertools.repeat(_OUTSIDE_QRELS)) for qid in run_qids),
            dtype=np.float64, count=len(self.docs))
        self.counts = counts
        self.groups = _row_groups(np.concatenate((counts, np.zeros(len(missing), dtype=np.int64))),
                                  self.judgment_counts)
        self.query_index = np.repeat(np.arange(len(run_qids), dtype=np.int64), counts)
        self.starts = np.cumsum(counts) - counts
        self.position = np.arange(len(self.docs), dtype=np.int64) - self.starts[self.query_index]
        self._orders: dict[tuple[str, str], int] = {}
        self._sorted_rows: dict[int, np.ndarray] = {}
        self._order_scores: list[np.ndarray] = []  # each order's scores (as compared) in that order
        self._order_arrays: list[np.ndarray] = []
        self._batches: dict[tuple, list] = {}
        self._rules: dict[object, dict[str, bool]] = {}

    def rules_holding(self, relevance_level: int, with_missing: bool) -> dict[str, bool]:
        """Which conditions of :data:`metrics.profiles.RULES` hold on this data, for this relevance level and
        with (or without) the judged queries the run lacks."""
        key = ("rules", relevance_level, with_missing)
        if key not in self._rules:
            if "data" not in self._rules:
                self._rules["data"] = self._data_rules()
            counted = self.num_queries if with_missing else self.num_run_queries
            starts = np.cumsum(self.judgment_counts) - self.judgment_counts
            best = np.full(self.num_queries, float(NO_JUDGMENT))  # each query's highest grade (sorted first)
            judged = self.judgment_counts > 0
            best[judged] = self.judgment_grades[starts[judged]]
            self._rules[key] = self._rules["data"] | {
                "relevant_in_every_query": bool((best[:counted] >= relevance_level).all())}
        return self._rules[key]

    def longest(self, depth: int | None = None) -> int:
        """The most documents a query of the run holds, within ``depth`` (trec_eval -M) when given."""
        longest = int(self.counts.max(initial=0))
        return longest if depth is None else min(longest, depth)

    def depth_fact(self, profile: Profile, measure: str) -> str:
        """Why ``profile`` (with a depth) is not named for the whole ranking's value of uncut ``measure``."""
        row = int(np.argmax(self.counts))
        return (f"{profile.name}: not named on this line: its {measure} reads only the top {profile.depth} ranks and "
                f"query {self.qids[row]} has {int(self.counts[row])} documents (see the line read to rank "
                f"{profile.depth})")

    def rule_fact(self, rule: str, conventions: Conventions, measure: Measure) -> str:
        """A fact of these files that breaks :data:`metrics.profiles.RULES` ``rule``: the query and documents."""
        query, qids = self.query_index, self.qids
        if rule == "no_float32_ties_across_grades":
            line, size = self._float32_tie_across_grades()
            return (f"query {qids[query[line]]} has {size} documents of different grades tied at "
                    f"{np.float32(self.scores[line]):g} as 32-bit floats (of {int(self.counts[query[line]])})")
        if rule == "positive_scores":
            line = int(np.argmin(self.scores))
            return f"query {qids[query[line]]} scores document {self.docs[line]} {self.scores[line]:g}"
        if rule == "binary_grades":
            for qid in qids:
                for doc, grade in self._qrels[qid].items():
                    if grade > 1:
                        return f"query {qid} judges document {doc} grade {grade:g}"
        if rule == "no_identical_ids":
            line = next(i for i, (doc, row) in enumerate(zip(self.docs, query.tolist())) if doc == qids[row])
            return f"query {qids[query[line]]} retrieves a document of its own id"
        if rule == "two_documents_each":
            row = int(np.argmin(self.counts))
            return f"query {qids[row]} has {int(self.counts[row])} document"
        if rule == "relevant_in_every_query":
            level = conventions.relevance_level
            counted = self.num_queries if conventions.missing_queries == "zero" else self.num_run_queries
            qid = next(q for q in qids[:counted] if max(self._qrels[q].values(), default=-1) < level)
            return f"query {qid} has no document graded >= {level}"
        if rule == "relevant_and_nonrelevant_in_top_k":
            top = "its top " + str(measure.cutoff) if measure.cutoff is not None else "its ranking"
            if conventions.missing_queries == "zero" and self.num_queries > self.num_run_queries:
                return f"judged query {qids[self.num_run_queries]} is not in the run"
            return f"some query lacks a relevant or a non-relevant document in {top}"
        if rule == "relevant_ties_in_qrels_order":
            return "two relevant documents of one grade tie in score and the qrels list them out of doc id order"
        return "it does not hold on these files"

    def _float32_tie_across_grades(self) -> tuple[int, int]:
        """(a line, the size of its group) of the largest group of one query's documents tied as 32-bit floats
        whose grades differ (unjudged and negative grades as 0), or (-1, 0) when there is none."""
        query = self.query_index
        if not query.size:
            return -1, 0
        floats = self.scores.astype(np.float32)
        order = np.lexsort((floats, query))
        label = np.where(self.grades > 0, self.grades, 0.0)[order]
        query, floats = query[order], floats[order]
        starts = np.flatnonzero(np.concatenate(([True], (query[1:] != query[:-1]) | (floats[1:] != floats[:-1]))))
        mixed = np.minimum.reduceat(label, starts) != np.maximum.reduceat(label, starts)
        sizes = np.where(mixed, np.diff(np.append(starts, order.size)), 0)
        if not sizes.max():
            return -1, 0
        group = int(np.argmax(sizes))
        return int(order[starts[group]]), int(sizes[group])

    def _data_rules(self) -> dict[str, bool]:
        """The rules that depend on the data alone: ties, signs of scores, grades, identical ids."""
        query = self.query_index
        qids = self.qids
        return {
            "no_float32_ties_across_grades": self._float32_tie_across_grades()[1] == 0,
            "same_queries": self.same_queries,
            "positive_scores": bool((self.scores > 0).all()),
            "binary_grades": bool((self.judgment_grades <= 1).all()),
            "no_identical_ids": not any(doc == qids[row] for doc, row in zip(self.docs, query.tolist())),
            "two_documents_each": bool((self.counts >= 2).all()),
            "relevant_ties_in_qrels_order": self._relevant_ties_in_qrels_order(),
        }

    def _relevant_ties_in_qrels_order(self) -> bool:
        """Whether every two retrieved documents of one query with the same grade > 0 and equal scores (as doubles)
        are listed in the qrels in doc id order (byte order), as the ranking orders them under docid_ascending."""
        lines = np.flatnonzero(self.grades > 0)
        if lines.size < 2:
            return True
        query, grades, scores = self.query_index[lines], self.grades[lines], self.scores[lines]
        order = np.lexsort((self._doc_codes(lines), scores, grades, query))
        lines, query, grades, scores = lines[order], query[order], grades[order], scores[order]
        tied = np.flatnonzero((query[1:] == query[:-1]) & (grades[1:] == grades[:-1]) & (scores[1:] == scores[:-1]))
        if not tied.size:
            return True
        positions: dict[int, dict[str, int]] = {}
        for row in np.unique(query[np.concatenate((tied, tied + 1))]).tolist():
            positions[row] = {doc: i for i, doc in enumerate(self._qrels[self.qids[row]])}
        before = [positions[int(query[i])][self.docs[int(lines[i])]] for i in tied.tolist()]
        after = [positions[int(query[i + 1])][self.docs[int(lines[i + 1])]] for i in tied.tolist()]
        return all(b < a for b, a in zip(before, after))

    def ranking_rules(self, batch_id: tuple[int, bool, int | None, bool], relevance_level: int, cutoff: int | None,
                      with_missing: bool) -> dict[str, bool]:
        """The rules of :data:`_RANKING_RULES` on the rankings of ``batch_id``: whether the top ``cutoff`` (the
        whole ranking for None) of every ranking counted holds a relevant document (grade >= the level) and one
        that is not (non-relevant or unjudged); a judged query the run lacks holds neither."""
        key = ("ranking", batch_id, relevance_level, cutoff, with_missing)
        if key not in self._rules:
            holds = not (with_missing and self.num_queries > self.num_run_queries)
            for rows, batch in (self.batch(batch_id, cutoff) if holds else ()):
                top = np.minimum(batch.lengths, batch.width if cutoff is None else cutoff)
                inside = np.arange(batch.width) < top[:, None]
                relevant = inside & batch.judged & (batch.grades >= relevance_level)
                both = relevant.any(axis=1) & (inside & ~relevant).any(axis=1)
                run_rows = (np.arange(both.shape[0]) if rows is None else rows) < self.num_run_queries
                holds = holds and bool(both[run_rows].all())
            self._rules[key] = {"relevant_and_nonrelevant_in_top_k": holds}
        return self._rules[key]

    def batch_id(self, conventions: Conventions) -> tuple[int, bool, int | None, bool]:
        """A key shared by every set of conventions whose (tie order, score precision, unjudged, depth,
        nonpositive_scores) give the same batch: clearing the documents scored <= 0
        (``nonpositive_scores="not_relevant"``) changes nothing when every score is above 0 at that precision."""
        tie_order, score_precision = conventions.tie_order, conventions.score_precision
        if (tie_order, score_precision) not in self._orders:
            self._add_orders(score_precision)
        order_id = self._orders[tie_order, score_precision]
        clear = conventions.nonpositive_scores == "not_relevant" and bool((self._order_scores[order_id] <= 0).any())
        return order_id, conventions.unjudged == "removed", conventions.depth, clear

    def sorted_rows(self, count: int) -> np.ndarray:
        """The first ``count`` rows in trec_eval's query order (byte order of the ids)."""
        if count not in self._sorted_rows:
            self._sorted_rows[count] = np.asarray(sorted(range(count), key=self.qids.__getitem__), dtype=np.int64)
        return self._sorted_rows[count]

    def batch(self, batch_id: tuple[int, bool, int | None, bool],
              width: int | None = None) -> list[tuple[np.ndarray | None, RankingBatch]]:
        """The batches for one document order, with only the top ``width`` ranks when given (lengths stay whole):
        ``(rows, batch)`` for each group of rows (``None``: every row), see :func:`_row_groups`."""
        key = (*batch_id, width)
        if key not in self._batches:
            self._batches[key] = self._build(*batch_id, width)
        return self._batches[key]

    def batch_for(self, batch_id: tuple[int, bool, int | None, bool], measure: Measure, conventions: Conventions
                  ) -> tuple[list[tuple[np.ndarray | None, RankingBatch]], Conventions]:
        """Batches and conventions that give ``measure`` the values it has on the full batch, as cheaply as we can.

        A measure cut at k reads only the top k ranks (plus each ranking's length, kept whole), so the batch is
        cut to width k. nDCG@k with the ideal from the retrieved list also needs the best k retrieved grades;
        they become the batch's judged grades and the ideal is taken "from judgments", which sums the same gains
        in the same order (gains rise with grades, and unjudged documents keep a gain of 0).
        """
        cutoff = measure.cutoff
        retrieved_ideal = measure.name == "ndcg_cut" and conventions.ideal_from == "retrieved"
        # Recall levels and multiples of R (iprec_at_recall, Rprec_mult) are not ranks: they read the whole list.
        # Averaged tie groups may reach below k: the batch keeps every rank.
        # AP@k over the relevant documents of the whole ranking needs every rank too.
        whole_ranking_ap = measure.name == "map_cut" and (
            conventions.ap_denominator == "min_retrieved_relevant_k"
            or (conventions.ap_denominator == "retrieved_relevant" and conventions.empty_ideal == "one"))
        if (cutoff is None or measure.info.float_cutoffs or conventions.tied_gains == "averaged" or whole_ranking_ap
                or (retrieved_ideal and measure.gain_map is not None)):
            return self.batch(batch_id), conventions
        top = self.batch(batch_id, cutoff)
        if not retrieved_ideal:
            return top, conventions
        order_id, judged_only, depth, clear = batch_id
        # Which documents are retrieved depends on the order only through the depth cut (and which are cleared,
        # on the scores alone).
        source_id = (order_id if depth is not None or clear else 0, False, depth, clear)
        key = ("ideal", *source_id, cutoff)
        if key not in self._batches:
            ideals = []
            for _, full in self.batch(source_id):
                retrieved = np.where(full.judged, full.grades, float(NO_JUDGMENT))
                if cutoff < full.width:
                    retrieved = np.partition(retrieved, full.width - cutoff, axis=1)[:, full.width - cutoff:]
                ideals.append(-np.sort(-retrieved, axis=1))
            self._batches[key] = ideals
        return ([(rows, RankingBatch(part.grades, part.judged, part.lengths, ideal))
                 for (rows, part), ideal in zip(top, self._batches[key])],
                conventions.replace(ideal_from="judgments"))

    def _add_orders(self, score_precision: str) -> None:
        """The document orders of every tie order with scores compared at ``score_precision``; identical orders
        (no ties, or no new ties from rounding to float32) share one index and so one batch."""
        scores = compared_scores(self.scores, score_precision)
        for tie_order, order in self._orders_by_tie(scores).items():
            ranked = scores[order]  # which neighbours tie (tied_gains) depends on the precision too
            index = next((i for i, known in enumerate(self._order_arrays)
                          if (known is order or np.array_equal(known, order))
                          and np.array_equal(self._order_scores[i], ranked)), None)
            if index is None:
                index = len(self._order_arrays)
                self._order_arrays.append(order)
                self._order_scores.append(ranked)
            self._orders[tie_order, score_precision] = index

    def _orders_by_tie(self, scores: np.ndarray) -> dict[str, np.ndarray]:
        """Order every query by score (:func:`metrics.model.in_ranking_order`) under each tie order; the score
        sort is done once, and the doc id orders only re-sort the tied documents."""
        positions = np.arange(scores.shape[0], dtype=np.int64)
        (as_given,) = in_ranking_order(self.query_index, scores, "as_given", ties_by_keys(self._doc_codes),
                                       positions)
        sorted_queries, sorted_scores = self.query_index[as_given], scores[as_given]

        def codes_in_score_order(lines: np.ndarray) -> np.ndarray:
            return self._doc_codes(as_given[lines])

        orders = {"as_given": as_given}
        for tie_order in ("trec_eval", "docid_ascending"):
            (orders[tie_order],) = in_ranking_order(sorted_queries, sorted_scores, tie_order,
                                                    ties_by_keys(codes_in_score_order), as_given)
        # ranx's quicksort reads each query's scores in input order, not the sorted ones.
        for tie_order in ("ranx", "ranx_resorted"):
            (orders[tie_order],) = in_ranking_order(self.query_index, scores, tie_order,
                                                    ties_by_keys(self._doc_codes), positions)
        return orders

    def _doc_codes(self, positions: np.ndarray) -> np.ndarray:
        """Integers that sort as the doc ids at ``positions`` do in byte order (Python compares str by code
        point, i.e. UTF-8 byte order, as trec_eval does)."""
        names = [self.docs[i] for i in positions.tolist()]
        code_of = {name: code for code, name in enumerate(sorted(set(names)))}
        return np.fromiter((code_of[name] for name in names), dtype=np.int64, count=len(names))

    def _build(self, order_id: int, judged_only: bool, depth: int | None, clear_nonpositive: bool,
               width: int | None) -> list[tuple[np.ndarray | None, RankingBatch]]:
        """The padded batches for one document order, one per row group; depth cuts before unjudged documents are
        dropped (-M, -J), ``width`` then keeps only the top ranks of the matrices, and ``clear_nonpositive``
        reads a judged document scored <= 0 as grade 0 (``nonpositive_scores="not_relevant"``)."""
        order = self._order_arrays[order_id]
        ranked_scores = self._order_scores[order_id]
        # Every order keeps each query's block where it was, so query and rank of a sorted position are shared.
        query, position = self.query_index, self.position
        keep = None if depth is None else position < depth
        lengths = self.counts if depth is None else np.minimum(self.counts, depth)
        if judged_only:
            keep = self.grades[order] >= 0 if keep is None else keep & (self.grades[order] >= 0)
            seen = np.concatenate(([0], np.cumsum(keep)))
            position = seen[1:] - 1 - seen[self.starts][query]
            lengths = seen[self.starts + self.counts] - seen[self.starts]
        if width is not None and width < int(lengths.max(initial=0)):
            keep = position < width if keep is None else keep & (position < width)
        if keep is not None:
            selected = np.flatnonzero(keep)
            query, position, order = query[selected], position[selected], order[selected]
            ranked_scores = ranked_scores[selected]
        grades = self.grades[order]
        if clear_nonpositive:
            grades = nonpositive_not_relevant(grades, ranked_scores)
        # Equal scores at consecutive ranks of one query (tied_gains="averaged" averages their gains).
        tied = np.zeros(query.shape[0], dtype=bool)
        tied[1:] = (query[1:] == query[:-1]) & (ranked_scores[1:] == ranked_scores[:-1])
        all_lengths = np.zeros(self.num_queries, dtype=np.int64)
        all_lengths[: lengths.shape[0]] = lengths
        batches = []
        for rows in self.groups:
            if rows is None:
                lines, local_query, row_lengths = slice(None), query, all_lengths
            else:
                local_row = np.full(self.num_queries, -1, dtype=np.int64)
                local_row[rows] = np.arange(rows.shape[0])
                lines = np.flatnonzero(local_row[query] >= 0)
                local_query, row_lengths = local_row[query[lines]], all_lengths[rows]
            longest = max(1, int(row_lengths.max(initial=0)))
            row_width = longest if width is None else min(width, longest)
            count = row_lengths.shape[0]
            flat = local_query * row_width + position[lines]
            row_grades = grades[lines]
            judged = row_grades >= 0
            grade_matrix = np.zeros(count * row_width)
            judged_matrix = np.zeros(count * row_width, dtype=bool)
            tied_matrix = np.zeros(count * row_width, dtype=bool)
            # A negative grade (pooled, unjudged) stays -1, as in every batch: Judged@k and infAP tell it apart.
            grade_matrix[flat] = np.where(judged, row_grades,
                                          np.where(row_grades > _OUTSIDE_QRELS, float(NO_JUDGMENT), 0.0))
            judged_matrix[flat] = judged
            tied_matrix[flat] = tied[lines]
            batches.append((rows, RankingBatch(grade_matrix.reshape(count, row_width),
                                               judged_matrix.reshape(count, row_width), row_lengths,
                                               self.judged_grades(rows), tied_matrix.reshape(count, row_width),
                                               subtopics=self._subtopic_rows(rows, count, row_width, local_query,
                                                                             order[lines]))))
        return batches

    def _subtopic_rows(self, rows: np.ndarray | None, count: int, width: int, local_query: np.ndarray,
                       lines: np.ndarray) -> SubtopicRows | None:
        """The subtopic judgments of one batch's rows (None for ordinary qrels): its documents, in rank order."""
        if self.subtopics is None:
            return None
        rankings: list[list[str]] = [[] for _ in range(count)]
        for row, line in zip(local_query.tolist(), lines.tolist()):  # each query's lines are in rank order
            rankings[row].append(self.docs[line])
        qids = self.qids if rows is None else [self.qids[row] for row in rows.tolist()]
        found = SubtopicRows.from_rankings(rankings, [self.subtopics[qid] for qid in qids])
        if found.judged_row.shape[1] < width:
            padding = np.full((count, width - found.judged_row.shape[1]), -1, dtype=np.int64)
            found = dataclasses.replace(found, judged_row=np.concatenate((found.judged_row, padding), axis=1))
        return found

    def judged_grades(self, rows: np.ndarray | None) -> np.ndarray:
        """The judged-grade matrix of the given rows (``None``: all): grades >= 0 sorted descending, padded with
        NO_JUDGMENT to the most judgments among them."""
        key = ("judged", None if rows is None else rows.tobytes())
        if key not in self._batches:
            counts = self.judgment_counts if rows is None else self.judgment_counts[rows]
            present = np.arange(max(1, int(counts.max(initial=0)))) < counts[:, None]
            matrix = np.full(present.shape, float(NO_JUDGMENT))
            if rows is None:
                matrix[present] = self.judgment_grades
            else:
                starts = np.cumsum(self.judgment_counts) - self.judgment_counts
                take = np.repeat(starts[rows], counts) + (np.arange(int(counts.sum()))
                                                          - np.repeat(np.cumsum(counts) - counts, counts))
                matrix[present] = self.judgment_grades[take]
            self._batches[key] = [matrix]
        return self._batches[key][0]


#: The grade the flattened run gives a document outside the qrels (a negative grade is in them, unjudged).
_OUTSIDE_QRELS = -np.inf

#: Padding one batch may cost this many cells beyond twice the lines and judgments before rows are grouped.
_PADDING_SLACK = 1 << 20


def _row_groups(lengths: np.ndarray, judgment_counts: np.ndarray) -> list[np.ndarray | None]:
    """The rows of each batch to build, as the engine's bulk path groups them: all at once (``[None]``) when padding
    every ranking to the longest (and every query's judgments to the most) costs at most about twice the cells;
    otherwise rows grouped by the power of two at or above their length and judgment count, so that a batch pads
    each row to less than twice its own size and memory follows the number of lines."""
    n = lengths.shape[0]
    cells = int(lengths.sum() + judgment_counts.sum()) + 2 * n
    padded = n * (max(1, int(lengths.max(initial=0))) + max(1, int(judgment_counts.max(initial=0))))
    if padded <= 2 * cells + _PADDING_SLACK:
        return [None]
    size_class = (_ceil_log2(lengths) << 8) | _ceil_log2(judgment_counts)
    classes, group = np.unique(size_class, return_inverse=True)
    order = np.argsort(group, kind="stable")
    return np.split(order, np.cumsum(np.bincount(group, minlength=classes.shape[0]))[:-1])


def _ceil_log2(sizes: np.ndarray) -> np.ndarray:
    """The smallest e with 2^e >= size (0 for sizes 0 and 1)."""
    return np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)

__all__ = ["Candidate", "Finding", "Option", "TOOL_FAMILIES", "convention_options", "describe_changes",
           "find_conventions", "tool_family"]
