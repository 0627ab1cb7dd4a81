"""Hostile text in a real browser: ids, the ``query`` link parameter and file names are shown as typed, never as
Markdown. Every sink that shows user text is driven with text that would, read as Markdown, make a link, load a
remote image, or render bold, colour, LaTeX, emoji or an arrow; the page must show it literally, hold no link or
picture that leaves the app, and send no request outside localhost.
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.support import AppPage, ExplorerPage, RunsPage
from ui.common.query_state import Item, QueryState, encode_url

WORD_JOINER = "\u2060"  # ui.common.text.literal puts these (invisible) inside autolink and arrow patterns

pytestmark = [
    pytest.mark.browser,
]

LOGIN_LINK = "[Session expired, sign in](https://evil.example/login)"
#: Ids with no white space (TREC files cannot hold any), each a different way to make Markdown act.
HOSTILE_IDS = [
    "![x](https://evil.example/pixel.png)",
    "[sign-in](https://evil.example/login)",
    "<img/src=https://evil.example/tag.png>",
    "https://evil.example/autolink",
    "www.evil.example",
    "me@evil.example",
    "**bold**",
    ":red[red]",
    "$$x^2$$",
    ":smile:",
    ":streamlit:",
    "->",
]


class Watch:
    """Every request the tab sends, to tell whether one left localhost."""

    def __init__(self, tab: AppPage) -> None:
        self.tab = tab
        self.requests: list[str] = []
        tab.page.on("request", self._seen)

    def _seen(self, request) -> None:
        self.requests.append(request.url)

    def expect_nothing_leaves_the_app(self) -> None:
        self.tab.wait_until_idle()
        self.tab.page.remove_listener("request", self._seen)  # the tab serves the next tests
        outside = [url for url in self.requests
                   if urlsplit(url).scheme in ("http", "https", "ws", "wss")
                   and urlsplit(url).hostname not in ("127.0.0.1", "localhost")]
        assert outside == [], f"requests left localhost: {outside}"
        pointing_out = self.tab.page.evaluate("""base => [...document.querySelectorAll('*')].flatMap(element =>
            ['href', 'src', 'xlink:href', 'srcset', 'action', 'formaction', 'poster', 'data']
                .map(name => element.getAttribute(name))
                .filter(value => value && /^\\s*[a-z][a-z0-9+.-]*:/i.test(value)
                                 && !value.startsWith(base) && !/^\\s*(data|blob|javascript:void)/i.test(value))
                .map(value => `${element.tagName} -> ${value}`))""", self.tab.base_url)
        assert pointing_out == [], f"elements point outside the app: {pointing_out}"
        rendered = self.tab.page.locator(
            "[data-testid=stMarkdownContainer] :is(a:not([href^='#']), img, .katex, .stMarkdownColoredText, "
            "[data-testid=stIconMaterial])")
        assert [text for text in rendered.all_inner_texts()
                if any(fragment in text for fragment in ("evil", "red", "x^2", "x2"))] == []
        emphasis = self.tab.page.locator("[data-testid=stMarkdownContainer] :is(strong, em)")
        assert "bold" not in emphasis.all_inner_texts()  # what **bold** renders as


def shown_text(locator) -> str:
    return locator.inner_text().replace(WORD_JOINER, "")


def hostile_link(query: str, docs: list[str]) -> str:
    # Scores rise down the list, so the list arrives in score order: the link's order reversed. The link is one a
    # person writes, without order=shown (which the page adds only to keep a hand-made order it shows).
    items = tuple(Item(doc, score=float(rank)) for rank, doc in enumerate(docs, start=1))
    params = dict(encode_url(QueryState(items, {docs[0]: 1, docs[-1]: 2}, 5, query=query)))
    assert params.pop("order") == "shown"
    return urlencode(params)


def test_a_link_with_markdown_in_its_query_and_doc_ids_shows_them_as_typed(explorer: ExplorerPage) -> None:
    watch = Watch(explorer)
    explorer.open(hostile_link(LOGIN_LINK, HOSTILE_IDS))
    heading = explorer.page.get_by_role("heading", name="Ranked list")
    expect(heading).to_be_visible()
    assert shown_text(heading) == f"Ranked list · {LOGIN_LINK}"
    by_score = list(reversed(HOSTILE_IDS))
    assert explorer.ranked_documents() == [f"{rank}. {doc}" for rank, doc in enumerate(by_score, start=1)]
    explorer.press_move_button("move_down")  # now the scores contradict the order, and the notice names two ids
    notice = explorer.expect_message("The scores contradict this order")
    assert f"rank 1 would be {by_score[0]}, not {by_score[1]}." in shown_text(notice)
    # The swap heatmaps' tooltip (Vega-Lite's) names the two documents as text: the <img> id is not a picture.
    ranked = [by_score[1], by_score[0], *by_score[2:]]
    explorer.open_whatif_tab("Swapping two ranks")
    picture = ranked.index("<img/src=https://evil.example/tag.png>") + 1
    tooltip = explorer.swap_heatmaps().hover("P@5", i=1, j=picture)
    expect(tooltip).to_contain_text(f"Swap rank 1 ({ranked[0]}) and rank {picture} ({ranked[picture - 1]})")
    expect(tooltip.locator("img, a")).to_have_count(0)
    explorer.wait_for_charts()
    explorer.expect_no_traceback()
    explorer.screenshot("hostile-link", whole_page=True)
    watch.expect_nothing_leaves_the_app()


def test_a_broken_link_quotes_the_offending_id_literally_in_its_error(explorer: ExplorerPage) -> None:
    watch = Watch(explorer)
    explorer.open(urlencode({"ranking": "donut,bagel", "k": "![x](https://evil.example/error.png)",
                             "query": LOGIN_LINK}))
    error = explorer.expect_error_message("The link could not be opened")
    assert "![x](https://evil.example/error.png)" in shown_text(error)
    explorer.expect_heading("Ranked list · sweet pastry")
    watch.expect_nothing_leaves_the_app()


def test_run_and_qrels_with_markdown_in_file_names_and_qids_show_them_as_typed(runs_page: RunsPage) -> None:
    watch = Watch(runs_page)
    runs_page.open()
    qids = HOSTILE_IDS[:6]
    qrels = "".join(f"{qid} 0 doc-{n} 1\n" for n, qid in enumerate(qids))
    run_a = "".join(f"{qid} Q0 doc-{n} 1 1.0 a\n" for n, qid in enumerate(qids[:4]))
    run_b = "".join(f"{qid} Q0 doc-{n} 1 1.0 b\n" for n, qid in enumerate(qids[2:] + ["unjudged-q"], start=2))
    name_a, name_b = "![a](https:evil.example\\a.png).run", "**bold**:red[b].run"
    files = {"key": ".st-key-runs_qrels", "files": [{"name": "[qrels](https:evil.example).txt",
                                                     "mimeType": "text/plain", "buffer": qrels.encode()}]}
    runs_page.rerun_after(lambda: runs_page.page.locator(f"{files['key']} input[type=file]")
                          .set_input_files(files["files"]))
    runs_page.page.locator(".st-key-runs_runs input[type=file]").set_input_files([
        {"name": name_a, "mimeType": "text/plain", "buffer": run_a.encode()},
        {"name": name_b, "mimeType": "text/plain", "buffer": run_b.encode()},
    ])
    notes = runs_page.page.get_by_test_id("stCaptionContainer").filter(has_text="queries evaluated")
    expect(notes).to_have_count(2)
    assert shown_text(notes.nth(0)).startswith(f"{name_a}: 4 queries evaluated.")
    assert qids[4] in shown_text(notes.nth(0)) and "unjudged-q" in shown_text(notes.nth(1))
    runs_page.open_tab("Compare runs")
    lacks = runs_page.page.get_by_test_id("stAlert").filter(has_text="left out of both means")
    expect(lacks).to_have_count(1)
    assert f"{name_b} lacks 2 judged queries ({', '.join(sorted(qids[:2]))})" in shown_text(lacks)
    assert f"{name_a} lacks 2 judged queries ({', '.join(sorted(qids[4:6]))})" in shown_text(lacks)
    buttons = runs_page.page.get_by_test_id("stButton").filter(visible=True).all_inner_texts()
    assert f"Open {name_b} in explorer" in [text.replace(WORD_JOINER, "").strip() for text in buttons]
    runs_page.expect_no_traceback()
    watch.expect_nothing_leaves_the_app()


def test_a_bad_file_with_markdown_in_its_name_is_named_literally_in_the_error(runs_page: RunsPage) -> None:
    watch = Watch(runs_page)
    runs_page.open()
    name = "[fix it here](https:evil.example).run"
    runs_page.rerun_after(lambda: runs_page.page.locator(".st-key-runs_qrels input[type=file]").set_input_files(
        [{"name": "qrels.txt", "mimeType": "text/plain", "buffer": b"q 0 d 1\n"}]))
    runs_page.page.locator(".st-key-runs_runs input[type=file]").set_input_files(
        [{"name": name, "mimeType": "text/plain", "buffer": b"q Q0 d 1\n"}])
    error = runs_page.expect_error_message("line 1")
    assert shown_text(error).startswith(name)
    watch.expect_nothing_leaves_the_app()
