"""One stop rule for predict, every head: a stop (Ctrl-C, SIGTERM, a closed terminal, the app's Cancel) writes
every row the model ran, in input order, so ``--resume`` continues from exactly there, and the CLI bar's last line
is the rows written, without a rate or time left. The stop is injected through ``cancelled`` (the engine) or by
calling the installed signal handler directly (the CLI): no real signal races the test, nothing is timed."""

from __future__ import annotations

import argparse
import csv
import io
import re
import signal

import pytest
from helpers import save_tiny_head_model

import explorer.core.predict.engine as engine
from explorer.core.errors import Cancelled
from explorer.core.predict.engine import WINDOW_BATCHES, predict_file
from explorer.core.specs import heads

WORDS = "good bad fine worst city river model answer year first name the a of".split()
ROWS = 100
BATCH = 4


def _text(i: int, n: int) -> str:
    return " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(n))


def _columns(head, i: int) -> dict:
    """Row ``i`` of the input file for ``head``: texts of varied lengths (so length-sorted batches mix rows)."""
    if head.inputs is heads.Inputs.QUESTION_PASSAGE:
        return {"question": _text(i, 3), "context": _text(i, 4 + i % 9)}
    if head.inputs is heads.Inputs.CHOICES:
        return {"sent1": _text(i, 2 + i % 7), "sent2": _text(i + 1, 2)} | \
            {f"ending{k}": _text(i + k, 1 + (i + k) % 5) for k in range(4)}
    return {"text": _text(i, 1 + (i * 5) % 11)}


def _write(path, head):
    rows = [{"id": f"r{i}"} | _columns(head, i) for i in range(ROWS)]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def _read(path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


HEADS = [heads.SINGLE_LABEL, heads.REGRESSION, heads.MULTI_LABEL, heads.TOKEN_CLASSIFICATION,
         heads.MULTIPLE_CHOICE, heads.QA]


@pytest.mark.parametrize("head", HEADS, ids=lambda h: h.name)
def test_a_stop_writes_every_row_run_in_input_order_and_resume_continues_there(tmp_path, monkeypatch, head):
    monkeypatch.setattr(engine, "BATCH_PROGRESS_SECONDS", 0.0)   # a progress report after every batch
    model = save_tiny_head_model(tmp_path / "m", head)
    data = _write(tmp_path / "in.csv", head)
    polls = {"n": 0}

    def stop_at_the_third_window():
        polls["n"] += 1
        return polls["n"] >= 3

    out, reports = tmp_path / "out.csv", []
    with pytest.raises(Cancelled) as stopped:
        predict_file(str(model), str(data), str(out), batch_size=BATCH, chunk_rows=ROWS,
                     cancelled=stop_at_the_third_window, progress=lambda done, total: reports.append(done))
    written = _read(out)
    assert len(written) == stopped.value.rows_written == 2 * BATCH * WINDOW_BATCHES   # two whole windows
    assert [r["id"] for r in written] == [f"r{i}" for i in range(len(written))]       # the input's first rows
    # every row the model ran is in the file: the bar never stood ahead of it, and its last count is the file's
    assert max(reports) == reports[-1] == len(written)
    summary = predict_file(str(model), str(data), str(out), batch_size=BATCH, chunk_rows=ROWS, resume=True)
    assert summary.resumed_from == len(written) and summary.rows == ROWS
    from explorer.commands.predict import summary_line

    assert summary_line(summary).startswith(f"{ROWS} rows written to {out} ({len(written)} were already there); "
                                            f"{summary.errors} of the {ROWS - len(written)} rows run now with an error")
    full = tmp_path / "full.csv"
    predict_file(str(model), str(data), str(full), batch_size=BATCH, chunk_rows=ROWS)
    assert _read(out) == _read(full)   # each row once, in order, as an uninterrupted run writes it


def _cli(tmp_path, monkeypatch, signum, times: int = 1):
    """Run the CLI on 300 rows; ``signum``'s installed handler is called ``times`` times when the second window
    begins. Returns (exit code, stderr text, rows in OUT)."""
    from explorer.commands import predict as command

    model = save_tiny_head_model(tmp_path / "m", heads.SINGLE_LABEL)
    data = _write(tmp_path / "in.csv", heads.SINGLE_LABEL)
    out = tmp_path / "out.csv"
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    real, polls = engine._Windows.stopped, {"n": 0}

    def stopped(self):
        polls["n"] += 1
        if polls["n"] == 2:
            for _ in range(times):
                signal.getsignal(signum)(signum, None)   # the handler, as the signal would call it
        return real(self)
    monkeypatch.setattr(engine._Windows, "stopped", stopped)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    previous = signal.signal(signum, signal.SIG_DFL)   # as in a terminal (a test runner may ignore SIGHUP)
    try:
        rc = command.run(parser.parse_args(["--model", str(model), "--data", str(data), "--out", str(out),
                                            "--batch-size", str(BATCH), "--chunk-rows", str(ROWS)]))
    finally:
        signal.signal(signum, previous)
    return rc, err.getvalue(), len(_read(out))


@pytest.mark.parametrize("name, code", [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)])
def test_the_cli_stops_on_ctrl_c_sigterm_and_sighup_alike_and_the_bar_ends_at_the_rows_written(
        tmp_path, monkeypatch, name, code):
    signum = getattr(signal, name)
    rc, said, rows = _cli(tmp_path, monkeypatch, signum)
    assert rc == code
    assert rows == BATCH * WINDOW_BATCHES   # the window that ran, all of it
    assert f"{rows} rows written to" in said and "--resume" in said
    last = [line for line in re.split(r"[\r\n]", said) if line.startswith("predict")][-1]
    assert last.strip() == f"predict: {rows}/{ROWS} rows written", last   # no rate, no time left


def test_a_second_ctrl_c_quits_at_once_saying_the_rows_in_the_file_without_a_traceback(tmp_path, monkeypatch):
    rc, said, rows = _cli(tmp_path, monkeypatch, signal.SIGINT, times=2)
    assert rc == 130
    assert "Traceback" not in said and "KeyboardInterrupt" not in said
    assert f"quit at once: {rows} rows in " in said and "--resume" in said


def test_the_guide_says_a_stop_keeps_every_row_run():
    from helpers import REPO_ROOT

    text = re.sub(r"\s+", " ", (REPO_ROOT / "docs" / "command-line.md").read_text(encoding="utf-8"))
    assert "every row run is written, in input order" in text and "exit 143" in text
    assert f"at most {WINDOW_BATCHES} batches" in text
