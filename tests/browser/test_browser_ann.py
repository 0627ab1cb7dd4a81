"""The "ANN recall" page in a real browser: a person opens it from the sidebar, reads the index's numbers against
the exact search, switches to an IVF index and opens one query's ANN list in the explorer.

Expected numbers come from the engine on the same vectors and index settings; nothing is typed in by hand.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from metrics.ann import index as ann_index
from tests.browser.support import AppPage, SentMessages, artifact_prefix
from tests.support.ann import engine_means
from ui.ann import ONE_QUERY, SWEEP

pytestmark = [
    pytest.mark.browser,
]


class AnnPage(AppPage):
    """The "ANN recall" page, driven the way a person uses it."""

    def open_from_the_sidebar(self) -> AnnPage:
        self.page.goto(self.base_url + "/")
        self.page.get_by_test_id("stMetric").first.wait_for()
        self.wait_until_idle()
        self.page.get_by_test_id("stSidebarNav").get_by_role("link", name="ANN recall").click()
        self.page.wait_for_url(re.compile(r"/ann(\?|$)"))
        expect(self.page.get_by_role("heading", name="ANN recall vs retrieval recall")).to_be_visible()
        self.wait_until_idle()
        return self

    def choose(self, container_key: str, option: str) -> None:
        self.wait_until_idle()
        self._pick(container_key, option)
        expect(self.page.locator(f".st-key-{container_key} [role=combobox]")).to_have_value(option)
        self.wait_until_idle()


@pytest.fixture
def ann_page(tab, app_url, request) -> AnnPage:
    return AnnPage(tab, app_url, artifact_prefix=artifact_prefix(request))


def test_the_index_against_the_exact_search_then_ivf_then_one_query_in_the_explorer(ann_page: AnnPage) -> None:
    ann_page.open_from_the_sidebar()
    hnsw = engine_means("topics", ann_index.IndexSpec("hnsw", m=16), 10, 16)
    ann_page.expect_metrics({"ANN recall@10": hnsw["ann_recall_10"], "Recall@10: ANN list": hnsw["recall_10_ann"],
                             "nDCG@10: ANN list": hnsw["ndcg_cut_10_ann"]})
    expect(ann_page.page.get_by_text(f"exact list: {hnsw['recall_10_exact']:.3f}")).to_be_visible()
    ann_page.wait_for_charts()
    waterfall = ann_page.chart("Relevant documents after each stage")  # the first tab
    expect(waterfall.bars()).to_have_count(3)
    ann_page.screenshot("hnsw", whole_page=True)
    ann_page.open_tab(SWEEP)
    ann_page.wait_for_charts()
    ann_page.chart("What efSearch buys")

    ann_page.choose("ann_kind", "IVF (clusters)")
    ivf = engine_means("topics", ann_index.IndexSpec("ivf", nlist=64), 10, 4)
    ann_page.expect_metrics({"ANN recall@10": ivf["ann_recall_10"]})
    ann_page.chart("What nprobe buys")  # its tab stays open
    ann_page.expect_no_traceback()

    ann_page.open_tab(ONE_QUERY)
    query = ann_page.page.locator(".st-key-ann_query [role=combobox]").input_value().split(" ")[0]
    ann_page.page.locator(".st-key-ann_open_ann button").click()
    ann_page.wait_for_url_parameter("query", query)  # the explorer writes the opened query into its link
    expect(ann_page.page.get_by_role("heading", name=re.compile(f"Ranked list.*{query}"))).to_be_visible()
    ann_page.wait_until_idle()
    ann_page.expect_no_traceback()


#: What a k change sends with the waterfall's tab open (measured: 28 deltas; 38 with the sweep, the waterfall and
#: one query drawn one under the other, 56 when the whole page reran, with four data grids).
MAX_K_CHANGE_DELTAS = 35


def test_a_k_change_reruns_the_lists_panels_alone_and_sends_few_deltas(ann_page: AnnPage) -> None:
    with SentMessages(ann_page.page) as sent:
        ann_page.open_from_the_sidebar()
        ann_page.wait_for_charts()
        for key, k in (("ArrowRight", 20), ("ArrowLeft", 10)):  # one step of the slider, and back
            sent.clear()
            ann_page.rerun_after(lambda key=key: ann_page.page.locator(".st-key-ann_k input[type=range]").press(key))
            hnsw = engine_means("topics", ann_index.IndexSpec("hnsw", m=16), k, 16)
            ann_page.expect_metrics({f"ANN recall@{k}": hnsw[f"ann_recall_{k}"]})
            deltas = sent.deltas()
            assert 0 < len(deltas) <= MAX_K_CHANGE_DELTAS, len(deltas)
            # Nothing for the sidebar (delta path 1, ...), the title (0, 0) or the intro (0, 1) above the panels.
            paths = [list(message.metadata.delta_path) for message in deltas]
            assert not [path for path in paths if path[:1] == [1] or path in ([0, 0], [0, 1])], paths
    ann_page.expect_no_traceback()
