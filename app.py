"""IR Metrics Explorer, the router: page configuration and the navigation over the pages.

Run with `streamlit run app.py` (or `make app`). Each page is a package of ui/ (its ``__init__`` holds the page).
"""

from collections.abc import Callable

import streamlit as st

from ui.common import memory, pages, state


def build_pages() -> list[st.Page]:
    """New page objects for this run: an ``st.Page`` holds per-run state, so objects shared by every session
    (module level) race when two sessions rerun at once. The sidebar's pages are :data:`ui.common.pages.NAVIGATION`;
    each url path, the default page's too (it only names it), must differ from every other page's and alias's."""
    return [
        *(st.Page(entry.script, title=entry.title, icon=entry.icon, url_path=entry.url_path,
                  default=entry == pages.NAVIGATION[0]) for entry in pages.NAVIGATION),
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
