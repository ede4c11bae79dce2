"""`ruff check explorer` finds nothing under the pyproject.toml configuration ([tool.ruff])."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing_in_explorer():
    pytest.importorskip("ruff")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "explorer"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_config_selects_the_rules_the_noqa_comments_name():
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+

    lint = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"]
    for prefix in ("E", "F", "N", "BLE", "A"):   # E402, E731, F401, F811, N802, BLE001, A003 in the code
        assert prefix in lint["select"]
