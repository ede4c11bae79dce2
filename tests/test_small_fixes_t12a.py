"""Twelfth trial, minors (branch t12a): Compare two classifiers judges by the runs' own metric (F_avg, ...); the
greyed "Open best checkpoint in inspectors" says why; Load… on a Hugging Face Trainer's file says what it is."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.core.classify.compare import compare_classifiers
from explorer.core.errors import ConfigError
from explorer.core.metrics import glue as G
from explorer.core.specs.train_config import TrainConfig

STANCE = ["AGAINST", "FAVOR", "NONE"]


def _stance_predictions(n=281, seed=0):
    """Gold and two classifiers' logits over AGAINST / FAVOR / NONE: B is right more often than A."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(3, size=n, p=[0.48, 0.26, 0.26])
    pred_a = np.where(rng.random(n) < 0.35, gold, 0)                      # mostly "AGAINST", as lr5e-5 did
    pred_b = np.where(rng.random(n) < 0.6, gold, rng.integers(0, 3, n))
    return gold, np.eye(3)[pred_a] * 3.0, np.eye(3)[pred_b] * 3.0


def test_compare_reports_and_judges_by_f_avg_when_both_runs_pick_by_it():
    """Shot 73: both stance runs picked their best checkpoint by F_avg (FAVOR, AGAINST); the verdict said macro F1
    only. Now F_avg comes first, with its paired bootstrap interval, and the judging line names it."""
    gold, za, zb = _stance_predictions()
    cmp = compare_classifiers(gold, za, zb, name_a="stance lr5e-5", name_b="stance lr1e-4", source="train.txt",
                              resamples=2000, picked_by=("f_avg", "f_avg"), label_names=STANCE,
                              f1_classes=("FAVOR", "AGAINST"))
    lines = cmp.lines()
    for logits, value in ((za, cmp.judged.value_a), (zb, cmp.judged.value_b)):   # = the run's own dev F_avg
        figures = G.classification_metrics(gold, logits, label_names=STANCE, f1_classes=["FAVOR", "AGAINST"])
        assert value == pytest.approx(figures["f_avg"])
    assert cmp.judged_by == "f_avg" and cmp.judged.low <= cmp.judged.difference <= cmp.judged.high
    assert lines[0].startswith("F_avg (FAVOR, AGAINST): stance lr1e-4 is better by ")
    assert f"{100 * cmp.judged.difference:.1f} F_avg points, 95% interval" in lines[0]
    assert lines[1].startswith("macro F1: ") and lines[2].startswith("accuracy: ")
    why = next(line for line in lines if line.startswith("judge by"))
    assert why.startswith("judge by F_avg (FAVOR, AGAINST), the metric both runs pick their best checkpoint by")
    assert f"F_avg {100 * cmp.judged.value_a:.1f}" in lines[-1] and f"F_avg {100 * cmp.judged.value_b:.1f}" in lines[-1]


def test_the_bootstrap_of_a_confusion_figure_equals_the_slow_loop_with_the_same_draws():
    """F_avg's interval: the vectorised confusion-matrix bootstrap draws the same resamples as the general
    Python-loop one (core.metrics.significance.paired_bootstrap) and gets the same interval."""
    from explorer.core.classify.compare import CONFUSION_SCORES
    from explorer.core.metrics.significance import paired_bootstrap, paired_bootstrap_confusion

    gold, za, zb = _stance_predictions(n=90, seed=3)
    pa, pb = za.argmax(1), zb.argmax(1)
    fast = paired_bootstrap_confusion(lambda c: CONFUSION_SCORES["f_avg"](c, (1, 0)), gold, pa, pb, labels=[0, 1, 2],
                                      metric="f_avg", resamples=300, seed=7, chunk=1, method="indices")

    def f_avg(idx, pred):
        per_class = G.per_class_metrics(gold[idx], pred[idx], STANCE)["per_class"]
        return G.f_avg(per_class, ["FAVOR", "AGAINST"])

    slow = paired_bootstrap(f_avg, pa, pb, metric="f_avg", resamples=300, seed=7)
    assert (fast.value_a, fast.value_b) == pytest.approx((slow.value_a, slow.value_b))
    assert (fast.low, fast.high) == pytest.approx((slow.low, slow.high))


@pytest.mark.parametrize("metric", ["matthews_corrcoef", "weighted_f1", "f1"])
def test_other_metrics_the_runs_may_pick_by_are_reported_with_their_own_figure(metric):
    rng = np.random.default_rng(1)
    gold = rng.integers(0, 2, 120)
    za, zb = rng.normal(size=(120, 2)), rng.normal(size=(120, 2)) + np.eye(2)[gold] * 1.5
    cmp = compare_classifiers(gold, za, zb, resamples=500, picked_by=(metric, metric))
    expected = {"matthews_corrcoef": G.matthews_corrcoef, "f1": G.binary_f1,
                "weighted_f1": lambda y, p: G.per_class_metrics(y, p, ["0", "1"])["weighted_f1"]}[metric]
    assert cmp.judged_by == metric
    assert cmp.judged.value_a == pytest.approx(expected(gold, za.argmax(1)))
    assert cmp.judged.value_b == pytest.approx(expected(gold, zb.argmax(1)))
    if metric == "matthews_corrcoef":   # a correlation: unscaled, two digits, no "points"
        assert " MCC, 95% interval" in cmp.lines()[0] and "points" not in cmp.lines()[0]


def test_runs_picking_by_different_metrics_are_judged_by_macro_f1_and_told_so():
    gold, za, zb = _stance_predictions()
    cmp = compare_classifiers(gold, za, zb, name_a="a", name_b="b", resamples=300, picked_by=("accuracy", "f_avg"),
                              label_names=STANCE, f1_classes=("FAVOR", "AGAINST"))
    assert cmp.judged is None and cmp.judged_by == "macro_f1" and cmp.lines()[0].startswith("macro F1: ")
    assert "different metrics: a by accuracy, b by F_avg" in cmp.lines()[3]


def test_the_op_reads_each_runs_metric_for_best(tmp_path):
    """The inspector op takes the metric from the two runs' config.json (metric_for_best)."""
    import csv

    from helpers import save_tiny_model

    from explorer.core.runs.store import config_file
    from explorer.worker.inspector_ops import OPS, State

    dev = tmp_path / "dev.csv"
    with open(dev, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["sentence", "label"])
        for i in range(30):
            w.writerow([f"word{i % 7} other{i % 3} thing", i % 2])
    sources = []
    for run_id, seed in (("a", 1), ("b", 2)):
        ckpt = save_tiny_model(tmp_path / run_id / "checkpoints" / "best", "classification", seed=seed)
        cfg = TrainConfig(task="single", dev=str(dev), text_columns=["sentence"], label_column="label", run_id=run_id,
                          metric_for_best="matthews_corrcoef")
        config_file(tmp_path / run_id).write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
        sources.append(str(ckpt))
    value = OPS["compare_classifiers"][0](State(), {"source_a": sources[0], "source_b": sources[1], "task": "single",
                                                     "resamples": 300}, lambda d, t: None, lambda: False)
    assert value["judged_by"] == "matthews_corrcoef" and value["judged"][0] == "matthews_corrcoef"
    assert value["lines"][0].startswith("matthews_corrcoef: ")
    assert any(line.startswith("judge by matthews_corrcoef, the metric both runs pick") for line in value["lines"])


# ---- Open best checkpoint in inspectors: greyed with a reason ----------------------------------------------------
def test_the_greyed_open_best_checkpoint_button_says_why_and_enables_at_the_first_checkpoint(qtbot, monkeypatch):
    """Shot 27: greyed at step 8 of an SST-2 run (its first checkpoint came at step 10), nothing said why."""
    from explorer.ui.runs.dock import INSPECT_TIP, RunsPanel
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.tooltips import rich_tooltip

    dock = RunsPanel()
    qtbot.addWidget(dock)
    run = RunState(run_id="r1", status="running", config={"task": "single", "eval_every": 10})
    dock.upsert(run)
    monkeypatch.setattr(dock, "_selected_states", lambda: [run])
    dock._update_buttons()
    assert not dock.inspect_btn.isEnabled()
    tip = dock.inspect_tip([run])
    assert tip.startswith("No checkpoint yet: r1 saves checkpoints/best at its first evaluation") and "every 10" in tip
    assert dock.inspect_btn.toolTip() == rich_tooltip(tip)     # wrapped, not one 760-pixel line
    run.apply({"event": "checkpoint", "kind": "best", "step": 10, "path": "/runs/r1/checkpoints/best"})
    monkeypatch.setattr(dock, "selected_ids", lambda: ["r1"])
    dock.refresh("r1")                     # what the store's "changed" does for the selected run
    assert dock.inspect_btn.isEnabled() and dock.inspect_btn.toolTip() == rich_tooltip(INSPECT_TIP)
    queued = RunState(run_id="q1", status="queued", config={"task": "single"})
    assert dock.inspect_tip([queued]) == "q1 is queued: it saves its first checkpoint once it trains."
    assert "&&" not in INSPECT_TIP        # a tooltip is not a button label: no mnemonic escapes


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
