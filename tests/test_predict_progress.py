"""`bert-explorer predict` under a pseudo-terminal shows its progress at once, also on a large file.

Two causes of a silent first 40 s, each held here without timing: a pty nobody sized (``script``, some IDEs and
CI: 0 x 0) makes tqdm hide its only bar, and progress that comes only after a whole chunk (2,048 rows at ~54
rows/s: 38 s). So "reading FILE…" and "loading model…" come at once, the bar is drawn with a fixed size on such
a terminal, progress comes from the first batch on, and the file's rows are counted in a thread that never holds
up the first batch. The tests read what was written when the second chunk begins (a wrapper around the engine's
chunk step).
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import threading

import pytest

import explorer.core.predict.engine as engine
from explorer.core.predict.engine import predict_file
from helpers import save_tiny_model, tiny_loaded_model

WORDS = "good bad fine worst city river model answer year first name the a of".split()


def _write_tsv(path, n: int):
    lines = ["sentence\tlabel"] + [f"{' '.join(WORDS[(i + k) % len(WORDS)] for k in range(1 + i % 5))}\t{i % 2}"
                                   for i in range(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _on_second_chunk(monkeypatch, action):
    """Call ``action()`` when the engine starts its second chunk (before any of its rows run)."""
    real = engine._predict_chunk
    calls = {"n": 0}

    def wrapped(*a, **k):
        calls["n"] += 1
        if calls["n"] == 2:
            action()
        return real(*a, **k)
    monkeypatch.setattr(engine, "_predict_chunk", wrapped)
    return calls


def _drain(fd: int) -> str:
    out = b""
    while True:
        try:
            part = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not part:
            break
        out += part
    return out.decode("utf-8", errors="replace")


def test_cli_on_an_unsized_pty_shows_loading_then_a_bar_with_eta_before_the_second_chunk(tmp_path, monkeypatch):
    from explorer.commands import predict as command

    model = save_tiny_model(tmp_path / "cls", "classification")
    data = _write_tsv(tmp_path / "in.tsv", 300)
    master, slave = pty.openpty()        # a fresh pty reports 0 columns x 0 lines, like `script -qc ... /dev/null`
    os.set_blocking(master, False)
    assert os.get_terminal_size(slave).lines == 0
    stream = open(slave, "w", encoding="utf-8", closefd=True)
    seen = {}
    _on_second_chunk(monkeypatch, lambda: (stream.flush(), seen.setdefault("text", _drain(master))))
    monkeypatch.setattr("sys.stderr", stream)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args(["--model", str(model), "--data", str(data), "--out", str(tmp_path / "out.csv"),
                              "--batch-size", "16", "--chunk-rows", "100"])
    try:
        assert command.run(args) == 0
    finally:
        stream.close()
        os.close(master)
    text = seen["text"]
    assert f"reading {data}…" in text and f"loading model {model}…" in text
    assert text.index("loading model") < text.index("predict:")
    assert re.search(r"predict:.*\b100/300 \[\d\d:\d\d<\d\d:\d\d", text), text   # rows done / total and ETA


def test_progress_from_the_first_batch_while_the_rows_are_still_being_counted(tmp_path, monkeypatch):
    data = _write_tsv(tmp_path / "in.tsv", 200)
    gate = threading.Event()
    real_count = engine.rows_in_file

    def slow_count(path, *args):        # a huge file's count: it ends only when the test says so
        gate.wait(timeout=10)
        return real_count(path, *args)
    monkeypatch.setattr(engine, "rows_in_file", slow_count)
    calls: list[tuple[int, int | None]] = []
    before_second: list[tuple[int, int | None]] = []

    def second_chunk():
        before_second.extend(calls)
        gate.set()
        for t in threading.enumerate():
            if t.name == "predict-count":
                t.join(timeout=30)
    _on_second_chunk(monkeypatch, second_chunk)
    model = save_tiny_model(tmp_path / "cls", "classification")
    summary = predict_file(str(model), str(data), str(tmp_path / "out.csv"), loaded=tiny_loaded_model("classification"),
                           batch_size=8, chunk_rows=100, progress=lambda done, total: calls.append((done, total)))
    assert summary.rows == 200
    assert before_second[0] == (0, None)                      # at once, the total not known yet: rows/s
    assert any(0 < done < 100 and total is None for done, total in before_second), before_second   # a batch
    assert (100, None) in before_second                       # the first chunk, still uncounted
    assert calls[-1] == (200, 200)                            # the count arrived: rows / total from then on


@pytest.mark.parametrize("terminal_gone", [True, False])
def test_a_closed_terminal_stops_after_the_batch_keeps_the_rows_and_exits_129(tmp_path, monkeypatch, terminal_gone):
    """Closing predict's terminal (SIGHUP) never ends it silently with exit status 0: it stops like Ctrl-C (after
    the batch; finished chunks stay), exits 129, says how to --resume where it still can write (stderr to a
    file), and a terminal that is gone (every write EIO) turns into no traceback."""
    import io
    import signal

    from explorer.commands import predict as command

    class Terminal(io.StringIO):
        gone = False

        def write(self, text):
            if self.gone:
                raise OSError(5, "Input/output error")
            return super().write(text)

    model = save_tiny_model(tmp_path / "cls", "classification")
    data = _write_tsv(tmp_path / "in.tsv", 300)
    out = tmp_path / "out.csv"
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)

    def hang_up():
        os.kill(os.getpid(), signal.SIGHUP)
        term.gone = terminal_gone
    _on_second_chunk(monkeypatch, hang_up)
    reached = []
    previous = signal.signal(signal.SIGHUP, lambda *_: reached.append("the test's handler"))   # the old code's fate
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    argv = ["--model", str(model), "--data", str(data), "--out", str(out), "--batch-size", "16", "--chunk-rows", "100"]
    try:
        rc = command.run(parser.parse_args(argv))
        assert signal.getsignal(signal.SIGHUP) is not None and reached == []
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert rc == 129
    written = len(out.read_text().splitlines()) - 1
    assert 0 < written < 300
    said = term.getvalue()
    if not terminal_gone:
        assert "stopped (the terminal was closed: SIGHUP): " in said and (
            f"{written} rows done, all written to {out}" in said or f" {written} written to {out}" in said)
        assert "--resume" in said
    monkeypatch.undo()   # the engine's own chunk step and stderr again
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert command.run(parser.parse_args(argv + ["--resume"])) == 0
    assert len(out.read_text().splitlines()) == 301


def test_the_engine_reports_the_rows_saved_at_the_start_and_after_every_chunk_also_on_resume(tmp_path, monkeypatch):
    """The engine says the rows in ``out`` through ``saved``: at the start (resumed rows) and after each chunk,
    so a bar shows the rows in the file beside the rows run (a Ctrl-C at "896/3000" may keep 256 rows)."""
    from explorer.core.errors import Cancelled

    data = _write_tsv(tmp_path / "in.tsv", 250)
    out = tmp_path / "out.csv"
    model = save_tiny_model(tmp_path / "cls", "classification")
    loaded = tiny_loaded_model("classification")
    stop = {"flag": False}
    _on_second_chunk(monkeypatch, lambda: stop.update(flag=True))
    saved: list[int] = []
    with pytest.raises(Cancelled):
        predict_file(str(model), str(data), str(out), loaded=loaded, batch_size=8, chunk_rows=100,
                     cancelled=lambda: stop["flag"], saved=saved.append)
    assert saved == [0, 100]
    assert len(out.read_text().splitlines()) - 1 == 100
    monkeypatch.undo()
    saved.clear()
    summary = predict_file(str(model), str(data), str(out), loaded=loaded, batch_size=8, chunk_rows=100,
                           resume=True, saved=saved.append)
    assert summary.rows == 250
    assert saved == [100, 200, 250]


def test_the_cli_bar_shows_the_rows_saved_beside_the_rows_run(tmp_path, monkeypatch):
    """The bar reads "116/300 … saved 100" inside the second chunk: what a Ctrl-C there keeps is on screen."""
    import io

    from explorer.commands import predict as command

    model = save_tiny_model(tmp_path / "cls", "classification")
    data = _write_tsv(tmp_path / "in.tsv", 300)
    term = io.StringIO()
    monkeypatch.setattr("sys.stderr", term)
    monkeypatch.setattr(engine, "BATCH_PROGRESS_SECONDS", 0.0)   # every batch reported: no clock in the test
    seen = {}
    real_chunk = engine._predict_chunk
    calls = {"n": 0}

    def wrapped(chunk, cols, kind, method, *rest):
        calls["n"] += 1
        if calls["n"] != 2:
            return real_chunk(chunk, cols, kind, method, *rest)

        runner, reported = method.__self__, method.__self__.on_batch

        def first_batch_then_look():   # a batch of the second chunk has run and been reported; none written
            reported()
            seen.setdefault("text", term.getvalue())
        runner.on_batch = first_batch_then_look
        return real_chunk(chunk, cols, kind, method, *rest)
    monkeypatch.setattr(engine, "_predict_chunk", wrapped)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args(["--model", str(model), "--data", str(data), "--out", str(tmp_path / "out.csv"),
                              "--batch-size", "16", "--chunk-rows", "100"])
    assert command.run(args) == 0
    last_draw = re.split(r"[\r\n]", seen["text"].rstrip())[-1]
    assert re.search(r"predict:.*\b1\d\d/300 \[.*saved 100\]", last_draw), last_draw
    assert not re.search(r"\b100/300", last_draw), last_draw
    assert re.search(r"300/300 \[.*saved 300\]", term.getvalue()), term.getvalue()


def _stopped_cli(monkeypatch, engine_run, out) -> int:
    """`bert-explorer predict` with the engine replaced by ``engine_run`` (which reports and stops): its exit code."""
    from explorer.commands import predict as command

    monkeypatch.setattr(engine, "predict_file", engine_run)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return command.run(parser.parse_args(["--model", "m", "--data", "in.csv", "--out", str(out)]))


def test_an_interrupted_predict_says_the_rows_in_the_file(qtbot, tmp_path, monkeypatch, capsys):
    """After a Ctrl-C the CLI and the dialog say how many rows the file holds, never the count of a bar that
    stood ahead of the rows written (the engine's side: test_predict's cancelled-then-resumed test)."""

    from explorer.core.errors import Cancelled
    from explorer.ui.inspectors.predictions_view import PredictDialog

    def stopped(*_a, progress=None, **_k):
        progress(300, 700)
        progress(364, 700)            # rows through the model, the last chunk not written
        exc = Cancelled()
        exc.rows_written = 300
        progress(300, 700)            # the engine's last report: the rows in the file
        raise exc
    assert _stopped_cli(monkeypatch, stopped, tmp_path / "out.csv") == 130
    assert f"stopped: 300 rows done, all written to {tmp_path / 'out.csv'} in input order" in capsys.readouterr().err

    dialog = PredictDialog("m", client=object())
    qtbot.addWidget(dialog)
    dialog.out_edit.setText(str(tmp_path / "out.csv"))
    dialog._t0 = 0.0
    dialog._progress(364, 700)
    dialog._progress(300, 700)        # the child's last report before the cancelled reply
    dialog._failed("cancelled")
    assert f"Cancelled: 300 rows run are kept for {tmp_path / 'out.csv'}" in dialog.status.text()


@pytest.mark.parametrize("name, text, rows", [
    ("texts.txt", "a fine film\na dull film\ngood\nbad\nthe worst\n", 5),                 # no header line
    ("quoted.csv", 'text\n"a film\nin two lines"\nok\n\n"and, a comma"\n', 4),          # a line break in a text
])
def test_the_progress_total_is_the_rows_predicted_from_the_first_report(tmp_path, name, text, rows):
    """The bar's total is counted by the reader predict uses: a .txt of 5 texts is 5 (not 4: it has no header),
    a quoted text's line break is not a row, an empty line is one (reported with its error)."""
    data = tmp_path / name
    data.write_text(text, encoding="utf-8")
    assert engine.rows_in_file(data) == rows
    model = save_tiny_model(tmp_path / "cls", "classification")
    calls: list[tuple[int, int | None]] = []
    summary = predict_file(str(model), str(data), str(tmp_path / "out.csv"), loaded=tiny_loaded_model("classification"),
                           batch_size=2, chunk_rows=2, progress=lambda done, total: calls.append((done, total)))
    assert summary.rows == rows
    assert {total for _done, total in calls if total is not None} == {rows}, calls
    assert calls[-1] == (rows, rows)


def test_the_last_report_gives_the_total_when_the_file_is_read_before_it_is_counted(tmp_path, monkeypatch):
    """The rows are counted in a thread beside the model; a small file can be predicted before the count comes
    (a busy machine): the file read to its end gives the total, so the bar still ends at rows of rows."""
    data = tmp_path / "texts.txt"
    data.write_text("a fine film\na dull film\ngood\n", encoding="utf-8")
    monkeypatch.setattr(engine._RowCount, "_count", lambda self, *args: None)   # the count never comes
    model = save_tiny_model(tmp_path / "cls", "classification")
    calls: list[tuple[int, int | None]] = []
    predict_file(str(model), str(data), str(tmp_path / "out.csv"), loaded=tiny_loaded_model("classification"),
                 batch_size=2, chunk_rows=2, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (3, 3) and calls.count((3, 3)) == 1, calls


def test_the_guide_says_the_chunks_ctrl_c_keeps():
    """The guide names the first chunk's rows and the default chunk as the code has them."""
    import inspect

    from helpers import REPO_ROOT

    from explorer.core.predict.engine import FIRST_CHUNK_ROWS, predict_file

    default = inspect.signature(predict_file).parameters["chunk_rows"].default
    text = re.sub(r"\s+", " ", (REPO_ROOT / "docs" / "command-line.md").read_text(encoding="utf-8"))
    assert f"the first of {FIRST_CHUNK_ROWS} rows, then `--chunk-rows`, {default:,}" in text


def test_the_bar_never_shows_more_rows_saved_than_run():
    """Rows are reported run at most every BATCH_PROGRESS_SECONDS, rows saved at once: a chunk written between two
    reports moves the count of rows run up to the rows saved ("128/4000 … saved 128", never "96/4000 … saved 128")."""
    import io

    from explorer.commands.predict import _Bar

    term = io.StringIO()
    bar = _Bar(term)
    bar(96, 4000)
    bar.saved(128)
    last_draw = re.split(r"[\r\n]", term.getvalue().rstrip())[-1]
    assert re.search(r"\b128/4000 \[.*saved 128\]", last_draw), last_draw
    bar(160, 4000)                                   # the next report goes on from there
    assert bar.bar.n == 160
    bar.close()


def test_the_cli_draws_the_last_progress_line_once(tmp_path, monkeypatch):
    """A log or a console that shows each redraw of the bar on a line of its own shows the whole file's
    "300/300" line once: the chunk's save, the engine's last report and the bar's close draw it once together."""
    import io

    from explorer.commands import predict as command

    model = save_tiny_model(tmp_path / "cls", "classification")
    data = _write_tsv(tmp_path / "in.tsv", 300)
    term = io.StringIO()
    monkeypatch.setattr("sys.stderr", term)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args(["--model", str(model), "--data", str(data), "--out", str(tmp_path / "out.csv"),
                              "--batch-size", "16", "--chunk-rows", "100"])
    assert command.run(args) == 0
    draws = [line for line in re.split(r"[\r\n]", term.getvalue()) if line.strip()]
    finals = [line for line in draws if "300/300" in line]
    assert len(finals) == 1 and "saved 300" in finals[0], draws


def test_a_stopped_cli_draws_the_rows_kept_line_once(tmp_path, monkeypatch, capsys):
    """At a stop the bar's last line, "predict: 364/700 rows kept" (written and kept ahead), is drawn once."""
    from explorer.core.errors import Cancelled

    def stopped(*_a, progress=None, **_k):
        progress(0, 700)
        progress(364, 700)
        exc = Cancelled()
        exc.rows_written, exc.rows_ahead = 300, 64
        raise exc
    assert _stopped_cli(monkeypatch, stopped, tmp_path / "out.csv") == 130
    draws = [line.strip() for line in re.split(r"[\r\n]", capsys.readouterr().err) if line.strip()]
    assert [line for line in draws if "rows kept" in line and line.startswith("predict")] == \
        ["predict: 364/700 rows kept"], draws
    assert any("364 rows done: 300 written to" in line and "(it is written in input order) and 64 run ahead of a "
               "slower batch, waiting in" in line and "out.csv.ahead.jsonl" in line and
               "--resume, which runs none of them again" in line for line in draws), draws
