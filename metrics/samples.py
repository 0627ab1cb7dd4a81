"""The built-in example queries: one JSON file per sample in ``samples/``, listed in order by ``samples/index.json``.

A sample file holds one query, its ranked list and its judgments::

    {"title": "sweet pastry", "description": "<one line>", "query": "sweet pastry", "k": 4,
     "ranking": [{"doc": "donut", "score": 0.95}, {"doc": "bagel", "score": 0.9}, ...],
     "judgments": {"donut": 1, "muffin": 1, "scone": 1}}

An optional ``conventions`` object names the conventions the sample is read with, e.g. ``{"relevance_level": 2}``
for TREC Deep Learning's binary measures; the description is a claim about the numbers under them.

``ranking`` is in rank order; scores are optional (all ``null`` or all numbers, never increasing down the list),
and equal scores are ties that the tie-order convention resolves. ``judgments`` maps doc ids to integer grades and
may name documents that were never retrieved. Files are validated strictly: an unknown or missing key, a doc id
with whitespace (it could not be written to a TREC file), a repeated document, or a score that rises down the
list is an :class:`~metrics.model.InputError` naming the file and the field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .conventions import Conventions, TieOrder
from .model import InputError, order_documents

#: The built-in samples: the copy installed inside the package (pip install .), else the source tree's samples/.
_INSTALLED_SAMPLES = Path(__file__).resolve().parent / "_samples"
_SOURCE_SAMPLES = Path(__file__).resolve().parent.parent / "samples"
SAMPLES_FOLDER = _INSTALLED_SAMPLES if _INSTALLED_SAMPLES.is_dir() else _SOURCE_SAMPLES
INDEX_FILE = "index.json"

_KEYS = ("title", "description", "query", "k", "ranking", "judgments")
#: Keys a sample may add: ``conventions`` names the conventions it is meant to be read with (e.g. TREC DL's -l 2).
_OPTIONAL_KEYS = ("conventions",)


@dataclass(frozen=True, slots=True)
class Sample:
    """One example query. ``ranking`` is (doc id, score or None) in rank order as written in the file."""

    slug: str
    title: str
    description: str
    query: str
    k: int
    ranking: tuple[tuple[str, float | None], ...]
    judgments: dict[str, int] = field(hash=False)
    conventions: Conventions = field(default_factory=Conventions)

    @property
    def documents(self) -> list[str]:
        """The doc ids in the order the file lists them."""
        return [doc for doc, _ in self.ranking]

    @property
    def has_scores(self) -> bool:
        return self.ranking[0][1] is not None

    def ordered(self, tie_order: TieOrder = "trec_eval") -> list[str]:
        """The doc ids in rank order once ties are broken by ``tie_order`` (the file order when there are no scores).

        >>> load_sample("dunk-in-coffee").ordered()[:2]
        ['scone', 'biscotti']
        """
        if not self.has_scores:
            return self.documents
        return order_documents(dict(self.ranking), tie_order, qid=self.slug)


def load_samples(folder: str | Path = SAMPLES_FOLDER) -> list[Sample]:
    """Every sample of ``folder``, in the order of its ``index.json``.

    Every ``*.json`` file of the folder must be listed in the index, and every listed slug must have a file.
    """
    folder = Path(folder)
    order = _read_index(folder)
    files = {path.stem for path in folder.glob("*.json") if path.name != INDEX_FILE}
    unlisted = sorted(files - set(order))
    if unlisted:
        raise InputError(
            f"{folder.name}/{INDEX_FILE}: sample file {unlisted[0]}.json is not listed in \"order\"; "
            "add its slug where it should appear"
        )
    return [_read_sample(folder / f"{slug}.json") for slug in order]


def load_sample(slug: str, folder: str | Path = SAMPLES_FOLDER) -> Sample:
    """The sample called ``slug`` (its file name without ``.json``)."""
    folder = Path(folder)
    order = _read_index(folder)
    if slug not in order:
        raise InputError(f"unknown sample {slug!r}; known samples: {', '.join(order)}")
    return _read_sample(folder / f"{slug}.json")


def sample_to_trec(sample: Sample) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """``(qrels, run)`` for the sample, in pytrec_eval's shape, with the slug as the query id.

    Without scores, the run scores the documents n, n-1, ..., 1 in file order, so every tie order keeps that order.
    """
    count = len(sample.ranking)
    scores = {
        doc: float(score) if score is not None else float(count - index)
        for index, (doc, score) in enumerate(sample.ranking)
    }
    return {sample.slug: dict(sample.judgments)}, {sample.slug: scores}


def validate_query(
    ranking: Sequence[str] | Sequence[tuple[str, float | None]],
    judgments: Mapping[str, int],
    *,
    where: str = "",
) -> None:
    """Check one query as the editor or a sample holds it; raise InputError naming the first problem.

    ``ranking`` is doc ids in rank order, or (doc id, score or None) pairs. Doc ids are non-empty strings without
    whitespace and appear once; scores are all None or all finite numbers that never increase down the list;
    grades are integers (negative means unjudged, as in trec_eval). ``where`` prefixes the messages.
    """
    prefix = f"{where}: " if where else ""
    pairs: list[tuple] = []
    for rank, item in enumerate(ranking, start=1):
        pair = (item, None) if isinstance(item, str) else tuple(item) if isinstance(item, (tuple, list)) else (item,)
        if len(pair) != 2:
            raise InputError(f"{prefix}ranking rank {rank}: expected a doc id or a (doc id, score) pair, got {item!r}")
        pairs.append(pair)
    seen: dict[str, int] = {}
    for rank, (doc, score) in enumerate(pairs, start=1):
        _check_doc_id(doc, f"{prefix}ranking rank {rank}")
        if doc in seen:
            raise InputError(
                f"{prefix}ranking rank {rank}: document {doc!r} already appears at rank {seen[doc]}; "
                "a document can be retrieved only once"
            )
        seen[doc] = rank
        if score is not None and (not _is_number(score) or not math.isfinite(score)):
            raise InputError(
                f"{prefix}ranking rank {rank} ({doc}): score must be a finite number or null, got {score!r}")
    scored = [score is not None for _, score in pairs]
    if any(scored) and not all(scored):
        rank = scored.index(not scored[0]) + 1
        raise InputError(
            f"{prefix}ranking rank {rank}: give a score for every document or for none "
            f"(rank 1 {'has' if scored[0] else 'has no'} score, "
            f"rank {rank} {'has' if scored[rank - 1] else 'has no'} score)"
        )
    if all(scored):
        for rank in range(2, len(pairs) + 1):
            above, below = pairs[rank - 2][1], pairs[rank - 1][1]
            if below > above:
                raise InputError(
                    f"{prefix}ranking rank {rank} ({pairs[rank - 1][0]}): score {below} is higher than rank "
                    f"{rank - 1}'s {above}; list the documents in rank order (scores never increasing)"
                )
    if not isinstance(judgments, Mapping):
        raise InputError(f"{prefix}judgments must map doc ids to grades, got {type(judgments).__name__}")
    for doc, grade in judgments.items():
        _check_doc_id(doc, f"{prefix}judgments")
        if not isinstance(grade, int) or isinstance(grade, bool):
            raise InputError(f"{prefix}judgments[{doc!r}]: grade must be an integer (e.g. 0, 1, 2), got {grade!r}")


# ---- reading files --------------------------------------------------------------------------------


def _read_json(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path.parent.name}/{path.name}: file not found") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{path.parent.name}/{path.name} line {error.lineno}: invalid JSON ({error.msg})") from None


def _read_index(folder: Path) -> list[str]:
    name = f"{folder.name}/{INDEX_FILE}"
    data = _read_json(folder / INDEX_FILE)
    if not isinstance(data, dict) or set(data) != {"order"} or not isinstance(data["order"], list):
        raise InputError(f'{name}: expected {{"order": [slug, ...]}}, got {str(data)[:80]}')
    order = data["order"]
    for position, slug in enumerate(order):
        if not isinstance(slug, str) or not slug or not all(c.isalnum() or c == "-" for c in slug):
            raise InputError(f"{name}: order[{position}] must be a slug (letters, digits, '-'), got {slug!r}")
        if slug in order[:position]:
            raise InputError(f"{name}: slug {slug!r} is listed twice in \"order\"")
        if not (folder / f"{slug}.json").is_file():
            raise InputError(f"{name}: order[{position}] names {slug!r} but {folder.name}/{slug}.json does not exist")
    return order


def _read_sample(path: Path) -> Sample:
    name = f"{path.parent.name}/{path.name}"
    data = _read_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{name}: expected a JSON object with keys {', '.join(_KEYS)}")
    missing = [key for key in _KEYS if key not in data]
    if missing:
        raise InputError(f"{name}: missing key {missing[0]!r} (a sample has {', '.join(_KEYS)})")
    unknown = sorted(set(data) - set(_KEYS) - set(_OPTIONAL_KEYS))
    if unknown:
        raise InputError(
            f"{name}: unknown key {unknown[0]!r} (a sample has {', '.join(_KEYS)}, "
            f"and may have {', '.join(_OPTIONAL_KEYS)})")
    conventions_data = data.get("conventions", {})
    if not isinstance(conventions_data, dict):
        raise InputError(f"{name}: 'conventions' must be an object such as {{\"relevance_level\": 2}}, "
                         f"got {conventions_data!r}")
    try:
        conventions = Conventions(**conventions_data)
    except (TypeError, ValueError) as error:
        raise InputError(f"{name}: 'conventions': {error}") from None
    for key in ("title", "description", "query"):
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{name}: {key!r} must be a non-empty string, got {value!r}")
        if "\n" in value:
            raise InputError(f"{name}: {key!r} must be one line")
    k = data["k"]
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InputError(f"{name}: 'k' must be a positive integer, got {k!r}")
    ranking = data["ranking"]
    if not isinstance(ranking, list) or not ranking:
        raise InputError(f"{name}: 'ranking' must be a non-empty list of {{\"doc\": ..., \"score\": ...}}")
    pairs: list[tuple[str, float | None]] = []
    for index, entry in enumerate(ranking):
        if not isinstance(entry, dict) or "doc" not in entry or not set(entry) <= {"doc", "score"}:
            raise InputError(
                f"{name}: ranking[{index}] must look like {{\"doc\": \"donut\", \"score\": 0.95}} "
                f"(score optional), got {entry!r}"
            )
        score = entry.get("score")
        pairs.append((entry["doc"], float(score) if _is_number(score) else score))
    judgments = data["judgments"]
    if not isinstance(judgments, dict) or not judgments:
        raise InputError(f"{name}: 'judgments' must be a non-empty object mapping doc ids to integer grades")
    validate_query(pairs, judgments, where=name)
    return Sample(
        slug=path.stem,
        title=data["title"],
        description=data["description"],
        query=data["query"],
        k=k,
        ranking=tuple(pairs),
        judgments=dict(judgments),
        conventions=conventions,
    )


def _check_doc_id(doc: object, where: str) -> None:
    if not isinstance(doc, str) or not doc:
        raise InputError(f"{where}: doc id must be a non-empty string, got {doc!r}")
    if any(c.isspace() for c in doc):
        raise InputError(f"{where}: doc id {doc!r} contains whitespace; use '-' or '_' (TREC files split on spaces)")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


__all__ = ["SAMPLES_FOLDER", "Sample", "load_sample", "load_samples", "sample_to_trec", "validate_query"]
