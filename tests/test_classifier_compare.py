"""Two classification runs compared on the same dev rows (inspector op compare_classifiers and the Runs dock's
window): the figures shown equal core.metrics.significance on the same predictions, the verdict goes by the metric both runs
pick their best checkpoint by (F_avg, MCC, ...; macro F1 and a word when they differ), and the window shows all
its lines."""

from __future__ import annotations

import csv
import json
import pathlib
import shutil

import numpy as np
import pytest

from explorer.core.classify.compare import compare_classifiers
from explorer.core.metrics import glue as G
from explorer.core.specs.train_config import TrainConfig

WORDS = ["red", "blue", "green", "cat", "dog", "runs", "sleeps", "fast", "slow", "big", "small", "tree"]


def _run(runs, run_id, dev, seed):
    """A run folder: config.json naming ``dev`` and a tiny random classifier as checkpoints/best."""
    from helpers import save_tiny_model

    from explorer.core.runs.layout import config_file

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
    from explorer.core.classify.dev_report import run_data_settings
    from explorer.core.training.dev_scoring import score_classification_dev
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
    # ("better by 14.0 macro F1 points ...; McNemar p = 0.27" reads as a contradiction)
    # both runs pick their best checkpoint by accuracy (the single task's default): the verdict goes by it, the
    # runs' own metric, and McNemar's p stands beside it
    assert value["judged_by"] == "accuracy" and value["lines"][0].endswith("; McNemar " + value["lines"][2].rsplit("; ", 1)[-1])
    assert value["lines"][3].startswith("judge by accuracy, the metric both runs pick their best checkpoint by")


def _sentence_table(path, texts):
    """A CSV of ``texts`` under the header sentence,label, labels alternating 0, 1."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["sentence", "label"])
        w.writerows([t, i % 2] for i, t in enumerate(texts))
    return path


def _compared(qtbot, two_runs):
    """The two-classifier window on the fixture's runs (base as A, tuned as B) once its first comparison ended,
    with the in-process client that ran it."""
    from test_ui_cross_validate import _InProcessClient

    from explorer.ui.groups.classifier_compare import ClassifierCompareWindow

    dev, a, b = two_runs
    client = _InProcessClient()
    w = ClassifierCompareWindow([{"source": str(a), "name": "base", "task": "single"},
                                 {"source": str(b), "name": "tuned", "task": "single"}], client=client)
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.job.finished, timeout=60_000):
        pass
    return w, client


def test_the_window_shows_the_op_lines(qtbot, two_runs):
    w, client = _compared(qtbot, two_runs)
    assert client.ops == ["compare_classifiers"]
    shown = w.text.text()
    for line in w.result["lines"]:
        assert line.replace("<", "&lt;") in shown
    assert "macro F1 (secondary): " in shown and "McNemar" in shown and "Scoring" not in shown
    w._done({"lines": ["Note: a trained 129 steps, b 61", "Verdict by F_avg: no detectable difference",
                       "macro F1 (secondary): b is better by 13.0"]})
    shown = w.text.text()   # under a note the verdict is bold too, a secondary figure not
    assert "<b>Verdict by F_avg: no detectable difference</b>" in shown and "<b>macro F1" not in shown


def test_swap_mirrors_the_result_without_scoring_either_model_again(qtbot, two_runs, monkeypatch):
    """Swap A ⇄ B (button and Ctrl+Shift+X) on two runs with the same dev rows shows the result mirrored at once:
    no new job and no new forward pass; the title and heading name the new A first, the McNemar counts change
    sides, B − A changes sign with its interval mirrored, and the lines are those of the op run the other way."""
    from PySide6.QtGui import QKeySequence, QShortcut

    import explorer.core.training.dev_scoring as dev_scoring
    from explorer.worker.inspector_ops import OPS, State

    scored = []
    real = dev_scoring.score_classification_dev
    monkeypatch.setattr(dev_scoring, "score_classification_dev", lambda *a, **k: scored.append(1) or real(*a, **k))
    w, client = _compared(qtbot, two_runs)
    first = dict(w.result)
    assert len(scored) == 2
    w.swap_button.click()
    swapped = w.result
    assert client.ops == ["compare_classifiers"] and len(scored) == 2
    assert w.windowTitle() == "Compare tuned (A) and base (B)" and w.heading.text().startswith("<b>A</b> tuned")
    assert (swapped["only_a"], swapped["only_b"], swapped["p"]) == (first["only_b"], first["only_a"], first["p"])
    assert swapped["accuracy"] == [first["accuracy"][1], first["accuracy"][0], -first["accuracy"][3],
                                   -first["accuracy"][2]]
    assert swapped["macro_f1"] == [first["macro_f1"][1], first["macro_f1"][0], -first["macro_f1"][3],
                                   -first["macro_f1"][2]]
    assert "only tuned got right" in "".join(swapped["lines"]) and swapped["lines"][-1] in w.text.text()
    _, a, b = two_runs
    fresh = OPS["compare_classifiers"][0](State(), {"source_a": str(b), "source_b": str(a), "task": "single",
                                                    "name_a": "tuned", "name_b": "base", "resamples": 10_000},
                                          lambda *_: None, lambda: False)
    assert swapped["lines"] == fresh["lines"]            # the mirror is the comparison scored the other way round
    shortcut = next(s for s in w.findChildren(QShortcut) if s.key() == QKeySequence("Ctrl+Shift+X"))
    shortcut.activated.emit()
    assert w.windowTitle() == "Compare base (A) and tuned (B)" and w.result["lines"] == first["lines"]
    assert client.ops == ["compare_classifiers"]


def test_swap_scores_again_when_the_other_run_has_other_dev_rows(qtbot, two_runs, tmp_path):
    """A mirror is only offered when B's run judges on A's dev rows: a run with another dev file is scored again
    on its own rows after a swap."""
    from test_ui_cross_validate import _InProcessClient

    from explorer.ui.groups.classifier_compare import ClassifierCompareWindow

    dev, a, _ = two_runs
    other = tmp_path / "other.csv"
    rows = dev.read_text(encoding="utf-8").splitlines()
    other.write_text("\n".join(rows[:1] + rows[1:30]) + "\n", encoding="utf-8")
    c = _run(tmp_path, "c", other, 3)
    client = _InProcessClient()
    w = ClassifierCompareWindow([{"source": str(a), "name": "base", "task": "single"},
                                 {"source": str(c), "name": "short", "task": "single"}], client=client)
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: w.result is not None, timeout=60_000)
    assert "swapped" not in w.result and w.result["n"] == 40
    w.swap_button.click()
    qtbot.waitUntil(lambda: w.result is not None, timeout=60_000)
    assert client.ops == ["compare_classifiers"] * 2 and w.result["n"] == 29


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


class _SilentClient:
    """An InspectClient stand-in that never answers (the test hands the window its result)."""

    def request(self, op, data, on_done=None, on_error=None, on_progress=None):
        return 1

    def cancel(self, rid):
        pass


def test_the_classifier_compare_window_shows_all_its_lines_at_its_default_size(qtbot):
    """The Compare window (two classifiers) shows all its lines at its default 640x260 and when shrunk."""
    import numpy as np

    from explorer.core.classify.compare import compare_classifiers
    from explorer.ui.groups.classifier_compare import ClassifierCompareWindow
    from explorer.ui.shell.layout_check import layout_offenders

    rng = np.random.default_rng(0)
    gold = rng.integers(0, 3, 60)
    a, b = "sst2-minilm-lr2e-5-3-epochs-seed-1", "sst2-minilm-lr1e-4-3-epochs-seed-1"
    comparison = compare_classifiers(gold, rng.normal(size=(60, 3)), rng.normal(size=(60, 3)), name_a=a, name_b=b,
                                     source="/home/student/data/glue_sst2/dev.tsv", resamples=200)
    w = ClassifierCompareWindow([{"source": "a", "name": a, "task": "single"},
                                 {"source": "b", "name": b, "task": "single"}], client=_SilentClient())
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w._done({"lines": comparison.lines()})
    QApplication_process(qtbot)
    assert w.text.height() >= w.text.heightForWidth(w.text.width())
    assert not layout_offenders(w)
    assert w.size().width() == 640             # it grew down, not sideways
    w.resize(w.minimumSize())                   # shrunk as far as it goes: still every line
    QApplication_process(qtbot)
    assert w.text.height() >= w.text.heightForWidth(w.text.width()), (w.size(), w.text.size())


def test_the_classifier_compare_window_stays_inside_a_1280x800_screen_with_a_long_result(qtbot, monkeypatch):
    """A result longer than a 1280x800 screen is tall: the window is at most the screen's available height (less
    the frame), its lines scroll, and the Swap and Close buttons lie inside the window."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QScreen
    from PySide6.QtWidgets import QDialogButtonBox

    from explorer.ui.groups.classifier_compare import ClassifierCompareWindow
    from explorer.ui.shell import screen_fit

    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 1280, 800))
    w = ClassifierCompareWindow([{"source": "a", "name": "a", "task": "single"},
                                 {"source": "b", "name": "b", "task": "single"}], client=_SilentClient())
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w._done({"lines": [f"line {i}: the paired difference of class {i} with its interval and its test"
                       for i in range(80)]})
    QApplication_process(qtbot)
    assert w.layout().totalHeightForWidth(w.width()) > 0
    assert w.height() + screen_fit.FRAME_H <= 800, w.height()
    assert w.minimumHeight() + screen_fit.FRAME_H <= 800, w.minimumHeight()
    close = w.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close)
    for button in (w.swap_button, close):
        top_left = button.mapTo(w, button.rect().topLeft())
        assert w.rect().contains(QRect(top_left, button.size())), (button.text(), top_left, w.size())
    assert w.text.height() >= w.text.heightForWidth(w.text.width())   # every line, reached by scrolling
    assert w.scroll.verticalScrollBar().maximum() > 0


def test_the_classifier_compare_window_placed_low_moves_up_when_its_result_makes_it_taller(qtbot, monkeypatch):
    """Placed at y = 210 for its first short text, the window grows to about 700 px when the result comes: it moves
    up so that its frame stays inside a 1280x800 screen, and the Swap and Close buttons are in view on the screen."""
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtGui import QScreen
    from PySide6.QtWidgets import QDialogButtonBox

    from explorer.ui.groups.classifier_compare import ClassifierCompareWindow
    from explorer.ui.shell.layout_check import out_of_view

    area = QRect(0, 0, 1280, 800)
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(area))
    w = ClassifierCompareWindow([{"source": "a", "name": "a", "task": "single"},
                                 {"source": "b", "name": "b", "task": "single"}], client=_SilentClient())
    qtbot.addWidget(w)
    w.move(320, 210)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.frameGeometry().top() == 210, timeout=5_000)
    w._done({"lines": [f"line {i}: the paired difference of class {i}" for i in range(42)]})   # about 700 px
    QApplication_process(qtbot)
    assert w.height() >= 600, w.height()   # placed where it was, it would reach past the screen's bottom
    qtbot.waitUntil(lambda: area.contains(w.frameGeometry()), timeout=5_000)
    close = w.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close)
    for button in (w.swap_button, close):
        assert out_of_view(button) == "", out_of_view(button)
        assert area.contains(QRect(button.mapToGlobal(QPoint(0, 0)), button.size())), button.text()
    w.resize(w.width(), 2000)   # asked for more than the screen: cut to it, the buttons still on the screen
    qtbot.waitUntil(lambda: area.contains(w.frameGeometry()), timeout=5_000)
    assert area.contains(QRect(close.mapToGlobal(QPoint(0, 0)), close.size()))


def QApplication_process(qtbot) -> None:   # noqa: N802 - a few turns of the event loop for the layouts
    from PySide6.QtWidgets import QApplication

    for _ in range(3):
        QApplication.processEvents()


STANCE = ["AGAINST", "FAVOR", "NONE"]


def _stance_predictions(n=281, seed=0):
    """Gold and two classifiers' logits over AGAINST / FAVOR / NONE: B is right more often than A."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(3, size=n, p=[0.48, 0.26, 0.26])
    pred_a = np.where(rng.random(n) < 0.35, gold, 0)                      # mostly "AGAINST", as lr5e-5 did
    pred_b = np.where(rng.random(n) < 0.6, gold, rng.integers(0, 3, n))
    return gold, np.eye(3)[pred_a] * 3.0, np.eye(3)[pred_b] * 3.0


def test_compare_reports_and_judges_by_f_avg_when_both_runs_pick_by_it():
    """Both stance runs pick their best checkpoint by F_avg (FAVOR, AGAINST): the verdict goes by F_avg, not
    macro F1 only: F_avg comes first, with its paired bootstrap interval, and the judging line names it."""
    gold, za, zb = _stance_predictions()
    cmp = compare_classifiers(gold, za, zb, name_a="stance lr5e-5", name_b="stance lr1e-4", source="train.txt",
                              resamples=2000, picked_by=("f_avg", "f_avg"), label_names=STANCE,
                              f1_classes=("FAVOR", "AGAINST"))
    lines = cmp.lines()
    for logits, value in ((za, cmp.judged.value_a), (zb, cmp.judged.value_b)):   # = the run's own dev F_avg
        figures = G.classification_metrics(gold, logits, label_names=STANCE, f1_classes=["FAVOR", "AGAINST"])
        assert value == pytest.approx(figures["f_avg"])
    assert cmp.judged_by == "f_avg" and cmp.judged.low <= cmp.judged.difference <= cmp.judged.high
    assert lines[0].startswith("Verdict by F_avg (FAVOR, AGAINST): stance lr1e-4 is better by ")
    assert f"{100 * cmp.judged.difference:.1f} F_avg points, 95% interval" in lines[0]
    assert lines[1].startswith("macro F1 (secondary): ") and lines[2].startswith("accuracy (secondary): ")
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


def test_the_summary_leads_with_f_avg_and_says_why_macro_f1_disagrees():
    """F_avg (FAVOR, AGAINST) finds no difference while macro F1 finds B better (B is much better on NONE, which
    F_avg leaves out): the summary leads with F_avg's verdict, marks macro F1 and accuracy secondary, and one
    sentence says macro F1 averages over all 3 classes, NONE included."""
    rng = np.random.default_rng(5)
    gold = np.repeat([0, 1, 2], [300, 300, 30])                           # AGAINST, FAVOR, NONE

    def guesses():   # right on 70% of the AGAINST and FAVOR rows, each model with its own mistakes
        return np.where(rng.random(630) < 0.7, gold, 1 - np.minimum(gold, 1))

    pred_a, pred_b = guesses(), guesses()
    pred_a[gold == 2], pred_b[gold == 2] = 0, 2                           # only B finds NONE
    cmp = compare_classifiers(gold, np.eye(3)[pred_a], np.eye(3)[pred_b], name_a="lr2e-5", name_b="lr5e-5",
                              resamples=1000, picked_by=("f_avg", "f_avg"), label_names=STANCE,
                              f1_classes=("FAVOR", "AGAINST"))
    lines = cmp.lines()
    assert lines[0].startswith("Verdict by F_avg (FAVOR, AGAINST): ")
    assert lines[1].startswith("macro F1 (secondary): lr5e-5 is better by ")
    assert lines[2].startswith("accuracy (secondary): ")
    assert cmp.judged.contains_zero and not cmp.macro_f1.contains_zero
    assert lines[3] == ("Why macro F1 says otherwise: macro F1 averages the F1 of all 3 classes, including NONE, "
                        "which F_avg leaves out; the verdict is F_avg (FAVOR, AGAINST)'s, the metric the comparison "
                        "judges by.")
    agree = compare_classifiers(gold, np.eye(3)[pred_a], np.eye(3)[pred_a], resamples=200,
                                picked_by=("f_avg", "f_avg"), label_names=STANCE, f1_classes=("FAVOR", "AGAINST"))
    assert not any(line.startswith("Why ") for line in agree.lines())


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
    assert cmp.judged is None and cmp.judged_by == "macro_f1" and cmp.lines()[0].startswith("Verdict by macro F1: ")
    assert "different metrics: a by accuracy, b by F_avg" in cmp.lines()[3]


def test_the_op_reads_each_runs_metric_for_best(tmp_path):
    """The inspector op takes the metric from the two runs' config.json (metric_for_best)."""
    import csv

    from helpers import save_tiny_model

    from explorer.core.runs.layout import config_file
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
    assert value["lines"][0].startswith("Verdict by matthews_corrcoef: ")
    assert any(line.startswith("judge by matthews_corrcoef, the metric both runs pick") for line in value["lines"])


def _runs_with_settings(tmp_path, settings_a: dict, settings_b: dict) -> list[str]:
    """Two runs' best checkpoints (tiny random classifiers) whose configs set ``settings_a`` / ``settings_b``."""
    from helpers import save_tiny_model

    from explorer.core.runs.layout import config_file

    tmp_path.mkdir(parents=True, exist_ok=True)
    dev = tmp_path / "dev.csv"
    dev.write_text("sentence,label\n" + "".join(f"word{i % 7} other{i % 3} thing,{i % 2}\n" for i in range(30)))
    sources = []
    for run_id, seed, settings in (("a", 1, settings_a), ("b", 2, settings_b)):
        ckpt = save_tiny_model(tmp_path / run_id / "checkpoints" / "best", "classification", seed=seed)
        cfg = TrainConfig(task="single", dev=str(dev), text_columns=["sentence"], label_column="label", run_id=run_id,
                          output_dir=str(tmp_path), **settings)
        config_file(tmp_path / run_id).write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
        sources.append(str(ckpt))
    return sources


def test_two_runs_differing_only_in_the_seed_are_told_their_difference_is_seed_variation(tmp_path):
    """Two restarts of one setting (configs apart in the seed and their run ids): the comparison says first that the
    difference is seed-to-seed variation, not a better setting, and its verdict names what it judges (these two
    trained models); runs apart in a setting too get no such line."""
    from explorer.worker.inspector_ops import OPS, State

    op = OPS["compare_classifiers"][0]
    sources = _runs_with_settings(tmp_path / "seeds", {"seed": 1}, {"seed": 2})
    value = op(State(), {"source_a": sources[0], "source_b": sources[1], "task": "single", "resamples": 300},
               lambda d, t: None, lambda: False)
    assert value["lines"][0] == ("These runs differ only in the seed (1 and 2): the difference is seed-to-seed "
                                 "variation, not a better setting; run restarts of each setting (Groups) to compare "
                                 "settings. The verdict below says whether these two trained models differ on these "
                                 "rows, however large the difference.")
    assert sum("differ only in the seed" in line for line in value["lines"]) == 1
    # the verdict under it names what it judges: the two models, not a setting
    verdict = next(line for line in value["lines"] if line.startswith("Verdict by "))
    assert verdict.split(": ", 1)[0].endswith(" (these two trained models, not a setting)"), verdict

    sources = _runs_with_settings(tmp_path / "lr", {"seed": 1}, {"seed": 2, "learning_rate": 1e-4})
    value = op(State(), {"source_a": sources[0], "source_b": sources[1], "task": "single", "resamples": 300},
               lambda d, t: None, lambda: False)
    assert not any("seed" in line for line in value["lines"])


def test_runs_that_trained_unequal_amounts_in_one_time_budget_are_told_so(tmp_path):
    """Two runs of two learning rates, each in a 2-minute time budget, reached 109 and 164 steps (the machine was
    busier during one): the comparison says each run's steps and epochs, that the load decided them and that the
    difference mixes the setting with the amount of training; runs of alike steps get no such note."""
    from explorer.core.runs.appending import append_event
    from explorer.worker.inspector_ops import OPS, State

    def trained(sources, steps):
        for source, (step, epoch) in zip(sources, steps):
            run_dir = pathlib.Path(source).parent.parent
            append_event(run_dir, {"event": "started", "run_id": run_dir.name, "time": 1.0})
            for k in range(1, step + 1, 50):
                append_event(run_dir, {"event": "step", "run_id": run_dir.name, "time": 2.0, "step": k, "loss": 0.5})
            append_event(run_dir, {"event": "step", "run_id": run_dir.name, "time": 3.0, "step": step, "loss": 0.4,
                                   "epoch": epoch})

    op = OPS["compare_classifiers"][0]
    sources = _runs_with_settings(tmp_path / "budget", {"learning_rate": 5e-5, "time_budget_minutes": 2.0},
                                  {"learning_rate": 1e-4, "time_budget_minutes": 2.0})
    trained(sources, [(109, 0.69), (164, 1.04)])
    value = op(State(), {"source_a": sources[0], "source_b": sources[1], "task": "single", "resamples": 300,
                         "name_a": "lr5e-5", "name_b": "lr1e-4"}, lambda d, t: None, lambda: False)
    note = next(line for line in value["lines"] if "trained 109 steps" in line)
    assert note.startswith("Note: lr5e-5 trained 109 steps (0.69 epochs), lr1e-4 trained 164 steps (1.04 epochs), "
                           "each in a 2-minute time budget"), note
    assert "mixes their settings with the amount of training" in note

    sources = _runs_with_settings(tmp_path / "alike", {"learning_rate": 5e-5}, {"learning_rate": 1e-4})
    trained(sources, [(160, 1.0), (164, 1.03)])
    value = op(State(), {"source_a": sources[0], "source_b": sources[1], "task": "single", "resamples": 300},
               lambda d, t: None, lambda: False)
    assert not any("amount of training" in line for line in value["lines"])


def test_a_run_started_from_the_other_runs_checkpoint_is_told_so(tmp_path):
    """Run B was launched from run A's best checkpoint (as "Fine-tune on reviewed rows" launches one) and trained
    1.75 epochs more: the comparison says B had A's training plus those epochs, in either order; two runs from the
    same base model get no such note."""
    from explorer.core.runs.appending import append_event
    from explorer.worker.inspector_ops import OPS, State

    op = OPS["compare_classifiers"][0]
    first = _runs_with_settings(tmp_path / "one", {}, {})
    sources = _runs_with_settings(tmp_path / "chain", {}, {"model": first[0]})
    sources[0] = first[0]
    run_b = pathlib.Path(sources[1]).parent.parent
    append_event(run_b, {"event": "step", "run_id": run_b.name, "time": 3.0, "step": 140, "loss": 0.4, "epoch": 1.75})
    value = op(State(), {"source_a": sources[0], "source_b": sources[1], "task": "single", "resamples": 300,
                         "name_a": "first", "name_b": "reviewed"}, lambda d, t: None, lambda: False)
    said = ("Note: reviewed started from first's checkpoint: reviewed had first's training plus 1.75 epochs; the "
            "difference is what that further training did, not two independent recipes.")
    assert said in value["lines"]
    value = op(State(), {"source_a": sources[1], "source_b": sources[0], "task": "single", "resamples": 300,
                         "name_a": "reviewed", "name_b": "first"}, lambda d, t: None, lambda: False)
    assert said in value["lines"]
    value = op(State(), {"source_a": first[0], "source_b": first[1], "task": "single", "resamples": 300},
               lambda d, t: None, lambda: False)
    assert not any("started from" in line for line in value["lines"])


def test_differing_settings_leaves_out_where_a_run_writes_and_reads_a_missing_field_as_its_default():
    from explorer.core.specs.train_config import differing_settings

    a = TrainConfig(task="single", run_id="x-01", output_dir="/runs", seed=1).to_dict()
    b = TrainConfig(task="single", run_id="x-02", output_dir="/elsewhere", seed=2, report_to="tensorboard").to_dict()
    assert differing_settings(a, b) == ["seed"]
    del b["learning_rate"]
    assert differing_settings(a, b) == ["seed"]
    assert differing_settings(a, dict(b, learning_rate=1e-4)) == ["learning_rate", "seed"]


def test_compare_warns_when_run_b_trained_on_the_dev_rows_of_run_a(tmp_path):
    """Run A held 20% of its training file out as dev; run B ("fine-tuned on reviewed rows") trained on the whole
    file, A's held-out rows included: Compare says how many of the rows it judges on B trained on."""
    from helpers import save_tiny_model

    from explorer.core.runs.layout import config_file
    from explorer.core.training.tasks import get_task
    from explorer.worker.inspector_ops import OPS, State, b_trained_on_a_dev_rows

    table = tmp_path / "labelled.csv"
    with open(table, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["sentence", "label"])
        for i in range(30):
            w.writerow([" ".join(WORDS[(i * 5 + j) % len(WORDS)] for j in range(2 + i % 4)) + f" {i}", i % 2])
    other = tmp_path / "other_dev.csv"
    other.write_text("sentence,label\nred cat,0\nblue dog,1\n", encoding="utf-8")
    sources = {}
    for run_id, dev in (("a", ""), ("b", str(other))):
        folder = tmp_path / "runs" / run_id
        sources[run_id] = save_tiny_model(folder / "checkpoints" / "best", "classification", seed=len(run_id))
        cfg = TrainConfig(task="single", train=str(table), dev=dev, dev_fraction=0.2, text_columns=["sentence"],
                          label_column="label", run_id=run_id)
        config_file(folder).write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
        if not dev:   # the held-out rows and their dev_split.csv, as the run's start writes them
            task = get_task("single")
            task.split_dev(task.load(cfg, "train"), cfg, folder)
    overlap = b_trained_on_a_dev_rows(str(sources["a"]), str(sources["b"]))
    assert (overlap.shared, overlap.n_dev) == (6, 6)
    assert b_trained_on_a_dev_rows(str(sources["a"]), str(sources["a"])).shared == 0   # A never trained on its dev
    value = OPS["compare_classifiers"][0](State(), {"source_a": str(sources["a"]), "source_b": str(sources["b"]),
                                                     "task": "single", "name_a": "first", "name_b": "retrained",
                                                     "resamples": 200}, lambda d, t: None, lambda: False)
    assert value["n"] == 6 and value["b_trained_on_dev_rows"] == 6
    assert value["lines"][0].startswith("Warning: retrained trained on 6 of these 6 dev rows (the same texts)")
    swapped = OPS["compare_classifiers"][0](State(), {"source_a": str(sources["b"]), "source_b": str(sources["a"]),
                                                       "task": "single", "resamples": 200}, lambda d, t: None,
                                            lambda: False)
    assert swapped["b_trained_on_dev_rows"] == 0 and not swapped["lines"][0].startswith("Warning")


def test_compare_names_each_run_that_trained_on_the_dev_rows_it_is_judged_on(tmp_path):
    """Run A's dev file repeats 2 of its own training rows and run B trained on all 4 of A's dev rows: the
    warning names both runs with their counts, not only B; the trained-on counts of both come back."""
    from helpers import save_tiny_model

    from explorer.core.classify.compare import trained_on_note
    from explorer.core.metrics.optimism import DevOverlap
    from explorer.core.runs.layout import config_file
    from explorer.worker.inspector_ops import OPS, State, trained_on_a_dev_rows

    dev_texts = ["red cat runs", "blue dog sleeps", "green tree", "small cat fast"]
    own = [f"{WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]} {i}" for i in range(10)]
    dev = _sentence_table(tmp_path / "dev.csv", dev_texts)
    files = {"a": _sentence_table(tmp_path / "train_a.csv", own + dev_texts[:2]),
             "b": _sentence_table(tmp_path / "train_b.csv", own + dev_texts)}
    sources = {}
    for run_id, seed in (("a", 1), ("b", 2)):
        folder = tmp_path / "runs" / run_id
        sources[run_id] = save_tiny_model(folder / "checkpoints" / "best", "classification", seed=seed)
        cfg = TrainConfig(task="single", train=str(files[run_id]), dev=str(dev), text_columns=["sentence"],
                          label_column="label", run_id=run_id)
        config_file(folder).write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
    a, b = trained_on_a_dev_rows(str(sources["a"]), str(sources["b"]))
    assert (a.shared, b.shared, a.n_dev) == (2, 4, 4)
    value = OPS["compare_classifiers"][0](State(), {"source_a": str(sources["a"]), "source_b": str(sources["b"]),
                                                     "task": "single", "name_a": "first", "name_b": "retrained",
                                                     "resamples": 200}, lambda d, t: None, lambda: False)
    assert (value["a_trained_on_dev_rows"], value["b_trained_on_dev_rows"]) == (2, 4)
    warning = value["lines"][0]
    assert warning.startswith("Warning: both trained on some of these 4 dev rows") and "first on 2" in warning \
        and "retrained on 4" in warning
    assert trained_on_note([("A", DevOverlap(shared=0, n_dev=4)), ("B", None)]) == ""
    assert trained_on_note([("A", DevOverlap(shared=3, n_dev=4)), ("B", DevOverlap(shared=0, n_dev=4))]
                           ).startswith("Warning: A trained on 3 of these 4 dev rows")


def test_when_each_run_trained_on_the_others_dev_rows_both_are_named(tmp_path):
    """Run A trained on run B's dev rows and B on A's: judged on A's dev rows the warning names B, and a note names
    A (swapped, judged on B's dev rows, the comparison would favour A)."""
    from explorer.core.runs.layout import config_file
    from explorer.worker.inspector_ops import dev_overlaps

    dev = {"a": ["red cat runs", "blue dog sleeps"], "b": ["green tree", "small cat fast", "big dog slow"]}
    own = [f"{WORDS[i % len(WORDS)]} {WORDS[(i * 5) % len(WORDS)]} {i}" for i in range(8)]
    sources = {}
    for run_id, other in (("a", "b"), ("b", "a")):
        folder = tmp_path / "runs" / run_id
        (folder / "checkpoints" / "best").mkdir(parents=True)
        train = _sentence_table(tmp_path / f"train_{run_id}.csv", own + dev[other])
        dev_file = _sentence_table(tmp_path / f"dev_{run_id}.csv", dev[run_id])
        cfg = TrainConfig(task="single", train=str(train), dev=str(dev_file), text_columns=["sentence"],
                          label_column="label", run_id=run_id)
        config_file(folder).write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
        sources[run_id] = str(folder / "checkpoints" / "best")
    a_on_a, b_on_a, a_on_b = dev_overlaps(sources["a"], sources["b"])
    assert (a_on_a.shared, b_on_a.shared, a_on_b.shared, a_on_b.n_dev) == (0, 2, 3, 3)
    from explorer.core.classify.compare import swapped_note, trained_on_note

    lines = [trained_on_note([("first", a_on_a), ("second", b_on_a)]), swapped_note("first", "second", a_on_b)]
    assert lines[0].startswith("Warning: second trained on 2 of these 2 dev rows")
    assert lines[1] == ("Note: first trained on 3 of the 3 dev rows of second's run (the same texts): swapped, "
                        "judged on those rows, the comparison would favour first.")
    assert dev_overlaps(sources["a"], sources["a"])[2] is None     # the same dev rows: nothing more to say


def _evaluated(folder, evaluations: int) -> None:
    """events.jsonl of a run that evaluated on its dev rows at step 0 and every step up to ``evaluations``."""
    from explorer.core.runs.layout import events_file

    lines = [{"event": "started", "time": 1.0, "steps_total": evaluations, "config": {}}]
    lines += [{"event": "eval", "time": 2.0 + step, "step": step, "metrics": {"accuracy": 0.5 + 0.4 * ((step * 7) % 11) / 11}}
              for step in range(evaluations + 1)]
    lines.append({"event": "finished", "time": 100.0, "metrics": {}})
    events_file(folder).write_text("".join(json.dumps({"run_id": folder.name, **e}) + "\n" for e in lines),
                                   encoding="utf-8")


def test_compare_marks_each_checkpoint_chosen_on_the_judged_rows_with_its_evaluations(tmp_path):
    """Both runs evaluate on the same dev rows, A 3 times, B 60 times (Evaluate every 1): under the verdict each
    best checkpoint's figure is marked optimistic with the evaluations it was chosen among, the figures not
    chosen on these rows are named, and B, chosen among more, is said to be favoured. A last checkpoint, chosen
    on nothing, is not marked."""
    from helpers import save_tiny_model

    from explorer.core.runs.choice import checkpoint_choice
    from explorer.core.runs.layout import config_file
    from explorer.worker.inspector_ops import OPS, State

    dev = _sentence_table(tmp_path / "dev.csv", ["red cat runs", "blue dog sleeps", "green tree", "small cat fast",
                                                  "big dog slow", "tree runs fast"])
    sources = {}
    for run_id, seed, evaluations in (("a", 1, 3), ("b", 2, 60)):
        folder = tmp_path / "runs" / run_id
        sources[run_id] = str(save_tiny_model(folder / "checkpoints" / "best", "classification", seed=seed))
        train = _sentence_table(tmp_path / f"train_{run_id}.csv", [f"{w} {run_id} {i}" for i, w in enumerate(WORDS)])
        cfg = TrainConfig(task="single", train=str(train), dev=str(dev), text_columns=["sentence"],
                          label_column="label", run_id=run_id)
        config_file(folder).write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
        _evaluated(folder, evaluations)
    choice = checkpoint_choice(sources["b"])
    assert (choice.kind, choice.metric, choice.evaluations, choice.chosen) == ("best", "accuracy", 60, True)
    assert not checkpoint_choice(str(tmp_path / "runs" / "b" / "checkpoints" / "last")).chosen
    value = OPS["compare_classifiers"][0](State(), {"source_a": sources["a"], "source_b": sources["b"],
                                                     "task": "single", "name_a": "first", "name_b": "retrained",
                                                     "resamples": 200}, lambda d, t: None, lambda: False)
    assert value["chosen_among"] == [3, 60]
    lines = value["lines"]
    assert lines[0].startswith("Verdict by ")   # the verdict stays first
    assert ("optimistic: first's checkpoint (checkpoints/best: picked by accuracy among 3 evaluations) was chosen on "
            "these same rows") in "\n".join(lines)
    assert ("optimistic: retrained's checkpoint (checkpoints/best: picked by accuracy among 60 evaluations) was "
            "chosen on these same rows") in "\n".join(lines)
    favoured = next(line for line in lines if line.startswith("Not chosen on these rows"))
    assert "checkpoints/last" in favoured and "retrained was chosen among the most evaluations (60 against 3)" in favoured


def test_the_heading_counts_the_compared_rows_and_says_the_dev_cap_was_not_applied(qtbot, tmp_path, two_runs):
    """A run trained with Dev cap 10 of a 40-row dev file: the comparison scores all 40 rows, so its accuracies
    match neither run's Best dev; the heading says how many rows and that the cap was not applied."""
    from test_ui_cross_validate import _InProcessClient

    from explorer.core.runs.layout import config_file
    from explorer.ui.groups.classifier_compare import ClassifierCompareWindow, heading_html

    dev, a, b = two_runs
    capped = tmp_path / "capped"
    shutil.copytree(a.parent.parent, capped)
    cfg = TrainConfig(task="single", dev=str(dev), dev_cap=10, text_columns=["sentence"], label_column="label",
                      run_id="capped")
    config_file(capped).write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
    w = ClassifierCompareWindow([{"source": str(capped / "checkpoints" / "best"), "name": "capped", "task": "single"},
                                 {"source": str(b), "name": "tuned", "task": "single"}], client=_InProcessClient())
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.job.finished, timeout=60_000):
        pass
    assert w.result["n"] == 40 and w.result["dev_cap"] == 10
    assert w.heading.text().endswith("both best checkpoints on all 40 dev rows of capped's run (its Dev cap 10 "
                                     "is not applied: its Best dev was measured on the first 10)")
    assert heading_html("a", "b", 40).endswith("on the 40 dev rows of a's run")
    assert heading_html("a", "b", 40, 100).endswith("on all 40 dev rows of a's run")


def test_an_accuracy_interval_touching_zero_says_which_way_the_rows_only_one_model_got_right_went():
    gold = np.array([0, 1] * 15)
    za = np.eye(2)[gold].copy()
    za[:2] = np.eye(2)[1 - gold[:2]]          # A wrong on the first two rows, B right on every row
    zb = np.eye(2)[gold]
    cmp = compare_classifiers(gold, za, zb, name_a="base", name_b="tuned", resamples=500, picked_by=("accuracy",) * 2)
    acc = next(line for line in cmp.lines() if line.startswith("Verdict by accuracy:"))
    assert "at the 95% level" in acc and "interval 0.0 to" in acc and "touches 0" in acc
    assert "tuned was right on 2 rows base got wrong and never the other way" in acc


def test_runs_trained_with_label_names_on_labels_numbered_from_one_are_compared_by_their_names(tmp_path):
    """A table labelled 1..K (no 0) read with Label names maps label i to name i-1; the compare reads the dev rows
    with that same numbering, so every label (the last, K, too) is a class and the per-class figures use the names."""
    from helpers import save_tiny_model

    from explorer.core.runs.layout import config_file
    from explorer.worker.inspector_ops import OPS, State

    names = ["AGAINST", "NONE", "FAVOR"]
    dev = tmp_path / "numbered.csv"
    with open(dev, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["sentence", "label"])
        for i in range(30):
            w.writerow([" ".join(WORDS[(i * 5 + j) % len(WORDS)] for j in range(2 + i % 4)), 1 + i % 3])
    sources = []
    for run_id, seed in (("a", 1), ("b", 2)):
        folder = tmp_path / "runs" / run_id
        ckpt = save_tiny_model(folder / "checkpoints" / "best", "classification", num_labels=3, seed=seed)
        model_config = json.loads((ckpt / "config.json").read_text(encoding="utf-8"))
        model_config["id2label"] = {str(k): n for k, n in enumerate(names)}
        model_config["label2id"] = {n: k for k, n in enumerate(names)}
        (ckpt / "config.json").write_text(json.dumps(model_config), encoding="utf-8")
        cfg = TrainConfig(task="single", dev=str(dev), text_columns=["sentence"], label_column="label",
                          label_names=names, run_id=run_id)
        config_file(folder).write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
        sources.append(str(ckpt))
    value = OPS["compare_classifiers"][0](State(), {"source_a": sources[0], "source_b": sources[1], "task": "single",
                                                     "resamples": 200}, lambda d, t: None, lambda: False)
    assert value["n"] == 30
    ra = _scored(sources[0], dev)
    assert list(ra.label_names) == names
    assert list(ra.labels) == [i % 3 for i in range(30)]   # label 1 is AGAINST (id 0), 3 is FAVOR (id 2)


def test_a_dev_file_without_the_last_class_is_read_by_the_numbering_the_head_was_trained_with(tmp_path):
    """A run trained on a table labelled 1..3 with Label names records that numbering in its config.json; a dev
    file holding only labels 1 and 2 (read alone it would look like ids 0..K-1) maps 1 to the first name."""
    from helpers import save_tiny_model

    from explorer.core.data.classification import NUMBERED_FROM_KEY, load_classification
    from explorer.core.models.loading import load_model
    from explorer.core.runs.layout import config_file
    from explorer.core.training.tasks import get_task

    names = ["AGAINST", "NONE", "FAVOR"]
    train = tmp_path / "train.csv"
    train.write_text("sentence,label\n" + "".join(f"{WORDS[i % len(WORDS)]} {i},{1 + i % 3}\n" for i in range(9)),
                     encoding="utf-8")
    folder = tmp_path / "runs" / "r"
    ckpt = save_tiny_model(folder / "checkpoints" / "best", "classification", num_labels=3, seed=1)
    loaded = load_model(str(ckpt), "classification")
    data = load_classification(str(train), label_names=names)
    assert data.numbered_from == 1
    get_task("single").configure_model(loaded.model, data, TrainConfig(task="single"))
    loaded.model.config.id2label = dict(enumerate(names))
    loaded.model.config.label2id = {n: k for k, n in enumerate(names)}
    loaded.model.save_pretrained(ckpt)
    assert json.loads((ckpt / "config.json").read_text(encoding="utf-8"))[NUMBERED_FROM_KEY] == 1
    dev = tmp_path / "dev.csv"
    dev.write_text("sentence,label\n" + "".join(f"{WORDS[i % len(WORDS)]},{1 + i % 2}\n" for i in range(6)),
                   encoding="utf-8")
    cfg = TrainConfig(task="single", train=str(train), dev=str(dev), text_columns=["sentence"], label_column="label",
                      label_names=names, run_id="r")
    config_file(folder).write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
    report = _scored(ckpt, dev)
    assert list(report.labels) == [0, 1, 0, 1, 0, 1]   # 1 is AGAINST, 2 is NONE: as the training read them
