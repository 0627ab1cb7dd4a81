"""Query and document ids: the one rule every boundary applies (TREC and JSON readers, the API, the URL codec).

The rule:

* An id is a non-empty ``str`` with no control character: no line break (LF, CR), tab, NUL or any other ASCII
  control character (U+0000 to U+001F). Such an id would split or inject lines in a TREC file, a
  download or a printed table, so it is refused everywhere with an :class:`~metrics.InputError` naming the id.
* Spaces are legal in ids given as Python dicts, JSON or URL values (pytrec_eval accepts them, and the sample
  query is called "sweet pastry"), but a TREC file cannot hold them: its columns are separated by whitespace.
  A TREC reader never produces one (it splits there). A TREC writer maps each space to ``_`` with
  :func:`trec_ids` (which refuses a mapping that would merge two ids) and says so, e.g. with
  :func:`describe_renamed`.
* Everything else is kept verbatim, including non-ASCII spaces (NBSP) and zero-width characters: trec_eval
  compares ids as bytes, and so do we.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping

from .model import InputError, short_repr

#: Characters no id may hold: the ASCII control characters, which include LF, CR, tab and NUL. (DEL is kept: it
#: splits no line, and trec_eval orders it like any other byte.)
_CONTROL = re.compile(r"[\x00-\x1f]")
_NAMES = {"\n": "a line break (LF)", "\r": "a carriage return (CR)", "\t": "a tab", "\x00": "a NUL character"}
#: What a TREC writer puts in place of a space.
TREC_SPACE_REPLACEMENT = "_"


def check_id(value: object, what: str = "id", *, where: str = "") -> str:
    """``value`` if it is a legal id, else an InputError naming ``where``, ``what`` and the fix.

    >>> check_id("sweet pastry", "query id")
    'sweet pastry'
    >>> check_id("d1\\nq9 0 x", "document id", where="run.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    metrics.model.InputError: run.json: document id 'd1\\nq9 0 x' contains a line break (LF) at character 3; ids ...
    """
    prefix = f"{where}: " if where else ""
    if not isinstance(value, str):
        raise InputError(f"{prefix}{what} has to be text (a str), got {type(value).__name__} {short_repr(value)}")
    if not value:
        raise InputError(f"{prefix}{what} is empty; give every query and document a non-empty id")
    bad = _CONTROL.search(value)
    if bad:
        raise InputError(f"{prefix}{what} {short_repr(value)} contains {_describe(bad.group())} at character "
                         f"{bad.start() + 1}; ids have to be one line without control characters")
    return value


def check_ids(values: Iterable[object], what: str = "id", *, where: str = "") -> None:
    """:func:`check_id` for many ids at C speed: one scan of their concatenation, then the first bad one named."""
    values = values if isinstance(values, Collection) else list(values)  # a dict's keys are checked in place
    try:
        joined = " ".join(values)  # type: ignore[arg-type]
    except TypeError:
        joined = None
    # Printable ASCII (the usual case) holds no control character; the regex is for the rest.
    clean = joined is not None and ((joined.isascii() and joined.isprintable()) or not _CONTROL.search(joined))
    if not clean or "" in values:
        for value in values:
            check_id(value, what, where=where)


def check_nested_ids(mapping: Mapping[object, Mapping[object, object]], *, where: str = "",
                     outer: str = "query id", inner: str = "document id") -> None:
    """Check the ids of a ``{qid: {doc: value}}`` mapping (qrels or a run); the inner mappings must be mappings."""
    check_ids(mapping, outer, where=where)
    for qid, docs in mapping.items():
        if isinstance(docs, Mapping):
            check_ids(docs, inner, where=f"{where}, query {qid!r}" if where else f"query {qid!r}")


def is_trec_safe(value: str) -> bool:
    """Whether ``value`` can be written as one column of a TREC file as it is (no space, no control character)."""
    return bool(value) and not _has_space(value) and not _CONTROL.search(value)


def to_trec_id(value: str) -> str:
    """The id as a TREC file can hold it: every space becomes ``_`` ("sweet pastry" -> "sweet_pastry"). That
    includes the Unicode spaces (NBSP, U+3000, U+2028...): trec_eval keeps them inside a column, but pytrec_eval's
    parse_qrel/parse_run split on them (str.split), so a file with one would not read back there.

    The id must already be legal (:func:`check_id`); control characters are not mapped, they are refused.
    """
    check_id(value)
    return "".join(TREC_SPACE_REPLACEMENT if ch.isspace() else ch for ch in value) if _has_space(value) else value


def _has_space(value: str) -> bool:
    return " " in value or (not value.isascii() and any(ch.isspace() for ch in value))


def trec_ids(values: Iterable[str], what: str = "id") -> dict[str, str]:
    """``{id: TREC id}`` of the ids that need renaming for a TREC file (empty when none does).

    Raises InputError when a renamed id would equal another id of ``values`` (``"a b"`` next to ``"a_b"``),
    since the file would then merge two queries or documents.
    """
    values = list(dict.fromkeys(values))
    renamed = {value: to_trec_id(value) for value in values if _has_space(value)}
    if renamed:
        taken = {value: value for value in values if value not in renamed}
        for old, new in renamed.items():
            if new in taken:
                raise InputError(
                    f"{what} {old!r} cannot be written to a TREC file: spaces become '_' there, and "
                    f"{taken[new]!r} is another {what}; rename one of them")
            taken[new] = old
    return renamed


def describe_renamed(renamed: Mapping[str, str], what: str = "id") -> str:
    """One sentence for the user about :func:`trec_ids`' renaming, '' when nothing was renamed.

    >>> describe_renamed({"sweet pastry": "sweet_pastry"}, "query id")
    "TREC files cannot hold spaces in ids, so query id 'sweet pastry' is written as 'sweet_pastry'."
    """
    if not renamed:
        return ""
    if len(renamed) == 1:
        (old, new), = renamed.items()
        return f"TREC files cannot hold spaces in ids, so {what} {old!r} is written as {new!r}."
    pairs = [f"{old!r} as {new!r}" for old, new in list(renamed.items())[:3]]
    more = f" and {len(renamed) - 3} more" if len(renamed) > 3 else ""
    return (f"TREC files cannot hold spaces in ids, so {len(renamed)} {what}s are written with '_' for each space: "
            f"{', '.join(pairs)}{more}.")


def _describe(char: str) -> str:
    return _NAMES.get(char, f"the control character U+{ord(char):04X}")


__all__ = ["TREC_SPACE_REPLACEMENT", "check_id", "check_ids", "check_nested_ids", "describe_renamed",
           "is_trec_safe", "to_trec_id", "trec_ids"]
