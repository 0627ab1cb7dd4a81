"""Page script: Evaluate a run (a file, so that st.switch_page and AppTest can address it)."""

from ui.common.guard import guarded
from ui.runs import page

guarded(page)()
