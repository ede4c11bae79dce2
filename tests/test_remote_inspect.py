"""The inspector child on a remote host over SSH: the same frames on stdin / stdout through
``ssh HOST python -m explorer.worker.inspector``; a probe there equals the probe of the local server."""

import numpy as np
import pytest
from helpers import save_tiny_model
from inspect_double import ThreadTransport

from explorer.core.remote.hosts import Host
from explorer.core.remote.ssh import inspector_argv
from explorer.ui.inspectors.client import InspectClient, ProcessTransport

QUESTION, PASSAGE = "who wrote the notes?", "ada lovelace wrote the notes on the engine in 1843 in london."
PROBE = {"slot": "qa", "question": QUESTION, "passage": PASSAGE, "max_seq_length": 32, "doc_stride": 8,
         "attentions": False}


def _probe(qtbot, client, model_dir):
    got = {}
    with qtbot.waitSignal(client._arrived, timeout=120_000, raising=True,
                          check_params_cb=lambda reply, value, gen: reply.get("event") in ("result", "error")):
        client.load("qa", str(model_dir), "qa", on_done=lambda v: got.setdefault("load", v),
                    on_error=lambda m, tb: got.setdefault("error", m))
    assert "error" not in got, got
    with qtbot.waitSignal(client._arrived, timeout=120_000,
                          check_params_cb=lambda reply, value, gen: reply.get("event") in ("result", "error")):
        client.request("probe", PROBE, on_done=lambda v: got.setdefault("probe", v),
                       on_error=lambda m, tb: got.setdefault("error", m))
    qtbot.waitUntil(lambda: "probe" in got or "error" in got, timeout=10_000)
    assert "error" not in got, got
    return got["probe"]


@pytest.mark.slow   # a real inspector child (it imports torch) on the host, like tests/test_inspect_process.py
def test_a_probe_over_ssh_equals_the_local_probe(qtbot, sshd_server, tmp_path):
    model_dir = save_tiny_model(tmp_path / "qa", "qa")
    host = Host(name="lab", target=sshd_server.alias, python=str(sshd_server.python), runs_dir=str(sshd_server.runs))
    argv = inspector_argv(host)
    assert argv[0] == "ssh" and argv[-1].endswith("-m explorer.worker.inspector")
    remote = InspectClient(lambda: ProcessTransport(argv))
    local = InspectClient(ThreadTransport)
    try:
        there = _probe(qtbot, remote, model_dir)
        here = _probe(qtbot, local, model_dir)
    finally:
        remote.stop()
        local.stop()
    assert there.windows and len(there.windows) == len(here.windows)
    assert there.best_non_null_score - there.null_score == pytest.approx(here.best_non_null_score - here.null_score, abs=1e-5)
    assert there.null_score == pytest.approx(here.null_score, abs=1e-5)
    assert [s.text for s in there.decoding.nbest] == [s.text for s in here.decoding.nbest]
    np.testing.assert_allclose(there.windows[0].start_logits, here.windows[0].start_logits, atol=1e-5)
