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

    # Every part of the state set: a named query, scores, a removed document, every convention off its default.
    changed = {info.name: info.choices[-1].value for info in ALL_CONVENTIONS if info.url_param and info.choices}
    state = QueryState((Item("donut", 0.95), Item("bagel", 0.9, removed=True)), {"donut": 1}, k=4,
                       conventions=Conventions(relevance_level=2, **changed), query="sweet pastry")
    rows = _link_parameter_rows()
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
