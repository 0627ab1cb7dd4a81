"""README and the reference pages in docs/ are claims: every example prints what the page says it prints, every link
leads somewhere, and README stays the short first page that points to the reference."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from tests.support.paths import DOCS, REPO

README = REPO / "README.md"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
#: README is a newcomer's first page: what it is, the two commands, a tour, and where the reference lives.
README_MAX_LINES = 250


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _python_blocks(page: Path) -> list[str]:
    return [part.split("```", 1)[0] for part in _text(page).split("```python")[1:]]


def _shown_results(page: Path) -> list[tuple[str, str, str]]:
    """(setup, call, shown) for each line of a Python block followed by a ``# {...}`` line: what it prints."""
    found = []
    for block in _python_blocks(page):
        for match in re.finditer(r"^(\S.*)\n# (\{.*\})$", block, re.MULTILINE):
            call, shown = match.groups()
            found.append((block[: match.start()], call, shown))
    return found


def _name(page: Path) -> str:
    return str(page.relative_to(REPO))


def test_readme_and_the_library_page_each_show_the_library_example():
    assert _shown_results(README), "README shows no library call with its output"
    assert _shown_results(DOCS / "library.md"), "docs/library.md shows no library call with its output"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_shown_result_is_what_the_example_prints(page):
    for setup, call, shown in _shown_results(page):
        namespace: dict = {}
        exec(compile(setup, _name(page), "exec"), namespace)  # noqa: S102 - the page's own example
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            print(eval(call, namespace))  # noqa: S307 - the page's own example
        assert out.getvalue().strip() == shown, (_name(page), call)


#: Blocks that need more than a Python process, by a line they hold, and the test that runs that code instead.
NOT_RUN_HERE = {
    "distributed.Client(scheduler_address)": "a Dask cluster: tests/engine/test_dask.py runs metrics.dask on one",
}


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_python_block_runs_as_a_reader_would_type_it(page):
    """A page's blocks run in order in one session, as a reader pastes them, and each ends in a value."""
    namespace: dict = {}
    for block in _python_blocks(page):
        if any(line in block for line in NOT_RUN_HERE):
            continue
        *statements, last = block.strip().splitlines()
        exec(compile("\n".join(statements), _name(page), "exec"), namespace)  # noqa: S102 - the page's own example
        if not last.startswith("# "):  # a result line such as "# {...}" is checked above
            namespace["_"] = eval(last.split("  # ")[0], namespace)  # noqa: S307 - the page's own example


def test_every_block_not_run_here_is_still_on_a_page():
    blocks = [block for page in PAGES for block in _python_blocks(page)]
    assert all(any(line in block for block in blocks) for line in NOT_RUN_HERE)


def test_the_library_page_comparison_counts_what_it_says():
    block = next(block for block in _python_blocks(DOCS / "library.md") if "compare_runs(" in block)
    namespace: dict = {}
    exec(block, namespace)  # noqa: S102 - the page's own example
    shown = re.search(r"comparison\.losses  # (\(.*?\))", block).group(1)
    comparison = namespace["comparison"]
    assert repr((comparison.wins, comparison.ties, comparison.losses)) == shown
    assert comparison.warning  # three queries: the comparison says its tests have little power


def _links(page: Path) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", _text(page))


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", _text(page), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_link_leads_to_a_file_and_heading_that_exist(page):
    for link in _links(page):
        if re.match(r"[a-z]+://", link):
            continue
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.exists(), f"{_name(page)} links to {link}, which does not exist"
        if anchor:
            assert anchor in _anchors(path), f"{_name(page)} links to {link}: no such heading"


def test_readme_stays_short_and_points_to_every_reference_page():
    lines = _text(README).splitlines()
    assert len(lines) <= README_MAX_LINES, f"README has {len(lines)} lines; move reference text into docs/"
    linked = {(README.parent / link.partition("#")[0]).resolve() for link in _links(README)}
    missing = [_name(page) for page in sorted(DOCS.glob("*.md")) if page.resolve() not in linked]
    assert not missing, f"README does not link to {missing}"


#: Measurements that change with every commit or machine, which README leaves to docs/performance.md: a count of
#: tests, a duration in minutes, a load average, a day ("today").
CHANGING_NUMBERS = re.compile(r"\b\d[\d,]* tests\b|\b\d+ min\b|\bload average|\b(?:today|yesterday)\b", re.IGNORECASE)


def test_readme_says_what_is_and_leaves_measurements_to_the_performance_page():
    found = [line for line in _text(README).splitlines() if CHANGING_NUMBERS.search(line)]
    assert not found, f"README holds measurements that change (they belong in docs/performance.md): {found}"
    assert CHANGING_NUMBERS.search(_text(DOCS / "performance.md"))  # the suite's time: kept there, with how


def test_the_app_page_names_the_sidebars_pages_in_its_order():
    from ui.common.pages import NAVIGATION

    opening = re.search(r"The pages, in the sidebar's order: (.*?)\.(?:\s|$)", _text(DOCS / "app.md"), re.DOTALL)
    assert opening, "docs/app.md does not open by naming the pages"
    named = re.findall(r"\[([^]]+)\]\(#", opening.group(1))
    assert named == [entry.title for entry in NAVIGATION]
    assert {f"## {title}" for title in named} <= set(_text(DOCS / "app.md").splitlines())


def _link_parameter_rows() -> dict[str, list[str]]:
    """docs/app.md's Link parameters table: parameter -> [value, example]."""
    section = _text(DOCS / "app.md").split("## Link parameters", 1)[1].split("\n## ", 1)[0]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| `")]
    return {name.strip("`"): rest for name, *rest in rows}


def test_the_app_page_names_every_link_parameter_the_explorer_writes():
    from metrics import Conventions
    from metrics.conventions import ALL_CONVENTIONS, URL_PARAMS
    from ui.common.query_state import Item, QueryState, encode_url

    # Every part of the state set: a named query, scores the order shown contradicts (muffin moved up by hand), a
    # removed document, every convention off its default.
    changed = {info.name: info.choices[-1].value for info in ALL_CONVENTIONS if info.url_param and info.choices}
    items = (Item("donut", 0.95), Item("muffin", 0.8), Item("bagel", 0.9), Item("croissant", 0.7, removed=True))
    state = QueryState(items, {"donut": 1, "muffin": 1}, k=4,
                       conventions=Conventions(relevance_level=2, **changed), query="sweet pastry")
    rows = _link_parameter_rows()
    assert {"order", "removed", "query", "level"} <= set(encode_url(state))
    assert set(encode_url(state)) <= set(rows), sorted(set(encode_url(state)) - set(rows))
    for info in ALL_CONVENTIONS:
        if info.url_param in rows:
            value = rows[info.url_param][0]
            assert all(f"`{choice.value}`" in value for choice in info.choices), info.url_param
    assert set(URL_PARAMS.values()) <= set(rows)


def test_every_link_parameter_example_opens_in_the_explorer():
    from ui.common.query_state import decode_url

    for name, (_, example) in _link_parameter_rows().items():
        params = {"ranking": "donut:0.95,bagel:0.9,muffin:0.8,croissant", "qrels": "donut:1,muffin:1,scone:1"}
        params[name] = example.strip("`")
        assert decode_url(params) is not None, name


#: The worked example as TREC files, for the placeholders of the documented command lines: QRELS, each RUN (and
#: runs/*.run, two runs) and TABLE.csv (a reported score that the run reproduces).
PASTRY_QRELS = "sweet_pastry 0 donut 1\nsweet_pastry 0 muffin 1\nsweet_pastry 0 scone 1\n"
PASTRY_RUN = "".join(f"sweet_pastry Q0 {doc} {rank} {score} run\n"
                     for rank, (doc, score) in enumerate([("donut", 0.95), ("bagel", 0.9), ("muffin", 0.8),
                                                          ("croissant", 0.7)], start=1))
RUN_NAMES = ("RUN", "RUN_A", "RUN_B", "RUN_C", "EXACT_RUN", "ANN_RUN")


def _placeholders(folder: Path) -> dict[str, str]:
    (folder / "qrels").write_text(PASTRY_QRELS, encoding="utf-8")
    (folder / "run").write_text(PASTRY_RUN, encoding="utf-8")
    (folder / "moved.run").write_text(PASTRY_RUN.replace("bagel 2", "muffin 2").replace("muffin 3", "bagel 3"),
                                      encoding="utf-8")
    (folder / "TABLE.csv").write_text(f"run,measure,value\n{folder / 'run'},P@4,0.5\n", encoding="utf-8")
    return {"QRELS": str(folder / "qrels"), **dict.fromkeys(RUN_NAMES, str(folder / "run")),
            "runs/*.run": f"{folder / 'run'} {folder / 'moved.run'}", "TABLE.csv": str(folder / "TABLE.csv")}


#: metrics.check exits 1 when no convention matches (and prints the nearest values): a documented outcome.
STATUSES = {"metrics.check": {0, 1}}


def _documented_commands(tmp_path: Path) -> list[list[str]]:
    """Every ``python -m metrics...`` line of a bash block, placeholders filled in, ``[optional]`` parts left out
    (a synopsis lists options that exclude each other), and one command per choice of ``a|b|c``."""
    placeholders = _placeholders(tmp_path)
    commands = []
    for page in PAGES:
        for block in _text(page).split("```bash")[1:]:
            for line in block.split("```", 1)[0].splitlines():
                if not line.startswith("python -m metrics"):
                    continue
                words = re.sub(r"\[[^]]*\]", "", line.split("  #")[0]).split()[2:]
                # The pages run them from the repository: its relative paths are the repository's.
                words = [str(REPO / word) if (REPO / word).is_file() else word for word in words]
                words = [placeholders.get(word, word).split() for word in words]
                choices = next((word[0].split("|") for word in words if "|" in word[0]), [None])
                for choice in choices:
                    commands.append([part if "|" not in part else choice for word in words for part in word])
    return commands


def _run_command(argv: list[str]) -> tuple[int, str, str]:
    import importlib

    module, *arguments = argv
    out, err = io.StringIO(), io.StringIO()
    try:
        if module == "metrics":
            from metrics.cli import main
            status = main(arguments, stdout=out, stderr=err)
        else:
            status = importlib.import_module(f"{module}.__main__").main(arguments, out=out, err=err)
    except SystemExit as done:  # --help
        status = done.code or 0
    return status, out.getvalue(), err.getvalue()


@pytest.mark.slow
def test_every_documented_command_line_runs(tmp_path, capsys):
    commands = _documented_commands(tmp_path)
    assert {command[0] for command in commands} >= {"metrics", "metrics.check", "metrics.compare", "metrics.ann",
                                                     "metrics.online"}
    for command in commands:
        status, out, err = _run_command(command)
        assert status in STATUSES.get(command[0], {0}), (command, err)
        assert out.strip() or capsys.readouterr().out.strip(), command
