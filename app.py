"""IR Metrics Explorer. Run with `streamlit run app.py` (or `make app`)."""

import streamlit as st

from ui import pages

st.set_page_config(page_title="IR Metrics Explorer", page_icon="📊", layout="wide")
st.navigation(pages.build()).run()
