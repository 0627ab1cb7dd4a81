"""The last line of defence: an unexpected error becomes a short message, never a traceback, and the state stays."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

import streamlit as st

from metrics import InputError

from .text import literal

log = logging.getLogger("ir_metrics_explorer")


def guarded(page: Callable[[], None]) -> Callable[[], None]:
    @functools.wraps(page)
    def run() -> None:
        try:
            page()
        except InputError as error:
            st.error(literal(error))  # the message quotes ids and file names
        except Exception:  # noqa: BLE001 - shown as a message, logged with its traceback for us
            log.exception("page %s failed", page.__qualname__)
            st.error(
                "Something went wrong while drawing this page. Your list is unchanged; "
                "undo the last change or reload the page. (The details are in the server log.)"
            )

    return run
