"""Online signals simulated from the judgments: click models over a ranked list, their closed forms, seeded
simulation, A/B tests and interleaving against a baseline, and run-level signals.

- :mod:`.models`: the click models (cascade, pbm, dbn), default parameters from grades, closed forms;
- :mod:`.simulate`: seeded, chunked simulation of N sessions with standard errors;
- :mod:`.experiments`: A/B test against a baseline, sessions needed per arm, team-draft interleaving;
- :mod:`.run`: every query's signals over a run, their means, the zero-result and abandonment rates;
- ``python -m metrics.online`` (:mod:`.__main__`): the command line, in trec_eval's three columns.
"""

from .experiments import ABTest, Difference, Interleaving, ab_test, sessions_needed, team_draft
from .models import (
    MODEL_HELP,
    MODELS,
    SIGNAL_HELP,
    SIGNALS,
    ClickModel,
    Signals,
    default_attractiveness,
    default_position_bias,
    default_satisfaction,
    expected_signals,
)
from .run import RUN_SIGNALS, RunSignals, run_signals
from .simulate import Simulated, simulate_signals

__all__ = [
    "ABTest", "ClickModel", "Difference", "Interleaving", "MODELS", "MODEL_HELP", "RUN_SIGNALS", "RunSignals",
    "SIGNALS", "SIGNAL_HELP", "Signals", "Simulated", "ab_test", "default_attractiveness", "default_position_bias",
    "default_satisfaction", "expected_signals", "run_signals", "sessions_needed", "simulate_signals", "team_draft",
]
