"""The worker as a real child process: stop early (STOP file, SIGINT), cancel (SIGTERM), resume.

Each test checks that events.jsonl is complete and parseable and that checkpoints load."""

import contextlib
import io
import json
import signal
import subprocess
import time

import pytest
from helpers import REPO_ROOT, run_worker, save_tiny_model, worker_command, worker_env, write_tiny_squad

from explorer.core.runs import layout, reading, workers
from explorer.core.protocol.events import parse_event


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("worker-files")
    return {"qa": str(save_tiny_model(d / "qa", "qa")), "sq2": str(write_tiny_squad(d / "sq2.json", repeat=3))}


def _args(files, out, run_id, *extra):
    return ["--model", files["qa"], "--task", "squad_v2", "--train", files["sq2"], "--dev", files["sq2"],
            "--dev-cap", 6, "--batch-size", 4, "--learning-rate", 1e-3, "--output-dir", str(out),
            "--run-id", run_id, *[str(x) for x in extra]]


def _strict_events(path):
    """Every line of events.jsonl must parse (no torn lines)."""
    return [parse_event(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _start(argv):
    return subprocess.Popen(worker_command([str(a) for a in argv]), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=worker_env(), cwd=REPO_ROOT)


def _wait_for_step(events_file, proc, timeout=120):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if events_file.exists() and '"event":"step"' in events_file.read_text(encoding="utf-8"):
            return
        if proc.poll() is not None:
            raise AssertionError(f"worker exited early: {proc.stdout.read()[-2000:]} {proc.stderr.read()[-2000:]}")
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("no step event in time")


def test_stop_file_then_resume_continues_the_same_schedule(files, tmp_path):
    from explorer.core.models.loading import load_model
    from explorer.worker.train import main as train_main

    # reference: the same 6 steps without interruption, in this process
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert train_main([str(a) for a in _args(files, tmp_path, "ref", "--max-steps", 6)]) == 0
    ref = [json.loads(x) for x in buf.getvalue().splitlines()]
    ref_steps = {e["step"]: e for e in ref if e["event"] == "step"}

    # a STOP file present from the start: the worker finishes step 1, evaluates, saves, finishes
    (tmp_path / "b").mkdir()
    workers.request_stop(tmp_path / "b")
    rc, out, err = run_worker(_args(files, tmp_path, "b", "--max-steps", 6))
    assert rc == 0, err[-2000:]
    ev = _strict_events(tmp_path / "b" / "events.jsonl")
    kinds = [e["event"] for e in ev]
    assert kinds[-1] == "finished" and ev[-1]["stopped_early"] is True and ev[-1]["steps"] == 1
    assert [e["step"] for e in ev if e["event"] == "eval"] == [0, 1]
    assert {e["kind"] for e in ev if e["event"] == "checkpoint"} == {"last", "best"}
    assert [json.loads(line) for line in out.splitlines() if line.startswith("{")] == ev   # stdout = file
    load_model(str(tmp_path / "b" / "checkpoints" / "last"), "qa")

    # resume: steps 2..6 reproduce the uninterrupted run (same data order, schedule, RNG)
    rc, out, err = run_worker(["--resume", str(tmp_path / "b")])
    assert rc == 0, err[-2000:]
    ev = _strict_events(tmp_path / "b" / "events.jsonl")
    resumed = ev[[i for i, e in enumerate(ev) if e["event"] == "started"][-1]:]
    assert resumed[0]["resumed_from_step"] == 1
    steps = [e for e in resumed if e["event"] == "step"]
    assert [s["step"] for s in steps] == [2, 3, 4, 5, 6]
    for s in steps:
        assert s["loss"] == pytest.approx(ref_steps[s["step"]]["loss"], rel=1e-4, abs=1e-5)
        assert s["lr"] == pytest.approx(ref_steps[s["step"]]["lr"])
    assert resumed[-1]["event"] == "finished" and resumed[-1]["stopped_early"] is False
    rec = reading.load_run(tmp_path / "b")
    assert rec.status == "finished" and set(rec.checkpoints) == {"last", "best"}
    assert not (tmp_path / "b" / layout.PID_FILE).exists()


def test_sigint_stops_early_and_sigterm_cancels(files, tmp_path):
    long = ("--max-steps", 100000, "--log-every", 5)
    stop = _start(_args(files, tmp_path, "int", *long))
    cancel = _start(_args(files, tmp_path, "term", *long, "--eval-every", 0))
    try:
        _wait_for_step(tmp_path / "int" / "events.jsonl", stop)
        assert reading.load_run(tmp_path / "int").status == "running"
        stop.send_signal(signal.SIGINT)
        _wait_for_step(tmp_path / "term" / "events.jsonl", cancel)
        cancel.send_signal(signal.SIGTERM)
        assert cancel.wait(timeout=60) == 143   # a ceiling for a hung worker, not a speed figure
        assert stop.wait(timeout=120) == 0
    finally:
        for p in (stop, cancel):
            if p.poll() is None:
                p.kill()
    ev = _strict_events(tmp_path / "int" / "events.jsonl")
    assert ev[-1]["event"] == "finished" and ev[-1]["stopped_early"] is True
    last_step = max(e["step"] for e in ev if e["event"] in ("step", "eval"))
    assert 0 < last_step < 100000 and ev[-2]["event"] == "checkpoint"
    assert [e for e in ev if e["event"] == "eval"][-1]["step"] == last_step    # evaluated at the stop
    from explorer.core.models.loading import load_model

    load_model(str(tmp_path / "int" / "checkpoints" / "last"), "qa")
    ev = _strict_events(tmp_path / "term" / "events.jsonl")
    assert ev[-1]["event"] == "cancelled" and ev[-1]["step"] >= 1
    assert "finished" not in [e["event"] for e in ev]
    steps_total = next(e for e in ev if e["event"] == "started").get("steps_total") or 100000
    assert ev[-1]["step"] < steps_total     # cancelled mid-run (not after finishing its plan)
    assert {s.run_id: s.status for s in reading.list_runs(tmp_path)} == {"int": "stopped", "term": "cancelled"}


class _Terminal(io.StringIO):
    """A stdout that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_train_in_a_terminal_shows_a_bar_and_a_summary_and_keeps_the_events_in_the_log(tmp_path, monkeypatch):
    """`bert-explorer train` with stdout a terminal: a step bar (step / total, loss, the last dev figure) and a
    closing summary (best dev and its step, the run folder, the best checkpoint) instead of JSON lines, the events
    all in events.jsonl; ``--json`` keeps the JSON lines on stdout there, as a pipe always gets them."""
    from helpers import write_tiny_classification

    from explorer.core.protocol.events import iter_events
    from explorer.worker.train import main as train_main

    model = save_tiny_model(tmp_path / "cls", "classification")
    data = write_tiny_classification(tmp_path / "sst.tsv")

    def train(run_id, *extra):
        out = _Terminal()
        monkeypatch.setattr("sys.stdout", out)
        rc = train_main([str(a) for a in ["--model", model, "--task", "single", "--train", data, "--dev", data,
                                          "--max-steps", 3, "--eval-every", 1, "--output-dir", tmp_path / "runs",
                                          "--run-id", run_id, *extra]])
        monkeypatch.undo()
        return rc, out.getvalue()

    rc, text = train("shown")
    assert rc == 0, text
    run_dir = tmp_path / "runs" / "shown"
    assert not any(line.lstrip().startswith("{") for line in text.splitlines()), text
    assert "3/3" in text and "loss" in text and "dev accuracy (%)" in text, text
    assert "finished after 3 steps" in text and f"run folder: {run_dir}" in text, text
    assert "best dev accuracy (%)" in text and " at step " in text, text
    assert f"best checkpoint: {run_dir / 'checkpoints' / 'best'}" in text, text
    logged = list(iter_events(layout.events_file(run_dir).read_text(encoding="utf-8").splitlines()))
    assert {"started", "step", "eval", "finished"} <= {e["event"] for e in logged}

    rc, text = train("scripted", "--json")
    events = list(iter_events(text.splitlines()))
    assert rc == 0 and events and events[-1]["event"] == "finished", text[-2000:]
