"""Where the project's own files live (resources/, the default runs folder)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
RESOURCES = REPO_ROOT / "resources"
SAMPLES = RESOURCES / "samples"


def default_runs_dir() -> Path:
    """The runs folder: $EXPLORER_RUNS_DIR if set, else ~/bert-explorer-runs."""
    env = os.environ.get("EXPLORER_RUNS_DIR")
    return Path(env) if env else Path.home() / "bert-explorer-runs"
