"""The trec_eval-compatible command line:
``python -m metrics [-q] [-c] [-J] [-l N] [-M N] [-m MEASURE]... QRELS RUN...``.

Output is trec_eval's: one line per value, ``measure<TAB>qid<TAB>value``, the measure name left-justified in 22
characters, floats with 4 decimals and counts as integers. With ``-q`` every evaluated query's lines come first
(queries in byte order of their ids, measures in trec_eval's order), then the ``all`` lines: the mean over the
evaluated queries, or the sum for the counts ``num_*``. Conventions other than trec_eval's are chosen with long
options generated from :data:`metrics.conventions.CONVENTION_INFO`, and ``--help`` is generated from the measure
registry and that table, so the documentation cannot drift from the engine.

Several runs (``QRELS RUN RUN...``) print one block per run, in the order given, each exactly what trec_eval prints
for that run alone with its ``runid`` line (as ``-m runid`` adds it), so each block names its run: by its tag, and
when runs share a tag, by the tag and the file name (``runid  all  rank (dl20.BM25.run.gz)``). The qrels are read
once and the runs evaluated in parallel (:mod:`metrics.many_runs`). Standard error then names each run that lacks a
judged query another run answers (its means are over fewer queries), and runs that share a tag.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from .console import MAX_NUMBER_CHARS, add_trec_eval_argument, cannot_write, run_names, trec_eval_preset
from .conventions import (
    CONVENTION_INFO,
    DEFAULT_TREC_EVAL,
    TREC_EVAL,
    TREC_EVAL_BUILDS,
    ConventionInfo,
    Conventions,
    trec_eval_build,
)
from .engine import aggregate_columns, is_count, nothing_to_evaluate
from .holes import BOUNDED, MOVED_FROM_OUTSIDE, holes_tables
from .io.preferences import FORMATS as JUDGMENT_FORMATS
from .io.preferences import read_zscores
from .io.read import read_checked_qrels, read_run_path
from .many_runs import (
    ALL_NUM_REL,
    NOT_PRINTED,
    RunValues,
    check_run_paths,
    evaluate_each,
    evaluate_run,
    evaluate_run_files,
    evaluate_run_path,
    evaluate_subtopic_files,
    uses_subtopics,
)
from .measures import MEASURES, TREC_DEFAULT_MEASURES
from .measures.display import naming_lines
from .measures.registry import PREFERENCE_MEASURES, PREFERENCE_NICKNAMES
from .names import _ST_PREFIXES, ALIASES, AMBIGUOUS, Measure, parse_measure
from .preferences import evaluate_preference_files, preference_selections, zscores_of
from .ties import TieTable, tie_intervals

PROG = "python -m metrics"

#: Every measure of trec_eval 10.0 in the order it computes and prints them (its measures.c table).
TREC_EVAL_MEASURE_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
    "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
    "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp", "map_avgjg", "P_avgjg",
    "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj",
)

#: The measures trec_eval 10.0 added to 9.0.8's table and to its all_trec (measures.c of each build).
ADDED_IN_TREC_EVAL_10 = ("unj", "rbp", "rbp_resid")

#: Measures printed as text rather than numbers: runid (summary only) and relstring (per query only).
TEXT_MEASURES = ("runid", "relstring")

#: trec_eval measures this engine computes, in trec_eval's order; registry measures trec_eval lacks follow.
SUPPORTED_ORDER = tuple(name for name in TREC_EVAL_MEASURE_ORDER if name in MEASURES or name in TEXT_MEASURES) + tuple(
    name for name in MEASURES if name not in TREC_EVAL_MEASURE_ORDER
)

RELSTRING_LENGTH = 10  # trec_eval's default -m relstring.10

#: trec_eval measures its all_trec leaves out (measures.c: yaap is in its table, not in that nickname).
NOT_IN_ALL_TREC = ("yaap",)

#: trec_eval 10.0's measure nicknames, restricted to the measures computed here.
NICKNAMES = {
    "official": ("runid",) + TREC_DEFAULT_MEASURES,
    "all_trec": tuple(name for name in SUPPORTED_ORDER if (name in TEXT_MEASURES or MEASURES[name].trec_eval)
                      and name not in NOT_IN_ALL_TREC),
}
#: Each build's nicknames: 9.0.8's all_trec lacks the measures 10.0 added.
NICKNAMES_OF_BUILD = {
    "10.0": NICKNAMES,
    "9.0.8": NICKNAMES | {"all_trec": tuple(name for name in NICKNAMES["all_trec"]
                                            if name not in ADDED_IN_TREC_EVAL_10)},
}

#: trec_eval nicknames for measures outside this engine.
_UNSUPPORTED_NICKNAMES = ("set",)

FIELD_WIDTH = 22  # trec_eval prints "%-22s\t%s\t%6.4f"


class UsageError(Exception):
    """A bad command line: reported as one line on stderr with exit status 2."""


class _WriteError(Exception):
    """The output could not be written: one line on stderr, exit status 2."""


@dataclass(frozen=True)
class Selection:
    """The measures to print, in output order, and whether the ``runid`` line is wanted."""

    measures: tuple[Measure, ...]
    runid: bool
    relstring: tuple[str, int] | None = None  # (output name, length) of trec_eval's relstring, if asked for


# ---- measure selection -------------------------------------------------------------------------


def select_measures(specs: Sequence[str], build: str = DEFAULT_TREC_EVAL) -> Selection:
    """The measures named by ``-m`` arguments, in trec_eval's output order; nicknames are those of trec_eval
    ``build`` (9.0.8's ``all_trec`` lacks unj, rbp and rbp_resid).

    As in trec_eval, a measure named without parameters (or through a nickname such as ``all_trec``) gets its
    default cut-offs unless another ``-m`` gives it parameters, cut-offs are printed in increasing order, and
    ``ndcg.1=3,2=9`` replaces plain ``ndcg``. Unlike trec_eval, which silently keeps only the first parameter
    list of a measure, ``-m P.5 -m P.10`` prints both cut-offs. Measures in ir_measures notation (``nDCG@10``)
    are printed under that name, after the trec_eval-notation measures of the same family.
    """
    specs = list(specs) or ["official"]
    nicknames = NICKNAMES_OF_BUILD[build]
    marked: list[str] = []  # trec_eval measures named without parameters
    explicit: dict[str, list[Measure]] = {}  # trec_eval measures with parameters
    ir_notation: list[Measure] = []
    runid = False
    relstring: tuple[str, int] | None = None
    for spec in specs:
        spec = spec.strip()
        if spec in nicknames:
            for name in nicknames[spec]:
                runid |= name == "runid"
                if name == "relstring":
                    relstring = relstring or ("relstring", RELSTRING_LENGTH)
                elif name != "runid" and name not in marked:
                    marked.append(name)
            continue
        if spec == "runid":
            runid = True
            continue
        if spec.partition(".")[0] == "relstring":
            relstring = _relstring(spec)
            continue
        _reject_unsupported(spec)
        try:
            parsed = parse_measure(spec)
        except ValueError as error:
            shown = spec if len(spec) <= 60 else spec[:40] + "..."
            raise UsageError(f"-m {shown}: {error}") from None
        for measure in parsed:
            if measure.notation == "ir_measures":
                if measure not in ir_notation:
                    ir_notation.append(measure)
            elif "." in spec or "@" in spec:  # ndeval's names carry their cut-off: alpha-nDCG@20
                bucket = explicit.setdefault(measure.name, [])
                if measure not in bucket:
                    bucket.append(measure)
            elif measure.name not in marked:
                marked.append(measure.name)

    chosen: list[Measure] = []
    for name in SUPPORTED_ORDER:
        if name in explicit:
            with_params = explicit[name]
            if any(m.cutoff is not None for m in with_params):
                with_params = sorted(with_params, key=lambda m: m.cutoff or 0)
            chosen.extend(with_params)
        elif name in marked:
            chosen.extend(parse_measure(name))
        chosen.extend(m for m in ir_notation if m.name == name)
    return Selection(tuple(chosen), runid, relstring)


def _relstring(spec: str) -> tuple[str, int]:
    """``relstring`` or ``relstring.20``: trec_eval's string of the grades of the top N documents."""
    _, _, params = spec.partition(".")
    if not params:
        return "relstring", RELSTRING_LENGTH
    try:
        length = int(float(params))
    except ValueError:
        raise UsageError(f"-m {spec}: the length of relstring has to be a number, e.g. relstring.20") from None
    return f"relstring_{params}", max(length, 0)


def _reject_unsupported(spec: str) -> None:
    name = spec.partition(".")[0]
    supported = ", ".join(n for n in SUPPORTED_ORDER if n in TEXT_MEASURES or MEASURES[n].trec_eval)
    if spec in PREFERENCE_NICKNAMES or name in PREFERENCE_MEASURES:
        formats = PREFERENCE_MEASURES[PREFERENCE_NICKNAMES.get(spec, (name,))[0]].formats
        raise UsageError(f"-m {spec}: trec_eval's preference and judgment-group measures read other judgments: give "
                         + " or ".join(f"-R {f}" for f in formats) + " (see --help)")
    if spec in _UNSUPPORTED_NICKNAMES:
        raise UsageError(f"-m {spec}: trec_eval nickname {spec!r} names measures this engine does not compute; "
                         f"nicknames here: {', '.join(NICKNAMES)}; measures: {supported} (see --help)")
    if name in TREC_EVAL_MEASURE_ORDER and name not in MEASURES:
        raise UsageError(f"-m {spec}: trec_eval measure {name!r} is not computed by this engine; "
                         f"supported: {supported} (see --help)")


# ---- command line ------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would print the usage and exit; we want one line
        raise UsageError(message)

    def format_help(self) -> str:
        # The measure and convention reference is generated when help is shown, not on every evaluation.
        if self.epilog is None:
            self.epilog = help_epilog()
        return super().format_help()


def option_name(convention: str) -> str:
    """The long option of a convention: ``ap_denominator`` -> ``--ap-denominator``."""
    return "--" + convention.replace("_", "-")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        usage=f"{PROG} [-q] [-c] [-J] [-n] [-l N] [-M N] [-m MEASURE]... [--bounds] [--ties interval] "
              "[--CONVENTION VALUE]... "
              "QRELS RUN [RUN ...]",
        description=(
            "Evaluate a TREC run against qrels, printing what trec_eval prints: one line per value, "
            "measure<TAB>query<TAB>value, then the 'all' lines (means; num_* are summed). The defaults reproduce "
            f"trec_eval {DEFAULT_TREC_EVAL} byte for byte; --trec-eval {TREC_EVAL_BUILDS[-1]} reproduces that build "
            "instead; long options choose the conventions of other tools.\n\n"
            "Several RUNs: the qrels are read once and the runs evaluated in parallel (one per core, at most that "
            "many in memory at once); each run's block is printed in the order given, exactly as for that run alone "
            "with its runid line (as -m runid adds it), so each block names its run (every option applies to every "
            "run); when runs share a tag, their runid lines add the file name: rank (bm25.run.gz). Standard error "
            "then names each run lacking a judged query another run answers. Files that are missing are refused "
            "before anything is printed; a run that turns out bad stops the command with one line naming it "
            "(exit status 2): the blocks of the runs before it stay printed, whole, and nothing of it or of later "
            "runs is. '-' (standard input) can be given once."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    parser.add_argument("qrels", metavar="QRELS",
                        help="judgments: qid iter docno grade (grade < 0 = unjudged), or Parquet: qid, docno, label")
    parser.add_argument("runs", metavar="RUN", nargs="+",
                        help="ranking: qid Q0 docno rank score tag ('-' reads standard input), or Parquet: qid, docno, "
                             "score; several RUNs print one block each, in order")
    trec = parser.add_argument_group("trec_eval options")
    trec.add_argument("-q", "--query_eval_wanted", dest="per_query", action="store_true",
                      help="print every query's values before the 'all' lines")
    trec.add_argument("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE",
                      help="measure to print, repeatable: trec_eval notation (P.5,10  ndcg_cut.10  "
                           "ndcg.1=3,2=9), ir_measures notation (nDCG@10  P(rel=2)@5), or a nickname "
                           "(official, the default; all_trec)")
    add_convention_arguments(parser, trec)
    trec.add_argument("-R", "--Rel_info_format", dest="rel_format", metavar="FORMAT", default="qrels",
                      help="how QRELS is read: qrels (the default), prefs (qid jg jsg docno rel: preferences), "
                           "qrels_prefs (qrels read as preferences) or qrels_jg (qid jg docno rel: one set of "
                           "qrels per judgment group); the last three give the measures -m all_prefs and qrels_jg")
    trec.add_argument("-Z", "--Zscore", dest="zscores", metavar="FILE",
                      help="print z-scores instead of values: (value - mean) / stddev from FILE's lines 'qid measure "
                           "mean stddev' (-1000000 where FILE has no mean for the query and measure); the 'all' "
                           "lines average (counts: sum) the z-scores, and every name gets a Z in front")
    trec.add_argument("-n", "--nosummary", dest="summary", action="store_false",
                      help="do not print the 'all' lines")
    parser.add_argument("--bounds", action="store_true", help=BOUNDS_HELP)
    parser.add_argument("--ties", choices=["interval"], help=TIES_HELP)
    return parser


TIES_HELP = (
    "interval: after each value, three lines MEASURE:tie_low, MEASURE:tie_expected and MEASURE:tie_high (per query "
    "with -q, and on the 'all' lines): the lowest and highest value over every order of the documents that share a "
    "score, and the expected value when each such group is in a uniformly random order (trec_eval orders them by "
    "doc id). Exact: every order is scored when a query has at most 5,040 (and a million ranks in all), else "
    "closed forms (McSherry & Najork 2008) and each group sorted by grade; 'n/a' where neither applies "
    "(docs/ties.md). RUN cannot be '-'"
)


BOUNDS_HELP = (
    "after each value, two lines MEASURE:low and MEASURE:high (per query with -q, and on the 'all' lines as the "
    "mean of the per-query lows and highs): the lower and higher of two scenarios for the unjudged documents "
    "(no grade >= 0) in the measure's top k (k = its cut-off, or the whole ranking when it has none): as judged "
    "(trec_eval's value) and all relevant at the query's top grade (its largest grade, at least the relevance "
    f"level). For {', '.join(name for name in MEASURES if name in BOUNDED)}, low and high bound the value "
    "whatever judgments those documents get (not with -J), and for "
    f"{', '.join(name for name in MEASURES if name in MOVED_FROM_OUTSIDE)} only while no other document is "
    "judged (one judged relevant below k raises R); for the others (map, ndcg, Rprec, bpref, ...) they "
    "are only the range between the two scenarios. RUN cannot be '-' (the run is read twice)"
)


def add_convention_arguments(parser: argparse.ArgumentParser, group=None) -> None:
    """trec_eval's -c, -J, -l and -M (in ``group``), and one long option per convention; read them back with
    :func:`conventions_from`. Shared by every command that evaluates (``metrics``, ``metrics.compare``)."""
    trec = group if group is not None else parser.add_argument_group("trec_eval options")
    trec.add_argument("-c", "--complete_rel_info_wanted", dest="complete", action="store_true",
                      help="judged queries missing from the run score 0 and count in the means "
                           f"(same as {option_name('missing_queries')} zero)")
    trec.add_argument("-J", "--Judged_docs_only", dest="judged_only", action="store_true",
                      help=f"drop unjudged documents before scoring (same as {option_name('unjudged')} removed)")
    trec.add_argument("-l", "--level_for_rel", "--relevance-level", dest="relevance_level", metavar="N",
                      help="a judgment is relevant when its grade >= N (default 1)")
    trec.add_argument("-M", "--Max_retrieved_per_topic", "--depth", dest="depth", metavar="N",
                      help="evaluate only the top N documents of each ranking")
    add_trec_eval_argument(trec)
    conventions = parser.add_argument_group(
        f"conventions (defaults are trec_eval {DEFAULT_TREC_EVAL}'s; the value 'trec_eval' also selects the default)"
    )
    for info in CONVENTION_INFO:
        default = getattr(TREC_EVAL, info.name)
        choices = "|".join(choice.value for choice in info.choices)
        conventions.add_argument(option_name(info.name), dest=info.name, metavar="{" + choices + "}",
                                 help=f"{info.label} (default {default})")
        if "_" in info.name:  # trec_eval spells its long options with underscores
            conventions.add_argument("--" + info.name, dest=info.name, help=argparse.SUPPRESS)


def help_epilog() -> str:
    """The measure and convention reference shown by ``--help``, generated from the registries."""
    wrap = textwrap.TextWrapper(width=100, initial_indent="    ", subsequent_indent="    ")
    lines = ["measures (trec_eval name / ir_measures name):"]
    for name in SUPPORTED_ORDER:
        if name == "runid":
            lines.append("  runid  the run's tag (the last column of RUN); printed on the 'all' lines only")
            continue
        if name == "relstring":
            lines.append("  relstring  the grades of the top 10 documents (relstring.N: top N) as one string: "
                         "the grade,")
            lines.append("    '>' above 9, '-' not in the qrels, '.' in the qrels with a negative grade; "
                         "per query (-q) only")
            continue
        info = MEASURES[name]
        lines.append(f"  {info.name} / {info.ir_name}  {info.pretty_name}" + ("" if info.trec_eval else
                                                                             "  (not in trec_eval)"))
        lines.extend(wrap.wrap(info.short_desc + " Rewards: " + info.rewards))
        lines.extend(wrap.wrap("Formula: " + (info.text or info.formula)))
        lines.extend(wrap.wrap("Reference: " + info.reference))
        details = []
        if info.cutoff == "optional":
            details.append("cut-off optional: without one, the whole ranking")
        elif info.cutoff != "none":
            details.append("default cut-offs " + ",".join(f"{c:g}" for c in info.default_cutoffs))
        elif info.default_params:
            details.append("default parameters " + ",".join(f"{c:g}" for c in info.default_params))
        details.append({"sum": "summed over queries", "geometric": "geometric mean over queries (summary only)"}
                       .get(info.aggregate, "averaged over queries"))
        changed_by = [option_name(c) if c != "relevance_level" else "-l" for c in info.conventions]
        if changed_by:
            details.append("changed by " + ", ".join(changed_by))
        lines.extend(wrap.wrap("; ".join(details)))
    lines.append("")
    lines.append("measures of trec_eval's other judgment formats (-R prefs: qid jg jsg docno rel; -R qrels_prefs: "
                 "qrels read as")
    lines.append("preferences; -R qrels_jg: qid jg docno grade, one set of qrels per judgment group jg):")
    for name, info in PREFERENCE_MEASURES.items():
        lines.append(f"  {name}  " + " or ".join(f"-R {f}" for f in info.formats))
        lines.extend(wrap.wrap(info.short_desc + " Formula: " + info.text))
        details = ["summed over queries" if info.is_count else "averaged over queries", f"tested against {info.peer}"]
        if info.cutoffs:
            details.insert(0, "default cut-offs " + ",".join(f"{c:g}" for c in info.cutoffs))
        lines.extend(wrap.wrap("; ".join(details)))
    lines.append("  nicknames: " + "; ".join(f"{nick} = runid num_q {' '.join(names)}"
                                           for nick, names in PREFERENCE_NICKNAMES.items()))
    lines.append("")
    lines.append("names on the pages and in README (one per measure; first the name -m takes):")
    for line in naming_lines():
        lines.extend(wrap.wrap(line))
    lines.append("")
    lines.append("names other tools print, read as (results are reported under the name as written):")
    for alias in ALIASES:
        if alias.names[0].startswith(_ST_PREFIXES):  # one line for all score-function prefixes
            shown = f"{alias.names[0]}, {alias.names[5]} (any prefix: {', '.join(_ST_PREFIXES)})"
        else:
            shown = ", ".join(alias.names)
        note = f"; {alias.note}" if alias.note else ""
        lines.extend(wrap.wrap(f"{shown} = {alias.reads_as} ({alias.tools}{note})"))
    lines.append("names that mean different things in different tools:")
    for name, reading in AMBIGUOUS.items():
        lines.extend(wrap.wrap(f"{name}: {reading.format(k='k')}"))
    lines.append("")
    lines.append("measure nicknames: " + "; ".join(f"{nick} = {' '.join(names)}" for nick, names in NICKNAMES.items()))
    lines.append("")
    lines.append("conventions:")
    for info in CONVENTION_INFO:
        lines.append(f"  {option_name(info.name)}  {info.label} (affects: {', '.join(info.affects)})")
        default = getattr(TREC_EVAL, info.name)
        for choice in info.choices:
            mark = " [default]" if choice.value == default else ""
            lines.extend(textwrap.wrap(
                f"{choice.value}{mark}: {choice.meaning}. Used by: {', '.join(choice.used_by)}",
                width=100, initial_indent="    ", subsequent_indent="      ", break_on_hyphens=False))
        for note in info.notes:
            lines.extend(textwrap.wrap("Note: " + note, width=100, initial_indent="    ", subsequent_indent="      "))
    lines.append("")
    lines.append("Errors (unreadable file, bad line, unknown measure, bad option) print one line and exit with "
                 "status 2.")
    return "\n".join(lines)


def conventions_from(args: argparse.Namespace) -> Conventions:
    """The Conventions selected by the parsed options; raises UsageError for a bad or conflicting value."""
    changes: dict[str, object] = {}
    for info in CONVENTION_INFO:
        text = getattr(args, info.name)
        if text is not None:
            changes[info.name] = _choice(info, text)
    for flag, name, value in (("-c", "missing_queries", "zero"), ("-J", "unjudged", "removed")):
        if getattr(args, "complete" if flag == "-c" else "judged_only"):
            if changes.get(name, value) != value:
                raise UsageError(f"{flag} conflicts with {option_name(name)} {changes[name]}")
            changes[name] = value
    if args.relevance_level is not None:
        changes["relevance_level"] = _integer("-l", args.relevance_level, minimum=0)
    if args.depth is not None:
        changes["depth"] = _integer("-M", args.depth, minimum=1)
    try:
        return trec_eval_preset(args, changes=changes)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _choice(info: ConventionInfo, text: str) -> str:
    values = [choice.value for choice in info.choices]
    normalized = text.strip().replace("-", "_")
    if normalized == "trec_eval" and "trec_eval" not in values:
        return getattr(TREC_EVAL, info.name)
    for value in values:
        if normalized == value or normalized.lower() == value.lower():
            return value
    raise UsageError(f"{option_name(info.name)} {text}: expected one of {', '.join(values)} (or trec_eval)")


def _integer(flag: str, text: str, *, minimum: int) -> int:
    try:
        value = int(text.strip()) if len(text) <= MAX_NUMBER_CHARS else None
    except ValueError:
        value = None
    if value is None or value < minimum:
        shown = text if len(text) <= MAX_NUMBER_CHARS else f"{text[:20]}... ({len(text):,} characters)"
        raise UsageError(f"{flag} {shown}: expected an integer >= {minimum}")
    return value


# ---- evaluation and output ---------------------------------------------------------------------


def format_line(key: str, qid: str, value: float, *, z: bool = False, count: bool | None = None) -> str:
    """One trec_eval output line: ``%-22s\\t%s\\t%6.4f``, or ``%ld`` for counts; with ``z`` (-Z),
    ``Z%-22s\\t%s\\t%6.4f`` for every measure, counts too."""
    if z:
        return f"Z{key:<{FIELD_WIDTH}}\t{qid}\t{value:6.4f}"
    if is_count(key) if count is None else count:
        return f"{key:<{FIELD_WIDTH}}\t{qid}\t{int(value)}"
    return f"{key:<{FIELD_WIDTH}}\t{qid}\t{value:6.4f}"


def report_lines(
    qids: Sequence[str], values: dict[str, np.ndarray], selection: Selection, tag: str, *,
    per_query: bool, summary: bool, bounds=None, ties: TieTable | None = None, zscores=None,
) -> list[str]:
    """trec_eval's output: per-query lines (``-q``), then the runid and ``all`` lines. ``bounds`` (a
    :class:`metrics.holes.HoleTable` over the same sorted qids) adds ``key:low`` and ``key:high`` after each value.
    ``zscores`` (-Z: ``{(qid, key): (mean, stddev)}``) prints each value's z-score instead, num_q aside."""
    keys = [m.key for m in selection.measures]
    z = zscores is not None
    if z:
        values = dict(values) | zscores_of(qids, {m.key: values[m.key] for m in selection.measures
                                                  if m.name != "num_q"}, zscores)
    lines: list[str] = []
    if per_query:
        # trec_eval prints num_q once, summed, and the geometric means only on the 'all' lines.
        printed = [m.key for m in selection.measures if m.name != "num_q" and m.info.per_query]
        formatted = {key: _formatted_column(key, values[key], z=z) for key in printed}
        if selection.relstring is not None:
            name = selection.relstring[0]
            formatted[name] = [f"'{text}'" for text in values[name]]
            printed = _with_relstring([m for m in selection.measures if m.key in formatted], name)
        tie_intervals_of = [ties.query(qid) for qid in qids] if ties is not None else []
        not_printed = values.get(NOT_PRINTED)  # -c's added queries, which trec_eval 9.0.8 does not print
        for i, qid in enumerate(qids):
            if not_printed is not None and not_printed[i]:
                continue
            for key in printed:
                text = selection.relstring is not None and key == selection.relstring[0]
                shown = f"Z{key:<{FIELD_WIDTH}}" if z and not text else f"{key:<{FIELD_WIDTH}}"
                lines.append(f"{shown}\t{qid}\t{formatted[key][i]}")
                if bounds is not None and key in bounds.low:
                    lines.extend(_bound_lines(key, qid, bounds.low[key][i], bounds.high[key][i]))
                if ties is not None and key in ties.values:
                    interval = tie_intervals_of[i][key]
                    lines.extend(_tie_lines(key, qid, interval.low, interval.expected, interval.high))
    if summary:
        if selection.runid:
            lines.append(f"{'runid':<{FIELD_WIDTH}}\tall\t{tag}")
        # Summed in trec_eval's query order, one query after another, so the mean is bit-identical to its own.
        means = aggregate_columns({key: values[key] for key in keys})
        if ALL_NUM_REL in values and "num_rel" in means:
            means["num_rel"] = values[ALL_NUM_REL]  # trec_eval's -c quirk, see evaluate_run_files
        hole_means = bounds.means() if bounds is not None else {}
        tie_means = ties.means() if ties is not None else {}
        for key in keys:
            lines.append(format_line(key, "all", means[key], z=z))
            if key in hole_means:
                # -c's num_rel all-line counts qrels lines trec_eval's way: low and high move with it.
                shift = means[key] - hole_means[key].value
                lines.extend(_bound_lines(key, "all", hole_means[key].low + shift, hole_means[key].high + shift))
            if key in tie_means:
                interval = tie_means[key]
                shift = means[key] - interval.value  # -c's num_rel all-line, as for the bounds
                lines.extend(_tie_lines(key, "all", *(None if v is None else v + shift
                                                      for v in (interval.low, interval.expected, interval.high))))
    return lines


def _tie_lines(key: str, qid: str, low: float | None, expected: float | None, high: float | None) -> list[str]:
    """``key:tie_low``, ``key:tie_expected`` and ``key:tie_high``, formatted as ``key``'s own; ``n/a`` for None."""
    lines = []
    for suffix, value in ((":tie_low", low), (":tie_expected", expected), (":tie_high", high)):
        shown = "n/a" if value is None else (f"{value:6.4f}" if is_count(key) and value != int(value)
                                              else format_line(key, qid, value).rsplit(chr(9), 1)[1])
        lines.append(f"{key + suffix:<{FIELD_WIDTH}}\t{qid}\t{shown}")
    return lines


def tie_table(args: argparse.Namespace, run_path: str, measures: Sequence[Measure], conventions: Conventions,
              qids: Sequence[str]) -> TieTable | None:
    """--ties interval: the tie intervals of every measure (metrics.ties) of one run, over the same queries as its
    values."""
    if not measures:
        return None
    qrels = read_checked_qrels(args.qrels, measures, conventions).to_dict()
    table = tie_intervals(qrels, read_run_path(run_path).to_dict(), list(measures), conventions=conventions)
    if list(table.qids) != list(qids):
        raise UsageError("--ties: the run or qrels changed while being read; run the command again")
    return table


def _bound_lines(key: str, qid: str, low: float, high: float) -> list[str]:
    """``key:low`` and ``key:high`` lines, formatted as ``key``'s own (counts as integers)."""
    return [f"{key + suffix:<{FIELD_WIDTH}}\t{qid}\t{format_line(key, qid, value).rsplit(chr(9), 1)[1]}"
            for suffix, value in ((":low", low), (":high", high))]


def hole_table(args: argparse.Namespace, run_path: str, measures: Sequence[Measure], conventions: Conventions,
               qids: Sequence[str]):
    """--bounds: the holes of every measure (metrics.holes) of one run, over the same queries as its values; None
    when only runid or relstring is asked for. Both files are read as the values were (TREC or Parquet)."""
    if not measures:
        return None
    table = holes_tables(read_checked_qrels(args.qrels, measures, conventions), read_run_path(run_path),
                         list(measures), conventions)
    if list(table.qids) != list(qids):
        raise UsageError("--bounds: the run or qrels changed while being read; run the command again")
    return table


def _with_relstring(measures: Sequence[Measure], name: str) -> list[str]:
    """Output keys with relstring's in its place in trec_eval's order (after P, before recall)."""
    position = SUPPORTED_ORDER.index("relstring")
    keys: list[str] = []
    for measure in measures:
        if name not in keys and SUPPORTED_ORDER.index(measure.name) > position:
            keys.append(name)
        keys.append(measure.key)
    return keys if name in keys else keys + [name]


def _formatted_column(key: str, column: np.ndarray, *, z: bool = False) -> list[str]:
    if is_count(key) and not z:
        return [str(v) for v in column.astype(np.int64).tolist()]
    return [f"{v:6.4f}" for v in column.tolist()]


def _write_lines(out: TextIO, lines: list[str]) -> None:
    try:
        if lines:
            out.write("\n".join(lines) + "\n")
        out.flush()
    except BrokenPipeError:
        raise  # the reader went away: metrics.console stops quietly
    except OSError as error:
        raise _WriteError(cannot_write(error)) from None


def _print_many_runs(args: argparse.Namespace, selection: Selection, conventions: Conventions, out: TextIO,
                     err: TextIO, zscores=None) -> None:
    """``QRELS RUN RUN...``: each run's block, in order, as that run alone prints it with ``-m runid`` added (see
    :mod:`metrics.many_runs`), its runid line naming the file too when another run has the same tag
    (:func:`block_labels`); then, on ``err``, what makes the blocks hard to compare (:func:`many_runs_notes`).

    Which tags repeat is known once every run is read (a tag is a run's last line's), so the blocks are printed
    after the last run is evaluated; a run that turns out bad is reported after the blocks of the runs before it."""
    check_run_paths(args.runs)
    qrels = read_checked_qrels(args.qrels, selection.measures, conventions)
    results = evaluate_each(qrels, [(path, path) for path in args.runs], selection.measures, conventions,
                            relstring=selection.relstring if args.per_query else None)
    evaluated: list[RunValues] = []
    failure: Exception | None = None
    try:
        for result in results:
            if not result.qids:
                raise UsageError(nothing_to_evaluate(result.name, args.qrels))
            evaluated.append(result)
    except Exception as error:  # noqa: BLE001 - raised again below, after the blocks of the runs before it
        failure = error
    labelled = dataclasses.replace(selection, runid=True)  # trec_eval's own label of a block: its runid line
    labels = block_labels([result.runid for result in evaluated], run_names(args.runs))
    for result, label in zip(evaluated, labels):
        bounds = hole_table(args, result.name, selection.measures, conventions, result.qids) if args.bounds else None
        ties = tie_table(args, result.name, selection.measures, conventions, result.qids) if args.ties else None
        _write_lines(out, report_lines(result.qids, result.values, labelled, label, per_query=args.per_query,
                                       summary=args.summary, bounds=bounds, ties=ties, zscores=zscores))
    if failure is not None:
        raise failure
    notes = many_runs_notes([(result.name, result.runid, tuple(result.qids), result.missing) for result in evaluated],
                            conventions)
    if notes:
        err.write("".join(f"{PROG}: {note}\n" for note in notes))


def block_labels(tags: Sequence[str], files: Sequence[str]) -> list[str]:
    """The runid line of each block of several runs: the run's tag, as trec_eval prints it, and when another run of
    the call has the same tag, its file name after it in parentheses (``rank (dl20.BM25.run.gz)``), so that no two
    blocks are labelled alike. ``files`` are :func:`metrics.console.run_names` of the runs, in the same order."""
    repeated = Counter(tags)
    return [f"{tag} ({file})" if repeated[tag] > 1 else tag for tag, file in zip(tags, files)]


def _print_preferences(args: argparse.Namespace, conventions: Conventions, zscores, out: TextIO) -> None:
    """``-R prefs``, ``-R qrels_prefs`` or ``-R qrels_jg``: trec_eval's output of those measures for one run. With
    -c, 9.0.8 prints no line for a judged query the run lacks (its means still count it), 10.0 prints the values of
    its placeholder ranking there."""
    if len(args.runs) != 1:
        raise UsageError(f"-R {args.rel_format} evaluates one run at a time: give QRELS and one RUN")
    if args.bounds or args.ties:
        raise UsageError(f"-R {args.rel_format}: --bounds and --ties are for qrels (-R qrels)")
    measures, runid, num_q = preference_selections(args.measures, args.rel_format)
    result = evaluate_preference_files(args.qrels, args.runs[0], args.rel_format, measures, conventions)
    if len(result.qids) == len(result.missing):
        raise UsageError(nothing_to_evaluate(args.runs[0], args.qrels))
    keys = [key for selection in measures for key in selection.keys]
    z = zscores is not None
    values = zscores_of(result.qids, result.values, zscores) if z else result.values
    unprinted = set(result.missing) if conventions.missing_ranking != "placeholder" else set()
    for row, qid in enumerate(result.qids):
        if qid in unprinted:  # 9.0.8 evaluates nothing there, not even a z-score: 0 in the sums
            for column in values.values():
                column[row] = 0.0
    lines = []
    if args.per_query:
        for row, qid in enumerate(result.qids):
            if qid not in unprinted:
                lines.extend(format_line(key, qid, values[key][row], z=z, count=key in result.counts) for key in keys)
    if args.summary:
        if runid:
            lines.append(f"{'runid':<{FIELD_WIDTH}}\tall\t{result.runid}")
        if num_q:
            lines.append(format_line("num_q", "all", len(result.qids), z=z, count=True))
        for key in keys:
            total = float(np.cumsum(values[key])[-1])
            lines.append(format_line(key, "all", total if key in result.counts else total / len(result.qids), z=z,
                                     count=key in result.counts))
    _write_lines(out, lines)


def many_runs_notes(runs: Sequence[tuple[str, str, Sequence[str], Sequence[str]]],
                    conventions: Conventions) -> list[str]:
    """For ``(name, tag, evaluated qids, judged qids absent)`` of each run: a warning per run that lacks a judged
    query another run answers (its 'all' lines are over fewer queries; with -c, each run lacking a judged query:
    it scores 0 there), and a note per tag that several runs share (their runid lines add the file name)."""
    notes = []
    zero = conventions.missing_queries == "zero"
    answered = [set(qids) - set(missing) for _, _, qids, missing in runs]
    for position, (name, _, _, missing) in enumerate(runs):
        others = set().union(*(qids for i, qids in enumerate(answered) if i != position))
        lacked = list(missing) if zero else [qid for qid in missing if qid in others]
        if not lacked:
            continue
        shown = ", ".join(lacked[:10]) + (f" and {len(lacked) - 10:,} more" if len(lacked) > 10 else "")
        lacks = f"run {name!r} lacks {len(lacked):,} judged {'query' if len(lacked) == 1 else 'queries'} ({shown})"
        notes.append(f"warning: {lacks}: scored 0 there (-c)" if zero else
                     f"warning: {lacks} that another run answers: its 'all' lines are over {len(answered[position]):,} "
                     "queries, not those of the other blocks; -c scores a missing query 0 in every run")
    tags: dict[str, list[str]] = {}
    for name, tag, _, _ in runs:
        tags.setdefault(tag, []).append(name)
    for tag, names in tags.items():
        if len(set(names)) > 1:
            notes.append(f"note: runs {', '.join(repr(name) for name in dict.fromkeys(names))} share the tag {tag!r}: "
                         "their runid lines name the file after the tag, in parentheses")
    return notes


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the command line; returns the exit status (0, or 2 after printing one error line)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    try:
        parser = build_parser()
        if argv is None:
            argv = sys.argv[1:]
        if any(arg in ("-h", "--help") for arg in argv):
            out.write(parser.format_help())
            return 0
        args = parser.parse_args(argv)
        conventions = conventions_from(args)
        if args.rel_format not in JUDGMENT_FORMATS:
            raise UsageError(f"-R {args.rel_format}: expected one of {', '.join(JUDGMENT_FORMATS)} (trec_eval's "
                             "formats of judgments)")
        zscores = read_zscores(args.zscores) if args.zscores is not None else None
        if zscores is not None and (args.bounds or args.ties):
            raise UsageError("-Z prints z-scores, which --bounds and --ties do not have: give one or the other")
        if args.rel_format != "qrels":
            _print_preferences(args, conventions, zscores, out)
            return 0
        selection = select_measures(args.measures, trec_eval_build(conventions) or DEFAULT_TREC_EVAL)
        if args.bounds and "-" in args.runs:
            raise UsageError("--bounds reads the run a second time: give RUN as a file, not '-'")
        if args.ties and "-" in args.runs:
            raise UsageError("--ties reads the run a second time: give RUN as a file, not '-'")
        if len(args.runs) > 1 and uses_subtopics(selection.measures):
            raise UsageError("the diversity measures evaluate one run at a time (their qrels are subtopic qrels)")
        if len(args.runs) > 1:
            _print_many_runs(args, selection, conventions, out, err, zscores)
            return 0
        (run_path,) = args.runs
        if uses_subtopics(selection.measures):
            for flag, used in (("--bounds", args.bounds), ("--ties", args.ties),
                               ("-m relstring", selection.relstring is not None and args.per_query)):
                if used:
                    raise UsageError(f"{flag} is not computed with the diversity measures (their qrels are "
                                     "subtopic qrels); evaluate those in a run of their own")
            qids, values, tag = evaluate_subtopic_files(args.qrels, run_path, selection.measures, conventions)
        else:
            qids, values, tag = evaluate_run_files(args.qrels, run_path, selection.measures, conventions,
                                                   relstring=selection.relstring if args.per_query else None)
        if not qids:
            raise UsageError(nothing_to_evaluate(run_path, args.qrels))
        bounds = hole_table(args, run_path, selection.measures, conventions, qids) if args.bounds else None
        ties = tie_table(args, run_path, selection.measures, conventions, qids) if args.ties else None
        _write_lines(out, report_lines(qids, values, selection, tag, per_query=args.per_query, summary=args.summary,
                                       bounds=bounds, ties=ties, zscores=zscores))
        return 0
    except (UsageError, _WriteError) as error:
        message = str(error)
    except FileNotFoundError as error:
        message = f"cannot read {error.filename}: no such file"
    except BrokenPipeError:
        raise
    except OSError as error:
        message = f"cannot read {error.filename or 'input'}: {error.strerror or error}"
    except ValueError as error:  # InputError from the readers names the file and line
        message = str(error)
    err.write(f"{PROG}: {' '.join(message.split())}\n")
    return 2


#: The names these functions had when they lived here (the reading moved to metrics.io.read, the evaluation of one
#: run file to metrics.many_runs); ``evaluate_files`` is :func:`metrics.many_runs.evaluate_run_files`.
evaluate_files = evaluate_run_files

__all__ = ["NICKNAMES", "SUPPORTED_ORDER", "Selection", "TREC_EVAL_MEASURE_ORDER", "UsageError", "build_parser",
           "evaluate_files", "evaluate_run", "evaluate_run_path", "format_line", "main", "read_checked_qrels",
           "read_run_path", "report_lines", "select_measures"]
