"""The twelfth fresh-user trial (issue 25), branch t12b: the launcher banner shows a filled-in note whole (and still
never moves the form while the user types), a task change leaves no stale greyed value or run name, the Curves
baseline label covers no point, and the time remaining counts the evaluations still to come."""

from pathlib import Path

from test_predict_review import _stance_predictions, _stance_run   # the stance run with held-out dev rows

from explorer.core.specs.train_config import TrainConfig


def _launcher(qtbot, tmp_path, width: int = 820):
    """A shown launcher as wide as in a 1280x800 window beside the Runs dock."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.resize(width, 700)
    w.show()
    qtbot.waitExposed(w)
    return w


def _banner_text_height(w) -> int:
    return sum(lab.heightForWidth(w.banner.viewport().width()) for lab in (w.hint, w.preset_label)
               if not lab.isHidden()) + w.banner_text.layout().spacing()


def test_the_fine_tune_note_is_whole_in_the_banner_and_typing_does_not_move_the_form(qtbot, tmp_path, monkeypatch):
    """Twelfth trial (66): "Fine-tune on reviewed rows" wrote a long note into a 5-line banner with its own scroll
    bar, cut mid-sentence at 1280x800. A form filled in (not typed) lets the banner take its text's height (up to
    BANNER_MAX_LINES lines), and the note names the combined file, not its long path twice; typing a cap afterwards
    still moves nothing (the eleventh trial's clicks in the wrong field)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    from explorer.core.predict.review import finetune_data
    from explorer.ui.inspectors.predictions_view import fill_launcher

    # paths as long as the trial's, whatever the length of pytest's tmp_path
    monkeypatch.chdir(tmp_path)
    home = Path("trial12") / "home" / "bert-explorer-data" / "semeval2016_stance"
    home.mkdir(parents=True)
    cfg, run, _held = _stance_run(home)
    table, review = _stance_predictions(home, ["a brand new tweet", "another tweet"])
    review.set_label(0, "FAVOR")
    review.mark_reviewed(1)
    fields, note = finetune_data(table, review, cfg, home / "runs" / ".corrections", run_dir=run)
    assert note.count(str(home / "runs" / ".corrections")) == 0 and "stance-plus-corrected-p.tsv" in note
    assert note.count(cfg["train"]) == 1            # the original training file named once

    w = _launcher(qtbot, tmp_path)
    short = w.banner.height()
    fill_launcher(w, fields, note)
    QApplication.processEvents()
    assert "The dev rows are the first run" in w.preset_label.text()
    text = _banner_text_height(w)
    assert w.banner.height() > short                                   # grown for the note
    assert w.banner.verticalScrollBar().maximum() == 0 and text <= w.banner.viewport().height()

    def dev_cap_y() -> int:
        QApplication.processEvents()
        return w.editors["dev_cap"].widget.mapTo(w, QPoint(0, 0)).y()

    before, banner = dev_cap_y(), w.banner.height()
    w.editors["train_cap"].set(100)                 # typed: nothing above Dev cap moves
    w.editors["task"].set("regression")             # a task switch writes its own (shorter) note: no move either
    assert "The dev rows are the first run" not in w.preset_label.text()
    assert (dev_cap_y(), w.banner.height()) == (before, banner)

    w.set_config(TrainConfig(task="single"))         # filled again with a short text: back to the least height
    QApplication.processEvents()
    assert w.banner.height() == short


def test_a_banner_longer_than_its_cap_scrolls_and_a_resize_refits_it(qtbot, tmp_path):
    """The banner grows to BANNER_MAX_LINES lines at most (a longer note scrolls in it); a narrower panel (a resize,
    not typing) fits the height to the text's new wrapping."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.launch.launcher import BANNER_LINES, BANNER_MAX_LINES

    w = _launcher(qtbot, tmp_path, 1400)
    line = w.preset_label.fontMetrics().lineSpacing()
    w.show_note("a few words of a note " * 25)
    QApplication.processEvents()
    wide = w.banner.height()
    w.resize(900, 700)
    QApplication.processEvents()
    assert w.banner.height() > wide and w.banner.verticalScrollBar().maximum() == 0
    w.show_note("a few words of a note " * 200)
    QApplication.processEvents()
    assert w.banner.height() <= line * BANNER_MAX_LINES + 20 and w.banner.verticalScrollBar().maximum() > 0
    assert BANNER_MAX_LINES > BANNER_LINES


def test_a_task_change_clears_the_greyed_values_and_the_previous_run_name(qtbot, tmp_path):
    """Twelfth trial (83): after Regression was chosen the greyed F1 classes still read "FAVOR, AGAINST" and Run
    name kept "stance reviewed" from the previous launch. A field that is not a setting of the new task shows its
    default (its value comes back with a task that uses it); a run name of the filled-in form or of the last
    launch goes, one typed since stays."""
    from test_trial10_launch_predict import _write

    sst2 = str(_write(tmp_path / "glue_sst2" / "train.tsv", "sentence\tlabel\na fine film\t1\na dull film\t0\n"))
    w = _launcher(qtbot, tmp_path)
    w.set_config(TrainConfig(task="single", train=sst2, f1_classes=["FAVOR", "AGAINST"], run_id="stance reviewed",
                             class_weights="balanced", text_columns=["sentence"], label_column="label"))
    w.editors["task"].set("regression")
    cfg = w.config()
    assert cfg.f1_classes == [] and cfg.class_weights == "" and cfg.run_id == ""
    assert w.editors["f1_classes"].get() == [] and not w.editors["f1_classes"].widget.isEnabled()
    assert "the previous form's Run name (stance reviewed) cleared" in w.preset_label.text()
    assert cfg.text_columns == ["sentence"] and cfg.label_column == "label"   # the same reader: still settings
    w.editors["task"].set("pair")                    # a task that uses them: the values are back; no run name
    cfg = w.config()
    assert cfg.f1_classes == ["FAVOR", "AGAINST"] and cfg.class_weights == "balanced" and cfg.run_id == ""
    assert "Run name" not in w.preset_label.text()

    w.editors["run_id"].set("my stsb run")           # typed in this form: stays across a task change
    w.editors["task"].set("regression")
    assert w.config().run_id == "my stsb run"

    launched = []
    w.launch_requested.connect(lambda cfgs, _suffixes: launched.append(cfgs))
    w.editors["task"].set("single")
    w.editors["label_column"].set("label")
    assert w.launch() and launched[0][0].run_id == "my stsb run"
    w.editors["task"].set("pair")                    # the launched run's name is not the next task's
    assert w.config().run_id == ""


def _sst2_events(last_eval: int, finish: bool) -> list[dict]:
    """The trial's SST-2 run (27/38): 80 steps, a majority-class baseline of 50.50% and dev accuracy at 52.5, 49.5,
    49.5 and 51.5% for the first four evaluations (on and near the baseline, at the bottom of the view)."""
    acc = {0: 0.525, 10: 0.495, 20: 0.495, 30: 0.515, 40: 0.725, 50: 0.74, 60: 0.735, 70: 0.74, 80: 0.74}
    ev = [{"event": "started", "run_id": "sst2", "time": 1000.0, "steps_total": 80,
           "config": {"model": "m", "task": "single"},
           "dev_baseline": {"name": "majority class", "metrics": {"accuracy": 0.505}}}]
    for i in range(0, 81):
        if i > last_eval:
            break
        if i:
            ev.append({"event": "step", "run_id": "sst2", "time": 1000.0 + i, "step": i, "epoch": i / 40,
                       "loss": 0.7 - 0.004 * i, "lr": 5e-5, "grad_norm": 1.0, "samples_per_second": 8.0,
                       "elapsed": float(i)})
        if i in acc:
            ev.append({"event": "eval", "run_id": "sst2", "time": 1000.0 + i, "step": i,
                       "metrics": {"accuracy": acc[i], "f1": acc[i]}})
    if finish:
        ev.append({"event": "finished", "run_id": "sst2", "time": 1100.0, "metrics": {}, "seconds": 100.0})
    return ev


def test_the_baseline_label_covers_no_point_and_not_the_axis(qtbot, tmp_path):
    """Twelfth trial (27, 38): "majority class baseline 50.50" hung below the dashed line at the left end, over the
    x axis and the points of the first evaluations. It sits where it covers no point and stays above the axis,
    in the live view (x up to the planned steps) and in the finished one."""
    from PySide6.QtCore import QPointF, QRectF
    from PySide6.QtWidgets import QApplication

    from helpers import shown_curves_panel

    from explorer.ui.runs.state import RunState

    for width, height in ((900, 600), (1600, 900)):
        for last, finish in ((50, False), (80, True)):
            curves = shown_curves_panel(qtbot, width, height)
            state = RunState.from_events("sst2", _sst2_events(last, finish))
            curves.set_runs([state])
            curves.redraw_now()
            QApplication.processEvents()
            panel = curves.panels["dev/accuracy"]
            (line,) = panel.baseline_lines
            assert line.value() == 50.5 and "majority class baseline 50.50" in line.label.toPlainText()
            label = line.label.sceneBoundingRect()
            vb = panel.plot.getViewBox()
            data = panel.data["sst2"]
            for x, y in zip(data.x, data.shown):
                at = vb.mapViewToScene(QPointF(float(x), float(y)))
                assert not label.intersects(QRectF(at.x() - 3, at.y() - 3, 6, 6)), (width, last, x, y)
            assert not label.intersects(panel.plot.getAxis("bottom").sceneBoundingRect()), (width, last)
            assert vb.sceneBoundingRect().contains(label), (width, last)
            curves.grab().save(str(tmp_path / f"baseline_{width}_{last}.png"))


def _timed_run(upto: int) -> tuple[list[dict], dict[int, float]]:
    """A run of 92 steps evaluating every 23 (the trial's SQuAD run, 04/05): 15 s of set-up, 2 s a step, 20 s an
    evaluation (at the start, at 23, 46 and 69, and at the end) and 3 s for the checkpoint after each. Its events
    up to step ``upto``, and the true seconds left at each step."""
    step_s, eval_s, save_s, every, total = 2.0, 20.0, 3.0, 23, 92
    ev = [{"event": "started", "run_id": "qa", "time": 1000.0, "steps_total": total,
           "config": {"model": "m", "task": "squad_v1", "eval_every": every}},
          {"event": "eval", "run_id": "qa", "time": 1035.0, "step": 0, "metrics": {"f1": 1.0}, "seconds": eval_s}]
    clock, left = 15.0 + eval_s, {}
    for i in range(1, total + 1):
        clock += step_s
        if i <= upto:
            ev.append({"event": "step", "run_id": "qa", "time": 1000.0 + clock, "step": i, "epoch": i / 46,
                       "loss": 3.0, "lr": 1e-4, "elapsed": clock})
        if i % every == 0 and i < total:
            clock += eval_s + save_s
            if i <= upto:
                ev.append({"event": "eval", "run_id": "qa", "time": 1000.0 + clock, "step": i,
                           "metrics": {"f1": 1.0 + i}, "seconds": eval_s})
        left[i] = -clock
    end = clock + eval_s + save_s
    return ev, {i: end + t for i, t in left.items()}


def test_the_time_remaining_counts_the_evaluations_to_come_and_does_not_jump_after_one():
    """Twelfth trial (04/05): "remaining 3:31" at step 22 became 3:49 at step 26, after an evaluation: the mean time
    per step so far (evaluations in it) times the steps left. The estimate is the time per step times the steps left
    plus the measured time per evaluation times the evaluations planned, so it only goes down."""
    import pytest

    from explorer.ui.runs.state import RunState, progress_text

    etas = {}
    for step in (2, 5, 10, 22, 23, 24, 26, 45, 47, 60, 70, 91, 92):
        events, truth = _timed_run(step)
        state = RunState.from_events("qa", events, alive=True)
        assert state.step == step
        etas[step] = state.eta()
        # from two step events on the set-up no longer counts in; until a step after an evaluation has come, the
        # checkpoint saved after one (3 s) is not known yet
        if step >= 5:
            near = 0.5 if step > 23 else 3.0 * 4 + 0.5   # 4 evaluations to come
            assert etas[step] == pytest.approx(truth[step], abs=near), (step, etas[step], truth[step])
    steps = [s for s in sorted(etas) if s >= 24]
    assert all(etas[b] < etas[a] for a, b in zip(steps, steps[1:])), etas   # never up across an evaluation
    assert etas[22] - etas[26] > 0 and etas[45] > etas[47]
    assert "remaining 3:25" in progress_text(RunState.from_events("qa", _timed_run(24)[0], alive=True))
