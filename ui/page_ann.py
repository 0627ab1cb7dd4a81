"""Page script: ANN recall vs retrieval recall (a file, so that st.switch_page and AppTest can address it)."""

from ui import ann, guard

guard.guarded(ann.page)()
