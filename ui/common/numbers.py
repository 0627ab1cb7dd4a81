"""Number boxes that say why they refuse a value, beside the box.

Streamlit's ``st.number_input`` checks ``min_value`` and ``max_value`` in the browser: a value outside them turns the
box red and is never sent, so the page cannot say anything and the cards stay as they were. Every bounded number
box of the app goes through :func:`number_box` instead: the browser sends whatever is typed, the box refuses what is
outside its range here, shows its last good value again, and the page says why right under it, in the words the
link route uses (``k has to be a whole number from 1 to 10000, got 1000000``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import streamlit as st

#: Session key suffixes: the value a box showed when last drawn (its last good value), and its refusal.
_GOOD = ":shown"
_REFUSED = ":refused"


def range_message(name: str, low: float, high: float, got: object, *, whole: bool = True) -> str:
    """``k has to be a whole number from 1 to 10000, got 1000000``: the one sentence of a value out of range."""
    kind = "a whole number" if whole else "a number"
    return f"{name} has to be {kind} from {_plain(low)} to {_plain(high)}, got {_plain(got)}"


def _plain(number: object) -> str:
    if isinstance(number, float) and number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return str(number)


def refused(value: object, low: float, high: float, whole: bool) -> bool:
    """Whether a box bounded by ``low`` and ``high`` refuses ``value`` (None, an empty box, is never refused)."""
    if value is None:
        return False
    number = float(value)  # type: ignore[arg-type]
    return not math.isfinite(number) or not low <= number <= high or (whole and not number.is_integer())


def number_box(label: str, *, key: str, min_value: float, max_value: float, name: str | None = None,
               on_change: Callable[..., None] | None = None, args: tuple = (), kwargs: dict | None = None,
               target: Any = None, **widget: Any) -> Any:
    """``target.number_input(label, ...)`` (``target``: ``st`` or a column or container) bounded by ``min_value``
    and ``max_value`` here rather than in the browser: a value outside them (or not whole, for a whole box) is
    refused before ``on_change`` would run, the box shows its last good value again, and
    :func:`range_message` about ``name`` (the label by default) is shown right under it. Returns the box's value,
    always within bounds."""
    target = st if target is None else target
    whole = isinstance(min_value, int) and isinstance(max_value, int)
    subject = name or label

    def check() -> None:
        value = st.session_state[key]
        if refused(value, min_value, max_value, whole):
            st.session_state[key + _REFUSED] = range_message(subject, min_value, max_value, value, whole=whole)
            st.session_state[key] = st.session_state.get(key + _GOOD, widget.get("value", min_value))
            return
        st.session_state.pop(key + _REFUSED, None)
        if on_change is not None:
            on_change(*args, **(kwargs or {}))

    if key in st.session_state:  # its value lives in the session: a default beside it would warn
        widget.pop("value", None)
    value = target.number_input(label, key=key, on_change=check, **widget)
    if refused(value, min_value, max_value, whole):  # a value set from outside (a stale session key): clamp it
        value = min(max(value, min_value), max_value)
    st.session_state[key + _GOOD] = value
    message = st.session_state.pop(key + _REFUSED, None)  # said once, in the run after the refusal
    if message:
        target.error(message)
    return value
