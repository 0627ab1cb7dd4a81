"""The peer of bench_latency.py: the smallest Streamlit page that does what the explorer's k change does, a k
input, a 4-row table, seven metric cards and one plotly chart, computed in plain Python.

    streamlit run bench/minimal_page.py
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

DOCS = ("donut", "bagel", "muffin", "croissant")
GRADES = {"donut": 0, "bagel": 2, "muffin": 1, "croissant": 0}


def metrics_at(k: int) -> dict[str, float]:
    """Seven textbook measures of the 4-document list at cut-off ``k`` (binary relevance: grade >= 1)."""
    relevant = [GRADES[doc] >= 1 for doc in DOCS[:k]]
    total = sum(grade >= 1 for grade in GRADES.values())
    hits = sum(relevant)
    first = next((rank for rank, rel in enumerate(relevant, start=1) if rel), None)
    precisions = [sum(relevant[:rank]) / rank for rank, rel in enumerate(relevant, start=1) if rel]
    gains = [2 ** GRADES[doc] - 1 for doc in DOCS[:k]]
    ideal = sorted((2 ** grade - 1 for grade in GRADES.values()), reverse=True)[:k]
    dcg = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))
    idcg = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(ideal, start=1))
    return {f"P@{k}": hits / k, f"Recall@{k}": hits / total, "RR": 1 / first if first else 0.0,
            f"AP@{k}": sum(precisions) / total, f"nDCG@{k}": dcg / idcg if idcg else 0.0,
            f"Success@{k}": float(hits > 0), "R-prec": sum(relevant[:total]) / total}


st.title("Minimal page")
k = st.number_input("k (cut-off)", min_value=1, max_value=1000, value=4, step=1, key="k_input")
st.dataframe(pd.DataFrame({"rank": range(1, 5), "doc": DOCS, "grade": [GRADES[doc] for doc in DOCS]}),
             hide_index=True)
values = metrics_at(int(k))
for column, (label, value) in zip(st.columns(len(values)), values.items()):
    column.metric(label, f"{value:.3f}")
st.plotly_chart(go.Figure(go.Bar(x=list(values), y=list(values.values()))), key="chart")
