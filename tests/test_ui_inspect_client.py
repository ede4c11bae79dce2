"""InspectClient (explorer/ui/inspectors/client.py) with the in-thread double of the child: a child that cannot
start is a message where the result would have been, a dead one fails what is pending and the next request
starts a new one that gets the models back (the real process: tests/test_inspect_process.py)."""

from __future__ import annotations

import pytest
from inspect_double import ThreadTransport

QUESTION = "where was ada born?"
PASSAGE = "ada lovelace was born in london in 1815. she wrote the first program."


def _hub(qtbot, client):
    from explorer.ui.inspectors import InspectorHub

    hub = InspectorHub(client=client)
    for _, w in hub.tabs():
        qtbot.addWidget(w)
    return hub


def test_a_child_that_cannot_start_is_a_clear_message(qtbot):
    from explorer.ui.inspectors.client import InspectClient

    class NoPython:
        def start(self):
            raise FileNotFoundError(2, "No such file or directory", "/gone/python")

    hub = _hub(qtbot, InspectClient(NoPython))
    with qtbot.waitSignal(hub.loads.failed, timeout=60_000):
        hub.open_model("bundled:minilm")
    status = hub.panel.status.text()
    assert "cannot start the inspector process" in status and "/gone/python" in status
    assert "Traceback" not in status and not hub.loads._outstanding


def test_a_dead_child_fails_the_pending_request_and_the_next_one_gets_the_model_back(qtbot, tiny_qa):
    from explorer.ui.inspectors.client import InspectClient

    transports = []

    def factory():
        transports.append(ThreadTransport())
        return transports[-1]

    client = InspectClient(factory)
    hub = _hub(qtbot, client)
    hub.set_model(tiny_qa)
    with qtbot.waitSignal(hub.result_changed, timeout=20000):
        hub.open_example(QUESTION, PASSAGE)
    messages = []
    client.message.connect(messages.append)
    with qtbot.waitSignal(hub.probes.failed, timeout=20000) as failed:
        transports[-1].kill_after(hub.probe_now)   # the double's "process" ends before it can answer
    assert "The inspector process stopped" in failed.args[1] and messages == [failed.args[1]]
    assert client.restarts == 1 and not client.running and client.outstanding() == 0
    with qtbot.waitSignal(hub.result_changed, timeout=20000) as again:
        hub.probe_now()
    assert len(transports) == 2 and again.args[0].question == QUESTION
    assert transports[1].server.state.models["qa"] is tiny_qa      # the adopted model was handed over again
    reader = client._reader
    client.stop()
    # stop() returns after the reader thread ended: it holds the client and emits on it, and a QObject whose
    # last reference went on that thread would be deleted there (the segfault the suite met at this test)
    assert reader is not None and not reader.is_alive()


@pytest.mark.parametrize("bad", [{"question": "q", "passage": "p", "callback": print}])
def test_a_request_that_cannot_be_sent_fails_at_once(qtbot, bad):
    from explorer.ui.inspectors.client import InspectClient

    client = InspectClient(ThreadTransport)
    errors = []
    client.request("probe", bad, on_error=lambda m, _tb: errors.append(m))
    assert errors and "cannot send this request to the inspector process" in errors[0] and ".callback" in errors[0]
    client.stop()
