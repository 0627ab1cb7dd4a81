"""What a lesson is, as data: a prepared state (a :class:`Scene`), a question asked before any number shows, the
reveal, a "now try" change and a second question. Pure Python: no Streamlit here, so the tests read every lesson.

Every number a lesson shows is a *fact* computed by the engine from its two scenes (:attr:`Lesson.facts`); the
texts are templates that name facts (``"P@4 = {precision}"``) and hold no digit of their own, so a sentence cannot
drift from the numbers (tests/app/test_app_lessons.py checks both).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from metrics import TREC_EVAL, Conventions, evaluate_rankings, parse_measures
from metrics.model import order_documents
from metrics.profiles import ANY, ANY_LEVEL, Profile, Switch

Facts = Mapping[str, object]
#: A numeric answer counts as right within this distance (the question asks for two decimals).
ANSWER_TOLERANCE = 0.006


@dataclass(frozen=True)
class Listing:
    """One ranked list of a scene: its name, doc ids in rank order, its judgments and optional scores."""

    name: str
    docs: tuple[str, ...]
    judgments: Mapping[str, int] = field(hash=False)
    scores: tuple[float, ...] | None = None

    def grade(self, doc: str) -> int | None:
        return self.judgments.get(doc)


@dataclass(frozen=True)
class Scene:
    """A prepared state: one list, two over the same judgments (a pair), or several queries."""

    lists: tuple[Listing, ...]
    k: int
    conventions: Conventions = field(default_factory=Conventions)

    @property
    def is_pair(self) -> bool:
        return len(self.lists) == 2 and dict(self.lists[0].judgments) == dict(self.lists[1].judgments)

    def with_list(self, index: int, **changes: object) -> Scene:
        lists = list(self.lists)
        lists[index] = replace(lists[index], **changes)
        return replace(self, lists=tuple(lists))


@dataclass(frozen=True)
class Question:
    """A question: ``choices`` with ``correct`` (facts -> the right choice), or a number: the fact ``number``."""

    prompt: str
    reveal: str
    choices: tuple[str, ...] = ()
    correct: Callable[[Facts], str] | None = None
    number: str = ""

    def answer(self, facts: Facts) -> object:
        return self.correct(facts) if self.choices else facts[self.number]

    def is_right(self, given: object, facts: Facts) -> bool:
        if self.choices:
            return given == self.answer(facts)
        return given is not None and abs(float(given) - float(self.answer(facts))) <= ANSWER_TOLERANCE  # type: ignore[arg-type]


@dataclass(frozen=True)
class Lesson:
    """One lesson: ``prepare`` builds its scene, ``change`` the scene after "now try", ``facts`` the engine's
    numbers of both (and any text they need, such as a tool's name)."""

    slug: str
    title: str
    goal: str
    prepare: Callable[[], Scene]
    ask: Question
    now_try: str
    change: Callable[[Scene], Scene]
    ask_again: Question
    facts: Callable[[Scene, Scene], dict[str, object]]
    explore_list: int = 0  # the list "Open in the explorer" opens (a pair opens both)

    def scenes(self) -> tuple[Scene, Scene]:
        before = self.prepare()
        return before, self.change(before)


# ---- texts: templates over facts -------------------------------------------------------------------------------


def shown_fact(value: object) -> str:
    """A fact as a sentence shows it: a whole number as it is, any other number with three decimals."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def render(template: str, facts: Facts) -> str:
    return template.format_map({name: shown_fact(value) for name, value in facts.items()})


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def typed_text(template: str) -> str:
    """The template without its placeholders: what the lesson's author typed."""
    return "".join(literal for literal, _, _, _ in string.Formatter().parse(template))


# ---- the engine's numbers ---------------------------------------------------------------------------------------


def value(scene: Scene, spec: str, index: int = 0, conventions: Conventions | None = None) -> float:
    """One measure (trec_eval notation, ``P.4``) of the scene's ``index``-th list, from the engine."""
    listing = scene.lists[index]
    measure = parse_measures([spec])[0]
    values = evaluate_rankings([list(listing.docs)], [dict(listing.judgments)], [measure],
                               conventions or scene.conventions)
    return float(values[measure.key][0])


def relevant(listing: Listing, level: int = 1) -> list[str]:
    """The judged relevant documents of a list's query (grade >= level), in the judgments' order."""
    return [doc for doc, grade in listing.judgments.items() if grade >= level]


def hits(scene: Scene, index: int = 0, k: int | None = None) -> int:
    """Relevant documents in the top k of a list."""
    listing = scene.lists[index]
    level = scene.conventions.relevance_level
    return sum(1 for doc in listing.docs[: k or scene.k] if listing.judgments.get(doc, -1) >= level)


def rank_of(scene: Scene, doc: str, index: int = 0) -> int:
    return scene.lists[index].docs.index(doc) + 1


def moved(docs: tuple[str, ...], doc: str, rank: int) -> tuple[str, ...]:
    order = [d for d in docs if d != doc]
    order.insert(rank - 1, doc)
    return tuple(order)


def profile_conventions(profile: Profile, level: int = 1) -> Conventions:
    """The conventions a tool profile fixes, each option at the tool's default (the option ``""``, else the first
    listed), a convention the tool cannot change (``any``) at trec_eval's value and the threshold at ``level``."""
    values: dict[str, object] = {}
    for name, setting in profile.settings.items():
        if isinstance(setting, Switch):
            values[name] = next((v for v, option in setting.options.items() if not option),
                                next(iter(setting.options)))
        elif setting == ANY_LEVEL:
            values[name] = level
        elif setting == ANY:
            values[name] = getattr(TREC_EVAL, name)
        else:
            values[name] = setting
    return Conventions(**values)  # type: ignore[arg-type]


def tool_value(listing: Listing, spec: str, conventions: Conventions) -> float:
    """A measure of a scored list as a tool computes it: the list ordered by its scores with the tool's tie order,
    the tool's conventions (tied gains averaged read the scores)."""
    scores = dict(zip(listing.docs, listing.scores or ()))
    order = order_documents(scores, conventions.tie_order, score_precision=conventions.score_precision)
    measure = parse_measures([spec])[0]
    values = evaluate_rankings([order], [dict(listing.judgments)], [measure], conventions,
                               scores=[[scores[doc] for doc in order]])
    return float(values[measure.key][0])
