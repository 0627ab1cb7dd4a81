"""The "Evaluate a run" page's data: uploads (or the built-in collection), settings, and cached evaluation.

Parsed files are kept per session, keyed by the upload's id, so a rerun never parses a file twice; evaluation is
cached by (files, measures, conventions). A built-in collection never changes, so what is computed on it is shared
by every session (``st.cache_resource`` for the collection itself, ``st.cache_data`` keyed on its key for results,
each with a bound on its entries); an upload's results stay in its session.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import streamlit as st

from metrics import CONVENTION_INFO, Conventions, InputError, parse_measures, reading_note
from metrics.bulk import evaluate_tables
from metrics.check import find_conventions
from metrics.check.depth import finding_shortfalls
from metrics.check.variants import find_with_variants
from metrics.export import qrels_to_trec
from metrics.io.frames import qrels_from_mapping, run_from_mapping
from metrics.io.trec import QrelsTable, RunTable, load_bytes
from metrics.judging import merge_judgments_table
from metrics.real import DL20
from metrics.samples import load_samples, sample_to_trec
from ui.common import state
from ui.common.conventions import convention_meaning, convention_select, trec_eval_build_select, trec_eval_readout
from ui.common.numbers import number_box
from ui.common.text import literal
from ui.common.uploads import CAP_TEXT, uploaded_table, uploader

MAX_RUNS = 5
DEFAULT_MEASURES = ["P.10", "recall.100", "recip_rank", "map", "ndcg_cut.10", "success.1"]
SUGGESTED_MEASURES = DEFAULT_MEASURES + ["P.5", "ndcg_cut.20", "ndcg", "map_cut.10", "recip_rank_cut.10",
                                         "recall.1000", "Rprec", "bpref", "num_ret", "num_rel", "num_rel_ret"]


@dataclass(frozen=True, eq=False)
class Collection:
    """The qrels and the runs (by display name), each parsed once; ``key`` identifies the files for caching."""

    qrels: QrelsTable
    runs: dict[str, RunTable]
    key: tuple
    dicts: dict = field(default_factory=dict, compare=False)  # lazily built pytrec_eval-shaped dicts
    qrels_name: str = "qrels"  # the file name, for the captions of exported tables
    qrels_text: Callable[[], bytes] | None = None  # the qrels file as uploaded (for the merged download)
    original: Collection | None = None  # the collection before judgments were added on the page
    run_texts: dict[str, Callable[[], bytes]] = field(default_factory=dict, compare=False)  # runs as written (lint)
    note: str = ""  # what the collection is and where it comes from (the real collection's attribution)

    @property
    def built_in(self) -> bool:
        """Whether this is a built-in collection as shipped (judgments added on the page make it a user's own)."""
        return self.key in BUILT_IN_KEYS

    @property
    def qrels_key(self) -> object:
        """What identifies the qrels file (its upload, or the built-in collection)."""
        return self.key[0]

    def as_dicts(self, run_name: str) -> tuple[dict, dict]:
        if "qrels" not in self.dicts:
            self.dicts["qrels"] = self.qrels.to_dict()
        if run_name not in self.dicts:
            self.dicts[run_name] = self.runs[run_name].to_dict()
        return self.dicts["qrels"], self.dicts[run_name]


def _with_dicts(collection: Collection) -> Collection:
    """``collection`` with its pytrec_eval-shaped dicts built now: a collection shared by every session is never
    changed after it is made (each session only reads it)."""
    for name in collection.runs:
        collection.as_dicts(name)
    return collection


@st.cache_resource(show_spinner=False, max_entries=1)
def _built_in() -> Collection:
    """Every sample as one query of a small collection, with two runs: the samples as ranked, and an oracle
    reranking of the same documents (grade first), to try the comparison and the finder. Built straight into the
    data model's tables (no file in between), once per process."""
    qrels: dict[str, dict[str, int]] = {}
    ranked: dict[str, dict[str, float]] = {}
    oracle: dict[str, dict[str, float]] = {}
    for sample in load_samples():
        sample_qrels, sample_run = sample_to_trec(sample)
        for qid, docs in sample_qrels.items():
            qrels[qid] = docs
        for qid, scores in sample_run.items():
            ranked[qid] = dict(scores)
            by_grade = sorted(scores, key=lambda doc: (-sample_qrels[qid].get(doc, -1), -scores[doc]))
            oracle[qid] = {doc: float(len(by_grade) - rank) for rank, doc in enumerate(by_grade)}
    return _with_dicts(Collection(
        qrels_from_mapping(qrels, name="samples.qrels"),
        {"samples": run_from_mapping(ranked, name="samples.run"),
         "oracle rerank": run_from_mapping(oracle, name="oracle.run")},
        key=SAMPLES_KEY,
        qrels_name="the built-in samples' qrels",
        qrels_text=lambda: qrels_to_trec(qrels).encode(),
    ))


SAMPLES_KEY = ("built-in",)
DL20_KEY = ("dl20",)
#: The keys of the built-in collections, whose results every session shares.
BUILT_IN_KEYS = (SAMPLES_KEY, DL20_KEY)
#: How many result sets of the built-in collections each shared cache keeps (measures and conventions vary).
SHARED_ENTRIES = 16


@st.cache_resource(show_spinner=False, max_entries=1)
def _dl20() -> Collection:
    """TREC DL 2020 passage, shipped with the package: real judgments and five real top-100 runs, once per
    process."""
    return _with_dicts(Collection(
        DL20.qrels(), {name: DL20.run(name) for name in DL20.run_names}, key=DL20_KEY,
        qrels_name="TREC DL 2020 passage qrels",
        qrels_text=lambda: bytes(load_bytes(DL20.path(), kind="qrels")[1]),
        run_texts={name: (lambda name=name: DL20.path(name).read_bytes()) for name in DL20.run_names},
        note=f"{DL20.description} {DL20.attribution}",
    ))


def _dl20_switched() -> None:
    """Switching TREC DL 2020 on sets its relevance threshold (-l 2), which stays shown and changeable."""
    if st.session_state.get("runs_use_dl20"):
        st.session_state["runs_level"] = DL20.conventions.relevance_level
        st.session_state["runs_use_samples"] = False


def _samples_switched() -> None:
    """One built-in collection at a time: the samples switch TREC DL 2020 off."""
    if st.session_state.get("runs_use_samples"):
        st.session_state["runs_use_dl20"] = False


def inputs() -> Collection | None:
    with st.container(border=True):
        left, right = st.columns(2)
        qrels_upload = uploader("qrels (TREC, plain or .gz)", key="runs_qrels", container=left)
        run_uploads = uploader("runs (TREC, plain or .gz; up to 5)", key="runs_runs", container=right,
                               accept_multiple_files=True)
        st.caption(f"Each file {CAP_TEXT}. Larger files are refused: evaluate those with the command line, "
                   "`python -m metrics`.")
        use_samples = st.toggle("Use the built-in sample collection instead", key="runs_use_samples",
                                on_change=_samples_switched,
                                help="The explorer's samples as one small collection, with two runs to compare.")
        use_dl20 = st.toggle("Use TREC DL 2020 passage instead (real judgments, five real runs)", key="runs_use_dl20",
                             on_change=_dl20_switched, help=DL20.description)
    if use_dl20:
        collection = _dl20()
        st.caption(literal(collection.note))
        return collection
    if use_samples:
        return _built_in()
    if qrels_upload is None or not run_uploads:
        st.info("Upload qrels and at least one run, or switch on the built-in sample collection.")
        return None
    try:
        qrels = uploaded_table("qrels", qrels_upload)
        runs: dict[str, RunTable] = {}
        for upload in run_uploads[:MAX_RUNS]:
            table = uploaded_table("run", upload)
            name = upload.name if upload.name not in runs else f"{upload.name} ({len(runs) + 1})"
            runs[name] = table
    except InputError as error:
        st.error(literal(error))
        return None
    if len(run_uploads) > MAX_RUNS:
        st.warning(f"Only the first {MAX_RUNS} runs are evaluated.")
    key = tuple((upload.file_id, upload.size) for upload in (qrels_upload, *run_uploads[:MAX_RUNS]))
    texts = {name: upload.getvalue for name, upload in zip(runs, run_uploads[:MAX_RUNS])}
    return Collection(qrels, runs, key, qrels_name=qrels_upload.name, qrels_text=qrels_upload.getvalue,
                      run_texts=texts)


def settings(collection: Collection | None = None) -> tuple[list[str], Conventions]:
    """Measures and conventions for whole runs, in the sidebar (here depth and missing queries matter too)."""
    with st.sidebar:
        st.subheader("Measures")
        chosen = st.multiselect("Measures", SUGGESTED_MEASURES, default=DEFAULT_MEASURES, key="runs_measures",
                                accept_new_options=True, label_visibility="collapsed",
                                help="Pick or type any measure: trec_eval (ndcg_cut.10) or ir_measures (nDCG@10).")
        measures = []
        for spec in chosen:
            try:
                parse_measures(spec)
                measures.append(spec)
            except ValueError as error:
                st.error(literal(error))
                continue
            if note := reading_note(spec):  # a name from another tool: say how it was read
                st.caption(literal(note))
        st.subheader("Conventions")
        st.session_state.setdefault("runs_level", 1)
        level = number_box("Relevance threshold", key="runs_level", min_value=0, max_value=1000,
                           name="the relevance threshold", step=1)
        if collection is not None and collection.key[:1] == DL20_KEY:
            st.caption(DL20.convention_note)
        depth = number_box("Depth (-M, 0 = all)", key="runs_depth", min_value=0, max_value=100_000,
                           name="the depth", value=0, step=100)
        changes = other_conventions()
        conventions = Conventions(relevance_level=int(level), depth=int(depth) or None, **changes)  # type: ignore[arg-type]
        st.caption(trec_eval_readout(conventions))
    return measures or DEFAULT_MEASURES, conventions


#: The sidebar's expander of the conventions beyond the threshold and depth (the session key of whether it is open),
#: its label, and the session keys of its boxes.
CONVENTIONS_OPEN = "runs_conventions_open"
CONVENTIONS_LABEL = "Gain, ties, unjudged documents and other conventions"
TREC_EVAL_KEY = "runs_trec_eval"
CONVENTION_KEY = "runs_convention_{}"


def other_conventions() -> dict[str, object]:
    """The trec_eval build and one select box per convention, drawn only while their expander is open: a closed
    panel's 15 select boxes and their captions were sent again on every change of the page (a relevance
    threshold change reruns it all). Closed, each convention is what its box last held (a button may set one,
    as "count them as 0" sets missing_queries), else its first choice, trec_eval's (what the box shows first),
    and a caption under it names those that differ from trec_eval's, so a closed panel never hides one."""
    panel = st.expander(CONVENTIONS_LABEL, key=CONVENTIONS_OPEN, on_change="rerun")
    keys = [CONVENTION_KEY.format(info.name) for info in CONVENTION_INFO]
    if not panel.open:
        state.keep_values((TREC_EVAL_KEY, *keys))
        held = {info.name: st.session_state.get(key, info.choices[0].value)
                for info, key in zip(CONVENTION_INFO, keys)}
        changed = Conventions(**held).differences()  # type: ignore[arg-type]
        if changed:
            st.caption(literal("Changed: " + ", ".join(f"{name}={value}" for name, value in changed.items())))
        return held
    changes: dict[str, object] = {}
    with panel:
        trec_eval_build_select(TREC_EVAL_KEY, CONVENTION_KEY)
        for info, key in zip(CONVENTION_INFO, keys):
            changes[info.name] = st.selectbox(key=key, **convention_select(info))
            convention_meaning(info, changes[info.name])
    return changes


def explorer_k(measures: list[str], chosen_key: str | None = None) -> int:
    """The k a query opens with in the explorer: the cut-off of the measure the user is looking at (``chosen_key``,
    e.g. ``"ndcg_cut_10"``), else the cut-off most of the measures share (the first on a tie), else 10."""
    parsed = [measure for spec in measures for measure in parse_measures(spec)]
    for measure in parsed:
        if measure.key == chosen_key and measure.cutoff is not None:
            return measure.cutoff
    cutoffs = [measure.cutoff for measure in parsed if measure.cutoff is not None]
    return max(cutoffs, key=cutoffs.count) if cutoffs else 10


def evaluate_all(collection: Collection, measures: list[str], conventions: Conventions) -> dict:
    """{run name: (qids, {measure key: per-query array}, {measure key: mean})}, cached for the session (an upload)
    or for every session (a built-in collection)."""
    if collection.built_in:
        return _evaluate_shared(collection, tuple(measures), conventions)
    cache = st.session_state.setdefault("run_results", {})
    key = (collection.key, tuple(measures), conventions)
    if key not in cache:
        with st.spinner("Evaluating…"):
            cache.clear()  # keep one result set: whole runs are large
            cache[key] = _evaluate(collection, measures, conventions)
    return cache[key]


def _evaluate(collection: Collection, measures: Sequence[str], conventions: Conventions) -> dict:
    return {name: evaluate_tables(collection.qrels, run, list(measures), conventions)
            for name, run in collection.runs.items()}


#: How the shared caches key what they are given: a collection by its files, conventions by every field.
SHARED_HASH = {Collection: lambda collection: collection.key, Conventions: repr}


@st.cache_data(show_spinner="Evaluating…", max_entries=SHARED_ENTRIES, hash_funcs=SHARED_HASH)
def _evaluate_shared(collection: Collection, measures: tuple[str, ...], conventions: Conventions) -> dict:
    return _evaluate(collection, measures, conventions)


def coverage_notes(collection: Collection, results: dict) -> None:
    """Say exactly which queries were left out, and why."""
    judged = set(collection.qrels.qids)
    for name, run in collection.runs.items():
        in_run = set(run.qids)
        unjudged = sorted(in_run - judged)
        missing = sorted(judged - in_run)
        evaluated = len(results[name][0])
        notes = [f"**{literal(name)}**: {evaluated} queries evaluated."]
        if unjudged:
            notes.append(f"{len(unjudged)} run queries have no judgments and were skipped "
                         f"({literal(_few(unjudged))}).")
        if missing:
            notes.append(f"{len(missing)} judged queries are not in the run ({literal(_few(missing))}): "
                         "skipped, or scored 0 with the convention 'missing queries: zero' (trec_eval -c).")
        st.caption(" ".join(notes))


def _few(qids: list[str]) -> str:
    return ", ".join(qids[:8]) + ("…" if len(qids) > 8 else "")


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=SHARED_HASH)
def _find_cached(collection: Collection, run_name: str, measure: str, value: str, depth: int | None):
    qrels, run = collection.as_dicts(run_name)
    return find_conventions(qrels, run, measure, value, base=Conventions(depth=depth))


def find(collection: Collection, run_name: str, measure: str, value: str, depth: int | None):
    return _find_cached(collection, run_name, measure.strip(), value.strip(), depth)


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=SHARED_HASH)
def _shortfalls_cached(collection: Collection, run_name: str, measure: str, value: str, depth: int | None):
    qrels, run = collection.as_dicts(run_name)
    finding = _find_cached(collection, run_name, measure, value, depth)
    return finding_shortfalls(qrels, run, finding, Conventions(depth=depth))


def shortfalls(collection: Collection, run_name: str, measure: str, value: str, depth: int | None):
    """How the run falls short of the measure's depth (:func:`metrics.check.depth.finding_shortfalls`)."""
    return _shortfalls_cached(collection, run_name, measure.strip(), value.strip(), depth)


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=SHARED_HASH)
def _variants_cached(collection: Collection, run_name: str, measure: str, value: str, depth: int | None,
                     subset: tuple[str, ...] | None):
    qrels, run = collection.as_dicts(run_name)
    return find_with_variants(qrels, run, measure, value, base=Conventions(depth=depth), subset=subset)[1:]


def variants(collection: Collection, run_name: str, measure: str, value: str, depth: int | None,
             subset: tuple[str, ...] | None):
    """The variants papers use besides conventions that reproduce the value
    (:func:`metrics.check.variants.find_with_variants`, without the plain finding)."""
    return _variants_cached(collection, run_name, measure.strip(), value.strip(), depth, subset)


# ---- judgments added on the page ("Judge the holes") ------------------------------------------------------------

ADDED = "added_judgments"


def added_judgments(collection: Collection) -> dict[tuple[str, str], int]:
    """``{(qid, doc): grade}`` added on this page for this qrels file (kept across reruns); another qrels file
    starts empty, and the judgments added for the previous one are dropped."""
    kept = st.session_state.get(ADDED)
    if kept is None or kept["qrels"] != collection.qrels_key:
        kept = st.session_state[ADDED] = {"qrels": collection.qrels_key, "grades": {}}
    return kept["grades"]


def with_added_judgments(collection: Collection) -> Collection:
    """The collection whose qrels hold the added judgments too (``original`` keeps the uploaded one); every number
    of the page is computed on it."""
    grades = added_judgments(collection)
    if not grades:
        return collection
    key = collection.key + (("added", tuple(sorted(grades.items()))),)
    cached = st.session_state.get("added_collection")
    if cached is None or cached.key != key:
        cached = st.session_state["added_collection"] = Collection(
            merge_judgments_table(collection.qrels, grades), collection.runs, key,
            qrels_name=f"{collection.qrels_name} with {len(grades)} added judgment{'s' if len(grades) != 1 else ''}",
            qrels_text=collection.qrels_text, original=collection, run_texts=collection.run_texts,
            note=collection.note)
    return cached
