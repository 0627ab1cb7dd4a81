"""Page script: Explore a query (a file, so that st.switch_page and AppTest can address it)."""

from ui.common.guard import guarded
from ui.explore import page

guarded(page)()
