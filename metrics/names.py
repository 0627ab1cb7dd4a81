"""Measure names in trec_eval's notation (``P.5,10``, ``ndcg_cut.10``, ``ndcg.1=3,2=9``) and in ir_measures'
notation (``P@5``, ``nDCG@10``, ``P(rel=2)@5``, ``RR@10``), parsed into :class:`Measure` objects.

A :class:`Measure` is one number per query: a registered measure plus its cut-off and parameters. Its ``key``
is the name results are reported under: trec_eval's output name (``P_5``, as pytrec_eval reports it) when the
measure was written in trec_eval's notation, and the canonical ir_measures string (``nDCG@10``) otherwise.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .measures import IR_NAMES, MEASURES, MeasureInfo
from .measures.cwl import CWL_PARAMETER, INST_MIN_T, QUANTITIES
from .model import InputError

Notation = Literal["trec_eval", "ir_measures"]


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure instance. ``relevance_level`` and ``gain``/``judged_only`` override the conventions for it alone."""

    name: str  # key of MEASURES
    cutoff: int | None = None
    relevance_level: int | None = None
    gain_map: tuple[tuple[int, float], ...] | None = None  # trec_eval ndcg.1=3,2=9 parameters
    gain: str | None = None  # ir_measures nDCG(dcg='exp-log2')
    judged_only: bool | None = None  # ir_measures judged_only=True
    notation: Notation = "trec_eval"
    gain_param_text: str | None = None  # parameters as written (ndcg.1=3,2=9, utility.2,-1,0,0), for the output name
    params: tuple[float, ...] | None = None  # values of a measure with parameters (utility, set_F, 11pt_avg, rbp p)
    ap_denominator: str | None = None  # sentence-transformers' MAP@k divides by min(R, k)
    written: str | None = None  # a name people type (hit_rate@10, cosine_ndcg@10): reported under it

    @property
    def info(self) -> MeasureInfo:
        return MEASURES[self.name]

    @property
    def trec_name(self) -> str:
        """trec_eval's output name: ``P_5``, ``ndcg_cut_10``, ``ndcg_1=3,2=9``, ``map``."""
        if self.gain_param_text:
            return f"{self.name}_{self.gain_param_text}"
        if self.cutoff is None:
            return self.name
        if self.info.cutoff_mark != "_":
            return f"{self.name}{self.info.cutoff_mark}{self.cutoff}"
        if self.info.float_cutoffs:  # trec_eval's %3.2f, or every digit when two decimals would change the value
            two_decimals = f"{self.cutoff:3.2f}"
            return f"{self.name}_{two_decimals if float(two_decimals) == self.cutoff else repr(float(self.cutoff))}"
        return f"{self.name}_{self.cutoff}"

    @property
    def ir_name(self) -> str:
        """ir_measures' notation: ``nDCG@10``, ``P(rel=2)@5``, ``AP``."""
        params = []
        if self.relevance_level is not None:
            params.append(f"rel={self.relevance_level}")
        if self.gain == "exponential":
            params.append("dcg='exp-log2'")
        if self.judged_only:
            params.append("judged_only=True")
        if self.name in ("rbp", "rbp_resid") and not self.gain_map:  # the persistence, always: defaults differ
            params.append(f"p={_number((self.params or self.info.default_params)[0])}")
        if self.params is not None and self.name in ("F", "set_F"):
            params.append(f"beta={_number(self.params[0])}")
        if self.gain_map and self.name in ("ndcg", "ndcg_cut"):
            params.append("gains={" + ",".join(f"{level}:{_number(gain)}" for level, gain in self.gain_map) + "}")
        if self.name == "compat":
            p, normalize = self.params or self.info.default_params
            params.extend([f"p={_number(p)}"] + ([] if normalize else ["normalize=False"]))
        if self.name in CWL_PARAMETER:
            params.extend(_cwl_params_text(self.name, self.params))
        if self.params is not None and self.name in DIVERSITY_PARAMETERS:  # alpha, then beta (NRBP)
            defaults = self.info.default_params
            params += [f"{label}={_number(value)}" for label, value, default in
                       zip(DIVERSITY_PARAMETERS[self.name], self.params, defaults) if value != default]
        if self.name == "set_relative_P":  # ir_measures' SetP(relative=True)
            params.append("relative=True")
        base = "SetP" if self.name == "set_relative_P" else self.info.ir_name
        if self.name == "num_rel_ret" and self.relevance_level is not None:
            base = "NumRet"  # ir_measures writes relevant retrieved at a level as NumRet(rel=N)
        if self.name == "accuracy" and self.cutoff is not None:  # Accuracy@k is sentence-transformers' Success@k
            return f"{base}({','.join([*params, f'cutoff={_number(self.cutoff)}'])})"
        text = base + (f"({','.join(params)})" if params else "")
        return text if self.cutoff is None else f"{text}@{_number(self.cutoff)}"

    @property
    def key(self) -> str:
        if self.written is not None:
            return self.written
        return self.trec_name if self.notation == "trec_eval" else self.ir_name

    def __str__(self) -> str:
        return self.key


def _cwl_params_text(name: str, params: tuple[float, ...] | None) -> list[str]:
    """A C/W/L measure's parameters as ir_measures writes them: its own (T or p) and max_rel always, min_rel and
    the quantity when not the default (0, EU)."""
    own = CWL_PARAMETER[name]
    value, min_rel, max_rel, quantity = params if params is not None else (own[1] if own else 0.0, 0.0, 1.0, 0.0)
    texts = [f"{own[0]}={_number(value)}"] if own else []
    texts += [f"min_rel={_number(min_rel)}"] if min_rel != 0 else []
    texts.append(f"max_rel={_number(max_rel)}")
    return texts + ([f"quantity={QUANTITIES[int(quantity)]}"] if quantity else [])


def _number(value: float) -> str:
    """A parameter in a name, with every digit it has, so that the name reads back as the same measure:
    ``0.8``, ``2``, ``1e+06``, ``0.99999999999`` (``:g`` alone made RBP(p=0.99999999999) RBP(p=1)), and as typed,
    not longer: the shorter of ``:g`` and the shortest text that reads back (``:g`` of the denormal 1e-320 is
    ``9.99989e-321``, which reads back as the same double too)."""
    short, exact = f"{value:g}", repr(float(value)).removesuffix(".0")
    return short if float(short) == value and len(short) <= len(exact) else exact


#: The parameters of the diversity measures in ir_measures' notation, in the order of ``Measure.params``; ndeval's
#: ``-alpha`` and ``-beta`` (defaults 0.5).
DIVERSITY_PARAMETERS = {"alpha-nDCG": ("alpha",), "alpha-DCG": ("alpha",), "ERR-IA": ("alpha",),
                        "nERR-IA": ("alpha",), "NRBP": ("alpha", "beta"), "nNRBP": ("alpha", "beta")}
_NDEVAL_PATTERN = re.compile(r"^(?P<name>[A-Za-z]+(?:-[A-Za-z]+)?)@(?P<cutoff>\d+)$")
_IR_PATTERN = re.compile(
    r"^(?P<name>[A-Za-z0-9_α]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>\d+(?:\.\d*)?|\.\d+))?$")
_MAX_CUTOFF = 10_000_000
#: The longest number read as given (a command-line value, a cut-off); longer text is refused with its start and
#: its length.
MAX_NUMBER_CHARS = 30
#: The longest measure string read: every cut-off of it is a column of results, so the list has to be bounded.
MAX_MEASURE_CHARS = 2_000
#: The largest magnitude of a measure's parameter (a gain, a utility weight, F's beta): sums and products of larger
#: values overflow to inf or nan (ndcg.1=1e308,2=1e308 printed nan).
MAX_PARAMETER = 1e100
_UNDERSCORE_CUTOFFS = re.compile(r"^(?P<name>\w+?)_(?P<params>\d[\d.,]*)$")


def parse_measures(specs: str | Iterable[str]) -> list[Measure]:
    """Parse measure strings in either notation; several cut-offs in one trec_eval spec give several measures.

    >>> [m.key for m in parse_measures(["P.5,10", "nDCG@10"])]
    ['P_5', 'P_10', 'nDCG@10']
    """
    if isinstance(specs, str):
        specs = [specs]
    measures: dict[Measure, None] = {}  # keeps the first of each, in order, without a quadratic scan
    for spec in specs:
        for measure in parse_measure(spec):
            measures.setdefault(measure)
    return list(measures)


def parse_one_measure(measure: str | Measure) -> Measure:
    """Exactly one measure (a Measure passes through): ``P@10`` or ``P.10``, but not ``P.5,10``."""
    if isinstance(measure, Measure):
        return measure
    parsed = parse_measure(measure)
    if len(parsed) != 1:
        keys = ", ".join(m.key for m in parsed)
        raise InputError(f"measure {measure!r} names {len(parsed)} measures ({keys}); give one, e.g. with a cut-off")
    return parsed[0]


def parse_measure(spec: str) -> list[Measure]:
    """Parse one measure string; raises ValueError naming the string and what would be accepted."""
    found = _parse_measure(spec)
    for measure in found:
        if measure.info.cutoff_mark == "@" and measure.cutoff is not None and measure.cutoff > NDEVAL_DEPTH:
            raise ValueError(f"measure {shown(spec.strip())}: ndeval computes {measure.name} down to rank "
                             f"{NDEVAL_DEPTH} at most (its DEPTH); give a cut-off from 1 to {NDEVAL_DEPTH}")
    return found


#: ndeval's deepest cut-off (its DEPTH): alpha-nDCG, ERR-IA, P-IA and strec go to rank 20 at most.
NDEVAL_DEPTH = 20


def _parse_measure(spec: str) -> list[Measure]:
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"measure name has to be a non-empty string, got {spec!r}")
    spec = spec.strip()
    if len(spec) > MAX_MEASURE_CHARS:
        raise ValueError(f"measure {spec[:30] + '...'!r} is {len(spec):,} characters long; the limit is "
                         f"{MAX_MEASURE_CHARS:,} (a few hundred cut-offs)")
    alias = _parse_alias(spec)
    if alias is not None:
        return [alias]
    ndeval = _NDEVAL_PATTERN.match(spec)
    if ndeval and ndeval["name"] in MEASURES and MEASURES[ndeval["name"]].cutoff_mark == "@":
        # ndeval's own names: alpha-nDCG@20, ERR-IA@5, P-IA@10, strec@10
        return _parse_trec(f"{ndeval['name']}.{ndeval['cutoff']}")
    if ("@" in spec or "(" in spec or spec in IR_NAMES and spec not in MEASURES or spec in _IR_SPELLINGS
            or spec in NOT_COMPUTED):
        return [_parse_ir(spec)]
    return _parse_trec(spec)


# ---- names people type ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Alias:
    """A name other tools print, read as a measure here: ``hit_rate@k`` is ``Success@k``."""

    names: tuple[str, ...]  # as written, with k for the cut-off
    reads_as: str  # ir_measures notation with k, e.g. "Success@k"
    tools: str
    note: str = ""
    gain: str | None = None
    ap_denominator: str | None = None


_ST = "sentence-transformers InformationRetrievalEvaluator"
_ST_PREFIXES = ("cosine_", "dot_", "cos_sim-", "dot_score-", "euclidean_", "manhattan_")

ALIASES: tuple[Alias, ...] = (
    Alias(("HitRate@k", "hit_rate@k", "Hit@k", "top-k accuracy"), "Success@k",
          "the seed, ranx (hit_rate), RecSys papers"),
    Alias(("Accuracy@k",), "Success@k", f"{_ST} (Accuracy@k)",
          "ir_measures' Accuracy@k, the share of relevant and non-relevant pairs in order, is Accuracy(cutoff=k)"),
    Alias(("precision@k", "Precision@k"), "P@k", f"ranx, {_ST}"),
    Alias(("recall@k", "Recall@k"), "R@k", f"ranx, {_ST}"),
    Alias(("mrr",), "RR", "ranx (mrr: no cut-off)"),
    Alias(("mrr@k",), "RR@k", f"ranx, {_ST} (MRR@k), MS MARCO (MRR@10)"),
    Alias(("map@k",), "AP@k", "ranx (map@k divides by R, as trec_eval's map_cut)"),
    Alias(("ndcg@k",), "nDCG@k", "ranx (ndcg: gain = grade, as trec_eval)"),
    Alias(("ndcg_burges@k",), "nDCG@k", "ranx (ndcg_burges: gain 2^grade - 1)", gain="exponential"),
    Alias(("dcg@k",), "dcg_cut@k", "ranx (dcg: gain = grade, not normalised)"),
    Alias(("dcg_burges@k",), "dcg_cut@k", "ranx (dcg_burges: gain 2^grade - 1, not normalised)", gain="exponential"),
    Alias(("dcg_burges",), "dcg", "ranx (dcg_burges: gain 2^grade - 1, not normalised)", gain="exponential"),
    Alias(("r-precision", "R-precision", "r_precision"), "Rprec", "ranx"),
    Alias(("f1@k", "F1@k"), "F@k", "ranx (f1), RRE"),
    Alias(("R_cap@k", "Recall_cap@k", "recall_cap@k"), "relative_P@k",
          "BEIR (capped recall: hits / min(R, k), trec_eval's relative_P)"),
    Alias(tuple(prefix + name for prefix in _ST_PREFIXES for name in ("accuracy@k", "Accuracy@k")), "Success@k", _ST),
    Alias(tuple(prefix + name for prefix in _ST_PREFIXES for name in ("precision@k", "Precision@k")), "P@k", _ST),
    Alias(tuple(prefix + name for prefix in _ST_PREFIXES for name in ("recall@k", "Recall@k")), "R@k", _ST),
    Alias(tuple(prefix + name for prefix in _ST_PREFIXES for name in ("mrr@k", "MRR@k")), "RR@k", _ST),
    Alias(tuple(prefix + name for prefix in _ST_PREFIXES for name in ("ndcg@k", "NDCG@k")), "nDCG@k", _ST,
          "binary gain: every relevant document gains 1", gain="binary"),
    Alias(tuple(prefix + name for prefix in _ST_PREFIXES for name in ("map@k", "MAP@k")), "AP@k", _ST,
          "divides by min(R, k)", ap_denominator="min_R_k"),
)

#: Names that mean different things in different tools: the reading chosen here and where the others differ.
AMBIGUOUS: dict[str, str] = {
    "MAP@k": "read as AP@{k} (trec_eval map_cut.{k}: divides by R); sentence-transformers' MAP@{k} divides by "
             "min(R, {k}) (write cosine_map@{k} for it); the score finder tries both",
    "NDCG@k": "read as nDCG@{k} (trec_eval ndcg_cut.{k}: gain = grade); sentence-transformers' NDCG@{k} uses binary "
              "gain and LightGBM's 2^grade - 1 (write cosine_ndcg@{k} or ndcg_burges@{k}); the score finder tries them",
    "MRR@k": "read as RR@{k} (1 / rank of the first relevant document, 0 beyond rank {k}; MS MARCO's MRR@10); "
             "an uncut MRR is RR",
    "MAP": "read as AP (trec_eval map, uncut); some papers' MAP is AP at a cut-off (write MAP@k)",
}

#: MAP@k in a sentence of the pages, saying what AMBIGUOUS["MAP@k"] says to --help.
MAP_AT_K_READING = ("MAP@k is ambiguous: AP@k here and in trec_eval (map_cut, dividing by R), but "
                    "sentence-transformers' MAP@k divides by min(R, k)")

#: (name without "@k", whether it takes a cut-off) -> alias: "mrr" is RR and "mrr@10" is RR@10.
_ALIAS_INDEX: dict[tuple[str, bool], Alias] = {
    (name.removesuffix("@k"), name.endswith("@k") or name == "top-k accuracy"): alias
    for alias in ALIASES for name in alias.names
}
_ALIAS_PATTERN = re.compile(r"^(?P<name>[^@()]+?)(?:@(?P<cutoff>\d+))?$")
_TOP_K_ACCURACY = re.compile(r"^top-?(?P<cutoff>\d+)[ _-]accuracy$", re.IGNORECASE)


def _parse_alias(spec: str) -> Measure | None:
    """A name from the ALIASES table (``hit_rate@10``, ``top-10 accuracy``), or None."""
    top_k = _TOP_K_ACCURACY.match(spec)
    match = _ALIAS_PATTERN.match(spec)
    if top_k:
        alias, cutoff = _ALIAS_INDEX[("top-k accuracy", True)], top_k["cutoff"]
    elif match and (match["name"], match["cutoff"] is not None) in _ALIAS_INDEX:
        alias, cutoff = _ALIAS_INDEX[(match["name"], match["cutoff"] is not None)], match["cutoff"]
    elif match and (match["name"], match["cutoff"] is None) in _ALIAS_INDEX and not (
            match["name"] in MEASURES or match["name"] in IR_NAMES):
        wants_cutoff = match["cutoff"] is None
        example = f"{match['name']}@10" if wants_cutoff else match["name"]
        raise ValueError(f"measure {spec!r} {'takes a cut-off' if wants_cutoff else 'takes no cut-off'}, "
                         f"e.g. {example}")
    else:
        return None
    target = alias.reads_as.replace("@k", f"@{cutoff}") if cutoff is not None else alias.reads_as
    (measure,) = [_parse_ir(target)]
    return dataclasses.replace(measure, gain=alias.gain or measure.gain, ap_denominator=alias.ap_denominator,
                               written=spec)


def describe_reading(spec: str) -> str:
    """What a measure name was read as, in one line: ``hit_rate@10 = Success@10 (the seed, ranx ...)``."""
    (measure, *more) = parse_measure(spec)
    spec = spec.strip()
    generic = re.sub(r"@\d+$", "@k", spec)
    top_k = _TOP_K_ACCURACY.match(spec)
    key = ("top-k accuracy", True) if top_k else (generic.removesuffix("@k"), generic.endswith("@k"))
    alias = _ALIAS_INDEX.get(key)
    if alias is not None:
        note = f"; {alias.note}" if alias.note else ""
        return f"{spec} = {measure.ir_name} as {alias.tools} computes it{note}"
    if generic in AMBIGUOUS:
        return f"{spec}: {AMBIGUOUS[generic].format(k=spec.rsplit('@', 1)[-1])}"
    if more:
        return f"{spec} = {', '.join(m.key for m in [measure, *more])}"
    return f"{spec} = {measure.ir_name}: {measure.info.short_desc}"


def _parse_trec(spec: str) -> list[Measure]:
    name, _, params = spec.partition(".")
    underscored = _UNDERSCORE_CUTOFFS.match(spec)
    if name not in MEASURES and underscored and underscored["name"] in MEASURES:
        # pytrec_eval also accepts its own output names as input: P_5, ndcg_cut_10, P_5,10.
        name, params = underscored["name"], underscored["params"]
    info = MEASURES.get(name)
    if info is None:
        raise ValueError(f"unknown measure {spec!r}; known: {', '.join(known_measure_names())}")
    if info.params == "pairs" and params:
        return [_with_pairs(spec, name, params)]
    if info.params == "values" and params:
        values = _parse_values(spec, params)
        for text, value in zip(params.split(","), values, strict=True):
            _check_parameter(spec, text, value)
        return [Measure(name, params=values, gain_param_text=params)]
    if info.cutoff == "none" or info.cutoff == "optional" and not params:
        if params and info.params == "none":
            raise ValueError(f"measure {name!r} takes no parameters, got {spec!r}")
        return [Measure(name)]
    if info.float_cutoffs:
        cutoffs = _parse_values(spec, params) if params else list(info.default_cutoffs)
        for text, value in zip(params.split(",") if params else (), cutoffs):
            if abs(value) > _MAX_CUTOFF:
                raise ValueError(f"measure {shown(spec)}: cut-off {shown(text.strip())} has to lie within "
                                 f"±{_MAX_CUTOFF:,}")
    else:
        cutoffs = _parse_cutoffs(spec, params) if params else list(info.default_cutoffs)
    return [Measure(name, cutoff) for cutoff in sorted(set(cutoffs))]


def _parse_values(spec: str, params: str) -> tuple[float, ...]:
    """Comma-separated numbers as trec_eval reads them with atof (``.25,.5,.75``, ``2,-1,0,0``)."""
    values = []
    for text in params.split(","):
        try:
            value = float(text.strip())
        except ValueError:
            value = None
        if value is None or not math.isfinite(value):
            raise ValueError(f"measure {spec!r}: parameter {text!r} has to be a number")
        values.append(value)
    return tuple(values)


def _check_parameter(spec: str, text: str, value: float) -> None:
    """Refuse a parameter beyond :data:`MAX_PARAMETER`, naming it."""
    if abs(value) > MAX_PARAMETER:
        raise ValueError(f"measure {shown(spec)}: parameter {shown(text.strip())} is beyond ±1e100, the limit "
                         "(sums and products of larger values overflow to inf or nan)")


def shown(text: str, limit: int = 40) -> str:
    """``repr(text)`` for a message, cut to about ``limit`` characters with its length said: a 300-digit
    parameter is echoed as its first digits and its length, not in full."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit - 10]!r}... ({len(text):,} characters)"


def _parse_cutoffs(spec: str, params: str) -> list[int]:
    cutoffs = []
    for text in params.split(","):
        text = text.strip()
        try:
            # trec_eval reads cut-offs with atol: "23.4" means 23.
            value = int(float(text)) if re.fullmatch(r"\d+(\.\d*)?", text) else None
        except ValueError:
            value = None
        if value is None or not 1 <= value <= _MAX_CUTOFF:
            raise ValueError(f"measure {spec!r}: cut-off {text!r} has to be a whole number from 1 to {_MAX_CUTOFF:,}")
        cutoffs.append(value)
    return cutoffs


def _with_pairs(spec: str, name: str, params: str) -> Measure:
    """``level=gain`` pairs (``ndcg.1=3,2=9``) and, for rbp, the persistence ``p=0.8``."""
    gains: dict[int, float] = {}
    persistence: float | None = None
    for pair in params.split(","):
        level, sep, gain = pair.partition("=")
        if level.strip() == "p" and sep and name in ("rbp", "rbp_resid"):
            try:
                persistence = float(gain)
            except ValueError:
                persistence = math.nan
            if not 0 < persistence < 1:
                raise ValueError(f"measure {spec!r}: persistence {pair!r} has to lie between 0 and 1, e.g. rbp.p=0.8")
            continue
        try:
            if not sep:
                raise ValueError
            grade, value = int(level), float(gain)
        except ValueError:
            raise ValueError(
                f"measure {spec!r}: gain parameter {pair!r} has to look like level=gain, e.g. {name}.1=3,2=9"
            ) from None
        if grade < 0 or grade in gains or not math.isfinite(value):
            problem = "a negative grade" if grade < 0 else "given twice" if grade in gains else "not a finite gain"
            raise ValueError(f"measure {spec!r}: gain parameter {pair!r} is {problem}")
        _check_parameter(spec, pair, value)
        gains[grade] = value
    # The order as written matters: trec_eval's ideal DCG depends on it when gains are less than 1 apart.
    return Measure(name, gain_map=tuple(gains.items()) or None, gain_param_text=params,
                   params=(persistence,) if persistence is not None else None)


#: ir_measures' names the engine does not compute, with why: one message instead of "unknown measure".
NOT_COMPUTED: dict[str, str] = {}
#: ir_measures' spellings of the same measure: read as the name on the right, with the parameters it implies.
_IR_SPELLINGS = {"Precision": "P", "Recall": "R", "RPrec": "Rprec", "BPref": "Bpref", "SetRelP": "SetP"}
_TRUTH = {"True": True, "False": False}


def _ir_parameters(spec: str, text: str) -> list[tuple[str, str, str]]:
    """``(key, value, as written)`` of each parameter in ir_measures' parentheses, split at the commas outside
    braces (``gains={0:1,1:4}``); quotes around a value are dropped."""
    pairs, depth, start = [], 0, 0
    for position, char in enumerate(text + ","):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            piece = text[start:position]
            start = position + 1
            if piece:
                key, sep, value = piece.partition("=")
                if not sep:
                    raise ValueError(f"measure {shown(spec)}: parameter {shown(piece)} has to look like name=value, "
                                     "e.g. rel=2")
                pairs.append((key, value.strip("'\""), piece))
    return pairs


def _ir_gains(spec: str, text: str) -> tuple[tuple[int, float], ...]:
    """``{0:1,1:4}``: ir_measures' custom gain of each grade (a grade not listed keeps its own value as gain)."""
    body = text[1:-1] if text.startswith("{") and text.endswith("}") else None
    gains: dict[int, float] = {}
    for pair in (body.split(",") if body else [None]):
        level, sep, gain = (pair or "").partition(":")
        try:
            if not sep:
                raise ValueError
            grade, value = int(level), float(gain)
        except ValueError:
            raise ValueError(f"measure {shown(spec)}: gains has to map grades to gains, e.g. gains={{0:1,1:4}}, got "
                             f"{shown(text)}") from None
        if grade in gains or not math.isfinite(value):
            raise ValueError(f"measure {shown(spec)}: gain of grade {grade} is "
                             f"{'given twice' if grade in gains else 'not a finite number'}")
        _check_parameter(spec, pair or "", value)
        gains[grade] = value
    return tuple(gains.items())


def _parse_ir(spec: str) -> Measure:
    match = _IR_PATTERN.match(spec.replace(" ", ""))
    pairs = _ir_parameters(spec, match["params"] or "") if match else []
    written = match["name"] if match else None
    if written in _IR_SPELLINGS:
        relative = [("relative", "True", "relative=True")] if written == "SetRelP" else []
        written, pairs = _IR_SPELLINGS[written], pairs + relative
    if match and written not in IR_NAMES and written in MEASURES:
        # A trec_eval name in ir_measures' notation: relative_P@5, unj@10, gm_map.
        info = MEASURES[written]
        names = (written if info.cutoff != "required" else None, written if info.cutoff != "none" else None)
    elif match and written in IR_NAMES:
        names = IR_NAMES[written]
    elif match and written in NOT_COMPUTED:
        raise ValueError(f"measure {shown(spec)} is ir_measures' {written}, {NOT_COMPUTED[written]}")
    else:
        raise ValueError(
            f"unknown measure {spec!r}; ir_measures names: {', '.join(sorted(set(IR_NAMES) | set(_IR_SPELLINGS)))} "
            "(e.g. P@5, nDCG@10, P(rel=2)@5, RR@10)"
        )
    # ir_measures' cutoff= (any measure) and recall= (IPrec) are the cut-off written inside the parentheses.
    cutoff_text = match["cutoff"]
    for key, value, _ in pairs:
        if key == "cutoff" or key == "recall" and written == "IPrec":
            if cutoff_text is not None:
                raise ValueError(f"measure {shown(spec)} gives its cut-off twice; write it once, e.g. "
                                 f"{written}@{_number(float(value)) if _is_number(value) else 10}")
            if not _is_number(value):
                raise ValueError(f"measure {shown(spec)}: {key} has to be a number, got {shown(value)}")
            cutoff_text = value
    pairs = [pair for pair in pairs if not (pair[0] == "cutoff" or pair[0] == "recall" and written == "IPrec")]
    without_cutoff, with_cutoff = names
    name = with_cutoff if cutoff_text else without_cutoff
    if name is None:
        needs = "a cut-off, e.g. " + match["name"] + "@10" if not cutoff_text else "no cut-off"
        if written in ("SetP", "SetR") and cutoff_text:
            cut = {"SetP": "P", "SetR": "R"}[written]
            needs += (f" ({written} is over the whole retrieved set; ir_measures parses {written}@k but none of its "
                      f"providers computes it: for the top k write {cut}@{cutoff_text}, as ranx's "
                      f"{'precision' if cut == 'P' else 'recall'}@{cutoff_text})")
        if written == "RBP" and cutoff_text:
            needs += " (RBP here is over the whole ranking; ir_measures parses RBP@k but none of its providers " \
                     "computes it)"
        raise ValueError(f"measure {spec!r} takes {needs}")
    cutoff: float | int | None = None
    if cutoff_text:
        if MEASURES[name].float_cutoffs:
            cutoff = float(cutoff_text)
        else:
            # A fraction is refused, never cut to its whole part (P@1.5 is not P@1); 10.0 is the whole number 10.
            value = float(cutoff_text)
            if not value.is_integer() or not 1 <= value <= _MAX_CUTOFF:
                raise ValueError(f"measure {spec!r}: cut-off has to be a whole number from 1 to {_MAX_CUTOFF:,}")
            cutoff = int(value)
    relevance_level = gain = judged_only = None
    params: tuple[float, ...] | None = None
    diversity: dict[str, float] = {}
    gain_map: tuple[tuple[int, float], ...] | None = None
    cwl: dict[str, str] = {}
    for key, value, param in pairs:
        if name in CWL_PARAMETER and key in _cwl_keys(name) and key not in cwl:
            cwl[key] = value
        elif name == "compat" and key in ("p", "normalize") and key not in cwl:
            cwl[key] = value
        elif key == "rel" and re.fullmatch(r"\d+", value):
            relevance_level = int(value)
        elif key == "p" and name in ("rbp", "rbp_resid") and _is_number(value) and 0 < float(value) < 1:
            params = (float(value),)
        elif (key == "beta" and name in ("F", "set_F") and _is_number(value)
              and 0 < float(value) <= MAX_PARAMETER):
            params = (float(value),)
        elif key == "dcg" and value in ("log2", "exp-log2") and name in ("ndcg", "ndcg_cut"):
            gain = "exponential" if value == "exp-log2" else "linear"
        elif key == "gains" and name in ("ndcg", "ndcg_cut"):
            gain_map = _ir_gains(spec, value)
        elif key == "relative" and name in ("set_P", "set_relative_P") and value in _TRUTH:
            name = "set_relative_P" if _TRUTH[value] else "set_P"
        elif key == "judged_only" and value in _TRUTH:
            judged_only = _TRUTH[value]
        elif key in DIVERSITY_PARAMETERS.get(name, ()) and _is_number(value) and 0 <= float(value) <= 1:
            diversity[key] = float(value)
        else:
            raise ValueError(
                f"measure {spec!r}: unsupported parameter {param!r} (supported: rel=N, judged_only=True, cutoff=K; "
                "dcg='log2' or 'exp-log2' and gains={grade:gain,...} for nDCG, beta=B for F and SetF, "
                "relative=True for SetP, p=P for RBP, recall=R for IPrec; T=, p=, min_rel=, max_rel=, quantity= "
                "for the C/W/L measures; p= and normalize= for Compat; alpha=A (0 to 1) for alpha_nDCG, alpha_DCG, "
                "ERR_IA, nERR_IA, NRBP and nNRBP, beta=B (0 to 1) for NRBP and nNRBP)"
            )
    if name in CWL_PARAMETER:
        params = _cwl_params(spec, name, cwl)
    if name == "compat":
        params = _compat_params(spec, cwl)
    if diversity:
        defaults = dict(zip(DIVERSITY_PARAMETERS[name], MEASURES[name].default_params))
        chosen = tuple({**defaults, **diversity}[label] for label in DIVERSITY_PARAMETERS[name])
        params = None if chosen == tuple(defaults.values()) else chosen
    if gain_map is not None and gain == "exponential":
        raise ValueError(f"measure {shown(spec)}: gains and dcg='exp-log2' together are not computed (ir_measures has "
                         "no provider for them either); give the exponential gains in the map, e.g. gains={1:1,2:3}")
    if name == "rbp":
        params = params or (0.8,)  # ir_measures' default persistence (trec_eval's is 0.9)
        # RBP(rel=N): relevant or not, as ir_measures computes it (through cwl_eval). Not ranx's rbp, which
        # multiplies by the grade itself: on graded judgments no setting gives it (metrics/profiles.py).
        gain = "binary" if relevance_level is not None else gain
    if name == "num_ret" and relevance_level is not None:
        # ir_measures: NumRet(rel=N) counts the retrieved documents with grade >= N (NumRelRet is NumRet(rel=1)).
        name = "num_rel_ret"
    return Measure(name, cutoff, relevance_level, gain_map=gain_map, gain=gain, judged_only=judged_only,
                   notation="ir_measures", params=params)


def _compat_params(spec: str, given: dict[str, str]) -> tuple[float, float]:
    """Compat's (p, normalize) from ir_measures' parameters: 0 < p < 1 (default 0.95), normalize True or False."""
    text = given.get("p", "0.95")
    p = float(text) if _is_number(text) else math.nan
    if not 0 < p < 1:
        raise ValueError(f"measure {shown(spec)}: persistence p has to lie between 0 and 1, e.g. Compat(p=0.8), got "
                         f"{shown(text)}")
    normalize = given.get("normalize", "True")
    if normalize not in _TRUTH:
        raise ValueError(f"measure {shown(spec)}: normalize has to be True or False, got {shown(normalize)}")
    return (p, float(_TRUTH[normalize]))


def _cwl_keys(name: str) -> tuple[str, ...]:
    own = CWL_PARAMETER[name]
    return ((own[0],) if own else ()) + ("min_rel", "max_rel", "quantity")


def _cwl_params(spec: str, name: str, given: dict[str, str]) -> tuple[float, ...]:
    """(T or p, min_rel, max_rel, quantity index) of a C/W/L measure from ir_measures' parameters, checked."""
    own = CWL_PARAMETER[name]
    value = own[1] if own else 0.0
    if own and own[0] in given:
        text = given[own[0]]
        value = float(text) if _is_number(text) else math.nan
        if own[0] == "p":
            bad = not 0 < value < 1
        elif name == "INST":  # below INST_MIN_T, INST's C_r exceeds 1 (metrics/measures/cwl.py)
            bad = not INST_MIN_T <= value <= MAX_PARAMETER
        else:
            bad = not 0 < value <= MAX_PARAMETER
        if bad:
            rule = "lie between 0 and 1" if own[0] == "p" else "be a positive number"
            if name == "INST":
                rule = (f"be at least {INST_MIN_T}: below it the chance to go on, ((x - 1) / x)^2 with "
                        "x = r + 2T - the gain so far, exceeds 1 after documents of gain 1 and the sums overflow")
            raise ValueError(f"measure {shown(spec)}: {own[0]} has to {rule}, got {shown(text)}")
    levels = []
    for key, default in (("min_rel", 0), ("max_rel", 1)):
        text = given.get(key, str(default))
        if not re.fullmatch(r"-?\d{1,18}", text):
            raise ValueError(f"measure {shown(spec)}: {key} has to be a whole number (a grade), got {shown(text)}")
        levels.append(int(text))
    if levels[0] >= levels[1]:
        raise ValueError(f"measure {shown(spec)}: min_rel ({levels[0]}) has to be below max_rel ({levels[1]}): grades "
                         "are scaled to gains (grade - min_rel) / (max_rel - min_rel)")
    quantity = given.get("quantity", "EU")
    if quantity not in QUANTITIES:
        raise ValueError(f"measure {shown(spec)}: quantity has to be one of {', '.join(QUANTITIES)} (cwl_eval's "
                         f"columns), got {shown(quantity)}")
    return (value, float(levels[0]), float(levels[1]), float(QUANTITIES.index(quantity)))


#: A decimal number as Python's float() and C's atof/strtod (trec_eval) both read it: sign, digits, point, exponent.
#: Not nan or inf (a parameter must be finite), nor Python's 1_000 (atof stops at the _) or non-ASCII digits.
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def _is_number(text: str) -> bool:
    """Whether ``text`` is a finite decimal number: ``10``, ``.5``, ``+0.25``, ``-3``, ``1e-5``, ``2.5E+3``; not
    ``nan``, ``inf``, ``1e400`` (inf to float()) or ``1_0``. A number out of a parameter's range gets that
    parameter's own message."""
    return _DECIMAL.fullmatch(text) is not None and math.isfinite(float(text))


def measure_at(name: str, k: int) -> Measure:
    """The registered measure ``name`` at cut-off ``k``, built from the registry without a measure string: ``P`` at
    4 is P@4 (``P.4``); a measure without cut-offs stays whole (``recip_rank`` at 4 is RR).

    >>> measure_at("ndcg_cut", 10).key, measure_at("recip_rank", 10).key
    ('ndcg_cut_10', 'recip_rank')
    """
    info = MEASURES.get(name)
    if info is None:
        raise ValueError(f"unknown measure {name!r}; known: {', '.join(known_measure_names())}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= _MAX_CUTOFF:
        raise ValueError(f"Argument `k` has to be a whole number from 1 to {_MAX_CUTOFF:,}, but got {k!r}")
    return Measure(name, None if info.cutoff == "none" else int(k))


def trec_spec(measure: Measure) -> str:
    """The trec_eval measure string of a measure without parameters: ``P.4``, ``map``."""
    if measure.gain_param_text or measure.params or measure.relevance_level is not None:
        raise ValueError(f"measure {measure.key!r} has parameters a trec_eval string of its name and cut-off "
                         "cannot carry")
    if measure.cutoff is None:
        return measure.name
    cutoff = _number(measure.cutoff) if isinstance(measure.cutoff, float) else str(measure.cutoff)
    return f"{measure.name}.{cutoff}"


def known_measure_names() -> list[str]:
    return list(MEASURES)


def reading_note(spec: str) -> str | None:
    """``describe_reading`` for a name other tools print or one that means different things in different tools
    (``hit_rate@10``, ``MAP@10``); None for trec_eval's and ir_measures' own names, or one that does not parse."""
    text = spec.strip()
    generic = re.sub(r"@\d+$", "@k", text)
    listed = _TOP_K_ACCURACY.match(text) or generic in AMBIGUOUS or (
        generic.removesuffix("@k"), generic.endswith("@k")) in _ALIAS_INDEX
    try:
        return describe_reading(text) if listed else None
    except ValueError:
        return None
