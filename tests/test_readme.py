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
