"""Where each page's script lives (``st.switch_page`` and AppTest address pages by script path).

app.py builds the ``st.Page`` objects from these on every run; pages switch to each other by path, so no page
imports another.
"""

from __future__ import annotations

EXPLORE = "ui/explore/entry.py"
RUNS = "ui/runs/entry.py"
ANN = "ui/ann/entry.py"
LESSONS = "ui/lessons/entry.py"
