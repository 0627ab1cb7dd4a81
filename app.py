"""IR Metrics Explorer: `streamlit run app.py`."""

import streamlit as st

st.set_page_config(page_title="IR Metrics Explorer", page_icon="📊", layout="wide")
st.title("IR Metrics Explorer")
st.write("The explorer is being built. The engine is in `metrics/`: `python -m metrics --help`.")
