"""The explorer's query state and its URL codec. Pure Python: no Streamlit here, so all of it is unit-tested.

A :class:`QueryState` is what the page edits: the ranked items (doc id, optional score, removed flag), the
judgments (doc -> grade, including judged documents that were never retrieved), the cut-off k, and the
conventions. It round-trips through URL parameters:

    ?ranking=donut:0.95,bagel,muffin&qrels=donut:1,muffin:1,scone:1&k=4&level=2&gain=exponential

How the pages show it is a :class:`View`, in the link too (``mode=class&show=holes``, :func:`encode_view`), on every
page.

Doc ids may hold any character; ``%``, ``,`` and ``:`` inside them are percent-escaped by the codec. A link holds
at most :data:`MAX_URL_CHARS` characters of parameters: a longer state gets no link (the page says so), and a
longer link is refused.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlencode

from metrics import Conventions, InputError
from metrics.conventions import ORDER_CONVENTIONS, URL_PARAMS
from metrics.ids import check_id
from metrics.model import order_documents

#: The longest link the explorer writes or reads: its parameters as the address bar holds them (percent-encoded,
#: :func:`url_length`). Web servers and proxies commonly refuse a request line past 8 KB (nginx's default buffer),
#: so a longer link could not be opened where the app is served.
MAX_URL_CHARS = 8_000
#: The value of the ``order`` parameter that keeps the ranking as listed where its scores contradict it.
ORDER_SHOWN = "shown"
MAX_ITEMS = 1_000
MAX_DOC_CHARS = 200
MAX_K = 10_000
MAX_GRADE = 1_000

#: URL parameter name of each convention the explorer exposes (the registry's ``url_param``; missing_queries and
#: depth make no sense for one query).
CONVENTION_PARAMS = URL_PARAMS


@dataclass(frozen=True, slots=True)
class Item:
    doc: str
    score: float | None = None
    removed: bool = False


@dataclass(frozen=True, slots=True)
class QueryState:
    items: tuple[Item, ...]
    judgments: Mapping[str, int]
    k: int = 10
    conventions: Conventions = field(default_factory=Conventions)
    query: str = "query"

    @property
    def ranking(self) -> list[str]:
        """Doc ids in rank order, removed items left out: what the engine evaluates."""
        return [item.doc for item in self.items if not item.removed]

    @property
    def docs(self) -> list[str]:
        return [item.doc for item in self.items]

    @property
    def active_items(self) -> list[Item]:
        return [item for item in self.items if not item.removed]

    @property
    def table_order(self) -> list[int]:
        """Positions in ``items`` as the editor lists them: the active list in rank order, then removed rows."""
        return [i for i, item in enumerate(self.items) if not item.removed] + [
            i for i, item in enumerate(self.items) if item.removed]

    def replace(self, **changes: object) -> QueryState:
        return dataclasses.replace(self, **changes)


# ---- one list, one order ------------------------------------------------------------------------------
# The list shown is the ranking scored. A list that arrives with scores is put in the order its tie-order
# convention gives; a hand edit may then make the scores contradict the order, which the page says and resolves
# with "Sort by score" or "Use this order".


def score_order(state: QueryState) -> list[str] | None:
    """The active documents ordered by score under the state's tie order, or None when a score is missing."""
    active = state.active_items
    if not active or any(item.score is None for item in active):
        return None
    return order_documents({item.doc: float(item.score) for item in active}, state.conventions.tie_order,  # type: ignore[arg-type]
                           score_precision=state.conventions.score_precision)


def scores_contradict_order(state: QueryState) -> bool:
    """Every active document has a score, and sorting by them (ties by the tie order) gives another order."""
    order = score_order(state)
    return order is not None and order != state.ranking


def sort_by_score(state: QueryState) -> QueryState:
    """The active documents in score order (ties by the tie-order convention); unchanged without full scores."""
    order = score_order(state)
    return state if order is None else reorder_active(state, order)


def use_this_order(state: QueryState) -> QueryState:
    """Keep the order shown and rewrite the active documents' scores to follow it: n, n-1, …, 1."""
    active = len(state.active_items)
    scores = iter(range(active, 0, -1))
    return state.replace(items=tuple(
        item if item.removed else dataclasses.replace(item, score=float(next(scores))) for item in state.items))


def set_order_convention(state: QueryState, name: str, value: str) -> QueryState:
    """Change the tie order or the score precision; a list whose order followed its scores is re-sorted, so tied
    documents visibly take the new order (a hand-made order that contradicts the scores is left as it is)."""
    if name not in ORDER_CONVENTIONS:
        raise ValueError(f"Argument `name` has to be one of {ORDER_CONVENTIONS}, got {name!r}")
    followed = not scores_contradict_order(state)
    new_state = state.replace(conventions=state.conventions.replace(**{name: value}))
    return sort_by_score(new_state) if followed else new_state


def set_tie_order(state: QueryState, tie_order: str) -> QueryState:
    return set_order_convention(state, "tie_order", tie_order)


def validate_doc(doc: object, *, where: str = "") -> str:
    """A clean doc id or an InputError that says what is wrong with it."""
    prefix = f"{where}: " if where else ""
    if not isinstance(doc, str):
        raise InputError(f"{prefix}document id has to be text, got {doc!r}")
    text = doc.strip()
    if not text:
        raise InputError(f"{prefix}document id is empty")
    if len(text) > MAX_DOC_CHARS:
        raise InputError(f"{prefix}document id is longer than {MAX_DOC_CHARS} characters")
    if any(ch.isspace() for ch in text):
        raise InputError(f"{prefix}document id {text!r} contains white space, which TREC files cannot hold")
    if any(not ch.isprintable() for ch in text):
        raise InputError(f"{prefix}document id {text!r} contains an invisible or control character")
    return text


def parse_grade(value: object, *, where: str = "") -> int:
    prefix = f"{where}: " if where else ""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{prefix}grade has to be a whole number such as 0, 1, 2 or -1, got {value!r}") from None
    if not math.isfinite(number) or not number.is_integer():
        raise InputError(f"{prefix}grade has to be a whole number such as 0, 1, 2 or -1, got {value!r}")
    if abs(number) > MAX_GRADE:
        raise InputError(f"{prefix}grade {int(number)} is out of range (-{MAX_GRADE} to {MAX_GRADE})")
    return int(number)


def parse_score(value: object, *, where: str = "") -> float | None:
    prefix = f"{where}: " if where else ""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{prefix}score has to be a number, got {value!r}") from None
    if math.isnan(number):
        if isinstance(value, str):
            raise InputError(f"{prefix}score has to be a number, got {value!r}")
        return None  # an emptied cell in the editor arrives as NaN
    if not math.isfinite(number):
        raise InputError(f"{prefix}score has to be a finite number, got {value!r}")
    return number


def parse_k(value: object) -> int:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"k has to be a whole number from 1 to {MAX_K}, got {value!r}") from None
    if not math.isfinite(number) or not number.is_integer() or not 1 <= number <= MAX_K:
        raise InputError(f"k has to be a whole number from 1 to {MAX_K}, got {value!r}")
    return int(number)


def check_state(items: tuple[Item, ...], judgments: Mapping[str, int]) -> None:
    """Raise InputError for a duplicate document or too many items."""
    if len(items) > MAX_ITEMS:
        raise InputError(f"the list has {len(items)} documents; the explorer holds at most {MAX_ITEMS}")
    seen: dict[str, int] = {}
    for rank, item in enumerate(items, start=1):
        if item.doc in seen:
            raise InputError(f"document {item.doc!r} is at rank {seen[item.doc]} and again at rank {rank}")
        seen[item.doc] = rank
    if len(judgments) > 10 * MAX_ITEMS:
        raise InputError(f"{len(judgments)} judgments is more than the explorer holds ({10 * MAX_ITEMS})")


# ---- URL codec ---------------------------------------------------------------------------------------


def _escape(text: str) -> str:
    return text.replace("%", "%25").replace(",", "%2C").replace(":", "%3A")


def _unescape(text: str) -> str:
    return text.replace("%3A", ":").replace("%3a", ":").replace("%2C", ",").replace("%2c", ",").replace("%25", "%")


def format_score(score: float) -> str:
    """The shortest text that reads back as the same float: ``0.95``, ``2`` for 2.0."""
    text = repr(float(score))
    return text[:-2] if text.endswith(".0") else text


def url_length(params: Mapping[str, str]) -> int:
    """How many characters ``params`` take in the address bar, percent-encoded (``,`` and ``:`` as ``%2C`` and
    ``%3A``, as the browser writes them)."""
    return len(urlencode(params))


def encode_url(state: QueryState) -> dict[str, str]:
    """URL parameters that reproduce the state; conventions appear only where they differ from trec_eval's, and
    ``order=shown`` only where the order shown contradicts the scores (a link is otherwise ordered by them).
    Whether they fit in a link is :func:`url_length` against :data:`MAX_URL_CHARS`."""
    items = []
    for item in state.items:
        text = _escape(item.doc)
        if item.score is not None:
            text += ":" + format_score(item.score)
        items.append(text)
    params = {
        "ranking": ",".join(items),
        "qrels": ",".join(f"{_escape(doc)}:{grade}" for doc, grade in state.judgments.items()),
        "k": str(state.k),
    }
    if state.query != "query":
        params["query"] = state.query
    removed = [str(rank) for rank, item in enumerate(state.items, start=1) if item.removed]
    if removed:
        params["removed"] = ",".join(removed)
    if scores_contradict_order(state):
        params["order"] = ORDER_SHOWN
    for name, value in state.conventions.differences().items():
        if name in CONVENTION_PARAMS:
            params[CONVENTION_PARAMS[name]] = str(value)
    return params


def decode_url(params: Mapping[str, str | list[str]]) -> QueryState | None:
    """The state a URL describes, None when it describes none, or an InputError naming the bad parameter."""
    if "ranking" not in params and "qrels" not in params:
        return None
    values: dict[str, str] = {}
    for name, value in params.items():
        text = value[-1] if isinstance(value, list) else value
        if not isinstance(text, str):
            raise InputError(f"URL parameter {name!r} is not text")
        values[name] = text
    length = url_length(values)
    if length > MAX_URL_CHARS:
        raise InputError(f"the link's parameters are {length:,} characters long; the limit is {MAX_URL_CHARS:,}")
    order = values.get("order")
    if order is not None and order != ORDER_SHOWN:
        raise InputError(f"URL parameter 'order': {order!r} is not {ORDER_SHOWN!r} (which keeps the order listed); "
                         "leave it out to order the ranking by its scores")

    items: list[Item] = []
    for position, token in enumerate(filter(None, values.get("ranking", "").split(",")), start=1):
        doc_text, sep, score_text = token.rpartition(":") if ":" in token else (token, "", "")
        where = f"URL ranking item {position}"
        doc = validate_doc(_unescape(doc_text), where=where)
        score = parse_score(score_text, where=f"{where} ({doc})") if sep else None
        items.append(Item(doc, score))
    removed_ranks = set()
    for token in filter(None, values.get("removed", "").split(",")):
        if not token.isdigit() or not 1 <= int(token) <= len(items):
            raise InputError(f"URL parameter 'removed': {token!r} is not a rank between 1 and {len(items)}")
        removed_ranks.add(int(token))
    items = [dataclasses.replace(item, removed=rank in removed_ranks) for rank, item in enumerate(items, start=1)]

    judgments: dict[str, int] = {}
    for position, token in enumerate(filter(None, values.get("qrels", "").split(",")), start=1):
        where = f"URL qrels item {position}"
        if ":" not in token:
            raise InputError(f"{where}: {token!r} has no grade; write doc:grade, e.g. donut:1")
        doc_text, _, grade_text = token.rpartition(":")
        doc = validate_doc(_unescape(doc_text), where=where)
        if doc in judgments:
            raise InputError(f"{where}: document {doc!r} is judged twice")
        judgments[doc] = parse_grade(grade_text, where=f"{where} ({doc})")

    k = parse_k(values["k"]) if "k" in values else max(1, min(10, len(items) or 10))
    changes: dict[str, object] = {}
    for name, param in CONVENTION_PARAMS.items():
        if param in values:
            is_level = name == "relevance_level"
            changes[name] = parse_grade(values[param], where="URL parameter 'level'") if is_level else values[param]
    try:
        conventions = Conventions(**changes)  # type: ignore[arg-type]
    except ValueError as error:
        raise InputError(f"URL conventions: {error}") from None
    check_state(tuple(items), judgments)
    query = check_id(values.get("query", "query")[:200] or "query", "query id", where="URL parameter 'query'")
    # A list that arrives with scores is ordered as its tie-order convention says (what you see is what trec_eval
    # scores), unless the link says it holds a hand-made order.
    state = QueryState(tuple(items), judgments, k, conventions, query)
    return state if order == ORDER_SHOWN else sort_by_score(state)


# ---- the view: classroom mode -----------------------------------------------------------------------------
# Not part of the query: a lecturer switches it on once and every page follows, whatever list is open.

#: The value of the ``mode`` parameter that opens classroom mode (large type, the list and the cards first).
CLASSROOM = "class"
#: The panels classroom mode hides unless asked for (the ``show`` parameter, or the sidebar).
PANELS = ("conventions", "holes", "online")


@dataclass(frozen=True, slots=True)
class View:
    """How the pages show what they show: ``classroom`` mode, and the panels it shows all the same."""

    classroom: bool = False
    shown: frozenset[str] = frozenset()

    def shows(self, panel: str) -> bool:
        """Whether ``panel`` (one of :data:`PANELS`) is drawn: always outside classroom mode."""
        if panel not in PANELS:
            raise ValueError(f"Argument `panel` has to be one of {PANELS}, but got {panel!r}")
        return not self.classroom or panel in self.shown


def encode_view(view: View) -> dict[str, str]:
    """The link parameters of ``view``: none for the usual page, ``mode=class`` (and ``show=…`` in
    :data:`PANELS` order) in classroom mode."""
    if not view.classroom:
        return {}
    params = {"mode": CLASSROOM}
    if view.shown:
        params["show"] = ",".join(panel for panel in PANELS if panel in view.shown)
    return params


def decode_view(params: Mapping[str, str | list[str]]) -> View:
    """The view a link asks for (the usual page without ``mode``), or an InputError naming the bad parameter."""
    mode, show = (_last(params.get(name)) for name in ("mode", "show"))
    if mode is None:
        if show is not None:
            raise InputError(f"URL parameter 'show' needs mode={CLASSROOM}: outside classroom mode every panel "
                             "is shown")
        return View()
    if mode != CLASSROOM:
        raise InputError(f"URL parameter 'mode': {mode[:20]!r} is not {CLASSROOM!r} (classroom mode); leave it out "
                         "for the usual page")
    shown = set()
    for token in filter(None, (show or "").split(",")):
        if token not in PANELS:
            raise InputError(f"URL parameter 'show': {token[:20]!r} is not one of {', '.join(PANELS)}")
        shown.add(token)
    return View(True, frozenset(shown))


def _last(value: str | list[str] | None) -> str | None:
    """A parameter's value as the page reads it (the last one when repeated); None when absent or empty."""
    if isinstance(value, list):
        value = value[-1] if value else None
    if value is not None and not isinstance(value, str):
        raise InputError(f"URL parameter value {value!r} is not text")
    return value or None


# ---- edits -------------------------------------------------------------------------------------------
# Each edit returns a new, validated state or raises InputError; the caller keeps the old state on error.


def move(state: QueryState, index: int, new_rank: int) -> QueryState:
    """Move the ``index``-th active document (0-based) to active rank ``new_rank`` (1-based, clamped to the list).

    Ranks are those of the active list: removed documents have none and stay where they are.
    """
    order = state.ranking
    if not 0 <= index < len(order):
        raise InputError(f"there is no document at rank {index + 1}")
    doc = order.pop(index)
    order.insert(min(max(new_rank, 1), len(order) + 1) - 1, doc)
    return reorder_active(state, order)


def reorder_active(state: QueryState, new_order: list[str]) -> QueryState:
    """Put the not-removed documents in ``new_order``; removed ones keep their slots in the table."""
    active = [item for item in state.items if not item.removed]
    by_doc = {item.doc: item for item in active}
    if sorted(new_order) != sorted(by_doc):
        raise InputError("the new order has to hold exactly the documents in the list")
    queue = iter(by_doc[doc] for doc in new_order)
    return state.replace(items=tuple(item if item.removed else next(queue) for item in state.items))


def remove_active(state: QueryState, active_index: int) -> QueryState:
    """Tick "removed" on the ``active_index``-th document that is not removed yet."""
    positions = [i for i, item in enumerate(state.items) if not item.removed]
    if not 0 <= active_index < len(positions):
        raise InputError(f"there is no document at rank {active_index + 1}")
    return toggle_removed(state, positions[active_index])


def toggle_removed(state: QueryState, index: int) -> QueryState:
    items = list(state.items)
    items[index] = dataclasses.replace(items[index], removed=not items[index].removed)
    return state.replace(items=tuple(items))


#: What a grade cell may hold for "unjudged".
UNJUDGED_TEXT = "unjudged"
_UNJUDGED_SPELLINGS = {"", UNJUDGED_TEXT, "-", "—", "none", "nan"}
#: What the rank cell of a removed row shows.
NO_RANK = "—"


def apply_ranking_edits(
    state: QueryState, edited_rows: Mapping[int, Mapping[str, object]], added_rows: list[Mapping[str, object]],
    deleted_rows: list[int],
) -> QueryState:
    """Apply a data_editor change set to the ranked list. Rows are the editor's rows: ``state.table_order``.

    Renaming a document carries its judgment along; a grade cell edits the judgment ("unjudged" or empty =
    unjudged); a rank cell moves the document within the active list; deleting a row takes the document out of
    the ranking but keeps its judgment, so it becomes "judged, not retrieved". A value that cannot be read is
    refused with an InputError naming the row: nothing is silently rounded, clamped or cleared.
    """
    positions = state.table_order
    items = list(state.items)
    judgments = dict(state.judgments)
    moves: list[tuple[str, int]] = []
    for row, changes in sorted(edited_rows.items(), key=lambda pair: int(pair[0])):
        row = int(row)
        if not 0 <= row < len(positions):
            continue
        index = positions[row]
        item = items[index]
        where = f"row {row + 1} ({item.doc})"
        if "doc" in changes:
            item = dataclasses.replace(item, doc=_rename(judgments, item.doc, changes["doc"], where))
        if "score" in changes:
            item = dataclasses.replace(item, score=parse_score(changes["score"], where=where))
        if "grade" in changes:
            _set_grade(judgments, item.doc, changes["grade"], where)
        if "rank" in changes and not _blank(changes["rank"]):
            if item.removed:
                raise InputError(f"{where}: a removed document has no rank; untick 'removed' first")
            moves.append((item.doc, _parse_rank(changes["rank"], where)))
        if "removed" in changes:
            item = dataclasses.replace(item, removed=bool(changes["removed"]))
        items[index] = item
    for index in sorted({positions[int(r)] for r in deleted_rows if 0 <= int(r) < len(positions)}, reverse=True):
        del items[index]
    for offset, added in enumerate(added_rows):
        where = f"new row {offset + 1}"
        doc = added.get("doc")
        doc = validate_doc(doc, where=where) if not _blank(doc) else _fresh_doc({i.doc for i in items} | set(judgments))
        items.append(Item(doc, parse_score(added.get("score"), where=where), bool(added.get("removed") or False)))
        if "grade" in added:
            _set_grade(judgments, doc, added["grade"], where)
    new_state = state.replace(items=tuple(items), judgments=judgments)
    check_state(new_state.items, judgments)
    for doc, rank in moves:
        order = new_state.ranking
        new_state = move(new_state, order.index(doc), rank)
    return new_state


def apply_judgment_edits(
    state: QueryState, rows: list[str], edited_rows: Mapping[int, Mapping[str, object]],
    added_rows: list[Mapping[str, object]], deleted_rows: list[int],
) -> QueryState:
    """Apply a change set to the table of judged documents that are not in the ranking (``rows`` = its doc ids)."""
    judgments = dict(state.judgments)
    for row, changes in edited_rows.items():
        row = int(row)
        if not 0 <= row < len(rows):
            continue
        doc = rows[row]
        where = f"judgment row {row + 1}"
        if "doc" in changes:
            doc = _rename(judgments, doc, changes["doc"], where)
        if "grade" in changes:
            if changes["grade"] is None:
                raise InputError(f"{where}: a judgment needs a grade; delete the row to drop the judgment")
            judgments[doc] = parse_grade(changes["grade"], where=where)
    for row in deleted_rows:
        if 0 <= int(row) < len(rows):
            judgments.pop(rows[int(row)], None)
    for offset, added in enumerate(added_rows):
        where = f"new judgment {offset + 1}"
        if added.get("doc") in (None, ""):
            raise InputError(f"{where}: type the document id first, then its grade")
        doc = validate_doc(added.get("doc"), where=where)
        if doc in judgments:
            raise InputError(f"{where}: {doc!r} is already judged")
        grade = added.get("grade")
        judgments[doc] = parse_grade(grade if grade is not None else 1, where=where)
    check_state(state.items, judgments)
    return state.replace(judgments=judgments)


def unretrieved_judgments(state: QueryState, *, relevant: bool | None = None) -> list[tuple[str, int]]:
    """Judged documents that are not in the list (a removed one is), in the judgments' order. ``relevant=True``
    keeps those the list missed that count as relevant (grade >= the relevance threshold), ``False`` the others
    (judged non-relevant, or negative: unjudged in the pool), None all of them."""
    retrieved = set(state.docs)
    level = state.conventions.relevance_level
    return [(doc, grade) for doc, grade in state.judgments.items()
            if doc not in retrieved and (relevant is None or (grade >= level) == relevant)]


def _rename(judgments: dict[str, int], old: str, value: object, where: str) -> str:
    """The validated new id; a judgment of ``old`` moves with it (refused if ``new`` is judged already)."""
    new = validate_doc(value, where=where)
    if new != old and old in judgments:
        if new in judgments:
            raise InputError(f"{where}: {new!r} is already judged; delete that judgment first")
        judgments[new] = judgments.pop(old)
    return new


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or (
        isinstance(value, str) and value.strip() in ("", NO_RANK))


def _set_grade(judgments: dict[str, int], doc: str, value: object, where: str) -> None:
    if _blank(value) or (isinstance(value, str) and value.strip().lower() in _UNJUDGED_SPELLINGS):
        judgments.pop(doc, None)
    else:
        judgments[doc] = parse_grade(value, where=where)


def _parse_rank(value: object, where: str) -> int:
    try:
        number = float(str(value).strip()) if isinstance(value, str) else float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{where}: rank has to be a whole number, got {value!r}") from None
    if not math.isfinite(number) or not number.is_integer() or number < 1:
        raise InputError(f"{where}: rank has to be a whole number from 1, got {value!r}")
    return int(number)


def _fresh_doc(taken: set[str]) -> str:
    number = 1
    while f"new-doc-{number}" in taken:
        number += 1
    return f"new-doc-{number}"
