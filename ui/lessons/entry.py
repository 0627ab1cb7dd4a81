"""Page script: Lessons (a file, so that st.switch_page and AppTest can address it)."""

from ui.common.guard import guarded
from ui.lessons import page

guarded(page)()
