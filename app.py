"""IR Metrics Explorer. Run with `streamlit run app.py` (or `make app`)."""

import streamlit as st

from ui import explore, guard

st.set_page_config(page_title="IR Metrics Explorer", page_icon="📊", layout="wide")

pages = [
    st.Page(guard.guarded(explore.page), title="Explore a query", icon="🔎", url_path="explore", default=True),
]
st.navigation(pages).run()
