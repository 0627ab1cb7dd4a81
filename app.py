"""IR Metrics Explorer, the router: page configuration and the navigation over the pages.

Run with `streamlit run app.py` (or `make app`). Each page is a package of ui/ (its ``__init__`` holds the page).
"""

import streamlit as st

from ui.common import pages


def build_pages() -> list[st.Page]:
    """New page objects for this run: an ``st.Page`` holds per-run state, so objects shared by every session
    (module level) race when two sessions rerun at once."""
    return [
        st.Page(pages.EXPLORE, title="Explore a query", icon=":material/search:", url_path="explore", default=True),
        st.Page(pages.RUNS, title="Evaluate a run", icon=":material/table_chart:", url_path="runs"),
        st.Page(pages.ANN, title="ANN recall", icon=":material/hub:", url_path="ann"),
        st.Page(pages.LESSONS, title="Lessons", icon=":material/school:", url_path="lessons"),
    ]


if __name__ == "__main__":  # Streamlit runs this script as __main__ on every rerun; a test may import it
    st.set_page_config(page_title="IR Metrics Explorer", page_icon="📊", layout="wide")
    st.navigation(build_pages()).run()
