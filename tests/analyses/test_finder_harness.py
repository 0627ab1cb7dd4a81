"""The finder's credits on real runs, both ways: TREC DL 2020 (the built-in collection, real ties), at thresholds 1
and 2, cut to 20 documents and whole (top 100). Each tool that installs here (or the transcription of its code where
it does not) computes its own value of each measure it has; the finder, asked that value at 4 and 6 decimals, must
name that tool or say why not (an exclusion line naming it), and every tool it names, re-run with the options the
credit prints, must give the line's value (0 false credits). ranx has its own test on these runs
(test_check_tools.py: its kernels are replayed from a recording); tests/analyses/test_check_tools.py holds the same
claims on seeded random runs with long tie groups."""

from __future__ import annotations

import functools
import shutil

import pytest

from metrics.check import find_conventions
from metrics.profiles import PROFILES
from tests.analyses.test_check_tools import PEERS, Measure, profile_of

BY_NAME = {profile.name: profile for profile in PROFILES}
#: The tools whose values are computed here, with the threshold each takes (None: any, set by an option).
TOOLS = [name for name in PEERS if not name.startswith("ranx")]
MEASURES = [Measure("ndcg", 10), Measure("map", None), Measure("map", 10), Measure("RR", 10), Measure("P", 10)]
#: torchmetrics computes in float32 (its means differ from a double's in the 7th digit); gdeval prints 5 decimals per
#: query, which ir_measures averages.
TOLERANCE = {"torchmetrics": 2e-6, "ir_measures nDCG(dcg='exp-log2') (gdeval)": 5.1e-6}


@functools.cache
def _collection(run_name: str, depth: int):
    from metrics.real import DL20

    qrels, run = DL20.qrels().to_dict(), DL20.run(run_name).to_dict()
    return qrels, {q: dict(list(docs.items())[:depth]) for q, docs in run.items() if q in qrels}


def _at_level(qrels, level: int):
    """The qrels as a tool sees them at threshold ``level`` when its user passes it: relevant is grade >= level."""
    return {q: {d: int(g >= level) for d, g in js.items()} for q, js in qrels.items()}


def _level_of(profile_name: str, options: tuple[str, ...]) -> int | None:
    """The threshold a credit's options set (1 without one); None when it adds an option no peer here applies."""
    profile = BY_NAME[profile_name]
    text = " ".join(options)
    for level in range(2, 5):
        if profile.level_option and profile.level_option.format(level=level) in text:
            text = text.replace(profile.level_option.format(level=level), "").strip()
            return level if not text else None
    return 1 if not text else None


def _registry_name(measure: Measure) -> str:
    names = {"ndcg": ("ndcg", "ndcg_cut"), "map": ("map", "map_cut"), "RR": ("recip_rank", "recip_rank_cut"),
             "P": ("P", "P")}[measure.kind]
    return names[measure.k is not None]


def _value(tool: str, qrels, run, measure: Measure, level: int):
    profile = BY_NAME[tool]
    if _registry_name(measure) not in profile.measures:
        return None
    if level > 1 and (profile.settings.get("relevance_level") != "any level" or measure.kind == "ndcg"):
        return None  # a fixed threshold, or nDCG (graded): no threshold option to set
    if measure.kind == "ndcg" and tool == "ir_measures nDCG(dcg='exp-log2') (gdeval)":
        if shutil.which("perl") is None:
            return None  # gdeval.pl needs perl
        measure = Measure("ndcg_burges", measure.k)  # asked as nDCG@k, as a paper reports gdeval's number
    return PEERS[tool](_at_level(qrels, level) if level > 1 else qrels, run, measure)


def _tolerance(tool: str) -> float:
    return next((t for prefix, t in TOLERANCE.items() if tool.startswith(prefix)), 1e-9)


@pytest.mark.parametrize("run_name", ["BM25", "SPLADE++"])
@pytest.mark.parametrize("depth", [20, 100])
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.finder)
def test_every_tool_is_named_for_its_own_value_and_every_credit_gives_its_line(run_name, depth, level, measure):
    qrels, run = _collection(run_name, depth)
    values = {tool: _value(tool, qrels, run, measure, level) for tool in TOOLS}
    values = {tool: value for tool, value in values.items() if value is not None}
    if not values:
        pytest.skip(f"no tool here computes {measure.finder} at threshold {level}")
    for tool, value in values.items():
        given = BY_NAME[tool].decimals
        for decimals in sorted({min(4, given or 4), min(6, given or 6), given or 6}):  # and the tool's own digits
            asked = f"{value:.{decimals}f}"
            finding = find_conventions(qrels, run, measure.finder, asked)
            named = any(profile_of(c)[0] == tool for m in finding.matches for c in m.credits)
            excluded = [line for m in finding.matches for line in m.excluded if line.startswith(tool + ":")]
            assert named or excluded, (f"{tool} gives {measure.finder} = {asked} at threshold {level} on {run_name} "
                                       f"cut to {depth}, and is neither named nor said why not: "
                                       f"{[(m.description, m.credits) for m in finding.matches]}")
            for match in finding.matches:
                for credit in match.credits:
                    name, options = profile_of(credit)
                    if name not in TOOLS or BY_NAME[name].depth:
                        continue  # trec_eval's builds and ranx: their own tests; a depth profile: its own line
                    named_level = _level_of(name, options)
                    if named_level is None:
                        continue  # an option no peer here applies
                    theirs = _value(name, qrels, run, measure, named_level)
                    if theirs is None:
                        continue
                    # The claim: the tool gives the number asked (as it prints it), on this line's value.
                    assert f"{theirs:.{decimals}f}" == asked, (
                        f"{credit} is credited for {asked} ({match.description}) but gives {theirs}")
                    if BY_NAME[name].decimals is None:
                        assert theirs == pytest.approx(match.value, abs=_tolerance(name)), (credit, match.value, theirs)
