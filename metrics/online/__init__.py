"""Online signals simulated from the judgments: click models over a ranked list, their closed forms, seeded
simulation, A/B tests and interleaving against a baseline, and run-level signals.

- :mod:`.models`: the click models (cascade, pbm, dbn), default parameters from grades, closed forms;
"""

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

__all__ = ["MODELS", "MODEL_HELP", "SIGNALS", "SIGNAL_HELP", "ClickModel", "Signals", "default_attractiveness",
           "default_position_bias", "default_satisfaction", "expected_signals"]
