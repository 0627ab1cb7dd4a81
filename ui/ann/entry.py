"""Page script: ANN recall vs retrieval recall (a file, so that st.switch_page and AppTest can address it)."""

from ui.ann import page
from ui.common.guard import guarded

guarded(page)()
