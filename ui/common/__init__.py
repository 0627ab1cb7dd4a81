"""What the pages share, and the only package a page imports besides its own.

- ``state``: session-state keys, the current query, messages, the link with the URL
- ``query_state``: the explorer's QueryState and the URL codec
- ``text``: user text shown literally (``literal``), the query filter
- ``uploads``: every qrels and run upload, read one way with one cap, once per session
- ``conventions``, ``labels``: widgets and labels both pages draw
- ``two_lists``: two ranked lists side by side over the same judgments (the explorer's section, the lessons)
- ``chart_layout``: one colour per metric family, one font, literal plotly labels
- ``guard``: an unexpected error becomes a message, never a traceback
- ``pages``: where each page's script lives
"""
