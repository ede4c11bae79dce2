"""Every transition of the run status state machine (explorer/core/runs/status.py), and that the runs
list, the GUI's run states and the run store agree on it."""

import pytest

from explorer.core.runs import status as rs

S, F, E = {"event": "started"}, {"event": "finished"}, {"event": "finished", "stopped_early": True}
FAIL, CANC = {"event": "failed", "error": "x"}, {"event": "cancelled"}
OTHER = [{"event": "step", "step": 1}, {"event": "eval", "step": 1, "metrics": {}},
         {"event": "checkpoint", "step": 1}, {"event": "log", "message": "m"}]


def test_one_list_of_names():
    assert rs.STATUSES == ("queued", "starting", "running", "stopping", "cancelling",
                           "finished", "stopped", "failed", "cancelled", "crashed",
                           "TensorBoard run", "in progress")   # other tools' runs (core.runs.readers)
    assert set(rs.LIVE) | set(rs.TERMINAL) | set(rs.FOREIGN) == set(rs.STATUSES)
    assert not set(rs.LIVE) & set(rs.TERMINAL) and not (set(rs.LIVE) | set(rs.TERMINAL)) & set(rs.FOREIGN)
    assert not any(rs.is_live(s) for s in rs.FOREIGN)   # no worker of ours: nothing to stop or cancel
    assert all(rs.is_live(s) for s in rs.LIVE) and not any(rs.is_live(s) for s in rs.TERMINAL)


@pytest.mark.parametrize("status", rs.STATUSES)
def test_events_from_every_status(status):
    # a terminal event always decides
    assert rs.after_event(status, F) == "finished"
    assert rs.after_event(status, E) == "stopped"
    assert rs.after_event(status, FAIL) == "failed"
    assert rs.after_event(status, CANC) == "cancelled"
    # started: running (a resumed run starts again), but a pending request stays visible
    expected = status if status in ("stopping", "cancelling") else "running"
    assert rs.after_event(status, S) == expected
    # progress events never change the status
    for ev in OTHER:
        assert rs.after_event(status, ev) == status


@pytest.mark.parametrize("status, start, stop, cancel, launch_failed", [
    ("queued", "starting", "queued", "cancelled", "failed"),
    ("starting", "starting", "stopping", "cancelling", "failed"),
    ("running", "running", "stopping", "cancelling", "running"),
    ("stopping", "stopping", "stopping", "cancelling", "stopping"),
    ("cancelling", "cancelling", "cancelling", "cancelling", "cancelling"),
    ("finished", "finished", "finished", "finished", "finished"),
    ("stopped", "stopped", "stopped", "stopped", "stopped"),
    ("failed", "failed", "failed", "failed", "failed"),
    ("cancelled", "cancelled", "cancelled", "cancelled", "cancelled"),
    ("crashed", "crashed", "crashed", "crashed", "crashed"),
])
def test_requests_from_every_status(status, start, stop, cancel, launch_failed):
    assert rs.after_request(status, "start") == start
    assert rs.after_request(status, "stop") == stop
    assert rs.after_request(status, "cancel") == cancel
    assert rs.after_request(status, "launch_failed") == launch_failed
    with pytest.raises(ValueError, match="unknown run request 'pause'"):
        rs.after_request(status, "pause")


@pytest.mark.parametrize("status", rs.STATUSES)
def test_worker_exit_from_every_status(status):
    working = status in ("starting", "running", "stopping", "cancelling")
    for reported in ("finished", "stopped", "failed", "cancelled"):
        assert rs.after_exit(status, reported) == (reported if working else status)


def test_terminal_status_of_events():
    assert [rs.terminal_status(e) for e in (S, F, E, FAIL, CANC, *OTHER)] == [
        None, "finished", "stopped", "failed", "cancelled", None, None, None, None]


@pytest.mark.parametrize("events, alive, expected", [
    ([], True, "running"), ([], False, "crashed"),
    ([S, *OTHER], True, "running"), ([S, *OTHER], False, "crashed"),
    ([S, F], False, "finished"), ([S, E], True, "stopped"), ([FAIL], False, "failed"), ([S, CANC], True, "cancelled"),
    ([S, CANC, S, OTHER[0]], False, "crashed"),      # resumed after a cancel, then the worker died
    ([S, FAIL, S, F], False, "finished"),            # resumed after a failure and finished
    ([S, E, S], True, "running"),                    # a run stopped early and resumed
])
def test_replay(events, alive, expected):
    from explorer.core.runs.reading import derive_status
    from explorer.ui.runs.state import RunState

    assert rs.replay(events, alive) == expected
    assert derive_status(events, alive) == expected
    assert RunState.from_events("r", events, alive=alive).status == expected


def test_live_run_state_keeps_a_pending_stop_until_the_end():
    from explorer.ui.runs.state import RunState

    state = RunState("r", status="queued")
    state.status = rs.after_request(state.status, "start")
    state.status = rs.after_request(state.status, "stop")
    state.apply(S)                 # the worker reports started after the stop request
    state.apply(OTHER[0])
    assert state.status == "stopping"
    state.apply(E)
    assert state.status == "stopped" and state.stopped_early
    assert rs.after_exit(state.status, "stopped") == "stopped"


def test_run_store_reads_the_same_status(tmp_path):
    from explorer.core.protocol.events import EventWriter
    from explorer.ui.runs.store import load_run_state

    for name, events in {"a": [S, E], "b": [S, OTHER[0]], "c": [S, FAIL, S, F]}.items():
        w = EventWriter(name, path=tmp_path / name / "events.jsonl")
        for ev in events:
            w.emit(ev["event"], **{k: v for k, v in ev.items() if k != "event"})
        w.close()
    assert [load_run_state(tmp_path / n).status for n in "abc"] == ["stopped", "crashed", "finished"]
