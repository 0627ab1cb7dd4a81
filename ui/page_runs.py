"""Page script: Evaluate a run (a file, so that st.switch_page and AppTest can address it)."""

from ui import evaluate_run, guard

guard.guarded(evaluate_run.page)()
