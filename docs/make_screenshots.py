"""Regenerate the screenshots of README and docs/: start the app, open each view in Debian's Chromium, save a PNG.

    .venv/bin/python docs/make_screenshots.py            # every screenshot
    .venv/bin/python docs/make_screenshots.py explorer runs   # only the named ones

Uses the same server and browser recipe as the browser tests (tests/browser/support.py): /usr/bin/chromium driven
by Playwright, never a downloaded browser. Each PNG is saved with a 256-colour palette, which keeps text sharp on
the page's flat backgrounds, and must stay under 300 KB.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

from PIL import Image
from playwright.sync_api import Locator, Page, expect

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO)]  # the engine (for the judge view's numbers) and the page objects in tests/browser

from tests.browser.support import (  # noqa: E402 (needs the path above)
    VIEWPORT,
    ExplorerPage,
    RunsPage,
    chromium_browser,
    chromium_missing_reason,
    running_app,
    save_screenshot,
)

OUT = REPO / "docs" / "screenshots"
MAX_BYTES = 300 * 1024


#: A view returns None to keep the whole page, or the first and the last element of the part to keep.
Region = tuple[Locator, Locator] | None


def explorer_default(page: Page, base_url: str) -> Region:
    """The explorer as a newcomer first sees it, on the "sweet pastry" sample: the metric cards with their bounds or
    range and Judged@k, the list with its judged column, and how each number is computed (down to the judgments of
    documents not retrieved; the what-if and online sections have their own shots)."""
    explorer = ExplorerPage(page, base_url).open()
    explorer.wait_for_charts()
    return (page.get_by_role("heading", name="Explore a query"),
            page.locator("[class*='st-key-judgments_editor']"))


def whatif_swaps(page: Page, base_url: str) -> Region:
    """The swap heatmaps (drawn with Vega-Lite): what swapping any two ranks does to each metric; a click applies
    the swap."""
    explorer = ExplorerPage(page, base_url).open()
    explorer.open_whatif_tab("Swapping two ranks")
    chart = explorer.swap_heatmaps()
    explorer.wait_for_charts()
    return page.get_by_role("heading", name="What if…"), chart.graph


def whatif_k(page: Page, base_url: str) -> Region:
    """Every metric at every cut-off k, the current k marked (drawn with Vega-Lite)."""
    explorer = ExplorerPage(page, base_url).open()
    explorer.open_whatif_tab("Changing k")
    chart = explorer.k_curves()
    explorer.wait_for_charts()
    return page.get_by_role("heading", name="What if…"), chart.chart


def online_signals(page: Page, base_url: str) -> Region:
    """The explorer's online signals on "sweet pastry" under PBM: closed forms beside the simulation, the ERR link,
    and clicks per rank against attractiveness with the position-bias curve."""
    explorer = ExplorerPage(page, base_url).open()
    explorer.choose_click_model("PBM (position-based)")
    chart = explorer.online_click_chart()
    explorer.wait_for_charts()
    return page.get_by_role("heading", name="Online signals (simulated)"), chart.graph


def runs_per_query(page: Page, base_url: str) -> Region:
    """The "Evaluate a run" page on the built-in collection with the judgment holes switched on, measured by P@10
    and nDCG@10 only so the per-query table shows every column: each measure with its low and high, and
    Judged≥0@10."""
    runs = RunsPage(page, base_url).open()
    runs.use_built_in_collection()
    runs.rerun_after(lambda: page.locator(".st-key-results_holes").get_by_text("Judgment holes").click())
    expect(page.locator(".st-key-results_holes input")).to_be_checked()
    measures = page.locator(".st-key-runs_measures")
    for tag in measures.locator("[data-tag]").evaluate_all("tags => tags.map(tag => tag.getAttribute('aria-label'))"):
        if tag not in ("P.10", "ndcg_cut.10"):
            runs.rerun_after(lambda tag=tag: measures.get_by_role("button", name=f"Remove {tag}", exact=True).click())
    expect(measures.locator("[data-tag]")).to_have_count(2)
    table = runs.visible_tables().nth(1)
    # The grid's text twin (never shown) names the columns once the last removal has been drawn.
    expect(table.locator("table[role=grid] thead th").last).to_have_text("Judged≥0@10")
    runs.wait_for_charts()
    return page.get_by_role("heading", name="Evaluate a run"), table


def runs_compare(page: Page, base_url: str) -> Region:
    """Two runs of the built-in collection compared on nDCG@10: tests, per-query differences, both rankings."""
    runs = RunsPage(page, base_url).open()
    runs.use_built_in_collection()
    runs.open_tab("Compare runs")
    runs.choose("compare_measure", "ndcg_cut_10")
    runs.chart("Where oracle rerank beats samples")
    runs.wait_for_charts()
    return None


def judge_holes(page: Page, base_url: str) -> Region:
    """"Judge the holes" for nDCG@10 of the built-in "samples" run, after grading its most influential unjudged
    document relevant (at its query's highest grade, as the influence assumes): the banner, the mean before → after,
    the next candidates, and the added judgment ready to download."""
    from metrics.judging import find_holes
    from ui.runs.data import _built_in

    collection = _built_in()
    first = find_holes(collection.qrels, {"samples": collection.runs["samples"]}, "ndcg_cut.10", 10).holes[0]
    runs = RunsPage(page, base_url).open()
    runs.use_built_in_collection()
    runs.open_tab("Judge the holes")
    runs.choose("judge_measure", "ndcg_cut_10")
    # Picked by name: after a change of measure the box may still hold the document it held before.
    runs.choose("judge_pick", f"{first.qid} · {first.doc} ({first.influence:+.5f})")
    runs.grade_the_chosen_document(first.relevant_grade)
    return (runs.expect_message("1 judgment added on this page"),
            page.get_by_test_id("stCaptionContainer").filter(has_text="Added lines carry"))


def ann_recall(page: Page, base_url: str) -> Region:
    """The "ANN recall" page on its HNSW index: the numbers against exact search and the waterfall (its first tab)."""
    page.goto(base_url + "/ann")
    app = RunsPage(page, base_url)  # any page object: waiting and charts are shared
    app.wait_until_idle()
    chart = app.chart("Relevant documents after each stage")
    app.wait_for_charts()
    return page.get_by_role("heading", name="ANN recall vs retrieval recall"), chart.graph


#: name -> how to bring the page into the state to photograph, and which part of it to keep.
SHOTS: dict[str, Callable[[Page, str], Region]] = {
    "explorer": explorer_default,
    "whatif-swaps": whatif_swaps,
    "whatif-k": whatif_k,
    "online": online_signals,
    "runs": runs_per_query,
    "runs-compare": runs_compare,
    "judge": judge_holes,
    "ann": ann_recall,
}


def save_region(page: Page, path: Path, first: Locator, last: Locator, *, padding: int = 16) -> None:
    """A picture of the part of the page from the top of ``first`` to the bottom of ``last``. The viewport first grows
    to the content's height (Streamlit scrolls inside its own container), so the region is on screen whole."""
    viewport = page.viewport_size
    content = page.get_by_test_id("stMainBlockContainer")
    height = math.ceil(content.evaluate("element => element.scrollHeight"))
    page.set_viewport_size({"width": viewport["width"], "height": max(height, viewport["height"])})
    try:
        page.wait_for_timeout(300)  # one layout pass after the resize; nothing to wait on
        top, bottom = first.bounding_box(), last.bounding_box()
        x, y = max(min(top["x"], bottom["x"]) - padding, 0), max(top["y"] - padding, 0)
        right = max(top["x"] + top["width"], bottom["x"] + bottom["width"]) + padding
        page.screenshot(path=path, clip={"x": x, "y": y, "width": right - x,
                                         "height": bottom["y"] + bottom["height"] + padding - y})
    finally:
        page.set_viewport_size(viewport)


def shrink(path: Path, max_bytes: int = MAX_BYTES) -> int:
    """Re-save ``path`` with an adaptive 256-colour palette (the page's flat colours survive it; the file shrinks
    to about 40 %) and return its size; fail when even that is over ``max_bytes``."""
    with Image.open(path) as picture:
        palette = picture.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    palette.save(path, optimize=True)
    size = path.stat().st_size
    if size > max_bytes:
        raise SystemExit(f"{path}: {size / 1024:.0f} KB even with a 256-colour palette; the limit is "
                         f"{max_bytes // 1024} KB. Make the view smaller or split it into two shots.")
    return size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"screenshots to make (default: all of {', '.join(SHOTS)})")
    parser.add_argument("--out", type=Path, default=OUT, help="output folder (default: docs/screenshots)")
    args = parser.parse_args(argv)
    reason = chromium_missing_reason()
    if reason:
        parser.error(reason)
    unknown = [name for name in args.names if name not in SHOTS]
    if unknown:
        parser.error(f"no screenshot called {', '.join(unknown)}; choose from {', '.join(SHOTS)}")
    names = args.names or list(SHOTS)
    args.out.mkdir(parents=True, exist_ok=True)
    with running_app() as base_url, chromium_browser() as browser:
        context = browser.new_context(viewport=VIEWPORT)
        for name in names:
            page = context.new_page()
            region = SHOTS[name](page, base_url)
            # No focus ring on the last control used, and no chart toolbar shown by a mouse resting on a chart.
            page.evaluate("document.activeElement && document.activeElement.blur()")
            sidebar = page.get_by_test_id("stSidebar").bounding_box()
            page.mouse.move(sidebar["x"] + sidebar["width"] + 10, 10)  # the empty top margin of the main column
            path = args.out / f"{name}.png"
            if region is None:
                save_screenshot(page, path, whole_page=True)
            else:
                save_region(page, path, *region)
            size = shrink(path)
            with Image.open(path) as picture:
                width, height = picture.size
            shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
            print(f"{shown}: {width}x{height}, {size / 1024:.0f} KB")
            page.close()
        context.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
