"""Labels that several pages show for the same thing."""

from __future__ import annotations

#: The click models, as the radio buttons of the explorer's online section and the run page's online tab name them.
MODEL_LABELS = {"cascade": "Cascade", "pbm": "PBM (position-based)", "dbn": "DBN (dynamic Bayesian network)"}
