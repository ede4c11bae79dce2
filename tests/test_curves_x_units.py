"""The Curves x axis by step, epoch or training examples seen: what the Qt-free CurvesModel decides (each run's
factor, the fall-back to steps with a note, the x range in the unit), and one widget test of the selector."""

from __future__ import annotations

import pytest

from explorer.ui.curves.curves_model import CurvesModel
from explorer.core.runs.x_units import axis_for, run_factor
from explorer.ui.runs.state import RunState


def _run(run_id: str, *, batch: int, steps_per_epoch: int = 0, steps: int = 40, live: bool = False,
         total: int = 0, **extra) -> RunState:
    """A run of this app: a started event with its plan, a loss at every step, dev accuracy every 10 steps."""
    state = RunState(run_id=run_id)
    started = {"event": "started", "run_id": run_id, "time": 0.0, "config": {"task": "single", "batch_size": batch},
               "steps_total": total or steps, "effective_batch_size": batch}
    if steps_per_epoch:
        started["steps_per_epoch"] = steps_per_epoch
    state.apply({**started, **extra})
    for step in range(1, steps + 1):
        ev = {"event": "step", "run_id": run_id, "time": float(step), "step": step, "loss": 1.0 / step}
        if steps_per_epoch:
            ev["epoch"] = step / steps_per_epoch
        state.apply(ev)
        if step % 10 == 0:
            state.apply({"event": "eval", "run_id": run_id, "time": float(step), "step": step,
                         "metrics": {"accuracy": 0.5 + step / 100}})
    if not live:
        state.apply({"event": "finished", "run_id": run_id, "time": float(steps + 1), "metrics": {}})
    return state


def test_runs_of_different_batch_sizes_line_up_by_examples_seen_and_by_epoch():
    small = _run("small", batch=8, steps_per_epoch=40, steps=40)    # 320 rows, one epoch
    large = _run("large", batch=32, steps_per_epoch=10, steps=40)   # 320 rows, four epochs
    m = CurvesModel()
    m.set_runs([small, large])
    assert m.x_axis().unit == "step" and m.data_x_range() == (1.0, 40.0)
    assert m.set_x_unit("examples") and not m.set_x_unit("examples")
    axis = m.x_axis()
    assert (axis.unit, axis.label, axis.note) == ("examples", "training examples seen", "")
    assert axis.factor("small") == 8 and axis.factor("large") == 32
    assert m.data_x_range() == (8.0, 1280.0)
    m.set_x_unit("epoch")
    assert m.x_axis().factor("small") == pytest.approx(1 / 40) and m.x_axis().factor("large") == pytest.approx(0.1)
    assert m.data_x_range() == pytest.approx((1 / 40, 4.0))
    assert m.dirty == {"small": None, "large": None}   # every curve is redrawn in the new unit


def test_a_run_without_epochs_keeps_the_axis_in_steps_and_says_which_run():
    ours = _run("ours", batch=16, steps_per_epoch=20)
    bare = _run("bare", batch=16)   # no steps_per_epoch in its started event, no epoch in its steps
    m = CurvesModel()
    m.name_of = {"ours": "stance-1", "bare": "stance-2"}.get
    m.set_runs([ours, bare])
    m.set_x_unit("epoch")
    axis = m.x_axis()
    assert axis.unit == "step" and axis.wanted == "epoch"
    assert axis.note == "x by step: stance-2 records no epochs"
    assert axis.factor("ours") == 1.0 and m.data_x_range() == (1.0, 40.0)
    m.set_runs([ours])
    assert m.x_axis().unit == "epoch" and m.x_axis().note == ""


def test_a_trainer_folder_takes_its_epochs_from_its_log_and_its_batch_from_its_settings():
    state = RunState(run_id="hf", kind="HF Trainer", settings={"per_device_train_batch_size": 16,
                                                               "gradient_accumulation_steps": 2})
    for step in (50, 100):
        state.apply({"event": "step", "run_id": "hf", "time": 0.0, "step": step, "epoch": step / 200, "loss": 0.5})
    assert run_factor(state, "epoch") == (pytest.approx(1 / 200), "")
    assert run_factor(state, "examples") == (32.0, "one device assumed")
    axis = axis_for([state], "examples")
    assert axis.unit == "examples" and axis.note == "hf: one device assumed"
    assert run_factor(RunState(run_id="none"), "examples") == (None, "records no batch size")


def test_a_live_run_s_planned_end_and_the_last_n_steps_are_in_the_axis_unit():
    live = _run("live", batch=4, steps_per_epoch=100, steps=40, live=True, total=200)
    m = CurvesModel()
    m.set_runs([live])
    assert m.target_x(0) == (0.0, 200.0)
    m.set_x_unit("examples")
    assert m.target_x(0) == (0.0, 800.0)   # 200 planned steps x 4 examples
    assert m.target_x(10) == (120.0, 160.0)   # the last 10 steps: 40 examples
    m.set_x_unit("epoch")
    assert m.target_x(0) == pytest.approx((0.0, 2.0))


def test_the_curves_selector_redraws_by_examples_names_the_unit_and_is_remembered(qtbot, tmp_path):
    from explorer.ui.curves.panel import CurvesPanel
    from explorer.ui.shell.settings import AppSettings

    w = CurvesPanel(settings=AppSettings(tmp_path / "settings.ini"))
    w.resize(1000, 700)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.set_runs([_run("a", batch=8, steps_per_epoch=40), _run("b", batch=32, steps_per_epoch=10)])
    w.x_control.choose("examples")
    w.redraw_now()
    loss = w.panels["loss"]
    assert loss.plot.getAxis("bottom").labelText == "training examples seen"
    assert max(loss.data["b"].x) == 40 * 32 and max(loss.data["a"].x) == 40 * 8
    assert not w.toolbar.x_note.isVisibleTo(w)
    w.set_crosshair(640.0)   # examples: run a's step 80 (past its end: its last), run b's step 20
    header = loss.header.text()
    assert "@320" in header and "@640" in header
    again = CurvesPanel(settings=AppSettings(tmp_path / "settings.ini"))
    qtbot.addWidget(again)
    assert again.model.x_unit == "examples" and again.toolbar.x_unit.currentData() == "examples"


def test_the_curves_csv_carries_the_chosen_unit_beside_the_step(qtbot, tmp_path):
    import csv

    from explorer.ui.curves.panel import CurvesPanel

    w = CurvesPanel()
    qtbot.addWidget(w)
    w.set_runs([_run("a", batch=8, steps_per_epoch=40, steps=20), _run("b", batch=32, steps_per_epoch=10, steps=20)])
    w.x_control.choose("epoch")
    done = []
    w.export_csv(tmp_path / "by_epoch.csv", on_done=done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=60_000)
    rows = list(csv.DictReader(open(tmp_path / "by_epoch.csv", encoding="utf-8")))
    assert list(rows[0]) == ["run_id", "series", "step", "epoch", "value"]
    last = {r["run_id"]: r for r in rows if r["series"] == "loss" and r["step"] == "20"}
    assert (last["a"]["epoch"], last["b"]["epoch"]) == ("0.5", "2")   # 20 of 40 steps per epoch; 20 of 10
    assert float(last["a"]["value"]) == pytest.approx(1 / 20)
    w.x_control.choose("step")
    w.export_csv(tmp_path / "by_step.csv", on_done=done.append)
    qtbot.waitUntil(lambda: len(done) == 2, timeout=60_000)
    assert open(tmp_path / "by_step.csv", encoding="utf-8").readline().strip() == "run_id,series,step,value"


def _run_folder(runs, run_id: str, *, batch: int, steps_per_epoch: int = 0, steps: int = 20):
    """The folder of a run of this app: config.json and the events of :func:`_run`'s run."""
    import json

    from explorer.core.runs.layout import config_file, events_file

    folder = runs / run_id
    folder.mkdir(parents=True)
    config_file(folder).write_text(json.dumps({"task": "single", "batch_size": batch}))
    started = {"event": "started", "run_id": run_id, "time": 0.0, "steps_total": steps, "effective_batch_size": batch}
    if steps_per_epoch:
        started["steps_per_epoch"] = steps_per_epoch
    events = [started] + [{"event": "step", "run_id": run_id, "time": float(s), "step": s, "loss": 1.0 / s,
                           **({"epoch": s / steps_per_epoch} if steps_per_epoch else {})} for s in range(1, steps + 1)]
    events.append({"event": "finished", "run_id": run_id, "time": 99.0, "metrics": {}})
    events_file(folder).write_text("\n".join(json.dumps(e) for e in events) + "\n")
    return folder


def test_the_runs_csv_of_the_cli_lines_runs_up_by_examples_seen_and_by_epoch(tmp_path, capsys):
    """`bert-explorer runs --export-csv --x examples|epoch`: the Curves axis' factors, a column after step."""
    import csv

    from explorer.cli import main

    _run_folder(tmp_path, "b8", batch=8, steps_per_epoch=10)
    _run_folder(tmp_path, "b32", batch=32, steps_per_epoch=5)
    out = tmp_path / "long.csv"
    assert main(["runs", str(tmp_path), "--export-csv", str(out), "--x", "examples"]) == 0
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    assert list(rows[0]) == ["run", "step", "examples", "name", "value"]
    seen = {(r["run"], r["step"]): r["examples"] for r in rows}
    assert seen[("b8", "4")] == "32" and seen[("b32", "1")] == "32"   # 4 x 8 rows = 1 x 32 rows
    wide = tmp_path / "wide.csv"
    assert main(["runs", str(tmp_path), "--export-csv", str(wide), "--x", "epoch", "--wide"]) == 0
    rows = list(csv.DictReader(open(wide, encoding="utf-8")))
    assert list(rows[0])[:3] == ["run", "step", "epoch"]
    assert {(r["run"], r["step"]): float(r["epoch"]) for r in rows}[("b32", "5")] == 1.0
    _run_folder(tmp_path / "other", "no-epochs", batch=8)
    capsys.readouterr()
    assert main(["runs", str(tmp_path / "other"), "--export-csv", str(out), "--x", "epoch"]) == 2
    assert "no-epochs records no epochs" in capsys.readouterr().err


def test_epochs_below_one_read_as_epochs_without_an_si_prefix(qtbot, tmp_path):
    """A short run by epoch (0.04 of an epoch): the axis reads "epoch" with ticks 0.01 .. 0.04, not "epoch (x0.001)"."""
    from explorer.ui.curves.panel import CurvesPanel
    from explorer.ui.shell.settings import AppSettings

    w = CurvesPanel(settings=AppSettings(tmp_path / "settings.ini"))
    w.resize(1000, 700)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.set_runs([_run("short", batch=8, steps_per_epoch=1000)])
    w.x_control.choose("epoch")
    w.redraw_now()
    axis = w.panels["loss"].plot.getAxis("bottom")
    assert axis.labelText == "epoch" and "x0.001" not in axis.labelString() and axis.autoSIPrefixScale == 1.0
