"""Typed event records (explorer/core/protocol/events.py): every field a real run writes is declared in its
event's TypedDict, so the contract between worker and GUI is written in one place."""

import contextlib
import io

from helpers import save_tiny_model, write_tiny_squad

from explorer.core.protocol.events import EVENT_RECORDS, EVENT_TYPES, WatchRow, iter_events, make_event
from explorer.worker.train import main as train_main


def _keys(record: type) -> set[str]:
    return set(record.__annotations__)


def test_records_cover_every_event_type():
    assert tuple(EVENT_RECORDS) == EVENT_TYPES
    for record in EVENT_RECORDS.values():
        assert {"event", "run_id", "time"} <= set(record.__required_keys__)


def test_a_real_run_writes_only_declared_fields(tmp_path):
    model = save_tiny_model(tmp_path / "qa", "qa")
    data = write_tiny_squad(tmp_path / "sq2.json", v2=True)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in ["--model", model, "--task", "squad_v2", "--train", data, "--dev", data,
                                          "--max-steps", 2, "--eval-every", 1, "--max-seq-length", 64,
                                          "--doc-stride", 16, "--max-query-length", 16, "--output-dir", tmp_path,
                                          "--run-id", "typed"]])
    events = list(iter_events(buf.getvalue().splitlines()))
    assert rc == 0, events[-1]
    seen = {e["event"] for e in events}
    assert {"started", "step", "eval", "checkpoint", "finished", "log"} <= seen
    for ev in events:
        extra = set(ev) - _keys(EVENT_RECORDS[ev["event"]])
        assert not extra, (ev["event"], extra)
        for row in ev.get("watch", []):
            assert set(row) <= _keys(WatchRow), set(row) - _keys(WatchRow)
    assert any(ev.get("watch") for ev in events if ev["event"] == "eval")
    # every evaluation says it began (then its progress every few seconds): the final one on the whole dev set
    began = [ev for ev in events if ev["event"] == "evaluating"]
    evals = [ev for ev in events if ev["event"] == "eval"]
    assert len([ev for ev in began if ev["rows_done"] == 0]) == len(evals)
    final = [ev for ev in began if ev["final"]]
    assert final and final[-1]["rows_total"] == final[-1]["dev_total"] == evals[-1]["dev_total"]


def test_gui_written_events_are_declared():
    for ev in (make_event("failed", "r", error="x", traceback="", source="gui"),
               make_event("cancelled", "r", step=None, seconds=None, source="gui")):
        assert set(ev) <= _keys(EVENT_RECORDS[ev["event"]])
