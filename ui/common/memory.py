"""The server's garbage collection, kept cheap.

A full collection (``gc.collect(2)``) walks every object the collector tracks, and the app's libraries (numpy,
pandas, pyarrow, plotly, matplotlib, faiss, scipy) leave about 215,000 of them at import. Those objects live as long
as the process, so once a page has imported what it needs they are moved out of the collector's sight
(``gc.freeze``): a full collection then walks only the objects made since, and still frees their cycles.

Streamlit runs such a collection after every script run by default (``runner.postScriptGC``); with the imports
frozen it cost about 8 ms with one session, but every open session adds about 550 tracked objects (Streamlit's
bookkeeping of its fragments and widgets), so with 40 sessions it cost 20-45 ms after every run of every session.
.streamlit/config.toml turns it off: Python's generational collection frees cycles as objects are made, and runs a
full collection only when the objects that survived grow by a quarter, which the frozen imports keep cheap too.
"""

from __future__ import annotations

import gc
import sys
import threading

_lock = threading.Lock()
#: How many modules the process had imported at the last freeze (the process's, shared by every session on purpose:
#: what it counts is the interpreter's, not a user's).
_modules_at_freeze = [0]


def freeze_imports() -> None:
    """After a script run: when modules were imported since the last call, collect once, then freeze every object
    that survives (the modules' objects, and the few the sessions hold right now, which stay freed by their
    reference counts). Cheap when nothing was imported; called by the router after each page."""
    if len(sys.modules) == _modules_at_freeze[0]:
        return
    with _lock:
        if len(sys.modules) == _modules_at_freeze[0]:
            return
        gc.collect()
        gc.freeze()
        _modules_at_freeze[0] = len(sys.modules)
