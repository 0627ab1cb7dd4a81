"""How many per-query values differ from pytrec_eval's (trec_eval 9.0.8) under each trec_eval preset: a count over
real runs, not a timing.

    python bench/pytrec_eval_agreement.py QRELS RUN [RUN ...]

Every measure pytrec_eval computes (its ``supported_measures``, default parameters) at relevance levels 1 and 2,
per query, compared to 1e-12. The default (trec_eval 9.0.8) should differ on none; ``--trec-eval 10.0`` differs
where its doubles break float ties differently and where lround moves a recall cut-off.
"""

from __future__ import annotations

import argparse
import sys

import metrics
from metrics.io.read import read_qrels_path, read_run_path
from metrics.optional import require

SETTINGS = {"default (9.0.8)": {}, "trec_eval=10.0": {"trec_eval": "10.0"},
            "the former default (float32 scores, lround cut-offs)": {"recall_cutoff": "round"}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("qrels")
    parser.add_argument("runs", nargs="+")
    args = parser.parse_args(argv)
    pytrec_eval = require("pytrec_eval", needed_by="bench/pytrec_eval_agreement.py")
    qrels = read_qrels_path(args.qrels).to_dict()
    runs = {path: read_run_path(path).to_dict() for path in args.runs}
    measures = sorted(set(pytrec_eval.supported_measures) - {"runid", "relstring"})
    for label, settings in SETTINGS.items():
        differing = compared = 0
        for run in runs.values():
            for level in (1, 2):
                reference = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(run)
                ours = metrics.evaluate(qrels, run, measures, relevance_level=level, **settings)
                for qid, values in reference.items():
                    for key, value in values.items():
                        compared += 1
                        differing += abs(ours[qid][key] - value) > 1e-12
        print(f"{label}: {differing:,} of {compared:,} values differ from pytrec_eval")
    return 0


if __name__ == "__main__":
    sys.exit(main())
