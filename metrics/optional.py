"""Optional dependencies, imported where they are used and only through :func:`require`.

The engine installs with numpy and pyarrow alone; scipy, faiss, scikit-learn, Dask, pytrec_eval and pandas come
with the extras of pyproject.toml. A missing one is one line naming what needs it and the extra to install, never
a traceback: :class:`MissingDependency` is an :class:`~metrics.InputError` (the command lines print it as their one
error line) and an ImportError (code that probes for a package keeps working).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .model import InputError

#: For each optional package: the extra of pyproject.toml that installs it, its name in the message, and what the
#: extra brings when that is more than the package.
EXTRAS = {
    "scipy": ("stats", "scipy", ""),
    "faiss": ("ann", "faiss", " (faiss-cpu)"),
    "sklearn": ("ann", "scikit-learn", ""),
    "dask": ("dask", "Dask", " (dask[dataframe] and distributed)"),
    "distributed": ("dask", "Dask", " (dask[dataframe] and distributed)"),
    "pytrec_eval": ("reference", "pytrec_eval", " (pytrec_eval-terrier)"),
    "pandas": ("app", "pandas", ""),
}


class MissingDependency(InputError, ImportError):
    """An optional package is not installed; the message names the extra that installs it."""


def require(module: str, *, needed_by: str) -> ModuleType:
    """``module`` imported (e.g. ``"scipy.stats"``), or :class:`MissingDependency` naming ``needed_by`` and the
    extra to install: ``metrics.compare needs scipy: pip install ".[stats]"``."""
    top = module.split(".")[0]
    if top not in EXTRAS:
        raise KeyError(f"{top!r} is not an optional dependency; optional: {', '.join(EXTRAS)}")
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name is None or error.name.split(".")[0] not in EXTRAS:
            raise  # the package is there but one of its own imports failed: its traceback says why
        # The package, or an optional package it needs (dask.dataframe needs pandas): the extra installs both.
        extra, package, brings = EXTRAS[top]
        raise MissingDependency(f'{needed_by} needs {package}: pip install ".[{extra}]"{brings}') from None


__all__ = ["EXTRAS", "MissingDependency", "require"]
