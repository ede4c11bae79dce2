"""Shared fixtures: offscreen Qt, no network, tiny random models, the real-data folder."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def tiny_qa():
    """A tiny random BERT QA model + fast tokenizer (2 layers, 4 heads, hidden 32)."""
    from helpers import tiny_loaded_model

    return tiny_loaded_model("qa")


@pytest.fixture(scope="session")
def real_data() -> Path:
    """The folder named by EXPLORER_REAL_DATA; skips the test when it is unset or missing."""
    value = os.environ.get("EXPLORER_REAL_DATA")
    if not value:
        pytest.skip("EXPLORER_REAL_DATA is not set (the folder of real SQuAD / GLUE files; see the README)")
    path = Path(value)
    if not path.is_dir():
        pytest.skip(f"EXPLORER_REAL_DATA={value} is not a folder")
    return path
