"""Every table a page shows goes through :func:`table` (``st.dataframe``) or :func:`editor` (``st.data_editor``):
what the grid holds is what its toolbar's *Download as CSV* writes and what a copy of its cells pastes, so its
text cells are made inert first, by the rule of every CSV the project writes (:func:`metrics.io.csv_cells.safe_cell`).

Streamlit writes the grid's cells as they are, with no escaping, and the toolbar download cannot be turned off in
every Streamlit this project supports (``client.disableDataExport`` exists in recent releases only, and app-wide):
a qid ``=HYPERLINK("http://evil.example","x")`` would be a live formula in the spreadsheet that opens the file.
So a text cell, an index label or a column label starting like a formula (``=``, ``+``, ``-``, ``@``, a tab or a
carriage return, and not a number) is shown and downloaded with a leading ``'``, as the project's own CSV
downloads write it; every other cell, and every number, is shown as it is.

An editor's cells are made inert the same way: its callbacks read the edits Streamlit reports (the cells typed,
the rows added and deleted), never the grid's other cells, so an id keeps its own spelling in the list.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from metrics.io.csv_cells import safe_cell

#: The arguments of st.dataframe / st.data_editor that name columns: renamed with the labels they name.
_NAMING_COLUMNS = ("column_config", "column_order", "disabled")


def inert_text(value: object) -> object:
    """A text cell as a spreadsheet cannot run it (:func:`~metrics.io.csv_cells.safe_cell`); anything that is not
    text (numbers, missing values, booleans) is returned as it is."""
    return safe_cell(value) if isinstance(value, str) else value


def inert_frame(data: object) -> pd.DataFrame:
    """``data`` as a DataFrame whose text cells, index labels and column labels are inert (:func:`inert_text`);
    columns and index keep their dtypes. The frame given is not changed."""
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    frame = frame.copy(deep=False)
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        if _may_hold_text(column):
            frame.isetitem(position, _inert_values(column))
    if _may_hold_text(frame.index):
        frame.index = _inert_values(frame.index)
    if _may_hold_text(frame.columns):
        frame.columns = _inert_values(frame.columns)
    return frame


def table(data: object, **kwargs: Any):
    """``st.dataframe`` of ``data`` with inert cells (:func:`inert_frame`); every argument as st.dataframe takes it,
    a column named in ``column_config`` or ``column_order`` by its label as given."""
    return _shown(st.dataframe, data, kwargs)


def editor(data: object, **kwargs: Any):
    """``st.data_editor`` of ``data`` with inert cells (:func:`inert_frame`); the edits it reports are the cells as
    typed. Every argument as st.data_editor takes it (``column_config``, ``column_order``, ``disabled`` by the labels
    as given)."""
    return _shown(st.data_editor, data, kwargs)


def _shown(element: Callable[..., Any], data: object, kwargs: dict[str, Any]):
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    renamed = {label: inert_text(label) for label in frame.columns if inert_text(label) != label}
    if renamed:
        kwargs = {name: _renamed(value, renamed) if name in _NAMING_COLUMNS else value
                  for name, value in kwargs.items()}
    return element(inert_frame(frame), **kwargs)


def _renamed(value: object, renamed: Mapping[Hashable, object]) -> object:
    if isinstance(value, Mapping):
        return {renamed.get(name, name): config for name, config in value.items()}
    if isinstance(value, (list, tuple)):
        return [renamed.get(name, name) for name in value]
    return value  # disabled=True / False, column_order=None


def _may_hold_text(values: pd.Series | pd.Index) -> bool:
    return values.dtype == object or isinstance(values.dtype, pd.StringDtype)


def _inert_values(values: pd.Series | pd.Index) -> pd.Series | pd.Index:
    made = values.map(inert_text)
    return made.astype(values.dtype) if isinstance(values.dtype, pd.StringDtype) else made


__all__ = ["editor", "inert_frame", "inert_text", "table"]
