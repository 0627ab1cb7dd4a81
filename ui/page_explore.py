"""Page script: Explore a query (a file, so that st.switch_page and AppTest can address it)."""

from ui import explore, guard

guard.guarded(explore.page)()
