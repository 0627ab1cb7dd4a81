"""The finder names a tool only when the tool itself gives the line's number.

Each scenario has a peer compute a mean on random data (tied scores, float64 scores equal as float32, graded
judgments) and asks the finder which conventions give it. The scenario's tool must be credited on a matching
line, and every credit on every matching line that a peer here can compute (the tool itself where it installs,
the transcriptions of tests/engine/test_profiles.py where it does not) must give that line's value. Collections
are small: the finder's cost grows with the combinations, not with these tests.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

import numpy as np
import pytest

from metrics.check import find_conventions
from metrics.profiles import PROFILES
from tests.engine.test_attributions import _labels, _lightgbm_ndcg, collection
from tests.engine.test_profiles import (
    BY_NAME,
    _beir_evaluate,
    _lightgbm_map,
    _long_ties,
    _sentence_transformers,
    _signed,
    _torchmetrics_itself,
    _torchmetrics_query,
    _xgboost,
)
from tests.support.ranx_kernels import ranx_evaluate


@dataclass(frozen=True)
class Measure:
    """One measure in each tool's notation: kind ndcg, ndcg_burges, map, P, RR, Judged; k None for uncut."""

    kind: str
    k: int | None

    @property
    def finder(self) -> str:
        name = {"ndcg": "nDCG", "ndcg_burges": "nDCG(dcg='exp-log2')", "map": "AP", "P": "P", "RR": "RR",
                "Judged": "Judged", "ERR": "ERR"}[self.kind]
        return name if self.k is None else f"{name}@{self.k}"

    @property
    def trec(self) -> str | None:
        return {"ndcg": "ndcg_cut", "map": "map_cut", "P": "P"}.get(self.kind) if self.k else \
            {"ndcg": "ndcg", "map": "map", "RR": "recip_rank"}.get(self.kind)


def _pytrec_eval(qrels, run, measure: Measure):
    import pytrec_eval

    if measure.trec is None:
        return None
    spec = measure.trec + (f".{measure.k}" if measure.k else "")
    key = measure.trec + (f"_{measure.k}" if measure.k else "")
    scores = pytrec_eval.RelevanceEvaluator(qrels, {spec}).evaluate(run)
    return sum(s[key] for s in scores.values()) / len(scores)


def _ir_measures(qrels, run, measure: Measure):
    ir_measures = pytest.importorskip("ir_measures")
    parsed = ir_measures.parse_measure(measure.finder)
    return ir_measures.calc_aggregate([parsed], qrels, run)[parsed]


def _ranx(qrels, run, measure: Measure, make_comparable: bool = True):
    """ranx's mean, as ``evaluate(..., make_comparable=True)`` gives it or (``make_comparable=False``) as plain
    ``evaluate`` does where it takes the input (None where it refuses it: other queries in the run and qrels)."""
    name = {"ndcg": "ndcg", "ndcg_burges": "ndcg_burges", "map": "map", "P": "precision", "RR": "mrr"}.get(
        measure.kind)
    if name is None:
        return None
    judged = {q: {d: g for d, g in js.items() if g >= 0} for q, js in qrels.items()}
    if not make_comparable and (set(judged) != set(run) or not all(judged.values())):
        return None
    return ranx_evaluate(judged, run, name + (f"@{measure.k}" if measure.k else ""), return_mean=True,
                         make_comparable=make_comparable)


def _per_query_mean(qrels, run, score) -> float:
    return sum(score(*_labels(qrels[q], run[q])) for q in run) / len(run)


def _scikit_learn(qrels, run, measure: Measure):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    if measure.kind != "ndcg" or min(map(len, run.values())) < 2:
        return None
    return _per_query_mean(qrels, run, lambda labels, scores: sklearn_metrics.ndcg_score(
        [labels], [scores], k=measure.k))


def _lightgbm(qrels, run, measure: Measure):
    if measure.k is None or measure.kind not in ("ndcg", "map"):
        return None
    labels, scores = zip(*(_labels(qrels[q], run[q]) for q in run))
    if measure.kind == "ndcg":
        return _lightgbm_ndcg(list(labels), list(scores), measure.k)
    return _lightgbm_map(list(labels), list(scores), measure.k)


def _xgboost_value(qrels, run, measure: Measure):
    if measure.kind not in ("ndcg", "map"):
        return None
    if measure.kind == "map" and any(g > 1 for js in qrels.values() for g in js.values()):
        return None  # XGBoost's map takes binary labels only
    return _xgboost(qrels, run, measure.kind + (f"@{measure.k}" if measure.k else ""))


def _torchmetrics(qrels, run, measure: Measure, since_1_7_4: bool = True):
    key = {"ndcg": "nDCG", "map": "AP", "P": "P", "RR": "RR"}.get(measure.kind)
    if key is None or measure.k is None:
        return None
    return _per_query_mean(qrels, run, lambda labels, scores: _torchmetrics_query(
        labels, scores, measure.k, since_1_7_4)[key])


def _beir_value(qrels, run, measure: Measure):
    """What EvaluateRetrieval.evaluate returns (its means rounded with round(x, 5))."""
    key = {"ndcg": "ndcg_cut", "map": "map_cut", "P": "P"}.get(measure.kind)
    if key is None or measure.k is None:
        return None
    return _beir_evaluate(qrels, run, measure.k)[f"{key}_{measure.k}"]


def _sentence_transformers_value(qrels, run, measure: Measure, docid_ties: bool):
    key = {"ndcg": "ndcg", "map": "map", "P": "precision", "RR": "mrr"}.get(measure.kind)
    if key is None or measure.k is None:
        return None
    values = [_sentence_transformers({d for d, g in qrels[q].items() if g >= 1}, run[q], measure.k, docid_ties)[key]
              for q in run]
    return sum(values) / len(values)


#: Profile name -> the peer that computes it here (the tool, or the transcription of its code).
PEERS = {
    "pytrec_eval": _pytrec_eval,
    "ir_measures": _ir_measures,
    "ir_measures RR@k (msmarco)": _ir_measures,
    "ir_measures Judged@k": _ir_measures,
    "ir_measures nDCG(dcg='exp-log2') (gdeval)": _ir_measures,
    "ranx": lambda q, r, m: _ranx(q, r, m, make_comparable=False),
    "ranx ndcg_burges": lambda q, r, m: _ranx(q, r, m, make_comparable=False),
    "ranx make_comparable=True": _ranx,
    "ranx ndcg_burges make_comparable=True": _ranx,
    "scikit-learn ndcg_score": _scikit_learn,
    "LightGBM ndcg@k": _lightgbm,
    "LightGBM map@k": _lightgbm,
    "XGBoost ndcg": _xgboost_value,
    "XGBoost ndcg@k": _xgboost_value,
    "XGBoost map": _xgboost_value,
    "XGBoost map@k": _xgboost_value,
    "BEIR EvaluateRetrieval.evaluate": lambda q, r, m: _beir_value(q, r, m),
    "torchmetrics retrieval_normalized_dcg": _torchmetrics,
    "torchmetrics 1.7.4+": _torchmetrics,
    "torchmetrics before 1.7.4": lambda q, r, m: _torchmetrics(q, r, m, since_1_7_4=False),
    "sentence-transformers 6.2": lambda q, r, m: _sentence_transformers_value(q, r, m, docid_ties=True),
    "sentence-transformers 5.1 and earlier": lambda q, r, m: _sentence_transformers_value(q, r, m, docid_ties=False),
}


def _data(seed: int, *, n_queries: int = 25, max_docs: int = 15, nonnegative: bool = False, binary: bool = False,
          signed: bool = False, every_query_relevant: bool = False, numeric: bool = False,
          two_each: bool = False):
    qrels, run = collection(seed, n_queries, max_docs=max_docs, nonnegative=nonnegative)
    if two_each:  # scikit-learn's ndcg_score refuses a ranking of one document
        run = {q: s for q, s in run.items() if len(s) >= 2}
    if binary:
        qrels = {q: {d: min(g, 1) for d, g in js.items()} for q, js in qrels.items()}
    if signed:  # scores <= 0 in every other query (one exactly 0), as torchmetrics 1.7.4+ reads them
        run = _signed(run, seed)
    if every_query_relevant or signed:
        qrels = {q: js for q, js in qrels.items() if any(g >= 1 for g in js.values())}
    if signed:  # and no two scores equal as float32 (torchmetrics' rule)
        run = {q: s for q, s in run.items() if len(set(np.float32(list(s.values())))) == len(s)}
        qrels = {q: js for q, js in qrels.items() if q in run}
        assert sum(min(s.values()) <= 0 for s in run.values()) >= len(run) // 3
    if numeric:  # gdeval wants numeric query ids
        names = {q: str(i + 1) for i, q in enumerate(qrels)}
        qrels = {names[q]: {d: min(g, 4) for d, g in js.items()} for q, js in qrels.items()}
        run = {names[q]: s for q, s in run.items() if q in names}
    return qrels, {q: s for q, s in run.items() if q in qrels}


#: (peer's profile, measure, data): the peer computes the value the finder is asked about.
SCENARIOS = [
    ("pytrec_eval", Measure("ndcg", 10), dict(seed=101)),
    ("pytrec_eval", Measure("map", None), dict(seed=102)),
    ("pytrec_eval", Measure("P", 5), dict(seed=103)),
    ("ir_measures", Measure("ndcg", 10), dict(seed=104)),
    ("ir_measures", Measure("map", 10), dict(seed=105)),
    ("ir_measures RR@k (msmarco)", Measure("RR", 10), dict(seed=106)),
    ("ir_measures Judged@k", Measure("Judged", 10), dict(seed=107)),
    ("ranx make_comparable=True", Measure("ndcg", 10), dict(seed=108, nonnegative=True)),
    ("ranx ndcg_burges make_comparable=True", Measure("ndcg_burges", 10), dict(seed=109, nonnegative=True)),
    ("ranx make_comparable=True", Measure("map", 5), dict(seed=110, nonnegative=True)),
    ("ranx make_comparable=True", Measure("P", 5), dict(seed=111, nonnegative=True)),
    ("ranx make_comparable=True", Measure("RR", None), dict(seed=112, nonnegative=True)),
    ("scikit-learn ndcg_score", Measure("ndcg", 5), dict(seed=113, nonnegative=True, two_each=True)),
    ("scikit-learn ndcg_score", Measure("ndcg", None), dict(seed=114, nonnegative=True, two_each=True)),
    ("LightGBM ndcg@k", Measure("ndcg", 5), dict(seed=115, nonnegative=True)),
    ("LightGBM map@k", Measure("map", 5), dict(seed=116, nonnegative=True)),
    ("XGBoost ndcg@k", Measure("ndcg", 10), dict(seed=117, nonnegative=True)),
    ("XGBoost map@k", Measure("map", 5), dict(seed=118, nonnegative=True, binary=True)),
    ("torchmetrics retrieval_normalized_dcg", Measure("ndcg", 5), dict(seed=119, nonnegative=True)),
    ("torchmetrics 1.7.4+", Measure("map", 5), dict(seed=120, nonnegative=True, signed=True, n_queries=80)),
    ("sentence-transformers 6.2", Measure("ndcg", 10), dict(seed=121, every_query_relevant=True)),
    ("sentence-transformers 5.1 and earlier", Measure("map", 10), dict(seed=122, every_query_relevant=True)),
    ("ir_measures nDCG(dcg='exp-log2') (gdeval)", Measure("ndcg_burges", 10), dict(seed=123, numeric=True)),
    # Rankings of up to 60 documents: XGBoost's uncut map and ndcg read the top 32.
    ("XGBoost ndcg", Measure("ndcg", None), dict(seed=124, nonnegative=True, max_docs=60)),
    ("XGBoost map", Measure("map", None), dict(seed=125, nonnegative=True, binary=True, max_docs=60)),
    ("BEIR EvaluateRetrieval.evaluate", Measure("ndcg", 10), dict(seed=126)),
]

#: The decimals a scenario's value is asked at: the tool's own when it rounds (BEIR: 5), else 6 (gdeval: 4).
def _asked(peer: str, value: float) -> str:
    decimals = 4 if "gdeval" in peer else BY_NAME[peer].decimals or 6
    return f"{value:.{decimals}f}"


#: Options of a credit that the peers here apply anyway.
APPLIED: dict[str, tuple[str, ...]] = {}


def profile_of(credit: str) -> tuple[str, tuple[str, ...]]:
    """The profile a credit names and the options it adds: ``"ranx make_comparable=True"`` -> ranx, (option,)."""
    name = max((p.name for p in PROFILES if credit == p.name or credit.startswith(p.name + " ")), key=len)
    return name, tuple(credit[len(name):].split())


@pytest.mark.parametrize("peer,measure,data", SCENARIOS, ids=[f"{p}:{m.finder}" for p, m, _ in SCENARIOS])
def test_the_finder_credits_the_peer_and_no_tool_falsely(peer, measure, data):
    if "gdeval" in peer and shutil.which("perl") is None:
        pytest.skip("gdeval.pl needs perl")
    qrels, run = _data(**data)
    value = PEERS[peer](qrels, run, measure)
    tolerance = 5.1e-6 if "gdeval" in peer else 1e-9  # gdeval prints 5 decimals per query
    finding = find_conventions(qrels, run, measure.finder, _asked(peer, value))
    assert finding.matches, (peer, value)
    credited = [match for match in finding.matches if peer in map(lambda c: profile_of(c)[0], match.credits)]
    assert credited, f"{peer} gives {value:.6f} but is not credited: {[m.credits for m in finding.matches]}"
    assert any(abs(BY_NAME[peer].shown(match.value) - value) <= tolerance for match in credited)
    for match in finding.matches:
        for credit in match.credits:
            name, options = profile_of(credit)
            if name not in PEERS or set(options) - set(APPLIED.get(name, ())):
                continue  # trec_eval's builds, options no peer here applies: tests/engine/test_profiles.py
            theirs = PEERS[name](qrels, run, measure)
            if theirs is None:
                continue
            shown = BY_NAME[name].shown(match.value)  # BEIR's round(mean, 5)
            assert theirs == pytest.approx(shown, abs=5.1e-6 if "gdeval" in credit else 1e-9), (
                f"{credit} is credited with {match.value} ({match.description}) but gives {theirs}")


def test_ranx_is_credited_on_long_tie_groups():
    # Tie groups of up to 1,000 documents: ranx orders them by numba's quicksort, once (tie_order="ranx") or, with
    # make_comparable=True, twice (ranx_resorted).
    qrels, run = _long_ties(43)
    for make_comparable, credit in ((False, "ranx"), (True, "ranx make_comparable=True")):
        value = _ranx(qrels, run, Measure("RR", 10), make_comparable)
        finding = find_conventions(qrels, run, "RR@10", f"{value:.6f}")
        assert any(credit in match.credits for match in finding.matches), (credit, value)


def _dl20(name: str):
    from metrics.real import DL20

    qrels, run = DL20.qrels().to_dict(), DL20.run(name).to_dict()
    return qrels, {q: scores for q, scores in run.items() if q in qrels}


@pytest.mark.parametrize("name", ["SPLADE++", "BM25"])
@pytest.mark.parametrize("measure", [Measure("map", None), Measure("RR", 10), Measure("ndcg", 10)],
                         ids=lambda m: m.finder)
@pytest.mark.parametrize("level", [1, 2])
def test_ranx_is_credited_for_its_own_numbers_on_dl20_runs_with_ties(name, measure, level):
    qrels, run = _dl20(name)
    assert any(len(set(scores.values())) < len(scores) for scores in run.values())
    ranx_name = {"map": "map", "RR": "mrr", "ndcg": "ndcg"}[measure.kind] + (f"@{measure.k}" if measure.k else "")
    value = ranx_evaluate(qrels, run, ranx_name + (f"-l{level}" if level > 1 else ""), return_mean=True,
                          make_comparable=True)
    for decimals in (4, 6):
        finding = find_conventions(qrels, run, measure.finder, f"{value:.{decimals}f}")
        exact = [m for m in finding.matches if abs(m.value - value) <= 1e-12]
        assert any(profile_of(c)[0] == "ranx make_comparable=True" for m in exact for c in m.credits), (
            decimals, value, [m.credits for m in finding.matches])
        for match in finding.matches:  # every ranx credit, re-run with its options, gives its line's value
            for credit in match.credits:
                profile, options = profile_of(credit)
                if profile not in ("ranx", "ranx make_comparable=True"):
                    continue
                named = next((int(o[2:]) for o in options if o.startswith("-l")), 1)
                theirs = ranx_evaluate(qrels, run, ranx_name + (f"-l{named}" if named > 1 else ""),
                                       return_mean=True, make_comparable=profile != "ranx")
                assert theirs == pytest.approx(match.value, abs=1e-12), (credit, match.description, theirs)


def _compat_and_accuracy_cases():
    """(profile, measure, qrels, run, whether its rules hold) for ir_measures' Compat and Accuracy."""
    from metrics import order_documents

    qrels, run = collection(49, 30)
    run = {q: {d: s + 10.0 for d, s in scores.items()} for q, scores in run.items()}  # rule positive_scores
    in_order = {q: dict(sorted(js.items())) for q, js in qrels.items()}  # rule relevant_ties_in_qrels_order
    cases = [("ir_measures Compat", "Compat", in_order, run, True),
             ("ir_measures Compat", "Compat(p=0.8)", {q: dict(sorted(js.items(), reverse=True)) for q, js in
                                                      qrels.items()}, run, False),
             ("ir_measures Compat", "Compat", in_order, {q: {d: s - 10.0 for d, s in scores.items()}
                                                         for q, scores in run.items()}, False)]
    qrels, run = collection(51, 60)
    for name, k in (("Accuracy", None), ("Accuracy(cutoff=5)", 5)):
        top = {q: order_documents(s, tie_order="as_given", score_precision="float64")[:k] for q, s in run.items()}
        relevant = {q: sum(qrels[q].get(d, 0) >= 1 for d in docs) for q, docs in top.items()}
        kept = [q for q in run if 0 < relevant[q] < len(top[q])]  # rule relevant_and_nonrelevant_in_top_k
        none = next(q for q in run if relevant[q] == 0)
        every = {"only relevant": {d: 1 for d in top[kept[0]]}}
        for extra, judged in (({}, {}), ({none: run[none]}, {none: qrels[none]}),
                              ({"only relevant": dict(run[kept[0]])}, every)):
            cases.append(("ir_measures Accuracy", name, {q: qrels[q] for q in kept} | judged,
                          {q: run[q] for q in kept} | extra, not extra))
    return cases


def test_compat_and_accuracy_are_credited_when_and_only_when_their_rules_hold_and_give_their_number():
    ir_measures = pytest.importorskip("ir_measures")
    import metrics
    from tests.engine.test_profiles import ours

    for profile, name, qrels, run, holds in _compat_and_accuracy_cases():
        key = metrics.parse_measure(name)[0].key
        mine = metrics.aggregate(ours(qrels, run, [name], profile))[key]
        try:
            parsed = ir_measures.parse_measure(name)
            theirs = ir_measures.calc_aggregate([parsed], qrels, run)[parsed]
        except ZeroDivisionError:  # Accuracy on a top k without a non-relevant document
            theirs = None
        finding = find_conventions(qrels, run, name, f"{mine:.6f}")
        credited = any(profile in match.credits for match in finding.matches)
        assert credited == holds == (theirs is not None and abs(theirs - mine) <= 1e-9), (profile, name, mine, theirs)


def test_pyndeval_and_its_ir_measures_provider_are_credited_for_their_own_numbers_only():
    pyndeval = pytest.importorskip("pyndeval")
    import metrics
    from tests.engine.test_diversity import random_collection

    qrels, run = random_collection(53, queries=30)
    del run["q2"]  # pyndeval skips a judged query the run lacks; ir_measures' provider scores it 0
    lines = [(q, s, d, g) for q, docs in qrels.items() for d, grades in docs.items() for s, g in grades.items()]
    scored = [(q, d, score) for q, docs in run.items() for d, score in docs.items()]
    for name in ("alpha-nDCG@10", "ERR-IA@20", "MAP-IA", "strec@5"):
        theirs = pyndeval.RelevanceEvaluator(lines, [name]).evaluate(scored)
        value = sum(values[name] for values in theirs.values()) / len(theirs)
        zero = value * len(theirs) / (len(theirs) + 1)  # what ir_measures' provider gives: q2 counts 0
        for wanted, tool, other in ((value, "pyndeval", "ir_measures (pyndeval)"),
                                    (zero, "ir_measures (pyndeval)", "pyndeval")):
            finding = find_conventions(qrels, run, name, f"{wanted:.6f}")
            credits = [credit for match in finding.matches for credit in match.credits]
            assert tool in credits and other not in credits, (name, tool, credits)
        # trec_eval's tie order (ndeval -traditional's, the engine's default) ranks the tied scores otherwise
        default = metrics.aggregate(metrics.evaluate(qrels, run, [name]))[name]
        assert abs(default - value) > 1e-6
        finding = find_conventions(qrels, run, name, f"{default:.6f}")
        assert not any("pyndeval" in credit for match in finding.matches for credit in match.credits), name


def test_the_finders_command_line_reads_subtopic_qrels_for_a_diversity_measure(tmp_path):
    import io
    import json

    from metrics.check.__main__ import main
    from tests.support.paths import TEST_DATA

    case = json.loads((TEST_DATA / "ndeval" / "ir_measures_pyndeval.json").read_text())
    (tmp_path / "qrels").write_text(case["subtopic_qrels"])  # qid subtopic docno grade
    (tmp_path / "run").write_text(case["run"])
    out, err = io.StringIO(), io.StringIO()
    argv = ["--measure", case["measure"], "--value", str(case["expected"]["all"]), str(tmp_path / "qrels"),
            str(tmp_path / "run")]
    assert (main(argv, out=out, err=err), err.getvalue()) == (0, "")
    assert "(pyndeval, ir_measures (pyndeval))" in out.getvalue().splitlines()[0], out.getvalue()


def test_the_finders_command_line_on_subtopic_qrels_says_what_falls_short_when_nothing_matches(tmp_path):
    import io
    import json

    from metrics.check.__main__ import main
    from tests.support.paths import TEST_DATA

    case = json.loads((TEST_DATA / "ndeval" / "ir_measures_pyndeval.json").read_text())
    (tmp_path / "qrels").write_text(case["subtopic_qrels"])
    (tmp_path / "run").write_text(case["run"])
    out, err = io.StringIO(), io.StringIO()
    # No convention gives 0.9: the variants (cut-offs 19, not ndeval's refused 21) and the depth shortfall, which
    # counts each document by its best subtopic grade, are tried.
    argv = ["--measure", "alpha-nDCG@20", "--value", "0.9", str(tmp_path / "qrels"), str(tmp_path / "run")]
    assert (main(argv, out=out, err=err), err.getvalue()) == (1, "")
    assert out.getvalue().startswith("no combination of conventions gives alpha-nDCG@20 = 0.9")
    assert "depth: grade >= 1: 2 judged relevant documents lie beyond what the run holds" in out.getvalue()


def test_cwl_eval_is_credited_for_its_own_numbers():
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl", reason="cwl_eval does not install here")
    qrels, run = collection(48, 20)
    rng = np.random.default_rng(48)  # input order unrelated to the scores: cwl_eval keeps ties as given
    run = {q: dict(sorted(scores.items(), key=lambda item: rng.random())) for q, scores in run.items()}
    qrels = {q: js for q, js in qrels.items() if q in run}
    for name, profile in (("BPM(T=1,max_rel=3)@10", "cwl_eval C/W/L"), ("SDCG(max_rel=3)@10", "cwl_eval C/W/L"),
                          ("AP", "cwl_eval")):
        parsed = ir_measures.parse_measure(name)
        value = ir_measures.cwl_eval.calc_aggregate([parsed], qrels, run)[parsed]
        matches = find_conventions(qrels, run, name, f"{value:.6f}").matches
        assert any(profile in match.credits and abs(match.value - value) <= 1e-9 for match in matches), name


# ---- what a tool prints, how deep it reads, which threshold it takes, why it is not named (issue 41) ----------


def _dl20_cut(run_name: str = "BM25", depth: int | None = None):
    """TREC DL 2020's passage qrels and one of its runs as built in (top 100, real ties), its judged queries only,
    each ranking cut to ``depth`` documents."""
    qrels, run = _dl20(run_name)
    return qrels, {q: dict(list(docs.items())[:depth]) for q, docs in run.items()}


def _credited(finding, profile: str) -> list:
    return [match for match in finding.matches if profile in (profile_of(c)[0] for c in match.credits)]


def test_a_tool_is_named_only_for_the_digits_it_gives():
    # BEIR returns round(mean, 5) and logs it to 4 decimals; trec_eval prints %.4f; pytrec_eval returns the double.
    qrels, run = _data(126)
    mean = _pytrec_eval(qrels, run, Measure("ndcg", 10))
    beir = _beir_value(qrels, run, Measure("ndcg", 10))
    assert beir == round(mean, 5)
    for asked, named, not_named in ((f"{mean:.6f}", "pytrec_eval", "BEIR EvaluateRetrieval.evaluate"),
                                    (f"{beir:.5f}", "BEIR EvaluateRetrieval.evaluate", "trec_eval 10.0"),
                                    (f"{beir:.4f}", "BEIR EvaluateRetrieval.evaluate", None),
                                    (f"{mean:.4f}", "trec_eval 10.0", None)):
        finding = find_conventions(qrels, run, "nDCG@10", asked)
        assert _credited(finding, named), (asked, named, [m.credits for m in finding.matches])
        if not_named is not None:
            assert not _credited(finding, not_named), (asked, not_named)
            line = next(line for m in finding.matches for line in m.excluded if line.startswith(not_named + ":"))
            assert "decimals" in line, line
    # A 5-decimal value BEIR's rounding cannot give, though it lies within the 5-decimal interval of no mean here.
    off = f"{beir + 1e-5:.5f}"
    assert not _credited(find_conventions(qrels, run, "nDCG@10", off), "BEIR EvaluateRetrieval.evaluate")


def test_xgboosts_uncut_map_is_named_for_its_own_value_on_a_real_run():
    # DL 2020's BM25 run (1,000 documents a query, real ties) with labels grade >= 2 (XGBoost's map takes 0/1).
    qrels, run = _dl20_cut()
    binary = {q: {d: int(g >= 2) for d, g in js.items()} for q, js in qrels.items()}
    own = _xgboost(binary, run, "map")  # reads the top 32
    deep = _xgboost(binary, run, "map@100")
    assert abs(own - deep) > 1e-3
    finding = find_conventions(binary, run, "AP", f"{own:.6f}")
    credited = _credited(finding, "XGBoost map")
    assert credited and all(match.read_to == 32 for match in credited), [m.credits for m in finding.matches]
    assert all("(read to rank 32)" in match.description for match in credited)
    finding = find_conventions(binary, run, "AP", f"{deep:.6f}")
    assert not any("XGBoost" in credit for match in finding.matches for credit in match.credits)
    assert any(line.startswith("XGBoost map: not named on this line: its map reads only the top 32 ranks")
               for match in finding.matches for line in match.excluded), [m.excluded for m in finding.matches]


def test_the_ms_marco_script_is_named_for_a_reference_file_of_grade_2():
    # The script reads its reference file, whatever grades made it: here the documents graded >= 2.
    qrels, run = _dl20_cut()
    reference = {q: {d for d, g in js.items() if g >= 2} for q, js in qrels.items()}
    reference = {q: docs for q, docs in reference.items() if docs}
    total = sum(next((1 / r for r, d in enumerate(list(docs)[:10], 1) if d in reference[q]), 0.0)
                for q, docs in run.items() if q in reference)
    value = total / len(reference)
    finding = find_conventions({q: qrels[q] for q in reference}, run, "RR@10", f"{value:.6f}")
    credits = [credit for match in finding.matches for credit in match.credits]
    assert "MS MARCO eval script MRR@10 with a reference file of the documents graded >= 2" in credits, credits


def test_a_tool_left_out_by_a_condition_says_which_and_why(tmp_path):
    import io

    from metrics.check.__main__ import main
    from metrics.export import qrels_to_trec, run_to_trec

    qrels, run = _data(127, nonnegative=True)
    one = next(q for q in run)
    run[one] = dict(list(run[one].items())[:1])  # scikit-learn's ndcg_score refuses a ranking of one document
    import metrics
    from tests.engine.test_profiles import ours

    value = metrics.aggregate(ours(qrels, run, ["ndcg_cut.5"], "scikit-learn ndcg_score"))["ndcg_cut_5"]
    finding = find_conventions(qrels, run, "nDCG@5", f"{value:.6f}")
    lines = [line for match in finding.matches for line in match.excluded]
    assert f"scikit-learn ndcg_score: not named: query {one} has 1 document (every ranking has at least two " \
           "documents (scikit-learn's ndcg_score refuses one))" in lines, lines
    (tmp_path / "qrels").write_text(qrels_to_trec(qrels))
    (tmp_path / "run").write_text(run_to_trec({q: list(docs.items()) for q, docs in run.items()}))
    out, err = io.StringIO(), io.StringIO()
    assert main(["--measure", "nDCG@5", "--value", f"{value:.6f}", "--explain", str(tmp_path / "qrels"),
                 str(tmp_path / "run")], out=out, err=err) == 0, err.getvalue()
    assert f"    scikit-learn ndcg_score: not named: query {one} has 1 document" in out.getvalue(), out.getvalue()


def test_the_depth_note_gives_the_bound_of_every_level_searched():
    # DL 2020's BM25 run cut to 20 against AP@100 computed at grade >= 2 on the whole run: the note gives the
    # bound at grades >= 1, 2 and 3, the producer's grade >= 2 among them, and that bound is above the value.
    import metrics
    from metrics.check.depth import finding_shortfalls

    qrels, run = _dl20_cut(depth=None)
    produced = metrics.aggregate(metrics.evaluate(qrels, run, ["map_cut.100"], relevance_level=2))["map_cut_100"]
    cut = {q: dict(list(docs.items())[:20]) for q, docs in run.items()}
    finding = find_conventions(qrels, cut, "AP@100", f"{produced:.4f}")
    assert not finding.matches
    shortfalls = finding_shortfalls(qrels, cut, finding)
    assert [s.relevant_grade for s in shortfalls] == [1, 2, 3]
    assert shortfalls[1].best_value >= produced


def _tied_within_grades(seed: int):
    """Rankings of up to 40 documents where every tie (as 32-bit floats) joins documents of one grade: pairs of the
    same grade share a score, so torch's order of them cannot change any value."""
    qrels, run = _data(seed, n_queries=30, max_docs=40, nonnegative=True)
    tied = {}
    for q, scores in run.items():
        labels = {d: max(qrels[q].get(d, 0), 0) for d in scores}
        seen: dict[int, int] = {}
        tied[q] = {}
        for d in sorted(scores, key=scores.get, reverse=True):
            seen[labels[d]] = seen.get(labels[d], 0) + 1
            tied[q][d] = 100.0 * labels[d] + 50.0 - seen[labels[d]] // 2  # two of a grade per score
    return qrels, tied


@pytest.mark.parametrize("measure", [Measure("P", 5), Measure("map", 10), Measure("RR", 10), Measure("ndcg", 10)],
                         ids=lambda m: m.finder)
def test_torchmetrics_is_credited_when_its_ties_join_documents_of_one_grade_only(measure):
    qrels, run = _tied_within_grades(132)
    assert any(len(set(np.float32(list(s.values())))) < len(s) for s in run.values())
    value = _torchmetrics(qrels, run, measure)
    finding = find_conventions(qrels, run, measure.finder, f"{value:.6f}")
    credited = [m for m in finding.matches if any(profile_of(c)[0].startswith("torchmetrics") for c in m.credits)]
    assert credited and all(abs(m.value - value) <= 1e-6 for m in credited), [m.credits for m in finding.matches]
    pytest.importorskip("torchmetrics")
    key = {"ndcg": "nDCG", "map": "AP", "P": "P", "RR": "RR"}[measure.kind]
    itself = [_torchmetrics_itself(*_labels(qrels[q], run[q]), measure.k)[key] for q in run]
    assert sum(itself) / len(itself) == pytest.approx(value, abs=1e-6)  # torch's own unstable sort, same value


def test_torchmetrics_is_not_named_where_a_tie_joins_grades_and_the_finder_says_which():
    qrels, run = _tied_within_grades(133)
    q = next(q for q, scores in run.items() if len({max(qrels[q].get(d, 0), 0) for d in scores}) > 1)
    top = max(run[q], key=run[q].get)
    other = next(d for d in run[q] if max(qrels[q].get(d, 0), 0) != max(qrels[q].get(top, 0), 0))
    run[q][other] = run[q][top]  # one tie across two grades
    value = _pytrec_eval(qrels, run, Measure("P", 5))
    finding = find_conventions(qrels, run, "P@5", f"{value:.6f}")
    assert not any(profile_of(c)[0].startswith("torchmetrics") for m in finding.matches for c in m.credits)
    lines = [line for m in finding.matches for line in m.excluded if line.startswith("torchmetrics")]
    assert lines and all("documents of different grades tied at" in line for line in lines), lines
