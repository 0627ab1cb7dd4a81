"""Seeded random qrels and runs for the differential tests, and a guarded call into pytrec_eval.

Every generator takes a ``numpy.random.Generator`` made with ``numpy.random.default_rng(seed)``, so a failing case
is reproduced by its seed alone. The shapes are chosen to hit what makes evaluators disagree: many tied scores,
float64 scores that tie only once rounded to float32, grades from -1 (unjudged) to 3, unjudged retrieved documents,
judged documents never retrieved, queries with no relevant (or only grade-0) judgments, queries only in the run or
only in the qrels, and doc ids whose byte order differs from their "natural" order
('10' < '9', 'Z' < 'a' < 'é' < '€' < '😀').
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

#: Doc-id stems chosen for byte-order tie-breaking: digits sort as text, upper case before lower case, and
#: multi-byte UTF-8 (2, 3 and 4 bytes) after ASCII. No NUL and no whitespace, which TREC files cannot hold.
ODD_DOC_IDS = (
    "Z", "a", "é", "10", "9", "09", "A", "z", "\x7f", "ÿ", "Ā", "€", "😀", "日本", "doc-1", "doc_1",
    "DOC", "a.b", "a/b", "Ω", "Ωmega", "e\u0301", "ß", "ss",
)

#: Scores drawn from a small set make ties common; the tie order then decides the ranking.
TIED_SCORES = (0.0, 0.25, 0.5, 0.5, 1.0, 1.0, 1.0, -0.5)

#: Offsets that keep float64 scores apart but make most of them equal as float32 (trec_eval 9 and pytrec_eval
#: store scores as C floats): dense retrievers' scores differ in the 8th digit and beyond.
NEAR_TIE_OFFSETS = (0.0, 1e-9, -1e-9, 2.5e-9, 1e-12, 3e-8, -3e-8, 1e-7)

#: How a query's judgments are drawn: each profile gives weights over grades -1, 0, 1, 2, 3.
GRADE_PROFILES = {
    "graded": (0.1, 0.4, 0.25, 0.15, 0.1),
    "binary": (0.0, 0.6, 0.4, 0.0, 0.0),
    "no_relevant": (0.2, 0.8, 0.0, 0.0, 0.0),  # only grade 0 and unjudged-in-pool
    "only_zero": (0.0, 1.0, 0.0, 0.0, 0.0),
    "all_relevant": (0.0, 0.0, 0.3, 0.4, 0.3),
    "mostly_unjudged": (0.7, 0.1, 0.1, 0.05, 0.05),
}


def doc_pool(rng: np.random.Generator, size: int) -> list[str]:
    """``size`` distinct doc ids mixing the odd stems with numbered ids that share prefixes."""
    pool: list[str] = []
    seen: set[str] = set()
    while len(pool) < size:
        kind = rng.integers(4)
        if kind == 0:
            doc = str(rng.choice(ODD_DOC_IDS))
        elif kind == 1:
            doc = str(rng.choice(ODD_DOC_IDS)) + str(rng.integers(0, 20))
        elif kind == 2:
            doc = f"d{rng.integers(0, 200)}"
        else:
            doc = f"D{rng.integers(0, 1000):04d}"
        if doc not in seen:
            seen.add(doc)
            pool.append(doc)
    return pool


def random_query(
    rng: np.random.Generator, *, max_docs: int = 40, profile: str | None = None
) -> tuple[dict[str, int], dict[str, float]]:
    """One query's judgments and scores. The ranking is never empty and the judgments never all negative."""
    pool = doc_pool(rng, int(rng.integers(2, max_docs + 1)))
    profile = profile or str(rng.choice(list(GRADE_PROFILES)))
    weights = np.asarray(GRADE_PROFILES[profile])
    n_judged = int(rng.integers(1, len(pool) + 1))
    judged_docs = rng.choice(len(pool), size=n_judged, replace=False)
    grades = rng.choice(np.arange(-1, 4), size=n_judged, p=weights / weights.sum())
    if (grades < 0).all():
        grades[0] = 0  # pytrec_eval reads garbage when every judgment is negative (see test_differential)
    judgments = {pool[i]: int(g) for i, g in zip(judged_docs, grades)}
    n_retrieved = int(rng.integers(1, len(pool) + 1))
    retrieved = rng.choice(len(pool), size=n_retrieved, replace=False)
    kind = rng.random()
    if kind < 0.5:
        values = rng.choice(TIED_SCORES, size=n_retrieved)
    elif kind < 0.65:  # float64 near-ties: distinct doubles, mostly equal floats
        values = rng.choice(TIED_SCORES, size=n_retrieved) + rng.choice(NEAR_TIE_OFFSETS, size=n_retrieved)
    else:
        values = np.round(rng.normal(size=n_retrieved), int(rng.integers(1, 6)))
    scores = {pool[i]: float(v) for i, v in zip(retrieved, values)}
    return judgments, scores


def random_collection(
    rng: np.random.Generator, n_queries: int, *, max_docs: int = 40, extra_fraction: float = 0.05
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """qrels and run for ``n_queries`` queries, plus a few queries only in the run and a few only in the qrels."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(n_queries):
        judgments, scores = random_query(rng, max_docs=max_docs)
        qid = f"q{i}" if rng.random() < 0.9 else f"{rng.choice(ODD_DOC_IDS)}-{i}"
        qrels[qid] = judgments
        run[qid] = scores
    n_extra = max(1, int(n_queries * extra_fraction))
    for i in range(n_extra):
        judgments, scores = random_query(rng, max_docs=max_docs)
        qrels[f"only-in-qrels-{i}"] = judgments
        run[f"only-in-run-{i}"] = scores
    # Shuffle the run's query order: trec_eval and our engine must not depend on it.
    order = rng.permutation(len(run))
    items = list(run.items())
    return qrels, {items[i][0]: items[i][1] for i in order}


def cutoff_specs(rng: np.random.Generator, names: Iterable[str], *, longest: int) -> list[str]:
    """trec_eval measure strings with several cut-offs each, some of them beyond the longest ranking."""
    from metrics import MEASURES

    specs = []
    for name in names:
        info = MEASURES[name]
        if info.cutoff == "none":
            specs.append(name)
            continue
        cutoffs = {1, 2, 3, 5, 10, longest, longest + 1, 1000}
        cutoffs.update(int(c) for c in rng.integers(1, longest + 5, size=3))
        specs.append(f"{name}.{','.join(map(str, sorted(cutoffs)))}")
    return specs


def trec_eval_measure_names() -> list[str]:
    """The registered measures that trec_eval defines and pytrec_eval computes alike, so it can check them."""
    from metrics import MEASURES

    return [name for name, info in MEASURES.items() if info.trec_eval and info.peer == "pytrec_eval"]


def pytrec_eval_safe(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Mapping[str, float]]) -> None:
    """Assert the inputs avoid the two cases that crash pytrec_eval-terrier 0.5.11 (segfault or garbage):
    an evaluated query with an empty ranking, and an evaluated query whose judgments are all negative."""
    for qid, scores in run.items():
        judgments = qrels.get(qid)
        if not judgments:
            continue
        assert scores, f"query {qid!r} has an empty ranking; pytrec_eval segfaults on it"
        assert any(g >= 0 for g in judgments.values()), f"query {qid!r} has only negative judgments"
