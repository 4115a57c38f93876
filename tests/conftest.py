"""Hypothesis profiles: "ci" (the default) is fixed-seed and quick; "fuzz" (tox -e fuzz) is long and random. SIGINT
as a terminal gives it, for the tests that send it to a harness they start. And a copy of the source tree to build
packages from."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest
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


ROOT = Path(__file__).resolve().parent.parent
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".tox", "node_modules", "build", "dist", "reports", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
    ".coverage*",
)  # fmt: skip


@pytest.fixture
def source_tree(tmp_path: Path) -> Path:
    """A copy of the source tree: a package build writes into the tree it builds from (build/, *.egg-info), and tox
    runs environments side by side (.ci/run), so each build gets a tree of its own."""
    tree = tmp_path / "source"
    shutil.copytree(ROOT, tree, ignore=NOT_SOURCE)
    return tree
