"""What papers vary besides conventions: the data and the measure's name.

Each variant changes the qrels, the run or the measure before the convention finder runs on it:

- ``identical ids removed``: a document whose id equals its query's id is dropped from the run (BEIR's
  ``ignore_identical_ids``, on by default in BEIR's evaluation);
- ``queries without a relevant document dropped``: the mean counts only queries with a judgment >= 1
  (sentence-transformers' InformationRetrievalEvaluator skips the others);
- ``cut-off k-1`` and ``cut-off k+1``: the neighbouring cut-offs (an off-by-one in rank < k against rank <= k);
- ``uncut`` / ``cut at k``: AP for AP@k and the reverse, nDCG for nDCG@k, RR for RR@k;
- ``query subset``: the mean over a given list of query ids only.

The plain finding (no variant) always comes first; a variant is reported only when it matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from ..conventions import Conventions
from ..measures import MEASURES
from ..model import InputError, Qrels, Run
from ..names import NDEVAL_DEPTH, Measure, parse_one_measure
from .finder import Finding, find_conventions


@dataclass(frozen=True)
class Variant:
    """One way the reported number may have been made: a label and the finder's answer under it."""

    label: str
    finding: Finding


def find_with_variants(qrels: Qrels, run: Run, measure: str | Measure, value, *, base: Conventions | None = None,
                       subset: Iterable[str] | None = None, cutoff: int | None = None) -> list[Variant]:
    """The plain finding, then every variant whose finding matches the reported value.

    ``cutoff`` is the k to try for an uncut measure (AP reported, AP@k computed); ``subset``, query ids to keep.
    """
    parsed = parse_one_measure(measure)
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1):
        raise InputError(f"the cut-off to try (--cutoff) has to be a positive integer, got {cutoff!r}")
    plain = Variant("as given", find_conventions(qrels, run, parsed, value, base=base))
    found = [plain]
    for label, variant_qrels, variant_run, variant_measure in _variants(qrels, run, parsed, subset, cutoff):
        if not variant_qrels or not any(qid in variant_qrels for qid in variant_run):
            continue
        finding = find_conventions(variant_qrels, variant_run, variant_measure, value, base=base)
        if finding.matches:
            found.append(Variant(label, finding))
    return found


def _variants(qrels: Qrels, run: Run, measure: Measure, subset, cutoff):
    if any(doc == qid for qid, docs in run.items() for doc in docs):
        yield ("identical ids removed (BEIR's ignore_identical_ids)", qrels,
               {qid: {doc: score for doc, score in docs.items() if doc != qid} for qid, docs in run.items()}, measure)
    # A subtopic judgment ({subtopic: grade}) is relevant when some subtopic is, as the other measures read it.
    with_relevant = {qid: judgments for qid, judgments in qrels.items()
                     if any((max(g.values()) if isinstance(g, Mapping) else g) >= 1 for g in judgments.values())}
    if len(with_relevant) < len(qrels):
        yield ("queries without a relevant document dropped (sentence-transformers)", with_relevant, run, measure)
    if measure.cutoff is not None and MEASURES[measure.name].cutoff != "none":
        for k in (measure.cutoff - 1, measure.cutoff + 1):
            if k >= 1 and (measure.info.cutoff_mark != "@" or k <= NDEVAL_DEPTH):  # ndeval's measures stop at 20
                yield (f"cut-off {k} instead of {measure.cutoff}", qrels, run, replace(measure, cutoff=k))
        uncut = measure.info.uncut_form
        if uncut is not None:
            yield (f"uncut {uncut} instead of {measure.name}@{measure.cutoff}", qrels, run,
                   replace(measure, name=uncut, cutoff=None))
    cut = measure.info.cut_form
    if cut is not None and cutoff is not None:
        yield (f"cut at {cutoff} ({cut}.{cutoff}) instead of uncut {measure.name}", qrels, run,
               replace(measure, name=cut, cutoff=cutoff))
    if subset is not None:
        keep = set(subset)
        if not keep:
            raise InputError("the query subset is empty")
        yield (f"mean over the {len(keep)} queries of the subset", {q: j for q, j in qrels.items() if q in keep},
               {q: d for q, d in run.items() if q in keep}, measure)


def read_query_subset(text: str) -> list[str]:
    """Query ids from a file's text: the first field of every non-empty, non-comment line."""
    return [line.split()[0] for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


__all__ = ["Variant", "find_with_variants", "read_query_subset"]
