"""The peer of bench_latency.py: the smallest Streamlit page that does what the explorer's k change does, a k
input, a 4-row table, seven metric cards and one plotly chart, computed in plain Python.

For the explorer's other interactions the same page adds the one control that interaction needs, named by the
link's ``with`` parameter, so each interaction is timed against Streamlit doing the same kind of thing on the
smallest page that can:

- ``with=grid``: the 4-row table is an editable grid (the explorer's six columns), whose grades the cards use;
- ``with=move``: a "Move document" box and up and down buttons reorder the table;
- ``with=gain``: a sidebar expander "Conventions", drawn only while open, holds a gain box (linear or
  exponential) that nDCG uses;
- ``with=tabs``: the chart sits in a tab "Changing k"; a second tab, drawn only while open, holds one plotly
  heatmap of what swapping two ranks does to nDCG@k.

    streamlit run bench/minimal_page.py
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

DOCS = ("donut", "bagel", "muffin", "croissant")
GRADES = {"donut": 0, "bagel": 2, "muffin": 1, "croissant": 0}


def metrics_at(k: int, order=DOCS, grades=GRADES, exponential: bool = False) -> dict[str, float]:
    """Seven textbook measures of the 4-document list at cut-off ``k`` (binary relevance: grade >= 1)."""
    relevant = [grades[doc] >= 1 for doc in order[:k]]
    total = sum(grade >= 1 for grade in grades.values())
    hits = sum(relevant)
    first = next((rank for rank, rel in enumerate(relevant, start=1) if rel), None)
    precisions = [sum(relevant[:rank]) / rank for rank, rel in enumerate(relevant, start=1) if rel]
    gain = (lambda grade: 2 ** grade - 1) if exponential else (lambda grade: max(grade, 0))
    gains = [gain(grades[doc]) for doc in order[:k]]
    ideal = sorted((gain(grade) for grade in grades.values()), reverse=True)[:k]
    dcg = sum(value / math.log2(rank + 1) for rank, value in enumerate(gains, start=1))
    idcg = sum(value / math.log2(rank + 1) for rank, value in enumerate(ideal, start=1))
    return {f"P@{k}": hits / k, f"Recall@{k}": hits / total if total else 0.0,
            "RR": 1 / first if first else 0.0, f"AP@{k}": sum(precisions) / total if total else 0.0,
            f"nDCG@{k}": dcg / idcg if idcg else 0.0, f"Success@{k}": float(hits > 0),
            "R-prec": sum(relevant[:total]) / total if total else 0.0}


extra = st.query_params.get("with", "")
st.session_state.setdefault("order", list(DOCS))
order = st.session_state["order"]

exponential = False
if extra == "gain":  # drawn only while open, as the explorer's panel
    panel = st.sidebar.expander("Conventions", key="conventions_panel", on_change="rerun")
    if panel.open:
        with panel:
            exponential = st.selectbox("Gain", ["linear", "exponential"], key="convention_gain") == "exponential"

st.title("Minimal page")
k = st.number_input("k (cut-off)", min_value=1, max_value=1000, value=4, step=1, key="k_input")
grades = dict(GRADES)
table = pd.DataFrame({"rank": range(1, 5), "doc": order, "grade": [GRADES[doc] for doc in order]})
if extra == "grid":  # text cells, as the explorer's
    table = pd.DataFrame({"rank": ["1", "2", "3", "4"], "doc": order, "score": ["4", "3", "2", "1"],
                          "grade": [str(GRADES[doc]) for doc in order], "judged": "✓", "removed": False})
    edited = st.data_editor(table, key="grid", hide_index=True)
    grades = {doc: int(grade) if str(grade).lstrip("-").isdigit() else 0
              for doc, grade in zip(edited["doc"], edited["grade"])}
else:
    st.dataframe(table, hide_index=True)

if extra == "move":
    def move(offset: int) -> None:
        index = order.index(st.session_state["move_doc"].split(". ", 1)[1])
        order.insert(index + offset, order.pop(index))
        st.session_state["move_doc"] = f"{index + offset + 1}. {order[index + offset]}"

    with st.container(horizontal=True, vertical_alignment="bottom"):
        labels = [f"{rank}. {doc}" for rank, doc in enumerate(order, start=1)]
        chosen = labels.index(st.selectbox("Move document", labels, key="move_doc"))
        st.button("up", key="move_up", on_click=move, args=(-1,), disabled=chosen == 0)
        st.button("down", key="move_down", on_click=move, args=(1,), disabled=chosen == len(labels) - 1)

values = metrics_at(int(k), tuple(order), grades, exponential)
for column, (label, value) in zip(st.columns(len(values)), values.items()):
    column.metric(label, f"{value:.3f}")


def bar_chart() -> None:
    st.plotly_chart(go.Figure(go.Bar(x=list(values), y=list(values.values()))), key="chart")


if extra == "tabs":
    changing_k, swapping = st.tabs(["Changing k", "Swapping two ranks"], key="tab", on_change="rerun")
    if changing_k.open:
        with changing_k:
            bar_chart()
    if swapping.open:
        with swapping:
            label = f"nDCG@{int(k)}"
            swaps = [[None if j <= i else values[label] - metrics_at(int(k), tuple(
                order[j] if n == i else order[i] if n == j else doc for n, doc in enumerate(order)),
                grades, exponential)[label] for j in range(4)] for i in range(4)]
            figure = go.Figure(go.Heatmap(z=swaps, x=[1, 2, 3, 4], y=[1, 2, 3, 4], colorscale="RdBu"))
            figure.update_layout(title="What swapping two ranks does to each metric")
            st.plotly_chart(figure, key="swaps")
else:
    bar_chart()
