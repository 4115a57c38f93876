"""Hypothesis profiles: "ci" (the default) is fixed-seed and quick; "fuzz" (tox -e fuzz) is long and random. And
SIGINT as a terminal gives it, for the tests that send it to a harness they start."""

from __future__ import annotations

import os
import signal

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=400, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "fuzz", max_examples=100_000, derandomize=False, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# A shell starts a background job (`nohup pytest &`) with SIGINT ignored, and a child inherits that: the harness would
# never see the Ctrl-C those tests send. Handled here, the child starts with SIGINT's default action again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
