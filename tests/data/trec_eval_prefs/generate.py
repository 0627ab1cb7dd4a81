"""Regenerate this folder: seeded random preference files, judgment-group qrels, z-score files and runs, and what
each trec_eval build prints for them (``-R prefs``, ``-R qrels_prefs``, ``-R qrels_jg``, ``-Z``, and ``yaap``, the
one trec_eval measure over qrels that its all_trec leaves out).

    .venv/bin/python tests/data/trec_eval_prefs/generate.py /work/tools/trec_eval-9.0.8 /work/tools/trec_eval-10.0

Writes ``cases.jsonl.gz``: one JSON object a line with ``case``, ``build``, ``flags``, the two input files' text
(``judgments``, ``run``; a ``-Z`` file's text as ``zscores``), ``status`` and ``stdout``, what the build printed
(status 0, or 4 where trec_eval 10.0 stops at a judged query the run lacks), and ``stderr`` where it refused the
judgments or the -Z file ("Malformed line": status 2 for a comment line that build does not skip or a blank line in
a judgments file, 255 for either in a -Z file). tests/engine/test_preferences.py replays them; tests never run
trec_eval.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEEDS = tuple(range(1, 9))
QUERIES = 5


def run_text(rng: np.random.Generator, pools: dict[str, list[str]], lacks_one: bool) -> str:
    """A run over each query's pool plus unjudged documents: scores with exact ties and doubles that tie as C
    floats (9.0.8 reads scores as floats), a query the judgments lack, and (``lacks_one``) a judged query it lacks,
    at which trec_eval 10.0 stops (exit 4, "result qid not found in qrels") after printing the queries before it."""
    lines = []
    for q, (qid, pool) in enumerate(pools.items()):
        if lacks_one and q == QUERIES - 1:
            continue
        docs = list(rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False))
        docs += [f"u{qid}-{i}" for i in range(int(rng.integers(0, 4)))]
        for rank, doc in enumerate(docs, start=1):
            score = round(float(rng.uniform(0, 3)), 1)
            if rng.random() < 0.2:
                score += 1e-9  # equal to the rounded score as a C float
            lines.append(f"{qid} Q0 {doc} {rank} {score!r} seeded\n")
    lines.append("unjudged Q0 d1 1 1.0 seeded\n")
    return "".join(lines)


def prefs_text(rng: np.random.Generator) -> tuple[str, dict[str, list[str]]]:
    """-R prefs: per query one to three judgment groups, each with one sub-group (classes by level) or several
    (a partial order made transitive). Each group's levels come from one hidden level per document, so its
    sub-groups never contradict each other; many level-0 documents exercise prefs_avgjg_Rnonrel's cut to R."""
    lines, pools = [], {}
    for q in range(QUERIES):
        qid = f"q{q}"
        pool = [f"d{q}-{i}" for i in range(int(rng.integers(3, 14)))]
        pools[qid] = pool
        for g in range(int(rng.integers(1, 4))):
            hidden = {doc: float(rng.choice([0, 0, 0, 1, 2, 2.5, 4])) for doc in pool}
            for s in range(int(rng.choice([1, 1, 2, 3]))):
                chosen = rng.choice(pool, size=int(rng.integers(2, len(pool) + 1)), replace=False)
                lines.extend(f"{qid} g{g} s{s} {doc} {hidden[doc]:g}\n" for doc in chosen)
    rng.shuffle(lines)
    return "".join(lines), pools


def qrels_text(rng: np.random.Generator, groups: int) -> tuple[str, dict[str, list[str]]]:
    """Qrels with grades 0 to 3 (-R qrels_prefs reads its second column as the judgment group: one group when
    ``groups`` is 1) or -1 to 3 (-R qrels_jg: several groups, each judging its own subset). Not -1 as preferences:
    with non-relevant documents at two levels, trec_eval's prefs_avgjg_Rnonrel can read past the end of its array
    (see docs/measures.md)."""
    lines, pools = [], {}
    for q in range(QUERIES):
        qid = f"q{q}"
        pool = [f"d{q}-{i}" for i in range(int(rng.integers(3, 25)))]
        pools[qid] = pool
        for g in range(groups if groups == 1 else int(rng.integers(1, groups + 1))):
            chosen = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
            grades = [0, 0, 0, 1, 1, 2, 3] + ([] if groups == 1 else [-1])
            lines.extend(f"{qid} {g} {doc} {int(rng.choice(grades))}\n" for doc in chosen)
    return "".join(lines), pools


def zscores_text(rng: np.random.Generator) -> str:
    """Means and deviations for some (query, measure) pairs (others missing: -1000000), some deviations 0; one query
    (q2) has no line at all."""
    lines = []
    for q in range(QUERIES):
        if q == 2:
            continue
        for measure in ("map", "P_5", "num_ret", "num_rel_ret", "gm_map", "recip_rank"):
            if rng.random() < 0.8:
                mean = round(float(rng.uniform(0, 1 if measure not in ("num_ret", "num_rel_ret") else 10)), 4)
                stddev = 0.0 if rng.random() < 0.15 else round(float(rng.uniform(0.05, 2)), 4)
                lines.append(f"q{q} {measure} {mean} {stddev}\n")
        # trec_eval's binary searches read one entry past the end for a name above every one in the file (9.0.8
        # crashes): a last measure and a last query keep every search inside.
        lines.append(f"q{q} zzz 0 1\n")
    lines.append("zzz zzz 0 1\n")
    return "".join(lines)


def with_comments(rng: np.random.Generator, text: str, consecutive: bool) -> str:
    """``text`` with comment lines at the top and between lines (never last: after a comment on the last line
    trec_eval 10.0 reads past the end of its buffer); ``consecutive``: also two in a row, of which 10.0 skips only
    the first and reads the second as a (malformed) line."""
    lines = text.splitlines(keepends=True)
    for position in sorted(rng.choice(len(lines), size=min(3, len(lines)), replace=False).tolist(), reverse=True):
        lines.insert(int(position), f"# judged by assessor {position}\n")
    if consecutive:
        lines.insert(len(lines) // 2, "# first of two\n# second of two\n")
    return "".join(lines)


def with_blank_line(text: str, blank: str, where: str) -> str:
    """``text`` with the line ``blank`` (``""``, spaces, ``"\\r"``) in the middle, or (``where="end"``) as its last line
    (the file ends in two newlines); each build stops at it ("Malformed line")."""
    lines = text.splitlines(keepends=True)
    position = len(lines) if where == "end" else len(lines) // 2
    return "".join(lines[:position] + [blank + "\n"] + lines[position:])


def zscores_with_hash_lines(text: str, four_fields: bool) -> str:
    """``text`` with a ``#`` line at its top: with four fields neither build skips it, both read a query ``#``;
    otherwise both stop at it ("Malformed line", exit 255)."""
    return ("# map 0.5 0.25\n" if four_fields else "# z-scores of the seeded runs\n") + text


def cases(seed: int) -> list[tuple[str, list[str], str, str, str | None]]:
    """(case name, flags, judgments, run, zscores) of one seed."""
    rng = np.random.default_rng(seed)
    lacks_one = seed % 2 == 0
    prefs, prefs_pools = prefs_text(rng)
    prefs_run = run_text(rng, prefs_pools, lacks_one)
    single, single_pools = qrels_text(rng, 1)
    single_run = run_text(rng, single_pools, lacks_one)
    groups, group_pools = qrels_text(rng, 3)
    groups_run = run_text(rng, group_pools, lacks_one)
    zscores = zscores_text(rng)
    # -c, -J and comment lines under -R: the first four seeds (two of them lack a judged query).
    more = [] if seed > 4 else [
        (f"prefs-c-J-{seed}", ["-q", "-c", "-J", "-m", "all_prefs", "-R", "prefs"], prefs, prefs_run, None),
        (f"qrels_prefs-c-{seed}", ["-q", "-c", "-m", "all_prefs", "-R", "qrels_prefs"], single, single_run, None),
        (f"qrels_jg-J-{seed}", ["-q", "-J", "-m", "qrels_jg", "-R", "qrels_jg"], groups, groups_run, None),
        (f"qrels_jg-c-J-M-{seed}", ["-q", "-c", "-J", "-M", "4", "-m", "qrels_jg", "-R", "qrels_jg"], groups,
         groups_run, None),
        (f"prefs-comments-{seed}", ["-q", "-m", "all_prefs", "-R", "prefs"],
         with_comments(rng, prefs, consecutive=seed == 1), prefs_run, None),
        (f"qrels_jg-comments-{seed}", ["-q", "-m", "qrels_jg", "-R", "qrels_jg"],
         with_comments(rng, groups, consecutive=False), groups_run, None),
    ]
    # Blank lines in each -R format (empty, spaces in a \r\n file, last), '#' and blank lines in -Z: the first seed.
    stops = [] if seed > 1 else [
        (f"prefs-blank-{seed}", ["-q", "-m", "all_prefs", "-R", "prefs"], with_blank_line(prefs, "", "middle"),
         prefs_run, None),
        (f"qrels_prefs-blank-crlf-{seed}", ["-q", "-m", "all_prefs", "-R", "qrels_prefs"],
         with_blank_line(single, "  ", "middle").replace("\n", "\r\n"), single_run, None),
        (f"qrels_jg-blank-end-{seed}", ["-q", "-m", "qrels_jg", "-R", "qrels_jg"], with_blank_line(groups, "", "end"),
         groups_run, None),
        (f"zscores-comments-{seed}", ["-q", "-m", "map", "-Z", "{zscores}"], single, single_run,
         zscores_with_hash_lines(zscores, four_fields=False)),
        (f"zscores-hash-qid-{seed}", ["-q", "-m", "map", "-Z", "{zscores}"], single, single_run,
         zscores_with_hash_lines(zscores, four_fields=True)),
        (f"zscores-blank-{seed}", ["-q", "-m", "map", "-Z", "{zscores}"], single, single_run,
         with_blank_line(zscores, "", "middle")),
    ]
    return [
        *more,
        *stops,
        (f"prefs-{seed}", ["-q", "-m", "all_prefs", "-R", "prefs"], prefs, prefs_run, None),
        (f"prefs-M-{seed}", ["-q", "-M", "3", "-m", "prefs", "-R", "prefs"], prefs, prefs_run, None),
        (f"qrels_prefs-{seed}", ["-q", "-m", "all_prefs", "-R", "qrels_prefs"], single, single_run, None),
        (f"qrels_jg-{seed}", ["-q", "-m", "qrels_jg", "-R", "qrels_jg"], groups, groups_run, None),
        (f"qrels_jg-l-M-{seed}", ["-q", "-l", "2", "-M", "4", "-m", "P_avgjg.1,3,7", "-m", "Rprec_mult_avgjg.0.5,1.5",
                                  "-m", "map_avgjg", "-R", "qrels_jg"], groups, groups_run, None),
        (f"yaap-{seed}", ["-q", "-m", "yaap", "-m", "map"], single, single_run, None),
        (f"yaap-c-{seed}", ["-q", "-c", "-m", "yaap"], single, single_run, None),
        (f"yaap-cJlM-{seed}", ["-q", "-c", "-J", "-l", "2", "-M", "4", "-m", "yaap"], single, single_run, None),
        (f"zscores-{seed}", ["-q", "-m", "map", "-m", "P.5,10", "-m", "num_ret", "-m", "num_rel_ret", "-m", "gm_map",
                             "-m", "recip_rank", "-Z", "{zscores}"], single, single_run, zscores),
    ]


def main(builds: list[str]) -> None:
    records, builds = [], [str(Path(build).resolve()) for build in builds]
    with tempfile.TemporaryDirectory() as folder:
        for seed in SEEDS:
            for name, flags, judgments, run, zscores in cases(seed):
                paths = {}
                for label, text in (("judgments", judgments), ("run", run), ("zscores", zscores)):
                    if text is not None:
                        paths[label] = Path(folder) / f"{name}.{label}"
                        paths[label].write_text(text)
                # Files named relative to the folder, so that the messages recorded do not hold its random name.
                argv = [paths["zscores"].name if flag == "{zscores}" else flag for flag in flags]
                for build in builds:
                    done = subprocess.run([build, *argv, paths["judgments"].name, paths["run"].name], cwd=folder,
                                          capture_output=True, text=True, check=False)
                    shown = subprocess.run([build, "-v"], capture_output=True, text=True)
                    version = "10.0" if "10.0" in shown.stdout + shown.stderr else "9.0.8"
                    refused = ("comments" in name or "blank" in name) and "Malformed line" in done.stderr
                    if done.returncode != 0 and not (version == "10.0" and done.returncode == 4) and not refused:
                        raise SystemExit(f"{build} {name}: exit {done.returncode}: {done.stderr}")
                    records.append({"case": name, "build": version, "flags": flags, "judgments": judgments,
                                    "run": run, "zscores": zscores, "status": done.returncode,
                                    "stdout": done.stdout} | ({"stderr": done.stderr} if refused else {}))
    # mtime 0: the same inputs and builds give the same bytes.
    with gzip.GzipFile(HERE / "cases.jsonl.gz", "wb", compresslevel=9, mtime=0) as out:
        out.write("".join(json.dumps(record) + "\n" for record in records).encode("utf-8"))


if __name__ == "__main__":
    main(sys.argv[1:])
