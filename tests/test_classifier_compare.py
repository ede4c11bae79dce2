"""Two classification runs compared on the same dev rows (inspector op compare_classifiers and the Runs dock's
window): the figures shown equal core.metrics.significance on the same predictions."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from explorer.core.classify.compare import compare_classifiers
from explorer.core.specs.train_config import TrainConfig

WORDS = ["red", "blue", "green", "cat", "dog", "runs", "sleeps", "fast", "slow", "big", "small", "tree"]


def _run(runs, run_id, dev, seed):
    """A run folder: config.json naming ``dev`` and a tiny random classifier as checkpoints/best."""
    from helpers import save_tiny_model

    from explorer.core.runs.store import config_file

    folder = runs / run_id
    ckpt = save_tiny_model(folder / "checkpoints" / "best", "classification", seed=seed)
    cfg = TrainConfig(task="single", dev=str(dev), text_columns=["sentence"], label_column="label", run_id=run_id)
    config_file(folder).write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
    return ckpt


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cmp")
    dev = tmp / "dev.csv"
    with open(dev, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["sentence", "label"])
        for i in range(40):
            w.writerow([" ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(2 + i % 5)), i % 2])
    return dev, _run(tmp, "a", dev, 1), _run(tmp, "b", dev, 2)


def _scored(ckpt, dev):
    from explorer.core.classify.dev_report import run_data_settings, score_classification_dev
    from explorer.core.models.loading import load_model

    loaded = load_model(str(ckpt), "classification")
    return score_classification_dev(loaded.model, loaded.tokenizer, "single", str(dev), cap=None,
                                    settings=run_data_settings(str(ckpt)))


def test_op_figures_equal_core_statistics_on_the_same_predictions(two_runs):
    from explorer.worker.inspector_ops import OPS, State

    dev, a, b = two_runs
    steps = []
    value = OPS["compare_classifiers"][0](State(), {"source_a": str(a), "source_b": str(b), "task": "single",
                                                     "name_a": "base", "name_b": "tuned", "resamples": 2000},
                                          lambda d, t: steps.append(d), lambda: False)
    ra, rb = _scored(a, dev), _scored(b, dev)
    assert ra.total == rb.total == 40 and not np.array_equal(ra.logits.argmax(1), rb.logits.argmax(1))
    ref = compare_classifiers(ra.labels, ra.logits, rb.logits, name_a="base", name_b="tuned", source=str(dev),
                              resamples=2000, picked_by=("accuracy", "accuracy"))   # both runs: single's default
    assert steps == [0, 1, 2] and value["n"] == 40 and value["source"] == str(dev)
    assert value["lines"] == ref.lines()
    assert value["accuracy"][:2] == pytest.approx([ra.accuracy, rb.accuracy])
    assert value["macro_f1"][:2] == pytest.approx([ra.macro_f1, rb.macro_f1])
    right_a, right_b = ra.logits.argmax(1) == ra.labels, rb.logits.argmax(1) == rb.labels
    assert (value["only_a"], value["only_b"]) == (int(np.sum(right_a & ~right_b)), int(np.sum(~right_a & right_b)))
    assert value["lines"][2].startswith(f"McNemar's exact test: {value['only_a']} rows only base got right")
    # McNemar's test is a test of accuracy: its p stands beside accuracy, never beside the macro F1 verdict
    # (the eighth trial read "better by 14.0 macro F1 points ...; McNemar p = 0.27" as a contradiction)
    # both runs pick their best checkpoint by accuracy (the single task's default): the verdict goes by it, and
    # McNemar's p stands beside it (the twelfth trial: the verdict ignored the runs' own metric)
    assert value["judged_by"] == "accuracy" and value["lines"][0].endswith("; McNemar " + value["lines"][2].rsplit("; ", 1)[-1])
    assert value["lines"][3].startswith("judge by accuracy, the metric both runs pick their best checkpoint by")


def test_the_window_shows_the_op_lines(qtbot, two_runs):
    from test_ui_cross_validate import _InProcessClient

    from explorer.ui.groups.classifier_compare import ClassifierCompareWindow

    dev, a, b = two_runs
    client = _InProcessClient()
    w = ClassifierCompareWindow([{"source": str(a), "name": "base", "task": "single"},
                                 {"source": str(b), "name": "tuned", "task": "single"}], client=client)
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.job.finished, timeout=60_000):
        pass
    assert client.ops == ["compare_classifiers"]
    shown = w.text.text()
    for line in w.result["lines"]:
        assert line.replace("<", "&lt;") in shown
    assert "macro F1: " in shown and "McNemar" in shown and "Scoring" not in shown


def test_runs_dock_offers_it_for_two_classification_runs(qtbot, monkeypatch):
    from explorer.ui.runs.dock import RunsPanel
    from explorer.ui.runs.state import RunState

    dock = RunsPanel()
    qtbot.addWidget(dock)
    label = "Compare two classifiers on the dev rows…"
    a = RunState(run_id="a", status="finished", best_checkpoint="/runs/a/checkpoints/best", config={"task": "single"})
    b = RunState(run_id="b", status="finished", best_checkpoint="/runs/b/checkpoints/best", config={"task": "single"})
    qa = RunState(run_id="q", status="finished", best_checkpoint="/runs/q/checkpoints/best", config={"task": "squad_v2"})
    reg = RunState(run_id="r", status="finished", best_checkpoint="/runs/r/checkpoints/best",
                   config={"task": "regression"})
    actions = {x.text(): x for x in dock.context_menu([a, b]).actions() if x.text()}
    assert actions[label].isEnabled()
    for other in (qa, reg):
        assert not {x.text(): x for x in dock.context_menu([a, other]).actions()}[label].isEnabled()
    assert not {x.text(): x for x in dock.context_menu([a]).actions()}[label].isEnabled()
    monkeypatch.setattr(dock, "_selected_states", lambda: [a, b])
    with qtbot.waitSignal(dock.classifiers_compare_requested) as got:
        actions[label].trigger()
    assert got.args == [[{"source": "/runs/a/checkpoints/best", "name": "a", "task": "single"},
                         {"source": "/runs/b/checkpoints/best", "name": "b", "task": "single"}]]
