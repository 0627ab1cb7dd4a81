"""IR Metrics Explorer. Run with `streamlit run app.py` (or `make app`)."""

import streamlit as st

st.set_page_config(page_title="IR Metrics Explorer", page_icon=":material/leaderboard:", layout="wide")

from ui import pages  # noqa: E402  (pages are built after set_page_config)

st.navigation(pages.ALL).run()
