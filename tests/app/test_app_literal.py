"""Every element that shows user text (ids, the ``query`` link parameter, file names, typed values) gets it in
ui.common.text.literal's form, so Streamlit's Markdown shows it as typed. The browser-side proof (no link, image or
request leaves the app) is tests/browser/test_browser_injection.py; these check each sink's text, element by element."""

from __future__ import annotations

from tests.app.support import assert_no_failure, open_app, open_runs_page, open_tab
from ui.common.text import literal, shown

LOGIN_LINK = "[Session expired, sign in](https://evil.example/login)"
IDS = ["![x](https://evil.example/pixel.png)", "https://evil.example/a", "**bold**", ":red[red]", "$$x$$"]


def is_literal(markdown: str) -> bool:
    """Whether ``markdown`` is the literal form of the text it shows."""
    return markdown == literal(shown(markdown))


def test_the_list_heading_shows_the_query_parameter_literally():
    at = open_app(ranking="donut,bagel", qrels="donut:1", query=LOGIN_LINK)
    assert_no_failure(at)
    assert [h.value for h in at.subheader if h.value.startswith("Ranked list")] == [
        f"Ranked list · {literal(LOGIN_LINK)}"]


def test_the_scores_against_order_notice_shows_doc_ids_literally():
    ranking = ",".join(f"{doc.replace(':', '%3A').replace(',', '%2C')}:{rank}" for rank, doc in enumerate(IDS, 1))
    at = open_app(ranking=ranking, qrels=f"{IDS[0].replace(':', '%3A')}:1")
    assert_no_failure(at)
    at.button(key="move_down").click().run()  # the top document one rank down: the scores now contradict the order
    (notice,) = [w.value for w in at.warning if w.value.startswith("The scores contradict this order")]
    first, second = list(reversed(IDS))[:2]
    assert f"rank 1 would be {literal(first)}, not {literal(second)}." in notice


def test_the_message_of_a_broken_link_quotes_it_literally():
    at = open_app(ranking="donut", k="![x](https://evil.example/e.png)")
    (error,) = [e.value for e in at.error]
    assert is_literal(error) and "![x](https://evil.example/e.png)" in shown(error)


def upload(at, qrels: tuple[str, bytes], *runs: tuple[str, bytes]):
    at.file_uploader(key="runs_qrels").set_value((qrels[0], qrels[1], "text/plain"))
    at.file_uploader(key="runs_runs").set_value([(name, data, "text/plain") for name, data in runs])
    return at.run()


def test_run_names_and_qids_reach_captions_buttons_and_metrics_literally():
    qrels = "".join(f"{qid} 0 d 1\n" for qid in IDS).encode()
    name_a, name_b = "[a](https://evil.example).run", "**b**.run"
    at = upload(open_runs_page(), ("qrels", qrels),
                (name_a, "".join(f"{qid} Q0 d 1 1.0 a\n" for qid in IDS[:3]).encode()),
                (name_b, "".join(f"{qid} Q0 d 1 1.0 b\n" for qid in IDS[1:] + ["lonely"]).encode()))
    assert_no_failure(at)
    notes = [c.value for c in at.caption if "queries evaluated" in c.value]
    assert notes[0].startswith(f"**{literal(name_a)}**: 3 queries evaluated.")
    assert f"({literal(', '.join(sorted(IDS[3:])))})" in notes[0]
    assert f"({literal('lonely')})" in notes[1]
    at = open_tab(at, "Compare runs")
    (lacks,) = [w.value for w in at.warning if "left out of both means" in w.value]
    assert is_literal(lacks) and f"{name_b} lacks 1 judged query ({IDS[0]})" in shown(lacks)
    labels = [b.label for b in at.button if b.label.startswith("Open ") and b.label.endswith(" in explorer")]
    assert f"Open {literal(name_b)} in explorer" in labels
    at = open_tab(at, "Per-query results")
    at.button(key="results_open").click().run()
    assert_no_failure(at)
    (opened,) = [i.value for i in at.info if "Opened query" in shown(i.value)]
    assert is_literal(opened) and IDS[0] in shown(opened) and name_a in shown(opened)
    assert f"Ranked list · {literal(IDS[0])}" in [h.value for h in at.subheader]


def test_a_refused_file_is_named_literally_in_the_error():
    name = "[fix it here](https://evil.example).run"
    at = upload(open_runs_page(), ("qrels", b"q 0 d 1\n"), (name, b"q Q0 d 1\n"))
    (error,) = [e.value for e in at.error]
    assert is_literal(error) and shown(error).startswith(f"{name} line 1")


def test_a_typed_reported_value_is_echoed_literally():
    at = upload(open_runs_page(), ("qrels", b"q 0 d 1\n"), ("r", b"q Q0 d 1 1.0 x\n"))
    at = open_tab(at, "Check a reported score")
    at.text_input(key="check_value").input("**0.5** $x$").run()
    assert_no_failure(at)
    shown_values = [m.value for m in [*at.error, *at.info, *at.success, *at.warning] if "0.5" in shown(m.value)]
    assert shown_values and all("**0.5** $x$" not in value for value in shown_values)
