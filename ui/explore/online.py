"""The explorer's "Online signals (simulated)" section: a click model turns the judged list into the clicks a user
would make on the page (the top k), in closed form and simulated; against the pinned baseline, a simulated A/B test
and team-draft interleaving beside the offline deltas.

Every number comes from :mod:`metrics.online`; this module turns widget values into a click model and results into
tables and charts (:mod:`ui.explore.online_charts`). Simulations are cached per session input, and their work is
bounded: sessions x ranks of the page stays under :data:`MAX_SESSION_RANKS`. Nothing is computed while the
section's expander is closed, as it is when the page opens.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from metrics import Conventions, InputError, evaluate_rankings
from metrics.explain import explorer_metrics
from metrics.measures.display import TABLE_DELTA_FORMAT, TABLE_FORMAT, card, card_delta, name_of
from metrics.names import measure_at, trec_spec
from metrics.online import (
    MODEL_HELP,
    SIGNAL_HELP,
    ClickModel,
    Signals,
    ab_test,
    default_attractiveness,
    default_position_bias,
    default_satisfaction,
    expected_signals,
    simulate_signals,
    team_draft,
)
from metrics.online.experiments import DEFAULT_INTERLEAVING_DEPTH
from ui.common import slides, state, tables
from ui.common.labels import MODEL_LABELS
from ui.common.numbers import number_box
from ui.common.query_state import QueryState
from ui.common.text import literal

from . import online_charts, scores

MODEL_NAMES = {"cascade": "cascade", "pbm": "PBM", "dbn": "DBN"}
#: The signals in the order the table shows them, with their labels.
SIGNAL_LABELS = {"ctr_1": "CTR@1", "ctr": "CTR of the page", "abandonment": "Abandonment (no click)",
                 "first_click_rank": "Expected first-click rank", "clicks": "Expected clicks"}
MIN_SESSIONS, MAX_SESSIONS, DEFAULT_SESSIONS = 100, 100_000, 10_000
MAX_SEED = 2**31 - 1
#: A simulation draws sessions x ranks numbers: the sessions are capped so that this stays bounded.
MAX_SESSION_RANKS = 2_000_000
#: Grades with their own attractiveness (and satisfaction) input; a query with more distinct grades shows its
#: highest ones, the others keep their defaults.
MAX_GRADE_INPUTS = 8
MAX_BIAS_CHARS = 2_000
#: Session-state keys of the section's widgets (tests and the browser address them by these).
MODEL, ETA, BIAS, CONTINUATION, SESSIONS, SEED = ("online_model", "online_eta", "online_bias", "online_continuation",
                                                  "online_sessions", "online_seed")
#: Session key of the section's expander: nothing of the section is computed while it is closed.
OPEN = "online_open"
UNJUDGED = "unjudged"


@dataclass(frozen=True)
class Settings:
    """What the controls say: the model and its parameters, as plain hashable values (the cache key)."""

    kind: str
    max_grade: int  # the current list's g_max: the inputs show their defaults for it
    attraction: tuple[tuple[object, float], ...]   # (grade or UNJUDGED, typed attractiveness): changed inputs only
    satisfaction: tuple[tuple[object, float], ...]  # (grade or UNJUDGED, typed satisfaction), dbn only
    eta: float
    bias: tuple[float, ...]  # typed θ for the first ranks (pbm); the rest follow (1/r)^eta
    continuation: float
    sessions: int
    seed: int

    def model(self, ranking: Sequence[str], judgments: Mapping[str, int]) -> ClickModel:
        """The click model of ``ranking``: each rank's parameters from its grade (the typed value of that grade,
        else the engine's default for the g_max of ``judgments`` themselves, as ``python -m metrics.online`` reads
        that list: the baseline's grades never rescale the current list, nor the reverse)."""
        own = judged(judgments)
        grades = [own.get(doc) for doc in ranking]
        max_grade = max((int(g) for g in own.values()), default=0)
        attractiveness = _per_rank(grades, dict(self.attraction), default_attractiveness(grades, max_grade))
        if self.kind == "pbm":
            return ClickModel("pbm", attractiveness, position_bias=position_bias(len(ranking), self.eta, self.bias))
        if self.kind == "dbn":
            satisfaction = _per_rank(grades, dict(self.satisfaction), default_satisfaction(grades, max_grade))
            return ClickModel("dbn", attractiveness, satisfaction=satisfaction, continuation=self.continuation)
        return ClickModel("cascade", attractiveness)


def _per_rank(grades: Sequence[int | None], typed: Mapping[object, float], defaults: np.ndarray) -> np.ndarray:
    keys = [UNJUDGED if grade is None else int(grade) for grade in grades]
    return np.array([typed.get(key, default) for key, default in zip(keys, defaults.tolist())])


def position_bias(n: int, eta: float, typed: Sequence[float] = ()) -> np.ndarray:
    """θ_r for ranks 1..n: the typed values for the first ranks, (1/r)^eta for the rest."""
    theta = default_position_bias(n, eta)
    typed = list(typed)[:n]
    theta[:len(typed)] = typed
    return theta


def parse_bias(text: str) -> tuple[float, ...]:
    """θ for the first ranks, typed as ``1, 0.6, 0.4`` (commas or spaces); each a probability in [0, 1]."""
    if len(text) > MAX_BIAS_CHARS:
        raise InputError(f"position bias: at most {MAX_BIAS_CHARS:,} characters, got {len(text):,}; type the "
                         "first ranks only (the others follow (1/r)^eta)")
    values = []
    for position, token in enumerate(text.replace(",", " ").split(), start=1):
        try:
            value = float(token)
        except ValueError:
            raise InputError(f"position bias, value {position}: {token[:20]!r} is not a number; type probabilities "
                             "such as 1, 0.6, 0.4") from None
        if not (math.isfinite(value) and 0 <= value <= 1):
            raise InputError(f"position bias, value {position}: {token[:20]} is not a probability; use a number "
                             "from 0 to 1")
        values.append(value)
    return tuple(values)


def judged(judgments: Mapping[str, int]) -> dict[str, int]:
    """The judgments with a grade >= 0: a negative grade (in the pool, not judged) is unjudged, as trec_eval -J,
    metrics.holes and the list read it."""
    return {doc: grade for doc, grade in judgments.items() if grade >= 0}


def grade_levels(judgments: Mapping[str, int], ranking: Sequence[str]) -> list[object]:
    """The grades that get their own input: the distinct grades of the query (0 always), the highest
    :data:`MAX_GRADE_INPUTS`, and ``unjudged`` when the page holds an unjudged document (negative grades too)."""
    judgments = judged(judgments)
    grades = sorted({int(g) for g in judgments.values()} | {0})[-MAX_GRADE_INPUTS:]
    return [*grades, *([UNJUDGED] if any(doc not in judgments for doc in ranking) else [])]


def default_values(levels: Sequence[object], max_grade: int, which: str) -> dict[object, float]:
    """The engine's default attractiveness (or satisfaction) of each grade; an unjudged document gets 0."""
    grades = [None if level == UNJUDGED else int(level) for level in levels]
    make = default_attractiveness if which == "attractiveness" else default_satisfaction
    return dict(zip(levels, make(grades, max_grade).tolist()))


def session_cap(ranks: int) -> int:
    return max(MIN_SESSIONS, min(MAX_SESSIONS, MAX_SESSION_RANKS // max(ranks, 1)))


# ---- cached computations -----------------------------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=32)
def _simulated(settings: Settings, ranking: tuple[str, ...], judgments: tuple[tuple[str, int], ...]):
    model = settings.model(ranking, dict(judgments))
    return simulate_signals(model, sessions=settings.sessions, seed=settings.seed)


@st.cache_data(show_spinner=False, max_entries=16)
def _ab_test(settings: Settings, pages: tuple[tuple[str, ...], tuple[str, ...]],
             judgments: tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]):
    models = [settings.model(page, dict(judged)) for page, judged in zip(pages, judgments)]
    return ab_test(models[0], models[1], sessions=settings.sessions, seed=settings.seed)


@st.cache_data(show_spinner=False, max_entries=16)
def _interleaving(settings: Settings, pages: tuple[tuple[str, ...], tuple[str, ...]],
                  judgments: tuple[tuple[str, int], ...], depth: int):
    grades = judged(dict(judgments))
    docs = list(dict.fromkeys([*pages[0], *pages[1]]))
    levels = {doc: UNJUDGED if doc not in grades else int(grades[doc]) for doc in docs}

    def typed(per_grade: tuple[tuple[object, float], ...]) -> dict[str, float]:
        values = dict(per_grade)
        return {doc: values[level] for doc, level in levels.items() if level in values}

    return team_draft(list(pages[0]), list(pages[1]), dict(judgments), settings.kind, sessions=settings.sessions,
                      seed=settings.seed, depth=depth, eta=settings.eta, continuation=settings.continuation,
                      attractiveness=typed(settings.attraction), satisfaction=typed(settings.satisfaction),
                      position_bias=settings.bias)


# ---- the section -------------------------------------------------------------------------------------------------


def online_section(query: QueryState, baseline: dict | None) -> None:
    """The section, computed only while its expander is open; drawn by its panel, so its own controls rerun only
    the panel (none of them changes the list, k or the conventions)."""
    st.header("Online signals (simulated)")
    st.caption("A click model turns the judgments into the clicks a user would make on the page (the list's top k): "
               "what a ranking change may do to clicks, and why offline and online numbers disagree. Closed forms, "
               "with a seeded simulation of N sessions and its standard error beside them.")
    section = st.expander("Simulate the clicks on this list: click models, an A/B test and interleaving", key=OPEN,
                          on_change="rerun", icon=":material/ads_click:")
    if not section.open:
        state.keep_values(kept_widgets())
        return
    with section:
        _online_panel(query, baseline)


def kept_widgets() -> list[str]:
    """The section's widgets, whose values are kept while it is closed (the per-grade inputs included)."""
    per_grade = [key for key in st.session_state if isinstance(key, str)
                 and key.startswith(("online_attractiveness_", "online_satisfaction_"))]
    return [MODEL, ETA, BIAS, CONTINUATION, SESSIONS, SEED, *per_grade]


def _online_panel(query: QueryState, baseline: dict | None) -> None:
    page = query.ranking[:query.k]
    if not page:
        st.info("Add documents to the list to see the clicks a user would make on it.")
        return
    judgments = judged(query.judgments)
    if baseline is not None:
        judgments_all = judged({**baseline["judgments"], **query.judgments})
    else:
        judgments_all = judgments
    # Inputs for every grade of either list; each list's defaults come from its own judgments.
    settings = controls(page, judgments, offered=judgments_all)
    if settings is None:
        return
    model = settings.model(page, judgments)
    expected = expected_signals(model)
    simulated = _simulated(settings, tuple(page), tuple(sorted(judgments.items())))

    table_side, link_side = st.columns([3, 2], gap="large")
    with table_side:
        signals_table(expected, simulated)
    with link_side:
        err_link(page, judgments, query.k,
                 expected.stop_reciprocal_rank if settings.kind == "cascade" else None)
    grades = [judgments.get(doc) for doc in page]
    click_chart = online_charts.click_figure(
        page, expected.click_probability, model.attractiveness, grades=grades, position_bias=model.position_bias,
        simulated=simulated.signals.click_probability, sessions=simulated.sessions, model=MODEL_NAMES[settings.kind])
    st.plotly_chart(click_chart, key="online_click_chart", config={"displaylogo": False})
    slides.chart_downloads(click_chart, f"{query.query}-clicks", key="online_click_chart")
    against_baseline(query, baseline, settings, judgments_all)


def controls(page: Sequence[str], judgments: Mapping[str, int],
             offered: Mapping[str, int] | None = None) -> Settings | None:
    """The click model's controls; None (with one message) when a typed value cannot be read. ``judgments``: the
    current list's (its g_max sets the defaults shown); ``offered``: the judgments whose grades get an input (the
    current and the baseline's), default ``judgments``."""
    with st.container(border=True, key="online_controls"):
        model_side, sessions_side, seed_side = st.columns([3, 1, 1], vertical_alignment="bottom")
        kind = model_side.radio("Click model", list(MODEL_LABELS), format_func=MODEL_LABELS.get, horizontal=True,
                                key=MODEL)
        cap = session_cap(len(page))
        sessions = number_box("Sessions N", key=SESSIONS, min_value=MIN_SESSIONS, max_value=MAX_SESSIONS,
                              name="the number of sessions", target=sessions_side, value=DEFAULT_SESSIONS, step=1_000,
                                              help=f"Simulated sessions, {MIN_SESSIONS:,} to {MAX_SESSIONS:,} "
                                                   "(fewer on long pages).")
        seed = number_box("Seed", key=SEED, min_value=0, max_value=MAX_SEED, name="the seed", target=seed_side,
                          value=0, step=1, help="The same seed gives the same simulated sessions.")
        st.caption(f"{MODEL_HELP[kind][:1].upper()}{MODEL_HELP[kind][1:]}.")
        eta, bias, continuation = 1.0, (), 0.9
        if kind == "pbm":
            left, right = st.columns(2)
            eta = left.slider("Position bias η: rank r is examined with probability (1/r)^η", 0.0, 3.0, 1.0, 0.1,
                              key=ETA, help="0: every rank is examined (no position bias); larger: only the top.")
            text = right.text_input("θ per rank (optional: the first ranks, the rest follow η)", key=BIAS,
                                    max_chars=MAX_BIAS_CHARS, placeholder="e.g. 1, 0.7, 0.5, 0.3")
            try:
                bias = parse_bias(text)
            except InputError as error:
                st.error(literal(error))
                return None
        elif kind == "dbn":
            continuation = st.slider("Continuation γ: the chance an unsatisfied user goes on to the next rank",
                                     0.0, 1.0, 0.9, 0.05, key=CONTINUATION)
        offered = judgments if offered is None else offered
        levels = grade_levels(offered, page)
        max_grade = max([int(g) for g in judged(judgments).values()], default=0)
        offered_max = max([int(g) for g in judged(offered).values()], default=0)
        attraction = _per_grade(levels, max_grade, offered_max, "attractiveness")
        satisfaction = _per_grade(levels, max_grade, offered_max, "satisfaction") if kind == "dbn" else {}
    if sessions > cap:
        st.caption(f"A page of {len(page)} ranks simulates at most {cap:,} sessions; {cap:,} are used.")
    return Settings(kind, max_grade, tuple(attraction.items()), tuple(satisfaction.items()), float(eta), bias,
                    float(continuation), int(min(sessions, cap)), int(seed))


def _per_grade(levels: Sequence[object], max_grade: int, offered_max: int, which: str) -> dict[object, float]:
    """One number input per grade, starting at the engine's default for the current list's highest grade (a grade
    only the baseline holds: for the baseline's); returns the inputs changed from their default, which apply to
    both lists, while an untouched grade follows each list's own g_max."""
    below = [level for level in levels if level == UNJUDGED or int(level) <= max_grade]
    defaults = {**default_values([level for level in levels if level not in below], offered_max, which),
                **default_values(below, max_grade, which)}
    formula = ("(2^g − 1) / 2^gmax" if which == "attractiveness" else "(2^g − 1) / (2^gmax − 1)")
    st.markdown(f"**{which.capitalize()} per grade** · default {formula}, gmax = {max_grade}, each list its own "
                "gmax unless typed"
                + (": the chance a document is clicked when examined" if which == "attractiveness" else
                   ": the chance a click ends the search satisfied"))
    typed: dict[object, float] = {}
    for column, level in zip(st.columns(max(len(levels), 4)), levels):
        label = "unjudged" if level == UNJUDGED else f"grade {level}"
        value = float(number_box(
            label, key=f"online_{which}_{level}_of_{max_grade}", min_value=0.0, max_value=1.0,
            name=f"the {which} of {label}", target=column, value=float(defaults[level]), step=0.05, format="%.3f"))
        if value != float(defaults[level]):
            typed[level] = value
    return typed


def signals_table(expected: Signals, simulated) -> None:
    rows = []
    for signal, label in SIGNAL_LABELS.items():
        closed, sampled = expected.value(signal), simulated.signals.value(signal)
        error = simulated.standard_error.get(signal)
        rows.append({"signal": label, "closed form": closed, "simulated": sampled, "standard error": error})
    frame = pd.DataFrame(rows).set_index("signal")
    with st.container(key="online_signals"):
        tables.table(frame, width="stretch", column_config={
            "closed form": st.column_config.NumberColumn(format=TABLE_FORMAT),
            "simulated": st.column_config.NumberColumn(format=TABLE_FORMAT),
            "standard error": st.column_config.NumberColumn(format=TABLE_FORMAT),
        })
    st.caption(f"Simulated: {simulated.sessions:,} sessions, seed {simulated.seed}. A closed form more than about "
               "4 standard errors from its simulation would be a bug. The first-click rank has no value when no "
               "click is possible.")
    with st.expander("What each signal is"):
        st.markdown("\n".join(f"- **{label}**: {SIGNAL_HELP[signal]}." for signal, label in SIGNAL_LABELS.items()))


def err_link(page: Sequence[str], judgments: Mapping[str, int], k: int, own: float | None) -> None:
    """ERR is the expected reciprocal rank of the stopping click under the cascade model: the engine's ERR@k and
    the cascade user's E[1 / rank of the click], on gdeval's scale, side by side (equal); ``own``: the same for the
    cascade model of the controls, when it is one."""
    st.markdown("**The link to the offline side: ERR**")
    grades = [judgments.get(doc) for doc in page]
    top = max([int(g) for g in grades if g is not None] + [0])
    if top > 4:
        st.caption(f"ERR@{k} reads grades on gdeval's scale 0..4; this page holds grade {top}, so the link is not "
                   "shown.")
        return
    measure, rr_measure = measure_at("ERR", k), measure_at("recip_rank", k)
    values = evaluate_rankings([list(page)], [dict(judgments)], [measure, rr_measure], Conventions())
    err, rr = float(values[measure.key][0]), float(values[rr_measure.key][0])
    cascade = expected_signals(ClickModel("cascade", default_attractiveness(grades, 4)))
    st.markdown(f"ERR = expected reciprocal rank of the stopping click under the cascade model.\n\n"
                f"- ERR@{k} (offline, gdeval's R = (2^g − 1) / 16): **{card(err)}**\n"
                f"- cascade user with attractiveness (2^g − 1) / 16, E[1 / rank of the click]: "
                f"**{card(cascade.stop_reciprocal_rank)}**")
    if own is not None:
        st.markdown(f"- the cascade user above (its own attractiveness): **{card(own)}**, ERR with R_r = that "
                    "attractiveness")
    if rr > err:
        st.caption(err_beside_rr(k, err, rr, top))
    st.caption("ERR sums, over the ranks, the chance that the cascade user stops at rank r times 1/r: "
               "R_r ∏(1 − R_i) / r.")


def err_beside_rr(k: int, err: float, rr: float, top: int) -> str:
    """Why ERR@k reads far below RR on the same list: gdeval's scale tops at grade 4, so a low grade stops few
    cascade users, while RR counts any relevant document as a full stop."""
    worth = f"{2 ** top - 1}/16" if top > 0 else "0"
    return (f"{name_of('ERR', k)} = {card(err)} beside {name_of('recip_rank')} = {card(rr)}: gdeval's top grade is 4, "
            f"so a document of grade g stops the user with probability (2^g − 1) / 16, and this list's highest "
            f"grade, {top}, is worth {worth}; {name_of('recip_rank')} counts any relevant document as a full stop.")


def against_baseline(query: QueryState, baseline: dict | None, settings: Settings,
                     judgments_all: Mapping[str, int]) -> None:
    """A simulated A/B test (baseline = A, current = B) and team-draft interleaving, beside the offline deltas."""
    st.subheader("Against the pinned baseline")
    if baseline is None:
        st.info("Pin a baseline with *Pin as baseline* under the metric cards, then change the list: this part runs "
                "a simulated A/B test and team-draft interleaving of the two lists, beside the offline deltas.")
        return
    k = query.k
    pages = (tuple(baseline["ranking"][:k]), tuple(query.ranking[:k]))
    if not pages[0]:
        st.info("The pinned baseline holds no document: pin a list with documents to compare against.")
        return
    judged = (tuple(sorted(baseline["judgments"].items())), tuple(sorted(query.judgments.items())))
    depth = min(k, DEFAULT_INTERLEAVING_DEPTH)  # deeper interleaving costs seconds per edit, for ranks rarely seen
    test = _ab_test(settings, pages, judged)
    interleaving = _interleaving(settings, pages, tuple(sorted(judgments_all.items())), depth)

    offline = offline_change(query, baseline)
    st.markdown(verdict(offline, test, interleaving))
    offline_side, interleaving_side = st.columns([2, 3], gap="large")
    with offline_side:
        st.markdown("**Offline: the metrics' change**")
        offline_deltas(offline)
    with interleaving_side:
        st.markdown("**Team-draft interleaving**")
        interleaving_summary(interleaving, depth)
    # The A/B table's seven columns need the page's whole width (at 1280 px a column cut its last ones).
    st.markdown(f"**Online: A/B test, {test.sessions:,} sessions per arm**")
    ab_table(test)
    rows = [(SIGNAL_LABELS[signal], diff.expected, diff.simulated, diff.ci[0], diff.ci[1])
            for signal, diff in test.differences.items()]
    ab_chart = online_charts.ab_figure(rows, test.sessions)
    st.plotly_chart(ab_chart, key="online_ab_chart", config={"displaylogo": False})
    slides.chart_downloads(ab_chart, "ab-test", key="online_ab_chart")
    st.caption("Both arms and the interleaved sessions use the click model above, typed values included. Each "
               "arm reads its own list's judgments; the interleaved list mixes both, so there a document's grade is "
               "the current list's (else the baseline's) and untouched grades follow the gmax of those grades. "
               f"Confidence level {1 - test.alpha:.0%}; sessions needed: power 0.8 at that level.")


def offline_change(query: QueryState, baseline: dict) -> pd.DataFrame:
    """The explorer's metrics for the baseline and the current list, and their change, one row per metric."""
    labels, parsed = zip(*explorer_metrics(query.k))
    before = scores.baseline_values(baseline, parsed, query.conventions) or {}
    after = scores.baseline_values({"ranking": query.ranking, "judgments": dict(query.judgments)},
                                   parsed, query.conventions) or {}
    measures = [trec_spec(measure) for measure in parsed]
    return pd.DataFrame({"metric": labels, "baseline": [before[m] for m in measures],
                         "current": [after[m] for m in measures],
                         "change": [after[m] - before[m] for m in measures]}).set_index("metric")


def verdict(offline: pd.DataFrame, test, interleaving) -> str:
    """One paragraph: what changed offline, whether an A/B test on CTR can see it and after how many sessions, and
    what interleaving says."""
    changed = offline[offline["change"].abs() > 1e-12]
    if changed.empty:
        offline_text = "No offline metric changed."
    else:
        offline_text = "Offline: " + ", ".join(f"{label} {card_delta(change)}" for label, change in
                                               changed["change"].items()) + "."
    ctr = test.ctr
    if ctr.sessions_needed is None:
        ab_text = ("The expected CTR is the same for both lists, so no A/B test on CTR or abandonment can tell "
                   "them apart, however many sessions it runs.")
    else:
        ab_text = (f"The expected CTR changes by {card_delta(ctr.expected)}: an A/B test needs about "
                   f"**{ctr.sessions_needed:,} sessions per arm** to see it; with {test.sessions:,} it "
                   + ("does." if ctr.significant else "does not."))
    if interleaving.win_rate_a is None:
        interleaving_text = "Interleaving decided no session."
    else:
        low, high = 1 - interleaving.ci[1], 1 - interleaving.ci[0]
        outcome = ("a clear win" if low > 0.5 else "a clear loss" if high < 0.5 else
                   "no clear preference at these sessions")
        interleaving_text = (f"In team-draft interleaving the current list wins a share of "
                             f"{card(1 - interleaving.win_rate_a)} of the decided sessions: {outcome}.")
    return " ".join([offline_text, ab_text, interleaving_text])


def offline_deltas(frame: pd.DataFrame) -> None:
    tables.table(frame, width="stretch", key="online_offline_deltas", column_config={
        column: st.column_config.NumberColumn(format=TABLE_DELTA_FORMAT if column == "change" else TABLE_FORMAT)
        for column in frame.columns})


def ab_table(test) -> None:
    rows = []
    for signal, diff in test.differences.items():
        needed = diff.sessions_needed
        rows.append({
            "signal": SIGNAL_LABELS[signal], "expected change": diff.expected, "simulated change": diff.simulated,
            "CI low": diff.ci[0], "CI high": diff.ci[1],
            "seen at N?": "yes" if diff.significant else "no",
            "sessions needed per arm": "never (no expected change)" if needed is None else f"{needed:,}",
        })
    frame = pd.DataFrame(rows).set_index("signal")
    tables.table(frame, width="stretch", key="online_ab_table", column_config={
        column: st.column_config.NumberColumn(format=TABLE_DELTA_FORMAT)
        for column in ("expected change", "simulated change", "CI low", "CI high")})


def interleaving_summary(result, depth: int) -> None:
    decided = result.wins_a + result.wins_b
    if result.win_rate_a is None:
        st.markdown(f"No session of {result.sessions:,} was decided: neither list got more clicks in any "
                    f"(top {depth} interleaved).")
        return
    current_rate = 1 - result.win_rate_a
    low, high = 1 - result.ci[1], 1 - result.ci[0]
    verdict = ("the current list wins" if low > 0.5 else "the baseline wins" if high < 0.5 else
               "no winner at these sessions")
    st.markdown(f"The current list wins a share of **{card(current_rate)}** of the {decided:,} decided sessions "
                f"(CI {card(low)} to {card(high)}; {result.wins_b:,} current, {result.wins_a:,} baseline, "
                f"{result.ties:,} ties of {result.sessions:,}; top {depth} interleaved): {verdict}.")

