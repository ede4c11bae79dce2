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


@pytest.fixture(autouse=True)
def _inspector_child_in_a_thread(request):
    """The inspector views talk to the real server on a thread of this process (tests/inspect_double.py),
    so that tests may hand in-memory tiny models over; tests marked ``real_inspect_process`` start the real
    child process instead. Each test gets a fresh shared client."""
    from explorer.ui.inspectors import client

    if request.node.get_closest_marker("real_inspect_process"):
        old = client.set_transport_factory(client.ProcessTransport)
    else:
        from inspect_double import ThreadTransport

        old = client.set_transport_factory(ThreadTransport)
    yield
    client.reset_shared_client()
    client.set_transport_factory(old)
