"""Where each page's script lives (``st.switch_page`` and AppTest address pages by script path).

app.py builds the ``st.Page`` objects from these on every run; pages switch to each other by path, so no page
imports another.
"""

from __future__ import annotations

from dataclasses import dataclass

EXPLORE = "ui/explore/entry.py"
RUNS = "ui/runs/entry.py"
ANN = "ui/ann/entry.py"
LESSONS = "ui/lessons/entry.py"


@dataclass(frozen=True)
class Entry:
    """One page of the sidebar: its script, its title there, its icon and its url path."""

    script: str
    title: str
    icon: str
    url_path: str


#: The sidebar's pages, in its order; the first is the default page, served at ``/`` (its url path only names it).
#: docs/app.md names them in this order.
NAVIGATION = (
    Entry(EXPLORE, "Explore a query", ":material/search:", "explorer"),
    Entry(RUNS, "Evaluate a run", ":material/table_chart:", "runs"),
    Entry(ANN, "ANN recall", ":material/hub:", "ann"),
    Entry(LESSONS, "Lessons", ":material/school:", "lessons"),
)

#: Addresses a person may type or an older link may hold, and the page each opens: url path -> the page's script.
#: The explorer is the default page, served at ``/`` only, so ``/explore`` would otherwise be "Page not found".
#: app.py serves each as a hidden page that switches to its script with the link's query parameters.
ALIASES = {"explore": EXPLORE}
