"""Session-state keys, defaults, and the link between the session, the URL and the explorer's QueryState.

Every page reads the current query through :func:`current` and changes it through :func:`commit`, which
validates first: on bad input the message is kept for the page to show and the last good state stays.
"""

from __future__ import annotations

import streamlit as st

from metrics import InputError
from metrics.model import order_documents
from metrics.samples import Sample, load_samples

from . import panels
from .query_state import (
    MAX_ITEMS,
    MAX_K,
    MAX_URL_CHARS,
    Item,
    QueryState,
    View,
    decode_url,
    decode_view,
    encode_url,
    encode_view,
    sort_by_score,
    url_length,
)
from .text import literal

QUERY = "query_state"
EDITOR_VERSION = "editor_version"
MESSAGE = "message"
BASELINE = "baseline"
UNDO = "undo_stack"
UNDO_DEPTH = 50
SAMPLE = "sample_slug"
#: The view every page follows (classroom mode and the panels it shows): a ui.common.query_state.View.
VIEW = "view"
#: The parameters this session last put in the address bar (or found there, equal to its state).
URL_WRITTEN = "url_written"
#: The list a session opened on when its address held none (the default sample): what that bare address shows.
OPENED_BARE = "opened_bare"
#: The page the last whole run drew, and the one the run before it drew (app.py records them).
SHOWN_PAGE = "shown_page"
PREVIOUS_PAGE = "previous_page"
DEFAULT_SAMPLE = "sweet-pastry"


@st.cache_data(show_spinner=False)
def samples() -> dict[str, Sample]:
    return {sample.slug: sample for sample in load_samples()}


def state_from_sample(sample: Sample) -> QueryState:
    """The sample's list in the order its scores and tie-order convention give (what trec_eval scores)."""
    items = tuple(Item(doc, score) for doc, score in sample.ranking)
    return sort_by_score(QueryState(items, dict(sample.judgments), sample.k, sample.conventions, query=sample.query))


def shown_sample(query: QueryState, by_slug: dict[str, Sample] | None = None) -> str | None:
    """The slug of the sample ``query`` is exactly as loaded (the one it was loaded from first), or None;
    ``by_slug``: :func:`samples` if the caller has it already (each call copies every sample out of the cache)."""
    origin = st.session_state.get(SAMPLE)
    by_slug = samples() if by_slug is None else by_slug
    slugs = sorted(by_slug, key=lambda slug: slug != origin)
    # Only a sample of the same query, k and length can be equal: the others are not ordered to be compared.
    return next((slug for slug in slugs
                 if (by_slug[slug].query, by_slug[slug].k, len(by_slug[slug].ranking))
                 == (query.query, query.k, len(query.items))
                 and state_from_sample(by_slug[slug]) == query), None)


def init() -> None:
    """First run of a session: the URL's state if it holds a valid one, otherwise the default sample."""
    if QUERY in st.session_state:
        return
    st.session_state.setdefault(EDITOR_VERSION, 0)
    st.session_state.setdefault(BASELINE, None)
    st.session_state.setdefault(MESSAGE, None)
    state = None
    try:
        state = decode_url(st.query_params.to_dict())
    except InputError as error:
        st.session_state[MESSAGE] = ("error", f"The link could not be opened: {error}. Showing the default sample.")
    if state is None:
        st.session_state[SAMPLE] = DEFAULT_SAMPLE
        state = state_from_sample(samples()[DEFAULT_SAMPLE])
        st.session_state[OPENED_BARE] = state
    else:
        st.session_state[SAMPLE] = None
    st.session_state[QUERY] = state


def current() -> QueryState:
    init()
    return st.session_state[QUERY]


def commit(state: QueryState, *, refresh_editor: bool = True) -> None:
    """Make ``state`` current, keeping the previous one for Undo. Edits are validated before they get here."""
    previous = st.session_state.get(QUERY)
    if previous is not None and previous != state:
        stack = st.session_state.setdefault(UNDO, [])
        stack.append(previous)
        del stack[:-UNDO_DEPTH]
    st.session_state[QUERY] = state
    panels.changed()
    if refresh_editor:
        # A new editor key drops the editor's pending deltas, so an edit is never applied twice.
        st.session_state[EDITOR_VERSION] = st.session_state.get(EDITOR_VERSION, 0) + 1


def try_commit(change, *args, **kwargs) -> bool:
    """Apply ``change(current(), *args, **kwargs)``; on InputError keep the old state and remember the message."""
    try:
        new_state = change(current(), *args, **kwargs)
    except InputError as error:
        st.session_state[MESSAGE] = ("error", str(error))
        st.session_state[EDITOR_VERSION] = st.session_state.get(EDITOR_VERSION, 0) + 1
        panels.changed()
        return False
    st.session_state[MESSAGE] = None
    commit(new_state)
    return True


def undo() -> None:
    stack = st.session_state.get(UNDO) or []
    if stack:
        st.session_state[QUERY] = stack.pop()
        st.session_state[EDITOR_VERSION] = st.session_state.get(EDITOR_VERSION, 0) + 1
        say("info", "Undid the last change.")


def can_undo() -> bool:
    return bool(st.session_state.get(UNDO))


def open_query(qid: str, judgments: dict[str, int], scores: dict[str, float], *, k: int | None = None,
               source: str = "", relevance_level: int | None = None) -> None:
    """Make one query of a loaded run the explorer's list: ordered by score with the current tie order, at most
    MAX_ITEMS documents, a fresh baseline. ``k``: the cut-off the user was looking at (the run page's); None keeps
    the explorer's. ``relevance_level``: the collection's threshold (TREC DL's 2); None keeps the explorer's."""
    current_state = current()
    conventions = current_state.conventions
    if relevance_level is not None:
        conventions = conventions.replace(relevance_level=relevance_level)
    order = order_documents(scores, current_state.conventions.tie_order,
                            score_precision=current_state.conventions.score_precision)
    items = tuple(Item(doc, scores[doc]) for doc in order[:MAX_ITEMS])
    if k is None:
        k = current_state.k if order else 10
    commit(QueryState(items, dict(judgments), min(max(int(k), 1), MAX_K), conventions, query=str(qid)[:200]))
    st.session_state[SAMPLE] = None
    st.session_state[BASELINE] = None
    cut = f" Only the top {MAX_ITEMS} of {len(order)} documents are shown." if len(order) > MAX_ITEMS else ""
    say("info", f"Opened query {qid!r}{source}: {len(order)} retrieved, {len(judgments)} judged.{cut}")


def view() -> View:
    """How the pages show things: the link's ``mode``/``show`` on the session's first run, then what the sidebar
    says. A link whose mode cannot be read opens the usual page with a message naming the parameter."""
    if VIEW not in st.session_state:
        try:
            st.session_state[VIEW] = decode_view(st.query_params.to_dict())
        except InputError as error:
            st.session_state[VIEW] = View()
            if not st.session_state.get(MESSAGE):  # a bad list in the same link has said its own
                st.session_state[MESSAGE] = ("error", f"The link's view could not be opened: {error}. Showing the "
                                                      "usual page.")
    return st.session_state[VIEW]


def set_view(new_view: View) -> None:
    st.session_state[VIEW] = new_view


def sync_view() -> None:
    """Keep ``mode`` and ``show`` in the address bar equal to the view, on a page whose link holds nothing else."""
    wanted = encode_view(view())
    for name in ("mode", "show"):
        if name in wanted:
            if st.query_params.get(name) != wanted[name]:
                st.query_params[name] = wanted[name]
        elif name in st.query_params:
            del st.query_params[name]


def say(kind: str, text: str) -> None:
    st.session_state[MESSAGE] = (kind, text)
    panels.changed()


def pop_message() -> tuple[str, str] | None:
    return st.session_state.pop(MESSAGE, None)


def show_message() -> None:
    """The last message (an edit refused, a sample loaded…), shown once."""
    message = pop_message()
    if message:
        kind, text = message
        # Messages quote ids, file names and typed values: shown literally.
        {"error": st.error, "info": st.info, "warning": st.warning}.get(kind, st.info)(literal(text))


def keep_values(keys) -> None:
    """Keep what the widgets ``keys`` hold through a run that does not draw them (a closed tab draws none of its
    widgets, and Streamlit forgets the value of a widget a run does not draw): writing each value back makes it
    the widget's value when it is drawn again, in Python and in the browser. Only for widgets not drawn in this run
    (a widget drawn after its value was written warns about a default value set twice), and never for buttons or
    file uploaders (Streamlit refuses a value set for those).

    Each value is written under its key alone, the key first unlinked from the widget: a value written while the
    key still names the widget is stored under the widget's id, and when the widget is drawn again Streamlit
    returns it to Python without telling the browser, which shows the widget's default (an empty "Reported
    value") and sends that back on the next run. A value stored under the key alone is what Streamlit restores on
    a widget's (re)mount and sends to the browser as the widget's value."""
    for key in keys:
        if key in st.session_state:
            value = st.session_state[key]
            del st.session_state[key]
            st.session_state[key] = value


def editor_key(name: str) -> str:
    """The key of a chart that takes clicks: new after every commit, so a selection left from the list before is
    dropped."""
    return f"{name}_{st.session_state.get(EDITOR_VERSION, 0)}"


#: Session key prefix of each data editor's generation (see ``grid_key``).
GRID_GENERATION = "grid_generation:"


def grid_key(name: str) -> str:
    """The key of data editor ``name``: new only after an edit made in it (``refresh_grid``), which drops the deltas
    it holds, so an edit is never applied twice. Any other change of its rows gives it a new identity anyway
    (Streamlit's identity of a dynamic editor includes its data), and an editor whose rows did not change keeps
    its grid in the browser instead of building it again."""
    return f"{name}_{st.session_state.get(GRID_GENERATION + name, 0)}"


def refresh_grid(name: str) -> None:
    st.session_state[GRID_GENERATION + name] = st.session_state.get(GRID_GENERATION + name, 0) + 1


def _link(state: QueryState) -> dict[str, str]:
    """Every parameter of the page's link: the query's and the view's (``mode=class``)."""
    return {**encode_url(state), **encode_view(view())}


def link_params(state: QueryState) -> dict[str, str] | None:
    """The link that reproduces ``state`` and the view, or None when it would be longer than a link may be
    (MAX_URL_CHARS)."""
    params = _link(state)
    return params if url_length(params) <= MAX_URL_CHARS else None


def link_note(state: QueryState) -> str | None:
    """What the page says when ``state`` is too long for a link (None when the address bar holds it)."""
    length = url_length(_link(state))
    if length <= MAX_URL_CHARS:
        return None
    return (f"This list is too long for a link ({length:,} characters; a link holds at most {MAX_URL_CHARS:,}), "
            "so the address bar does not keep it: download the query to share it.")


def sync_url(state: QueryState) -> None:
    """Keep the address bar equal to the state and the view (classroom mode), so a copied link reproduces the
    page; a state too long for a link gets none but the view's parameters (better no link than one that cannot be
    opened), and :func:`link_note` says so on the page. Each change of the link is an entry of the browser's
    history, which :func:`follow_url` walks back; a bare address (``/``) keeps showing the list it opened on
    until the first edit, so the first entry is the first edit's and Back from it shows the list as opened."""
    params = link_params(state) or encode_view(view())
    if (URL_WRITTEN not in st.session_state and st.session_state.get(OPENED_BARE) == state
            and not encode_view(view()) and not st.query_params.to_dict()):
        return
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)
    st.session_state[URL_WRITTEN] = params


def arrive(page: str) -> None:
    """Record that this whole run draws ``page`` (app.py calls it before each page runs)."""
    st.session_state[PREVIOUS_PAGE] = st.session_state.get(SHOWN_PAGE)
    st.session_state[SHOWN_PAGE] = page


def follow_url() -> None:
    """Back and Forward walk the edits: when the address bar holds other parameters than the page last wrote
    there (the browser went back or forward to an entry of an earlier state), the list, k, the conventions and
    the view become that entry's, as one more edit (Undo returns). An address without a list is the list the
    session opened on when it came from this page's own history (Back to ``/``), and keeps the list when the
    person came from another page (the sidebar's links hold no list); a link that cannot be read keeps the list
    and says why. Call it before the page reads the state."""
    written = st.session_state.get(URL_WRITTEN)
    params = st.query_params.to_dict()
    if written is None or params == written:
        return
    st.session_state[URL_WRITTEN] = params
    try:
        wanted, wanted_view = decode_url(params), decode_view(params)
    except InputError as error:
        say("error", f"The link could not be opened: {error}. The list stays as it was.")
        return
    from_here = st.session_state.get(PREVIOUS_PAGE) == st.session_state.get(SHOWN_PAGE)
    if wanted is None and from_here:
        wanted = st.session_state.get(OPENED_BARE)
    if wanted is not None and wanted != current():
        commit(wanted)
    if wanted is not None and wanted_view != view():
        set_view(wanted_view)
