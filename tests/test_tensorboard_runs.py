"""TensorBoard both ways: a run exported to event files reads back with the same values (TensorBoard's own
reader), a folder of event files lists as a run, and ``report_to="tensorboard"`` mirrors the worker's
events into event files beside events.jsonl while it writes them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

tensorboard = pytest.importorskip("tensorboard", reason="the tensorboard package (extra 'tensorboard') is not installed")


def _our_run(run: Path) -> list[dict]:
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"model": "bundled:minilm", "task": "squad_v2", "run_id": run.name}))
    ev = [{"event": "started", "run_id": run.name, "time": 1000.0, "steps_total": 3}]
    for i in range(1, 4):
        ev.append({"event": "step", "run_id": run.name, "time": 1000.0 + i, "step": i, "epoch": i / 3,
                   "loss": 3.0 / i, "lr": 1e-4 * (4 - i), "grad_norm": 0.5 + i, "samples_per_second": 10.0 * i,
                   "loss_scale": 2.0 ** i})
    ev.append({"event": "eval", "run_id": run.name, "time": 1003.5, "step": 3,
               "metrics": {"f1": 0.4125, "best_f1": 0.5, "total": 12, "per_class": {"a": 1.0}}})
    ev.append({"event": "finished", "run_id": run.name, "time": 1004.0, "metrics": {"f1": 0.4125}, "seconds": 4.0})
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in ev))
    return ev


def _accumulated(folder: Path) -> dict[str, list[tuple[int, float, float]]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out = {}
    for file in sorted(folder.glob("events.out.tfevents.*")):
        acc = EventAccumulator(str(file), size_guidance={"scalars": 0})
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            out.setdefault(tag, []).extend((s.step, s.value, s.wall_time) for s in acc.Scalars(tag))
    return out


def test_export_reads_back_with_the_same_values(tmp_path, capsys):
    from explorer.cli import main
    from explorer.core.runs.readers.tensorboard_folder import TENSORBOARD
    from explorer.core.runs.reading import load_run
    from explorer.core.runs.scalars import run_scalars
    from explorer.ui.runs.store import load_run_state

    events = _our_run(tmp_path / "runs" / "r1")
    assert main(["export-tensorboard", str(tmp_path / "runs" / "r1"), "--out", str(tmp_path / "tb")]) == 0
    folder = tmp_path / "tb" / "r1"
    read = _accumulated(folder)
    want = run_scalars(events)
    assert sorted(read) == sorted({name for _s, name, _v in want} | {"train/epoch"})   # epoch under HF's name
    assert "eval/total" in read and "eval/per_class" not in read        # a count is a number; a table is not
    for step, name, value in want:   # event files store float32 values
        assert (step, np.float32(value)) in [(s, np.float32(v)) for s, v, _w in read[name]], (name, step)
    assert read["train/loss"][0][2] == pytest.approx(1001.0)          # the event's own time
    assert read["train/learning_rate"][-1][1] == pytest.approx(1e-4, rel=1e-6)

    rec = load_run(folder)                                             # the folder of event files as a run
    assert rec.kind == TENSORBOARD and rec.status == "TensorBoard run"   # an export of an ended run, not in progress
    state = load_run_state(folder)
    assert state.series["loss"].x.tolist() == [1, 2, 3]
    np.testing.assert_allclose(state.series["loss"].y, [3.0, 1.5, 1.0], rtol=1e-6)
    np.testing.assert_allclose(state.series["lr"].y, [3e-4, 2e-4, 1e-4], rtol=1e-6)
    np.testing.assert_allclose(state.series["loss_scale"].y, [2.0, 4.0, 8.0])
    assert state.series["dev/f1"].x.tolist() == [3]
    original = load_run_state(tmp_path / "runs" / "r1")   # the task travels: the same display scale as the run
    np.testing.assert_allclose(state.series["dev/f1"].y, original.series["dev/f1"].y, rtol=1e-6)

    assert main(["runs", str(tmp_path)]) == 0                          # both listed, each with its kind
    kinds = {line.split("\t")[-1]: line.split("\t")[1] for line in capsys.readouterr().out.strip().splitlines()[1:]}
    assert kinds == {str(tmp_path / "runs" / "r1"): "BERT Explorer", str(folder): "TensorBoard"}


def test_report_to_tensorboard_mirrors_the_events_as_they_are_written(tmp_path):
    from explorer.core.protocol.events import EVENTS_FILE, EventWriter
    from explorer.core.specs.train_config import ConfigError, TrainConfig
    from explorer.worker.train import _tensorboard_writer

    run = tmp_path / "run"
    writer = EventWriter("run", path=run / EVENTS_FILE)
    assert _tensorboard_writer(TrainConfig(train="x.json"), run, writer) is None   # off by default
    tb = _tensorboard_writer(TrainConfig(train="x.json", report_to="tensorboard"), run, writer)
    writer.emit("step", step=1, loss=2.0, lr=5e-5, grad_norm=1.5)
    writer.emit("eval", step=1, metrics={"f1": 0.25})
    writer.emit("step", step=2, loss=1.0, lr=2.5e-5, grad_norm=0.75)
    writer.close()
    tb.close()
    assert (run / EVENTS_FILE).is_file()
    read = _accumulated(run)                                           # beside events.jsonl
    assert [(s, v) for s, v, _w in read["train/loss"]] == [(1, 2.0), (2, 1.0)]
    assert [(s, v) for s, v, _w in read["eval/f1"]] == [(1, 0.25)]
    assert [s for s, _v, _w in read["train/learning_rate"]] == [1, 2]
    from explorer.core.runs.tensorboard import tensorboard_files
    from explorer.core.runs.tensorboard_args import read_run_config

    assert read_run_config(tensorboard_files(run))["task"] == "squad_v2"   # the run's settings, as the args text
    with pytest.raises(ConfigError, match="report_to 'wandb'"):
        TrainConfig(train="x.json", report_to="wandb").validate()


def test_launcher_checkbox_sets_report_to(qtbot, tmp_path):
    pytest.importorskip("pytestqt")
    from PySide6.QtWidgets import QCheckBox

    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    editor = w.editors["report_to"]
    box = editor.widget if isinstance(editor.widget, QCheckBox) else editor.widget.findChild(QCheckBox)
    assert box is not None and not box.isChecked() and w.config().report_to == ""
    box.setChecked(True)
    assert w.config().report_to == "tensorboard"
    editor.set("")
    assert not box.isChecked() and w.config().report_to == ""


def test_a_restarted_writer_purges_the_orphaned_points_as_tensorboard_does(tmp_path):
    """A run folder whose first writer logged steps 0..15 and whose restarted writer (``purge_step=10``, a run
    resumed from an earlier checkpoint) logged 10..12: each step once, the restarted values for 10..12, the
    crashed writer's 13..15 gone (what TensorBoard itself shows), and the run's notes say a restart was found."""
    import os

    from torch.utils.tensorboard import SummaryWriter

    from explorer.core.runs.readers.tensorboard_folder import read_tensorboard_folder

    logdir = tmp_path / "tb_run"
    first = SummaryWriter(str(logdir), filename_suffix=".first")
    for s in range(16):
        first.add_scalar("train/loss", 10.0 - 0.5 * s, s)
    first.close()
    files = sorted(logdir.iterdir())
    restarted = SummaryWriter(str(logdir), filename_suffix=".restart", purge_step=10)
    for s in range(10, 13):
        restarted.add_scalar("train/loss", 100.0 + s, s)
    restarted.close()
    later = next(p for p in logdir.iterdir() if p not in files)
    if later.name < files[0].name:     # both writers started in the same second: order them by name as in life
        os.rename(later, logdir / (files[0].name.replace(".first", "") + ".z.restart"))
    run = read_tensorboard_folder(logdir, now=0.0)
    losses = [(e["step"], e["loss"]) for e in run.events if e["event"] == "step"]
    assert losses == [(s, 10.0 - 0.5 * s) for s in range(10)] + [(s, 100.0 + s) for s in range(10, 13)]
    note = next(n for n in run.notes if n.startswith("restart found"))
    assert "marks a restart at step 10 (purge_step) after the earlier file(s) reached step 15; 6 earlier point(s)" in note


def _two_writers(logdir, purge_step, restarted_steps, *, old_steps=16):
    """A first writer logging ``train/loss`` 0..old_steps-1, then a restarted one (``purge_step``) logging
    ``restarted_steps``; the files ordered by name as two writers a second apart name them."""
    import os

    from torch.utils.tensorboard import SummaryWriter

    first = SummaryWriter(str(logdir), filename_suffix=".first")
    for s in range(old_steps):
        first.add_scalar("train/loss", 10.0 - 0.5 * s, s)
    first.close()
    files = sorted(logdir.iterdir())
    restarted = SummaryWriter(str(logdir), filename_suffix=".restart", purge_step=purge_step)
    for s in restarted_steps:
        restarted.add_scalar("train/loss", 100.0 + s, s)
    restarted.close()
    later = next(p for p in logdir.iterdir() if p not in files)
    os.rename(later, logdir / (files[0].name.replace(".first", "") + ".z.restart"))


def test_the_purge_step_purges_from_itself_as_tensorboard_does_whatever_the_restarted_writer_logs(tmp_path):
    """TensorBoard purges on the restarted writer's SessionLog START (its purge_step), not on the first step it
    logs: a writer restarted at step 10 that logs every 2nd step from 12 drops the crashed writer's 10 and 11
    too, and one that logged nothing yet still drops 10..15 (the points TensorBoard's EventAccumulator keeps)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from explorer.core.runs.tensorboard import read_tensorboard_folder_scalars

    for name, steps in (("sparse", (12, 14)), ("silent", ())):
        logdir = tmp_path / name
        _two_writers(logdir, 10, steps)
        read = read_tensorboard_folder_scalars(logdir)
        tensorboard = EventAccumulator(str(logdir))
        tensorboard.Reload()
        expected = [(e.step, e.value) for e in tensorboard.Scalars("train/loss")]
        assert [(r[0], r[2]) for r in read.rows] == expected
        assert expected == [(s, 10.0 - 0.5 * s) for s in range(10)] + [(s, 100.0 + s) for s in steps]
        assert [(r.step, r.purged, r.marked) for r in read.restarts] == [(10, 6, True)]


def test_a_second_writer_of_other_tags_beside_the_first_purges_nothing_and_an_unmarked_restart_only_its_tags(
        tmp_path):
    """Two writers in one folder at once (training losses in one file, evaluations in another, or the same tag
    from two processes, as TensorBoard draws them): every point of both stays and no restart is claimed. A
    writer restarted without its
    purge_step purges only the tags it logs again, from the step it logs them again, as TensorBoard purges
    out-of-order steps tag by tag."""
    import os

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from torch.utils.tensorboard import SummaryWriter

    from explorer.core.runs.tensorboard import read_tensorboard_folder_scalars

    logdir = tmp_path / "beside"
    train, evaluate = SummaryWriter(str(logdir), filename_suffix=".a"), SummaryWriter(str(logdir), filename_suffix=".b")
    for s in range(16):
        train.add_scalar("train/loss", 10.0 - 0.5 * s, s)
        if s % 4 == 3:
            evaluate.add_scalar("eval/accuracy", s / 20, s)
    train.close()
    evaluate.close()
    read = read_tensorboard_folder_scalars(logdir)
    tensorboard = EventAccumulator(str(logdir))
    tensorboard.Reload()
    for tag in ("train/loss", "eval/accuracy"):
        assert [(r[0], r[2]) for r in read.rows if r[1] == tag] == [(e.step, e.value) for e in tensorboard.Scalars(tag)]
    assert len(read.rows) == 16 + 4 and read.restarts == []

    logdir = tmp_path / "same tag"   # two writers of one tag at once (two processes logging alike): both drawn
    one, two = SummaryWriter(str(logdir), filename_suffix=".a"), SummaryWriter(str(logdir), filename_suffix=".b")
    for s in range(8):
        one.add_scalar("train/loss", 1.0, s, walltime=1000.0 + s)   # the points' own times, as two writers at once
        two.add_scalar("train/loss", 2.0, s, walltime=1000.5 + s)
    one.close()
    two.close()
    read = read_tensorboard_folder_scalars(logdir)
    assert sorted((r[0], r[2]) for r in read.rows) == sorted([(s, 1.0) for s in range(8)] + [(s, 2.0) for s in range(8)])
    assert read.restarts == []

    logdir = tmp_path / "unmarked"
    first = SummaryWriter(str(logdir), filename_suffix=".first")
    for s in range(16):
        first.add_scalar("train/loss", 10.0 - 0.5 * s, s, walltime=1000.0 + s)
        first.add_scalar("train/lr", 0.1, s, walltime=1000.0 + s)
    first.close()
    files = sorted(logdir.iterdir())
    restarted = SummaryWriter(str(logdir), filename_suffix=".restart")
    for s in range(10, 13):
        restarted.add_scalar("train/loss", 100.0 + s, s, walltime=2000.0 + s)   # after the first writer stopped
    restarted.close()
    later = next(p for p in logdir.iterdir() if p not in files)
    os.rename(later, logdir / (files[0].name.replace(".first", "") + ".z.restart"))
    read = read_tensorboard_folder_scalars(logdir)
    assert [(r[0], r[2]) for r in read.rows if r[1] == "train/loss"] == \
        [(s, 10.0 - 0.5 * s) for s in range(10)] + [(s, 100.0 + s) for s in range(10, 13)]
    assert [r[0] for r in read.rows if r[1] == "train/lr"] == list(range(16))
    [restart] = read.restarts
    assert (restart.step, restart.reached, restart.purged, restart.marked) == (10, 15, 6, False)
    assert "starts train/loss again at step 10 after the earlier file(s) reached step 15; 6 earlier point(s)" \
        in restart.note()


def test_an_exported_run_opened_as_a_run_shows_the_same_best_dev_and_epoch(tmp_path):
    """A run that chose its best by accuracy (while F1 peaked elsewhere): exported to TensorBoard and opened
    again, the folder ranks by accuracy at the same step and keeps the epochs (the settings travel as the
    ``args`` text summary)."""
    from explorer.core.runs.reading import load_run

    config = {"model": "bundled:minilm", "task": "single", "metric_for_best": "accuracy", "train": "train.csv"}
    original, exported = _exported_and_back(tmp_path, "sst2 small", config,
                                            [(2, {"accuracy": 0.725, "f1": 0.6}), (4, {"accuracy": 0.7, "f1": 0.7468})])
    assert original.best_metric() == ("accuracy", pytest.approx(72.5), 2)
    name, value, step = exported.best_metric()   # event files store float32 values
    assert (name, step) == ("accuracy", 2) and value == pytest.approx(72.5, rel=1e-6)
    assert exported.best_text() == original.best_text()
    assert exported.epoch == pytest.approx(2.0) == original.epoch
    rec = load_run(tmp_path / "tb" / "sst2 small")
    assert rec.summary.metric_name == "accuracy" and rec.summary.metric_value == pytest.approx(0.725)
    assert rec.config["task"] == "single"


def test_an_exported_squad_run_keeps_its_percent_scale(tmp_path):
    """SQuAD metrics are stored in percent (the official scripts' scale), classification shares as fractions: an
    exported SQuAD run opened again shows F1 37.32%, not 3732% (a folder without the task read as a classifier's
    fractions and scaled them again)."""
    config = {"model": "bundled:minilm", "task": "squad_v1", "metric_for_best": "f1"}
    original, exported = _exported_and_back(tmp_path, "squad", config,
                                            [(2, {"f1": 30.5, "exact_match": 20.0}), (4, {"f1": 37.32, "exact_match": 28.0})])
    assert original.best_metric() == ("f1", pytest.approx(37.32), 4)
    name, value, step = exported.best_metric()
    assert (name, step) == ("f1", 4) and value == pytest.approx(37.32, rel=1e-6)
    assert exported.best_text() == original.best_text()


def test_evaluations_on_a_dev_sample_and_on_all_dev_rows_are_written_under_their_own_tags(tmp_path):
    """Evaluations during training scored a 200-row sample of the 1,000 dev rows, the final one all of them: the
    sample's figures are ``eval_sample/<metric>``, the whole dev set's ``eval/<metric>``, so no TensorBoard curve
    joins the two; the folder read back as a run still has an evaluation at each step."""
    from explorer.core.runs.tensorboard import tensorboard_events

    config = {"model": "bundled:minilm", "task": "single", "metric_for_best": "accuracy", "train": "train.csv"}
    rows = {2: (200, 1000), 3: (200, 1000), 4: (1000, 1000)}
    run = tmp_path / "runs" / "sampled"
    run.mkdir(parents=True)
    ev = [{"event": "started", "run_id": "sampled", "time": 1000.0, "steps_total": 4, "config": config}]
    for step, (scored, total) in rows.items():
        ev.append({"event": "eval", "run_id": "sampled", "time": 1000.5 + step, "step": step, "dev_rows": scored,
                   "dev_total": total, "metrics": {"accuracy": 0.5 + step / 10}})
    (run / "config.json").write_text(json.dumps(dict(config, run_id="sampled")))
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in ev))
    from explorer.cli import main

    assert main(["export-tensorboard", str(run), "--out", str(tmp_path / "tb")]) == 0
    read = _accumulated(tmp_path / "tb" / "sampled")
    assert [s for s, _v, _w in read["eval_sample/accuracy"]] == [2, 3]
    assert [s for s, _v, _w in read["eval/accuracy"]] == [4]
    back = [e for e in tensorboard_events("sampled", tmp_path / "tb" / "sampled") if e["event"] == "eval"]
    assert [(e["step"], round(e["metrics"]["accuracy"], 4)) for e in back] == [(2, 0.7), (3, 0.8), (4, 0.9)]


def _exported_and_back(tmp_path, name: str, config: dict, evals: list[tuple[int, dict]]):
    """(RunState of the run, RunState of its TensorBoard export opened as a run): a 4-step run with ``config``
    and an evaluation at each (step, metrics) of ``evals``, exported with ``export-tensorboard``."""
    from explorer.cli import main
    from explorer.ui.runs.store import load_run_state

    run = tmp_path / "runs" / name
    run.mkdir(parents=True)
    config = {**config, "run_id": name}
    (run / "config.json").write_text(json.dumps(config))
    ev = [{"event": "started", "run_id": name, "time": 1000.0, "steps_total": 4, "config": config}]
    for i in range(1, 5):
        ev.append({"event": "step", "run_id": name, "time": 1000.0 + i, "step": i, "epoch": i / 2, "loss": 1.0 / i})
    for step, metrics in evals:
        ev.append({"event": "eval", "run_id": name, "time": 1000.5 + step, "step": step, "metrics": metrics})
    ev.append({"event": "finished", "run_id": name, "time": 1005.0, "metrics": {}, "seconds": 5.0})
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in ev))
    assert main(["export-tensorboard", str(run), "--out", str(tmp_path / "tb")]) == 0
    return load_run_state(run), load_run_state(tmp_path / "tb" / name)


def test_hf_trainer_args_text_names_the_metric_for_best():
    """An HF Trainer's TensorBoard log stores its TrainingArguments as the ``args`` text: its
    metric_for_best_model (with or without ``eval_``) ranks the folder; text that is not a JSON object gives {}."""
    from explorer.core.runs.tensorboard_args import run_config_from_args

    assert run_config_from_args(json.dumps({"metric_for_best_model": "eval_accuracy", "learning_rate": 5e-5})) == \
        {"metric_for_best": "accuracy"}
    assert run_config_from_args(json.dumps({"metric_for_best_model": "f1"})) == {"metric_for_best": "f1"}
    assert run_config_from_args(json.dumps({"task": "single", "metric_for_best": "", "model": "m"})) == \
        {"task": "single", "model": "m"}
    assert run_config_from_args("not json") == {} and run_config_from_args("[1]") == {}
