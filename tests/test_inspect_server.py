"""The inspector child's server (explorer.worker.inspector.Server) over real pipes, without Qt: supersede by
channel, cancel, lanes that do not wait for each other, and clear error replies for bad requests."""

from __future__ import annotations

import os
import threading

import pytest

from explorer.core.protocol.frames import read_frame, write_frame
from explorer.worker import inspector_ops as inspect_ops
from explorer.worker.inspector import Server


class Pipe:
    """A Server on a thread; send() requests, reply() reads the next frame."""

    def __init__(self):
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        self.to_server, self.from_server = os.fdopen(req_w, "wb"), os.fdopen(rep_r, "rb")
        self.server = Server(os.fdopen(req_r, "rb"), os.fdopen(rep_w, "wb"))
        self.thread = threading.Thread(target=self.server.serve, daemon=True)
        self.thread.start()
        assert self.reply()[0]["event"] == "ready"

    def send(self, message: dict, data=None) -> None:
        write_frame(self.to_server, message, data)

    def reply(self):
        return read_frame(self.from_server)

    def close(self) -> None:
        self.to_server.close()
        self.thread.join(5)


@pytest.fixture
def pipe(monkeypatch):
    gate, started = threading.Event(), threading.Event()

    def blocked(state, args, progress, cancelled):
        started.set()
        gate.wait(10)
        return args.get("value", "done")

    def counting(state, args, progress, cancelled):
        for i in range(1, 200):
            if cancelled():
                from explorer.core.errors import Cancelled

                raise Cancelled()
            progress(i, 200)
            gate.wait(0.01)
        return "finished"

    monkeypatch.setitem(inspect_ops.OPS, "blocked", (blocked, "model"))
    monkeypatch.setitem(inspect_ops.OPS, "echo", (lambda s, a, p, c: a.get("value"), "model"))
    monkeypatch.setitem(inspect_ops.OPS, "counting", (counting, "study"))
    monkeypatch.setitem(inspect_ops.OPS, "unsendable", (lambda s, a, p, c: {"f": print}, "io"))
    p = Pipe()
    p.gate, p.started = gate, started
    yield p
    gate.set()
    p.close()


def test_a_newer_request_on_a_channel_drops_the_queued_one(pipe):
    pipe.send({"id": 1, "op": "blocked", "channel": "qa.probe"}, {"value": "first"})
    assert pipe.started.wait(10)                            # running: it finishes (the client drops it)
    pipe.send({"id": 2, "op": "echo", "channel": "qa.probe"}, {"value": "stale"})
    queued_3 = threading.Event()                           # the gate: id 3 is queued before id 1 finishes
    queue = pipe.server._queue

    def queue_and_signal(message, data):
        queue(message, data)
        if message.get("id") == 3:
            queued_3.set()

    pipe.server._queue = queue_and_signal
    pipe.send({"id": 3, "op": "echo", "channel": "qa.probe"}, {"value": "fresh"})
    assert queued_3.wait(10)
    pipe.gate.set()
    replies = [pipe.reply() for _ in range(3)]
    assert [(m["event"], m["id"], v) for m, v in replies] == [("result", 1, "first"), ("dropped", 2, None),
                                                              ("result", 3, "fresh")]


def test_the_study_lane_does_not_block_the_model_lane_and_cancel_stops_it(pipe):
    pipe.send({"id": 1, "op": "counting"}, {})
    message, _ = pipe.reply()
    assert message == {"event": "progress", "id": 1, "done": 1, "total": 200}
    pipe.send({"id": 2, "op": "echo"}, {"value": 42})
    events = []
    while (2, "result") not in [e[:2] for e in events]:      # the echo answers while the study still runs
        message, value = pipe.reply()
        events.append((message["id"], message["event"], value))
    assert (2, "result", 42) in events and all(e[1] == "progress" for e in events if e[0] == 1)
    pipe.send({"id": 3, "op": "cancel", "target": 1})
    while True:
        message, _ = pipe.reply()
        if message["event"] != "progress":
            break
    assert message == {"event": "cancelled", "id": 1}


def test_bad_requests_get_specific_error_replies_and_the_server_goes_on(pipe):
    pipe.send({"id": 1, "op": "no_such_op"}, {})
    message, _ = pipe.reply()
    assert message["event"] == "error" and "unknown inspector operation 'no_such_op'" in message["error"]
    pipe.send({"id": 2, "op": "unsendable"}, {})
    message, _ = pipe.reply()
    assert message["event"] == "error" and message["id"] == 2 and "builtins.builtin_function_or_method" in \
        message["error"] and ".f" in message["error"]
    pipe.to_server.write(b"this is not json\n")
    pipe.to_server.flush()
    message, _ = pipe.reply()
    assert message["event"] == "error" and message["id"] == -1 and "not a JSON line" in message["error"]
    pipe.send({"id": 3, "op": "probe"}, {"question": "q", "passage": "p", "max_seq_length": 384, "doc_stride": 128})
    message, _ = pipe.reply()
    assert message["event"] == "error" and message["user"] and "no model loaded" in message["error"]
    assert "Traceback" not in message["error"]
    pipe.send({"id": 4, "op": "echo"}, {"value": "still here"})
    assert pipe.reply() == ({"event": "result", "id": 4}, "still here")
