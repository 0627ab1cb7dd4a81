"""IR Metrics Explorer, the router: page configuration and the navigation over the pages.

Run with `streamlit run app.py` (or `make app`). Each page is a package of ui/ (its ``__init__`` holds the page).
"""

from collections.abc import Callable

import streamlit as st

from ui.common import memory, pages, state


def build_pages() -> list[st.Page]:
    """New page objects for this run: an ``st.Page`` holds per-run state, so objects shared by every session
    (module level) race when two sessions rerun at once. The default page is served at ``/``; its ``url_path``
    only names it, and must differ from every other page's and alias's."""
    return [
        st.Page(pages.EXPLORE, title="Explore a query", icon=":material/search:", url_path="explorer", default=True),
        st.Page(pages.RUNS, title="Evaluate a run", icon=":material/table_chart:", url_path="runs"),
        st.Page(pages.ANN, title="ANN recall", icon=":material/hub:", url_path="ann"),
        st.Page(pages.LESSONS, title="Lessons", icon=":material/school:", url_path="lessons"),
        *(st.Page(redirect_to(script), title=alias, url_path=alias, visibility="hidden")
          for alias, script in pages.ALIASES.items()),
    ]


def redirect_to(script: str) -> Callable[[], None]:
    """A page that opens ``script``'s page with the same query parameters (repeated ones included)."""
    def redirect() -> None:
        st.switch_page(script, query_params={name: st.query_params.get_all(name) for name in st.query_params})
    return redirect


if __name__ == "__main__":  # Streamlit runs this script as __main__ on every rerun; a test may import it
    st.set_page_config(page_title="IR Metrics Explorer", page_icon="📊", layout="wide")
    page = st.navigation(build_pages())
    state.arrive(page.url_path)  # which page this run draws: Back within a page differs from arriving at it
    page.run()
    memory.freeze_imports()  # after the page: what it imported stays out of the collection after every run
