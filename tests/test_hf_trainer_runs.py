"""Runs from elsewhere: a real Hugging Face ``Trainer`` output_dir lists, draws and opens as a run.

One module-scoped fixture trains a tiny random BERT classifier (2 layers, hidden 32) for 4 steps with the
real ``transformers.Trainer`` (save_steps and eval_steps 2, CPU, no report_to) into a tmp folder; every
test reads that folder: the run store (kind, status, curves, checkpoints, best, settings read from
training_args.bin without unpickling it), ``bert-explorer runs DIR`` (lines, --json, --export-csv), the
checkpoint's inspector page, and the main window's Runs dock and Curves (its screenshot is copied into
$EXPLORER_SHOTS_DIR when that is set). And Load… on a Trainer's file (trainer_state.json, training_args.bin, a
model's config.json) says what it is and what to open instead.
"""

from __future__ import annotations

import csv
import json
import os
import pickle
import shutil
import sys
from pathlib import Path

import pytest

from explorer.core.errors import ConfigError
from explorer.core.specs.train_config import TrainConfig

sys.path.insert(0, str(Path(__file__).parent))
from helpers import tiny_loaded_model  # noqa: E402

STEPS, EVERY, LR = 4, 2, 1e-3


@pytest.fixture(scope="module")
def hf_run(tmp_path_factory):
    """(runs root, output_dir, trainer log_history) of a real 4-step Trainer run."""
    import numpy as np
    from transformers import Trainer, TrainingArguments

    root = tmp_path_factory.mktemp("hf")
    out = root / "hf-out"
    loaded = tiny_loaded_model("classification")
    tok = loaded.tokenizer
    texts = ["the model answer", "a question of the city", "paris river", "ada was born in london"] * 2
    rows = [dict(tok(t, truncation=True, max_length=16), labels=i % 2) for i, t in enumerate(texts)]

    def accuracy(p):
        return {"accuracy": float((np.argmax(p.predictions, -1) == p.label_ids).mean())}

    args = TrainingArguments(output_dir=str(out), max_steps=STEPS, per_device_train_batch_size=4, logging_steps=1,
                             eval_strategy="steps", eval_steps=EVERY, save_strategy="steps", save_steps=EVERY,
                             use_cpu=True, report_to="none", learning_rate=LR, disable_tqdm=True, seed=7,
                             load_best_model_at_end=True, metric_for_best_model="loss", greater_is_better=False,
                             dataloader_num_workers=0, save_only_model=True)
    trainer = Trainer(model=loaded.model, args=args, train_dataset=rows, eval_dataset=rows[:4], processing_class=tok,
                      compute_metrics=accuracy)
    trainer.train()
    trainer.save_state()
    history = json.loads((out / "trainer_state.json").read_text())["log_history"]
    _write_our_run(root / "ours-run")
    return root, out, history


def _write_our_run(run: Path) -> None:
    """A small finished run of ours beside the Trainer folder (the runs command lists both kinds)."""
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"model": "bundled:minilm", "task": "squad_v2", "run_id": run.name}))
    ev = [{"event": "started", "run_id": run.name, "time": 100.0, "steps_total": 2},
          {"event": "step", "run_id": run.name, "time": 101.0, "step": 1, "loss": 2.5, "lr": 1e-4},
          {"event": "step", "run_id": run.name, "time": 102.0, "step": 2, "loss": 2.0, "lr": 5e-5},
          {"event": "eval", "run_id": run.name, "time": 103.0, "step": 2, "metrics": {"best_f1": 0.25, "f1": 0.2}},
          {"event": "finished", "run_id": run.name, "time": 104.0, "metrics": {"best_f1": 0.25}, "seconds": 4.0}]
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in ev))


def _trained(history, key):
    return [(e["step"], e[key]) for e in history if key in e and "train_runtime" not in e]


def test_output_dir_lists_as_an_hf_trainer_run(hf_run, monkeypatch):
    from explorer.core.runs import status as run_status
    from explorer.core.runs.readers.trainer_folder import HF_TRAINER
    from explorer.core.runs.reading import load_run, run_kind
    from explorer.ui.runs.store import load_run_state

    _root, out, history = hf_run

    def refuse(*_a, **_k):
        raise AssertionError("training_args.bin must never be unpickled")
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    import torch
    monkeypatch.setattr(torch, "load", refuse)
    rec = load_run(out)
    assert run_kind(out) == HF_TRAINER and rec.kind == HF_TRAINER
    assert rec.status == run_status.FINISHED != run_status.CRASHED   # trained to max_steps
    assert rec.summary.steps == STEPS and rec.config["task"] == "single"
    assert set(rec.checkpoints) == {f"checkpoint-{EVERY}", f"checkpoint-{STEPS}", "last", "best"}
    best_step = json.loads((out / "trainer_state.json").read_text())["best_global_step"]
    assert rec.best[0] == "loss" and rec.best[2] == best_step
    assert rec.checkpoints["best"] == str(out / f"checkpoint-{best_step}")
    # settings read from the pickle's opcodes: plain values kept, objects named as not read
    assert rec.settings["learning_rate"] == LR and rec.settings["seed"] == 7 and rec.settings["max_steps"] == STEPS
    assert rec.settings["eval_strategy"] == "steps"   # an enum member, by its value
    assert any("is a pickle: it was not loaded" in n for n in rec.notes)
    assert any("could not be read: " in n for n in rec.notes)

    state = load_run_state(out)
    assert state.status == "finished" and state.kind == HF_TRAINER
    assert list(zip(state.series["loss"].x.tolist(), state.series["loss"].y.tolist())) == _trained(history, "loss")
    assert state.series["lr"].y.tolist() == [v for _s, v in _trained(history, "learning_rate")]
    assert state.series["grad_norm"].x.tolist() == [s for s, _v in _trained(history, "grad_norm")]
    evals = _trained(history, "eval_accuracy")
    assert state.series["dev/accuracy"].x.tolist() == [s for s, _v in evals] == [EVERY, STEPS]
    assert state.series["dev/accuracy"].y.tolist() == [100 * v for _s, v in evals]   # percent, as our runs
    assert state.series["dev/loss"].y.tolist() == [v for _s, v in _trained(history, "eval_loss")]
    assert state.best_metric()[0] == "loss" and state.best_checkpoint_path() == rec.checkpoints["best"]


def test_one_checkpoint_opens_as_a_run_and_in_the_right_page(hf_run):
    pytest.importorskip("pytestqt")
    from explorer.core.models.checkpoint_windows import checkpoint_task_name
    from explorer.core.runs.readers.trainer_folder import HF_TRAINER
    from explorer.core.runs.reading import load_run
    from explorer.ui.inspectors.registry import page_for_checkpoint

    _root, out, history = hf_run
    ckpt = out / f"checkpoint-{EVERY}"
    rec = load_run(ckpt)
    assert rec.kind == HF_TRAINER and rec.status == "stopped" and rec.summary.steps == EVERY   # before max_steps
    assert rec.run_id == f"hf-out-checkpoint-{EVERY}" and rec.checkpoints["last"] == str(ckpt)
    assert [e["step"] for e in rec.events if e["event"] == "eval"] == [EVERY]
    head, task = checkpoint_task_name(ckpt)
    assert (head, task) == ("classification", "single")
    assert page_for_checkpoint(head).plain_title == "Classify"


def test_runs_command_lists_both_kinds_and_exports_csv(hf_run, capsys, tmp_path):
    from explorer.cli import main

    root, out, history = hf_run
    assert main(["runs", str(root)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split("\t") == ["run", "kind", "status", "step", "task", "best", "path"]   # a header row
    by_path = {line.split("\t")[-1]: line.split("\t") for line in lines[1:]}
    assert by_path[str(out)][:5] == ["hf-out", "HF Trainer", "finished", f"{STEPS}/{STEPS}", "single"]
    assert by_path[str(out)][5].startswith("loss=")
    assert by_path[str(root / "ours-run")][:5] == ["ours-run", "BERT Explorer", "finished", "2/2", "squad_v2"]
    assert by_path[str(root / "ours-run")][5].startswith("f1=0.20% (checkpoint picked by best_f1=0.25%")   # τ = 0
    assert main(["runs", str(root), "--no-header"]) == 0
    assert capsys.readouterr().out.strip().splitlines() == lines[1:]
    assert main(["runs", str(root), "--json"]) == 0
    rows = {r["path"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[str(out)]["kind"] == "HF Trainer" and rows[str(out)]["best"]["name"] == "loss"

    long_csv, wide_csv = tmp_path / "long.csv", tmp_path / "wide.csv"
    assert main(["runs", str(root), "--export-csv", str(long_csv)]) == 0
    assert main(["runs", str(root), "--export-csv", str(wide_csv), "--wide"]) == 0
    with open(long_csv, newline="") as fh:
        long_rows = list(csv.DictReader(fh))
    assert list(long_rows[0]) == ["run", "step", "name", "value"]
    hf_loss = [(int(r["step"]), float(r["value"])) for r in long_rows if r["run"] == "hf-out" and r["name"] == "train/loss"]
    assert hf_loss == _trained(history, "loss")
    ours = [(r["step"], r["name"], float(r["value"])) for r in long_rows if r["run"] == "ours-run"]
    assert ours == [("1", "train/loss", 2.5), ("1", "train/learning_rate", 1e-4), ("2", "train/loss", 2.0),
                    ("2", "train/learning_rate", 5e-5), ("2", "eval/best_f1", 0.25), ("2", "eval/f1", 0.2)]
    with open(wide_csv, newline="") as fh:
        wide = list(csv.DictReader(fh))
    ours_wide = [r for r in wide if r["run"] == "ours-run"]
    assert [(r["step"], r["train/loss"], r["eval/f1"]) for r in ours_wide] == [("1", "2.5", ""), ("2", "2.0", "0.2")]
    hf_at = {int(r["step"]): r for r in wide if r["run"] == "hf-out"}
    assert sorted(hf_at) == list(range(1, STEPS + 1))
    assert [float(hf_at[s]["eval/accuracy"]) for s, _v in _trained(history, "eval_accuracy")] == \
        [v for _s, v in _trained(history, "eval_accuracy")]


def test_runs_dock_and_curves_draw_it_and_keep_it_across_restarts(hf_run, qtbot, tmp_path, monkeypatch):
    """One window, as after a restart: the output_dir opened in an earlier session (the settings) is listed
    again, draws in Curves, and its best checkpoint goes to Classify; File > Open run folder takes one
    checkpoint-N, which is remembered beside it."""
    pytest.importorskip("pytestqt")
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    _root, out, history = hf_run
    ini = tmp_path / "s.ini"
    AppSettings(ini).add_opened_run(out)          # opened with File > Open run folder in an earlier session
    w = MainWindow(tmp_path / "runs", AppSettings(ini), probe_device=False)
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    qtbot.waitUntil(lambda: "hf-out" in w.runs.all_ids(), timeout=10_000)
    w.tabs.setCurrentWidget(w.curves)
    qtbot.waitUntil(w.curves.isVisible, timeout=10_000)
    w.runs.select(["hf-out"])
    qtbot.waitUntil(lambda: w.runs.state("hf-out").loaded, timeout=10_000)
    w.curves.redraw_now()
    assert w.curves.point_count("hf-out", "loss") == len(_trained(history, "loss"))
    assert w.curves.point_count("hf-out", "dev/accuracy") == len(_trained(history, "eval_accuracy"))
    assert w.runs.model.run_index("hf-out", 1).data() == "finished"
    opened = []    # the dock's "Open best checkpoint in inspectors" -> the page its model head goes to
    monkeypatch.setattr(w, "show_page", lambda title: opened.append(title))
    for page_set in {id(p): p for p in w.page_sets.values()}.values():
        monkeypatch.setattr(page_set, "open_checkpoint", lambda *a: None, raising=False)
    w.runs._open_checkpoint()
    assert opened and "Classify" in opened[-1]
    w.tabs.setCurrentWidget(w.curves)
    w.curves.redraw_now()
    shot = tmp_path / "hf_trainer_run_in_runs_and_curves.png"
    assert w.grab().save(str(shot)) and shot.stat().st_size > 0
    if os.environ.get("EXPLORER_SHOTS_DIR"):   # a person looks at it (e.g. /tmp/hft_shots)
        shutil.copy(shot, Path(os.environ["EXPLORER_SHOTS_DIR"]) / shot.name)

    ckpt = out / f"checkpoint-{EVERY}"
    w.open_run_folder(ckpt)                       # File > Open run folder… on one checkpoint-N
    qtbot.waitUntil(lambda: w.runs.selected_ids() == [f"hf-out-checkpoint-{EVERY}"], timeout=10_000)
    assert w.runs.state(f"hf-out-checkpoint-{EVERY}").status == "stopped"
    w.settings.sync()
    assert AppSettings(ini).opened_runs() == [str(out), str(ckpt)]   # listed again at the next start

    w.runs.select(["hf-out", f"hf-out-checkpoint-{EVERY}"])        # both in one table, from the dock
    menu = w.runs.context_menu(w.runs._selected_states())
    assert next(a for a in menu.actions() if a.text() == "Export scalars to CSV…").isEnabled()
    table = tmp_path / "both.csv"
    with qtbot.waitSignal(w.runs.message, timeout=10_000) as said:
        assert w.runs.export_csv_selected(str(table), wide=True)
    assert said.args[0].startswith(f"Wrote {EVERY + STEPS} rows of 2 runs")   # one row per run and step
    with open(table, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["run"] for r in rows} == {"hf-out", f"hf-out-checkpoint-{EVERY}"}
    assert [float(r["train/loss"]) for r in rows if r["run"] == "hf-out"] == [v for _s, v in _trained(history, "loss")]


class _Payload:
    """Unpickling this would run ``touch <marker>``."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_training_args_bin_is_read_without_running_it(tmp_path):
    from explorer.core.runs.readers.pickled_settings import read_pickled_settings

    marker = tmp_path / "ran"
    file = tmp_path / "training_args.bin"
    file.write_bytes(pickle.dumps({"learning_rate": 2e-5, "seed": 3, "hook": _Payload(marker), "tags": ["a", 1]},
                                  protocol=2))
    settings, not_read, note = read_pickled_settings(file)
    assert not marker.exists()                      # the os.system call was never made
    assert settings == {"learning_rate": 2e-5, "seed": 3, "tags": ["a", 1]} and not_read == ["hook"] and note == ""
    # a one-item list is pickled with APPEND (two or more with APPENDS): TrainingArguments' report_to=["tensorboard"]
    # (never "cannot be read without running it ('str' object has no attribute 'append')")
    file.write_bytes(pickle.dumps({"report_to": ["tensorboard"], "seed": 42}, protocol=2))
    assert read_pickled_settings(file) == ({"report_to": ["tensorboard"], "seed": 42}, [], "")
    (tmp_path / "junk.bin").write_bytes(b"\x80\x04not a pickle at all")
    assert read_pickled_settings(tmp_path / "junk.bin")[2].endswith("no settings read")


def _trainer_state(folder: Path, step: int, max_steps: int = 100, end: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    history = [{"step": s, "epoch": s / 100, "loss": 1.5, "learning_rate": 1e-5, "grad_norm": 2.0}
               for s in range(10, step + 1, 10)]
    if end:
        history.append({"step": step, "train_runtime": 12.0, "train_loss": 1.2})
    state = folder / "trainer_state.json"
    state.write_text(json.dumps({"global_step": step, "max_steps": max_steps, "log_history": history}))
    return state


def test_a_copied_trainer_folder_reads_as_ended_from_its_files_not_its_times(tmp_path):
    """A copied Trainer folder never reads "in progress" for its first minutes (a copy's file times are the
    copy's). Its status comes from the files: finished when they say it ended (end summary, global_step or a
    checkpoint-N at max_steps), stopped before that; in progress only after this process saw them change."""
    from explorer.core.runs.readers.base import WriterWatch
    from explorer.core.runs.readers.trainer_folder import read_trainer_run
    from explorer.core.runs.readers.base import IN_PROGRESS_SECONDS
    from explorer.core.runs.reading import load_run

    def status(path, watch, now):
        return read_trainer_run(path, state_name="trainer_state.json", json_name="training_args.json",
                                bin_name="training_args.bin", kind="HF Trainer", finished_status="finished",
                                stopped_status="stopped", live_status="in progress", now=now, watch=watch).status

    copied = tmp_path / "copied-out"
    _trainer_state(copied / "checkpoint-10", 10)           # written this instant, as a copy is
    rec = load_run(copied)
    assert rec.status == "stopped" and rec.summary.steps == 10 and rec.summary.steps_total == 100
    assert any("stopped: step 10 of 100" in n for n in rec.notes)
    assert any("no TrainingArguments saved" in n for n in rec.notes)
    _trainer_state(copied / "checkpoint-100", 100)         # a checkpoint at max_steps: the run ended
    assert load_run(copied).status == "finished"
    ended = tmp_path / "ended-out"
    _trainer_state(ended, 40, end=True)                    # stopped by its own rule (early stopping): end summary
    assert load_run(ended).status == "finished"

    watch, now = WriterWatch(IN_PROGRESS_SECONDS), 1000.0
    live = tmp_path / "live-out"
    _trainer_state(live / "checkpoint-10", 10)
    assert status(live, watch, now) == "stopped"           # a first look proves no writer
    assert status(live, watch, now + 3) == "stopped"       # nothing changed
    _trainer_state(live / "checkpoint-20", 20)             # the writer saves a checkpoint
    assert status(live, watch, now + 6) == "in progress"
    assert status(live, watch, now + 6 + IN_PROGRESS_SECONDS - 1) == "in progress"
    assert status(live, watch, now + 6 + IN_PROGRESS_SECONDS + 1) == "stopped"   # nothing changed for a while
    assert status(live / "checkpoint-20", watch, now + 9) == "stopped"   # one checkpoint opened alone never grows


def test_the_store_rechecks_a_stopped_trainer_folder_only_when_its_files_change(tmp_path):
    """The poll re-reads a Trainer folder listed as stopped when its files changed (a writer after all), and only
    while it is watched; never our own runs."""
    from explorer.core.runs.readers.base import IN_PROGRESS_SECONDS
    from explorer.core.runs.readers.trainer_folder import TRAINER_WRITERS
    from explorer.core.runs.store import RunStore
    from explorer.ui.runs.store import load_run_state

    out = tmp_path / "watched-out"
    _trainer_state(out / "checkpoint-10", 10)
    store = RunStore()
    store.add(load_run_state(out))
    assert store.get("watched-out").status == "stopped" and store.trainer_folders_to_recheck() == []
    _trainer_state(out / "checkpoint-20", 20)
    assert [s.run_id for s in store.trainer_folders_to_recheck()] == ["watched-out"]
    store.add(load_run_state(out))
    assert store.get("watched-out").status == "in progress"
    import time

    later = time.time() + IN_PROGRESS_SECONDS + 1
    assert not TRAINER_WRITERS.watching(out, later)


def test_a_checkpoint_without_tokenizer_files_uses_its_output_dirs(tmp_path):
    """A Trainer's checkpoint-6 holding no tokenizer (it was saved in the output_dir only) must not read every word
    as [UNK]: the tokenizer comes from the parent folder then; a checkpoint with its own keeps it."""
    from explorer.core.models.loading import tokenizer_folder

    out = tmp_path / "out"
    ckpt = out / "checkpoint-6"
    ckpt.mkdir(parents=True)
    (ckpt / "config.json").write_text("{}")
    import pytest

    from explorer.core.errors import ModelSourceError

    with pytest.raises(ModelSourceError, match="has no tokenizer"):   # nowhere: refused, never [UNK]s
        tokenizer_folder(str(ckpt))
    (out / "tokenizer.json").write_text("{}")
    assert tokenizer_folder(str(ckpt)) == str(out)
    (ckpt / "vocab.txt").write_text("[PAD]\n")
    assert tokenizer_folder(str(ckpt)) == str(ckpt)
    assert tokenizer_folder("test-org/minilm-squad") == "test-org/minilm-squad"


def _copyable_trainer_folder(out: Path, best: int, other: int) -> None:
    """An output_dir with checkpoint-<other> and checkpoint-<best>, whose trainer_state.json records the
    absolute ``best_model_checkpoint`` of checkpoint-<best> where it was written."""
    for step in (other, best):
        (out / f"checkpoint-{step}").mkdir(parents=True)
        (out / f"checkpoint-{step}" / "config.json").write_text(json.dumps({"model_type": "bert"}))
    state = json.dumps({
        "global_step": max(best, other), "max_steps": max(best, other), "best_global_step": best,
        "best_metric": 0.5, "best_model_checkpoint": str(out / f"checkpoint-{best}"),
        "log_history": [{"step": best, "epoch": 1.0, "eval_loss": 0.5}]})
    for folder in (out, out / f"checkpoint-{other}"):
        (folder / "trainer_state.json").write_text(state)


def test_a_copied_folder_opens_its_own_best_checkpoint_while_the_original_exists(tmp_path):
    """A copy (copy/hf_out) opens its own checkpoint-6, not original/hf_out/checkpoint-6, although the recorded
    absolute path still exists: the copy's own checkpoint of that name is the best; the note says why."""
    from explorer.core.runs.reading import load_run

    original = tmp_path / "original" / "hf_out"
    _copyable_trainer_folder(original, best=6, other=3)
    copy = tmp_path / "copy" / "hf_out"
    shutil.copytree(original, copy)
    rec = load_run(copy)
    assert rec.checkpoints["best"] == str(copy / "checkpoint-6")
    assert not any(str(original) in str(p) for p in rec.checkpoints.values())
    assert any("written for another place" in n and str(original / "checkpoint-6") in n for n in rec.notes)
    assert load_run(copy / "checkpoint-3").checkpoints.get("best") == str(copy / "checkpoint-6")
    assert load_run(original).checkpoints["best"] == str(original / "checkpoint-6")   # in place: no note
    assert not any("another place" in n for n in load_run(original).notes)
    shutil.rmtree(copy / "checkpoint-6")          # the copy lacks it: never the original's, and said so
    rec = load_run(copy)
    assert "best" not in rec.checkpoints and any("is not there" in n for n in rec.notes)


def test_trainer_timings_are_not_dev_metrics(hf_run, tmp_path):
    """eval_runtime, eval_samples_per_second and eval_steps_per_second are no "dev runtime", "dev
    samples_per_second", "dev steps_per_second" plots between the real metrics. They stay in the events but
    are no dev plot, no group statistic and never the metric that picked the best checkpoint."""
    from explorer.core.runs.readers.trainer_folder import best_metric_name
    from explorer.core.specs.metrics import metric_spec
    from explorer.ui.runs.store import load_run_state

    _root, out, history = hf_run
    assert any("eval_runtime" in e and "eval_samples_per_second" in e and "eval_steps_per_second" in e
               for e in history)
    state = load_run_state(out)
    dev = {k for k in state.series if k.startswith("dev/")}
    assert dev == {"dev/accuracy", "dev/loss"}
    for name in ("runtime", "samples_per_second", "steps_per_second", "eval_jit_compilation_time", "predict_runtime"):
        spec = metric_spec(name)
        assert spec.is_timing and not spec.is_plotted and not spec.can_pick_best and spec.higher_is_better is None
    entry = next(e for e in history if "eval_runtime" in e)
    # a best_metric equal to the runtime by chance is not read as "runtime"
    assert best_metric_name([entry], entry["eval_runtime"], entry["step"]) == ""


def test_the_duration_of_a_folder_without_save_state_comes_from_its_tensorboard_log(tmp_path, qtbot):
    """An output_dir whose trainer_state.json (in checkpoint-40: no ``trainer.save_state()``) has no end summary
    lists its real duration, not 0:00: Trainer logged train_runtime 215 s only to its TensorBoard files
    (``<output_dir>/runs/<date>_<host>/``, logged after the last checkpoint). The Runs list, ``runs`` and the
    notes say 3:35; one checkpoint opened alone borrows nothing from the folder above it."""
    pytest.importorskip("tensorboard")
    from torch.utils.tensorboard import SummaryWriter

    from explorer.core.runs.reading import load_run
    from explorer.ui.runs.dock import COLUMNS, RunsModel
    from explorer.ui.runs.store import load_summary

    out = tmp_path / "hf-sst2"
    _trainer_state(out / "checkpoint-40", 40, max_steps=40)
    writer = SummaryWriter(str(out / "runs" / "Dec02_05-33-15_vm"))
    writer.add_scalar("train/loss", 0.66, 40)
    writer.add_scalar("train/train_runtime", 215.0924, 40)
    writer.close()
    rec = load_run(out)
    assert rec.status == "finished" and rec.summary.duration == pytest.approx(215.0924, abs=1e-3)
    assert any(n.startswith("train_runtime 215.1 s from the TensorBoard log in") for n in rec.notes), rec.notes
    state = load_summary(out)
    model = RunsModel()
    model.upsert(state)
    assert model.run_index("hf-sst2", COLUMNS.index("Duration")).data() == "3:35"
    alone = load_run(out / "checkpoint-40")
    assert not any(e["event"] == "finished" for e in alone.events)


# ---- Load… on another tool's file ------------------------------------------------------------------------------
def _trainer_folder(tmp_path):
    ckpt = tmp_path / "hf-sst2" / "checkpoint-40"
    ckpt.mkdir(parents=True)
    (ckpt / "trainer_state.json").write_text(json.dumps({
        "best_global_step": 40, "best_metric": 0.625, "best_model_checkpoint": str(ckpt), "epoch": 2.0,
        "global_step": 40, "log_history": [{"loss": 0.69, "step": 10}], "trial_params": None}), encoding="utf-8")
    (ckpt / "training_args.bin").write_bytes(b"PK\x03\x04\x14\x00\x00\x00\x08\x00\xff\xfe archive/data.pkl")
    (ckpt / "config.json").write_text(json.dumps({
        "architectures": ["BertForSequenceClassification"], "model_type": "bert", "hidden_size": 384,
        "num_attention_heads": 12, "vocab_size": 30522}), encoding="utf-8")
    return ckpt


def test_loading_a_trainer_file_as_a_run_config_says_what_it_is_and_what_to_open(tmp_path):
    """Shot 95: "unknown setting(s) best_global_step, best_metric, ... trial_params" and no pointer."""
    ckpt = _trainer_folder(tmp_path)
    with pytest.raises(ConfigError) as state:
        TrainConfig.load(ckpt / "trainer_state.json")
    assert "is a Hugging Face Trainer state" in str(state.value) and "unknown setting" not in str(state.value)
    assert "with File → Open run folder…" in str(state.value) and "training_args.bin" in str(state.value)
    with pytest.raises(ConfigError) as args:          # a pickle: never a UnicodeDecodeError out of Load…
        TrainConfig.load(ckpt / "training_args.bin")
    assert "TrainingArguments, not a run config" in str(args.value)
    with pytest.raises(ConfigError) as model:
        TrainConfig.load(ckpt / "config.json")
    assert "is a model's config (the config.json of a Hugging Face bert model)" in str(model.value)
    assert "launcher's Base model (Folder…)" in str(model.value)      # the form's label for model
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"batch_sise": 8}), encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown setting"):   # a plain mistake keeps its own message
        TrainConfig.load(other)


def test_the_launchers_load_names_the_menu_item_the_app_has(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    ckpt = _trainer_folder(tmp_path)
    warned = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(ckpt / "trainer_state.json"), ""))
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]))
    w.launcher._ask_load()
    file_menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&File")
    names = [a.text().replace("&", "") for a in file_menu.actions()]
    assert "Open run folder…" in names and "File → Open run folder…" in warned[0]


def test_every_checkpoint_of_a_trainer_folder_opens_from_the_runs_list(tmp_path, qtbot):
    """checkpoint-8, checkpoint-16 (best) and checkpoint-24 each open from the run's menu ("Open checkpoint in
    inspectors"), not only the best one."""
    from explorer.ui.runs.dock import RunsPanel
    from explorer.ui.runs.selection import RunSelection
    from explorer.ui.runs.store import load_run_state

    out = tmp_path / "hf-out"
    _copyable_trainer_folder(out, best=16, other=8)
    (out / "checkpoint-24").mkdir()
    (out / "checkpoint-24" / "config.json").write_text(json.dumps({"model_type": "bert"}))
    state = json.loads((out / "trainer_state.json").read_text())
    state.update(global_step=24, max_steps=24)
    (out / "trainer_state.json").write_text(json.dumps(state))
    run = load_run_state(out)
    choices = RunSelection([run]).checkpoint_choices()
    assert choices == [("checkpoint-8", str(out / "checkpoint-8")), ("checkpoint-16 (best)", str(out / "checkpoint-16")),
                       ("checkpoint-24 (last)", str(out / "checkpoint-24"))]
    panel = RunsPanel()
    qtbot.addWidget(panel)
    menu = panel.context_menu([run])
    sub = next(a.menu() for a in menu.actions() if a.text() == "Open checkpoint in inspectors")
    opened = []
    panel.open_checkpoint_requested.connect(opened.append)
    next(a for a in sub.actions() if a.text() == "checkpoint-24 (last)").trigger()
    assert opened == [str(out / "checkpoint-24")]


def test_the_runs_commands_best_column_has_one_unit_for_every_metric():
    """f1 stored in percent (SQuAD), f_avg and accuracy as fractions (GLUE-style): all read in percent; a
    correlation and a loss keep their own scale."""
    from explorer.commands.runs import row_line

    def best(name, value, task):
        return row_line({"run_id": "r", "kind": "BERT Explorer", "status": "finished", "step": 2, "steps_total": 2,
                         "task": task, "best": {"name": name, "value": value, "step": 2}, "path": "/p"}).split("\t")[5]

    assert best("f1", 35.66, "squad_v1") == "f1=35.66%@2"
    assert best("f_avg", 0.4985, "single") == "f_avg=49.85%@2"
    assert best("accuracy", 0.61, "single") == "accuracy=61.00%@2"
    assert best("pearson", 0.81234, "regression") == "pearson=0.8123@2"
    assert best("loss", 0.3412, "single") == "loss=0.3412@2"


def test_the_runs_list_curves_and_the_runs_command_agree_on_the_last_step(tmp_path, capsys):
    """A Trainer folder that logs its loss every 5 steps (last at 45) and evaluates and saves at its max_steps (48):
    Curves' progress line, the Runs list and `bert-explorer runs` all say step 48 of 48 (the GUI said 45 of 48)."""
    from explorer.cli import main
    from explorer.core.runs.reading import load_run
    from explorer.ui.runs.state import RunState, progress_text

    out = tmp_path / "hf-out"
    history = [{"step": s, "epoch": s / 48, "loss": 1.5, "learning_rate": 1e-5} for s in range(5, 46, 5)]
    history += [{"step": 48, "epoch": 1.0, "eval_loss": 0.9, "eval_accuracy": 0.6},
                {"step": 48, "epoch": 1.0, "train_runtime": 12.0, "train_loss": 1.2}]
    state = {"global_step": 48, "max_steps": 48, "log_history": history}
    (out / "checkpoint-48").mkdir(parents=True)
    for folder in (out, out / "checkpoint-48"):
        (folder / "trainer_state.json").write_text(json.dumps(state), encoding="utf-8")
    rec = load_run(out)
    shown = RunState.from_events(rec.run_id, rec.events)
    assert (rec.summary.steps, rec.summary.steps_total) == (48, 48)
    assert (shown.step, shown.steps_total) == (48, 48) and "step 48 of 48" in progress_text(shown)
    assert main(["runs", str(tmp_path), "--no-header"]) == 0
    assert capsys.readouterr().out.split("\t")[3] == "48/48"


def test_open_run_folder_on_a_tensorboard_logdir_opens_the_runs_below_and_always_answers(tmp_path, qtbot,
                                                                                          monkeypatch):
    """File > Open run folder… on an HF Trainer's ``output_dir/runs`` (TensorBoard's --logdir; the event files are
    one level down) opens the run below it, selected; opening it again says it is listed already; a folder with no
    run anywhere is refused with the reader's message, not an exception's class name."""
    pytest.importorskip("tensorboard")
    from torch.utils.tensorboard import SummaryWriter

    import explorer.ui.shell.run_reading as run_reading
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    logdir = tmp_path / "hf-sst2" / "runs"
    writer = SummaryWriter(str(logdir / "Dec05_21-18-51_vm"))
    writer.add_scalar("train/loss", 0.66, 10)
    writer.close()
    warned = []
    monkeypatch.setattr(run_reading.QMessageBox, "warning", staticmethod(lambda *a: warned.append(a[2])))
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    # the runs folder's first reading says what it found in the status bar: let it end, so that its line cannot
    # follow the open's on a busy machine
    qtbot.waitUntil(lambda: "runs in" in w.statusBar().currentMessage(), timeout=20_000)
    w.open_run_folder(logdir)
    qtbot.waitUntil(lambda: w.runs.selected_ids() == ["Dec05_21-18-51_vm"], timeout=10_000)
    assert not warned and w.statusBar().currentMessage() == f"Opened {logdir / 'Dec05_21-18-51_vm'}"
    w.statusBar().clearMessage()
    w.runs.select([])
    w.open_run_folder(logdir / "Dec05_21-18-51_vm")
    qtbot.waitUntil(lambda: w.runs.selected_ids() == ["Dec05_21-18-51_vm"], timeout=10_000)
    assert "is already listed as Dec05_21-18-51_vm: selected it" in w.statusBar().currentMessage()
    assert w.runs.all_ids() == ["Dec05_21-18-51_vm"]
    (tmp_path / "empty").mkdir()
    w.open_run_folder(tmp_path / "empty")
    qtbot.waitUntil(lambda: bool(warned), timeout=10_000)
    assert "is not a run folder" in warned[0] and not warned[0].startswith("ValueError")


def test_a_trainer_folder_whose_correlation_went_nan_ranks_its_best_on_defined_values(tmp_path, capsys):
    """The Trainer's compute_metrics gives scipy's NaN for Pearson of constant predictions, and the Trainer makes a
    first NaN its best_metric and keeps it. Read here, each NaN is an undefined metric with its reason (as our runs
    save it), Best dev is the defined 0.4 at step 2 in the runs command and the Runs list, a note says why the
    Trainer's best_metric was not taken, and a folder with no defined value says "undefined", never a number."""
    from explorer.cli import main
    from explorer.core.runs.reading import load_run
    from explorer.ui.runs.state import RunState

    def trainer_folder(name: str, first_pearson: float) -> Path:
        out = tmp_path / name
        history = [{"step": 2, "epoch": 1.0, "eval_loss": 2.0, "eval_pearson": first_pearson},
                   {"step": 4, "epoch": 2.0, "eval_loss": 1e9, "eval_pearson": float("nan")},
                   {"step": 4, "epoch": 2.0, "train_runtime": 1.0, "train_loss": 5.0}]
        state = {"global_step": 4, "max_steps": 4, "best_metric": float("nan"),
                 "best_model_checkpoint": str(out / "checkpoint-4"), "log_history": history}
        (out / "checkpoint-4").mkdir(parents=True)
        for folder in (out, out / "checkpoint-4"):   # json.dumps writes NaN as the Trainer's save_state does
            (folder / "trainer_state.json").write_text(json.dumps(state), encoding="utf-8")
        (out / "training_args.json").write_text(json.dumps({"metric_for_best_model": "pearson"}), encoding="utf-8")
        return out

    rec = load_run(trainer_folder("collapsed", 0.4))
    last = [e for e in rec.events if e["event"] == "eval"][-1]["metrics"]
    assert last["pearson"] is None and last["undefined"] == {"pearson": "the Trainer logged eval_pearson as NaN"}
    assert (rec.summary.metric_name, rec.summary.metric_value) == ("pearson", 0.4)
    assert any("best_metric is nan (pearson undefined at step 4)" in n for n in rec.notes)
    assert RunState.from_events(rec.run_id, rec.events).best_metric() == ("pearson", 0.4, 2)
    trainer_folder("never", float("nan"))
    assert main(["runs", str(tmp_path), "--no-header"]) == 0
    best = {line.split("\t")[0]: line.split("\t")[5] for line in capsys.readouterr().out.splitlines()}
    assert best == {"collapsed": "pearson=0.4",
                    "never": "pearson=undefined (the Trainer logged eval_pearson as NaN)"}


def test_a_trainer_folder_that_picks_its_best_by_eval_loss_draws_the_dev_loss_curve(tmp_path):
    """metric_for_best_model "loss" (greater_is_better false) chose the folder's best checkpoint: the dev loss curve
    is drawn without ticking it under Dev metrics, also when another run shown first left it off; a curve the user
    unticked stays off."""
    from explorer.core.runs.reading import load_run
    from explorer.ui.curves.curves_model import CurvesModel
    from explorer.ui.runs.state import RunState
    from explorer.ui.runs.store import state_from_record

    out = tmp_path / "hf-loss"
    history = [{"step": 10, "epoch": 1.0, "eval_loss": 0.9, "eval_accuracy": 0.6},
               {"step": 20, "epoch": 2.0, "eval_loss": 0.7, "eval_accuracy": 0.55}]
    (out / "checkpoint-20").mkdir(parents=True)
    state = {"global_step": 20, "max_steps": 20, "best_metric": 0.7, "best_global_step": 20,
             "best_model_checkpoint": str(out / "checkpoint-20"), "log_history": history}
    for folder in (out, out / "checkpoint-20"):
        (folder / "trainer_state.json").write_text(json.dumps(state), encoding="utf-8")
    (out / "training_args.json").write_text(json.dumps({"metric_for_best_model": "loss", "greater_is_better": False}),
                                            encoding="utf-8")
    trainer = state_from_record(load_run(out))
    assert trainer.best_by_metric() == "loss"
    curves = CurvesModel()
    curves.set_runs([trainer])
    assert {"dev/loss", "dev/accuracy"} <= set(curves.visible_keys())

    ours = RunState.from_events("ours", [{"event": "eval", "run_id": "ours", "time": 1.0, "step": 10,
                                          "metrics": {"accuracy": 0.5, "loss": 1.0}}], config={"task": "single"})
    later = CurvesModel()
    later.set_runs([ours])
    assert "dev/loss" not in later.visible_keys()
    later.set_runs([ours, trainer])
    assert "dev/loss" in later.visible_keys()
    later.show("dev/loss", False)
    assert "dev/loss" not in later.visible_keys()
