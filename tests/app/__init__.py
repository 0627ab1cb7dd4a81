"""The Streamlit app without a browser: its pages through AppTest, and the figure builders and state they use."""
