"""One stop rule for predict, every head: a stop (Ctrl-C, SIGTERM, a closed terminal, the app's Cancel) comes at
the next batch boundary and keeps every row the model ran (OUT in input order, the rows run after the first row not
run in OUT.ahead.jsonl), so ``--resume`` continues from exactly there without running a kept row again, and the CLI
bar's last line is the rows kept, without a rate or time left. The stop is injected through ``cancelled`` (the engine) or by
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
from explorer.core.predict.engine import predict_file
from explorer.core.predict.writing import ahead_path
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


def _same(got: list[dict], want: list[dict]) -> bool:
    """Whether two predicted files hold the same rows: the same cells, numbers equal to 1e-5 (the rows of a
    resumed run share their batches with other rows than an uninterrupted run's: the last bits may differ)."""
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        for key in w:
            try:
                if abs(float(g[key]) - float(w[key])) > 1e-5:
                    return False
            except ValueError:
                if g[key] != w[key]:
                    return False
    return True


def _rows_run(monkeypatch) -> list[int]:
    """The rows each call of the head's forward is given (one call per batch), recorded from now on."""
    calls: list[int] = []
    real = engine._Runner.forward_of

    def forward_of(self, head):
        method = real(self, head)

        def counted(texts):
            calls.append(len(texts))
            return method(texts)
        return counted
    monkeypatch.setattr(engine._Runner, "forward_of", forward_of)
    return calls


@pytest.mark.parametrize("head", HEADS, ids=lambda h: h.name)
@pytest.mark.parametrize("k", [1, 3])
def test_a_stop_asked_during_batch_k_keeps_exactly_k_batches_and_resume_runs_only_the_rest(
        tmp_path, monkeypatch, head, k):
    monkeypatch.setattr(engine, "BATCH_PROGRESS_SECONDS", 0.0)   # a progress report after every batch
    model = save_tiny_head_model(tmp_path / "m", head)
    data = _write(tmp_path / "in.csv", head)
    calls = _rows_run(monkeypatch)
    asked = {"stop": False}
    real = engine._Runner.forward_of

    def forward_of(self, head_):
        method = real(self, head_)

        def interrupted_in_batch_k(texts):
            if sum(calls) + len(texts) >= k * BATCH:   # this call runs the k-th batch: the stop arrives during it
                asked["stop"] = True
            return method(texts)
        return interrupted_in_batch_k
    monkeypatch.setattr(engine._Runner, "forward_of", forward_of)

    out, reports = tmp_path / "out.csv", []
    with pytest.raises(Cancelled) as stopped:
        predict_file(str(model), str(data), str(out), batch_size=BATCH, chunk_rows=ROWS,
                     cancelled=lambda: asked["stop"], progress=lambda done, total: reports.append(done))
    assert sum(calls) == k * BATCH   # the batch under way finished, no other began
    written = _read(out)
    assert stopped.value.rows_written == len(written)
    assert len(written) + stopped.value.rows_ahead == k * BATCH   # every row run is kept
    assert [r["id"] for r in written] == [f"r{i}" for i in range(len(written))]   # the input's first rows, in order
    assert ahead_path(out).exists() == (stopped.value.rows_ahead > 0)
    assert max(reports) == reports[-1] == k * BATCH   # the bar ends at the rows kept, never behind its count

    calls.clear()
    summary = predict_file(str(model), str(data), str(out), batch_size=BATCH, chunk_rows=ROWS, resume=True)
    assert sum(calls) == ROWS - k * BATCH   # no kept row runs again
    assert summary.resumed_from == len(written) and summary.rows == ROWS
    assert not ahead_path(out).exists()
    from explorer.commands.predict import summary_line

    ahead = stopped.value.rows_ahead
    assert summary.kept_ahead == ahead and summary.run_rows == sum(calls)   # the kept rows are not counted as run
    there = f"{len(written)} were already there; " if written else ""
    if ahead:
        assert summary_line(summary).startswith(
            f"{ROWS} rows written to {out} ({there}{ahead} kept from the stopped run, not run again; "
            f"{ROWS - k * BATCH} run now); {summary.errors} of the {ROWS - len(written)} rows this call wrote with an "
            "error")
    elif written:
        assert summary_line(summary).startswith(
            f"{ROWS} rows written to {out} ({len(written)} were already there); "
            f"{summary.errors} of the {ROWS - len(written)} rows run now with an error")
    full = tmp_path / "full.csv"
    predict_file(str(model), str(data), str(full), batch_size=BATCH, chunk_rows=ROWS)
    assert [r["id"] for r in _read(out)] == [f"r{i}" for i in range(ROWS)]   # each row once, in input order
    assert _same(_read(out), _read(full))   # as an uninterrupted run writes it


def test_the_resumed_summary_tells_the_rows_kept_from_the_stopped_run_from_the_rows_run_now(
        tmp_path, monkeypatch, capsys):
    """A stop in the second chunk leaves its first rows in OUT and rows run after them in OUT.ahead.jsonl: the
    resumed call's summary line says those as kept from the stopped run, not as rows run now, and counts the rows
    it ran exactly (the rows its forward was given)."""
    from explorer.commands import predict as command

    model = save_tiny_head_model(tmp_path / "m", heads.SINGLE_LABEL)
    data = _write(tmp_path / "in.csv", heads.SINGLE_LABEL)
    out = tmp_path / "out.csv"
    calls = _rows_run(monkeypatch)
    real, polls = engine._Windows.stopped, {"n": 0}

    def after_twelve_batches(self):   # 10 batches of 4 rows fill the first 40-row chunk, 2 run in the second
        polls["n"] += 1
        return polls["n"] > 12 or real(self)
    monkeypatch.setattr(engine._Windows, "stopped", after_twelve_batches)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = ["--model", str(model), "--data", str(data), "--out", str(out), "--batch-size", str(BATCH),
            "--chunk-rows", "40"]
    assert command.run(parser.parse_args(args)) == 130
    written = len(_read(out))
    ahead = len(ahead_path(out).read_text(encoding="utf-8").splitlines())
    assert written >= 40 and ahead > 0 and written + ahead == sum(calls) == 12 * BATCH
    monkeypatch.setattr(engine._Windows, "stopped", real)
    calls.clear()
    capsys.readouterr()
    assert command.run(parser.parse_args(args + ["--resume"])) == 0
    assert sum(calls) == ROWS - 12 * BATCH
    assert capsys.readouterr().out.startswith(
        f"{ROWS} rows written to {out} ({written} were already there; {ahead} kept from the stopped run, not run "
        f"again; {ROWS - 12 * BATCH} run now); 0 of the {ROWS - written} rows this call wrote with an error; ")


def test_a_new_run_into_the_same_file_drops_what_a_stop_kept_ahead_of_it(tmp_path):
    model = save_tiny_head_model(tmp_path / "m", heads.SINGLE_LABEL)
    data = _write(tmp_path / "in.csv", heads.SINGLE_LABEL)
    out, polls = tmp_path / "out.csv", {"n": 0}

    def after_three_batches():
        polls["n"] += 1
        return polls["n"] > 3
    with pytest.raises(Cancelled) as stopped:
        predict_file(str(model), str(data), str(out), batch_size=BATCH, chunk_rows=ROWS, cancelled=after_three_batches)
    assert stopped.value.rows_ahead > 0 and ahead_path(out).exists()
    predict_file(str(model), str(data), str(out), batch_size=BATCH, chunk_rows=ROWS)   # no --resume: a new OUT
    assert not ahead_path(out).exists() and len(_read(out)) == ROWS


def _cli(tmp_path, monkeypatch, signum, times: int = 1):
    """Run the CLI on 300 rows; ``signum``'s installed handler is called ``times`` times before the second batch
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
    assert "stopping after the current batch…" in said
    assert re.search(rf"\b{rows:,}( rows done, all)? written to", said) and "--resume" in said
    kept = rows + (len(ahead_path(tmp_path / "out.csv").read_text(encoding="utf-8").splitlines())
                   if ahead_path(tmp_path / "out.csv").exists() else 0)
    assert kept == BATCH   # the one batch that ran, all of it
    last = [line for line in re.split(r"[\r\n]", said) if line.startswith("predict")][-1]
    assert last.strip() == f"predict: {kept}/{ROWS} rows kept", last   # no rate, no time left


def test_a_second_ctrl_c_quits_at_once_saying_the_rows_in_the_file_without_a_traceback(tmp_path, monkeypatch):
    rc, said, rows = _cli(tmp_path, monkeypatch, signal.SIGINT, times=2)
    assert rc == 130
    assert "Traceback" not in said and "KeyboardInterrupt" not in said
    assert f"quit at once: {rows} rows in " in said and "--resume" in said


def test_the_guide_says_a_stop_comes_after_the_current_batch_and_keeps_every_row_run():
    from helpers import REPO_ROOT

    text = re.sub(r"\s+", " ", (REPO_ROOT / "docs" / "command-line.md").read_text(encoding="utf-8"))
    assert "keeps every row run" in text and "exit 143" in text
    assert "stopping after the current batch…" in text and "OUT.ahead.jsonl" in text
