"""The server's garbage collection after each script run, kept cheap.

Streamlit runs a full collection (``gc.collect(2)``) after every script run (``runner.postScriptGC``), to give back
the memory of reference cycles a run left. A full collection walks every object the collector tracks, and the app's
libraries (numpy, pandas, pyarrow, plotly, matplotlib, faiss, scipy) leave about 215,000 of them at import: about
100 ms of CPU after every click, most of an explorer interaction's time on the server. Those objects live as long
as the process, so once a page has imported what it needs they are moved out of the collector's sight
(``gc.freeze``): the collection after each run then walks only the objects made since, and still frees their cycles.
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
