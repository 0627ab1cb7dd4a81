"""The run page's preflight lint (metrics.check.lint): for each run, every check of what can silently move a score,
with its count, the queries concerned and the engine's means with and without the quirk. Laid out as the command
line's ``--lint`` prints it, findings first, each a block that wraps to the panel's width; the checks that found
nothing are folded. Computed only while its expander is open, once per files, measures and conventions: for an
upload once per session, for a built-in collection once per process (every session shares it)."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from metrics import InputError
from metrics.check.lint import RunLines, RunLint, lint_runs, read_run_lines
from metrics.conventions import Conventions
from ui.common.text import literal

from . import data

EXPANDER = "runs_lint_open"
#: Key prefix of a finding's block: ``runs_lint_found_<run's position>_<check name>``.
FINDING = "runs_lint_found"


def lint_panel(collection: data.Collection, measures: list[str], conventions: Conventions) -> None:
    panel = st.expander("Preflight lint: what can silently move these scores", key=EXPANDER, on_change="rerun")
    if not panel.open:
        return
    with panel:
        st.caption("Each check per run, with what it found and the mean of each measure with and without the quirk "
                   "(computed, not guessed). Runs are read line by line as written.")
        try:
            with st.spinner("Linting the runs…"):
                lints = _lints(collection, measures, conventions)
        except InputError as error:
            st.error(literal(error))
            return
        for position, lint in enumerate(lints):
            run_report(lint, key=f"{FINDING}_{position}")


def run_report(lint: RunLint, key: str) -> None:
    """One run's lint: each finding as a block (its title, count and queries, what it means, and the means with
    and without the quirk, one measure a line), then the checks that found nothing under one fold."""
    st.markdown(f"**{literal(lint.run)}**: {len(lint.found)} of {len(lint.checks)} checks found something.")
    for check in lint.found:
        with st.container(border=True, key=f"{key}_{check.name}"):
            where = f" in {check.queries_text()}" if check.queries else ""
            st.markdown(f"**{literal(check.title)}**: {literal(check.count_text() + where)}")
            st.markdown(literal(check.note))
            if check.effects:
                st.markdown("\n".join(f"- {literal(effect.text())}" for effect in check.effects))
    clean = [check for check in lint.checks if not check.found]
    if clean:
        with st.expander(f"{len(clean)} {'check' if len(clean) == 1 else 'checks'} found nothing"):
            st.markdown("\n".join(f"- {literal(check.title)}: {literal(check.count_text())}" for check in clean))


def _lints(collection: data.Collection, measures: list[str], conventions: Conventions) -> list[RunLint]:
    if collection.built_in:
        return _lints_shared(collection, tuple(measures), conventions)
    kept = st.session_state.get("runs_lint_result")
    key = (collection.key, tuple(measures), conventions)
    if kept is None or kept[0] != key:
        kept = (key, _lint(collection, measures, conventions))
        st.session_state["runs_lint_result"] = kept
    return kept[1]


def _lint(collection: data.Collection, measures: Sequence[str], conventions: Conventions) -> list[RunLint]:
    qrels = collection.as_dicts(next(iter(collection.runs)))[0]
    return lint_runs(qrels, [_run_lines(collection, name) for name in collection.runs], measures, conventions)


def _run_lines(collection: data.Collection, name: str) -> RunLines:
    """Run ``name`` as written (a built-in collection's read once per process); the samples have no file."""
    if collection.built_in:
        return _run_lines_shared(collection, name)
    return _read_lines(collection, name)


def _read_lines(collection: data.Collection, name: str) -> RunLines:
    text = collection.run_texts.get(name)
    return (read_run_lines(text(), name=name) if text is not None
            else RunLines.from_mapping(name, collection.as_dicts(name)[1]))


@st.cache_data(show_spinner=False, max_entries=data.SHARED_ENTRIES, hash_funcs=data.SHARED_HASH)
def _lints_shared(collection: data.Collection, measures: tuple[str, ...], conventions: Conventions) -> list[RunLint]:
    return _lint(collection, measures, conventions)


@st.cache_resource(show_spinner=False, max_entries=2 * data.MAX_RUNS, hash_funcs=data.SHARED_HASH)
def _run_lines_shared(collection: data.Collection, name: str) -> RunLines:
    return _read_lines(collection, name)
