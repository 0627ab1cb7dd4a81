"""Server-side time of one explorer rerun after an edit, for a 100-item list (target: at most 0.3 s).

The page is driven through Streamlit's AppTest, so the time covers everything the server does on a rerun:
state, editor frames, the engine, the explanations, pytrec_eval's live agreement check and the charts. It is
compared with the same list evaluated once through pytrec_eval alone, measured in the same run.

    python bench/bench_explorer.py [--items 100] [--repeats 15]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def make_list(items: int, seed: int) -> dict[str, str]:
    rng = random.Random(seed)
    docs = [f"doc{i:04d}" for i in range(items)]
    scores = sorted((round(rng.random(), 4) for _ in docs), reverse=True)
    judged = rng.sample(docs, items // 2) + [f"missed{i}" for i in range(10)]
    return {
        "ranking": ",".join(f"{doc}:{score}" for doc, score in zip(docs, scores)),
        "qrels": ",".join(f"{doc}:{rng.choice([0, 0, 1, 2, 3])}" for doc in judged),
        "k": "10",
    }


def time_reruns(params: dict[str, str], repeats: int) -> list[float]:
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    timings = []
    for step in range(repeats):
        at.number_input(key="k_input").set_value(10 + step % 5)
        start = time.perf_counter()
        at.run()
        timings.append(time.perf_counter() - start)
        assert not at.exception, at.exception
    return timings


def time_pytrec_eval(params: dict[str, str], repeats: int) -> list[float]:
    import pytrec_eval

    run = {"q": {item.split(":")[0]: float(item.split(":")[1]) for item in params["ranking"].split(",")}}
    qrels = {"q": {item.split(":")[0]: int(item.split(":")[1]) for item in params["qrels"].split(",")}}
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        pytrec_eval.RelevanceEvaluator(qrels, {"P.10", "recall.10", "recip_rank", "map_cut.10", "ndcg_cut.10",
                                               "success.10"}).evaluate(run)
        timings.append(time.perf_counter() - start)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    params = make_list(args.items, seed=20261130)
    rerun = statistics.median(time_reruns(params, args.repeats))
    reference = statistics.median(time_pytrec_eval(params, args.repeats))
    print(f"explorer rerun, {args.items} items: median {rerun * 1000:.0f} ms, {rerun / 0.3:.2f}x the 300 ms budget")
    print(f"one pytrec_eval evaluation of the same list: {reference * 1000:.2f} ms "
          f"(a rerun costs {rerun / reference:.0f}x one evaluation)")


if __name__ == "__main__":
    main()
