"""The Lessons page in a real browser: a student opens a lesson by link, predicts, reads the reveal, makes the change
and predicts again; then walks the two-systems lesson and edits list B in the two-list view. Expected texts and
numbers come from the lessons' own facts (the engine's), never typed here. (Opening a lesson in the explorer is an
AppTest: tests/app/test_app_lessons.py.)"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.support import AppPage, artifact_prefix
from ui.lessons import catalog
from ui.lessons.model import render

pytestmark = [pytest.mark.browser]


class LessonsPage(AppPage):
    """The Lessons page, driven the way a student uses it."""

    def open(self, slug: str) -> LessonsPage:
        self.page.goto(f"{self.base_url}/lessons?lesson={slug}")
        expect(self.page.get_by_role("heading", name="Lessons", exact=True)).to_be_visible()
        self.wait_until_idle()
        return self

    def _key(self, slug: str, name: str):
        return self.page.locator(f".st-key-lesson_{slug}_{name}")

    def answer(self, slug: str, index: int, choice: str) -> None:
        self.rerun_after(lambda: self._key(slug, f"answer_{index}").get_by_text(choice, exact=True).click())

    def press(self, slug: str, name: str) -> None:
        self.rerun_after(lambda: self._key(slug, name).get_by_role("button").click())

    def choose_lesson(self, title: str) -> None:
        self.rerun_after(lambda: self._pick("lesson_pick", title))

    def two_list_table(self, prefix: str, showing: dict | None = None) -> dict[str, dict[str, str]]:
        """The two-list view's table (the view under ``prefix``), by metric, once it shows the cells in
        ``showing`` (see AppPage.table_rows: the table's text trails its data)."""
        table = self.page.locator(f".st-key-{prefix}_table").get_by_test_id("stDataFrame")
        return {row["metric"]: row for row in self.table_rows(table, showing)}

    def edit_list(self, label_start: str, docs: tuple[str, ...]) -> None:
        box = self.page.get_by_label(re.compile("^" + re.escape(label_start)))
        box.fill("\n".join(docs))
        self.rerun_after(lambda: box.press("Control+Enter"))


@pytest.fixture
def lessons(tab, app_url, request) -> LessonsPage:
    return LessonsPage(tab, app_url, artifact_prefix=artifact_prefix(request))


def _facts(lesson):
    before, after = lesson.scenes()
    return before, after, lesson.facts(before, after)


def test_a_student_walks_two_lessons_and_edits_list_b_in_the_two_list_view(lessons):
    first = catalog.PRECISION_RECALL
    _, _, facts = _facts(first)
    lessons.open(first.slug)
    expect(lessons.page.get_by_test_id("stAlert")).to_have_count(0)  # no reveal, no number before the answer
    lessons.answer(first.slug, 0, "P@k")
    lessons.press(first.slug, "check_0")
    lessons.expect_message("Right. " + render(first.ask.reveal, facts))
    lessons.press(first.slug, "change")
    lessons.answer(first.slug, 1, "both rise")
    lessons.press(first.slug, "check_1")
    lessons.expect_message("Not quite: the answer is P falls, recall rises. " + render(first.ask_again.reveal, facts))

    tie = catalog.TIE_ON_P10
    before, after, facts = _facts(tie)
    lessons.choose_lesson(f"3. {tie.title}")
    lessons.wait_for_url_parameter("lesson", tie.slug)
    lessons.answer(tie.slug, 0, "they tie")
    lessons.press(tie.slug, "check_0")
    lessons.expect_message("Right. " + render(tie.ask.reveal, facts))
    rr_before = f"{facts['rr_b'] - facts['rr_a']:+.4f}"
    table = lessons.two_list_table(f"lesson_{tie.slug}_pair", showing={"RR": {"B − A": rr_before}})
    assert table["P@10"]["B − A"] == "tie" and table["RR"]["B − A"] == rr_before
    lessons.expect_message(f"Tied: P@10 ({facts['precision_a']:.3f} on both)")

    # The student tries the change by hand first: list B with its first relevant passage on top.
    lessons.edit_list("List B", after.lists[1].docs)
    table = lessons.two_list_table(f"lesson_{tie.slug}_pair", showing={"RR": {"B − A": "tie"}})
    assert table["P@10"]["B − A"] == "tie" and table["RR"]["B − A"] == "tie"
    assert table["nDCG@10"]["List B (BM25)"] == f"{facts['ndcg_b_after']:.4f}"

    lessons.press(tie.slug, "change")
    lessons.answer(tie.slug, 1, "yes")
    lessons.press(tie.slug, "check_1")
    lessons.expect_message("Right. " + render(tie.ask_again.reveal, facts))
    lessons.expect_no_traceback()
