"""How often a run evaluates: "Evaluate every" starts at four evaluations per epoch of the training file for the
table and tagging tasks (the file's size from the launcher's data check, a CoNLL file's sentences included), fits
inside the steps the run plans (Max steps, a time budget), and a value at or above them is said before launch and
in the worker's log; a value the user typed stays."""

from helpers import answer_train_preview

from explorer.core.specs.train_config import TrainConfig


def test_table_tasks_start_at_four_evaluations_per_epoch_of_the_file():
    from explorer.core.specs.tasks import eval_every_for

    assert eval_every_for("single", 2000, 16) == 31            # ceil(2000 / 16) = 125 steps, / 4
    assert eval_every_for("pair", 67349, 16, train_cap=2000) == 31
    assert eval_every_for("regression", 100, 16, gradient_accumulation_steps=2) == 1   # 4 steps: each one
    assert eval_every_for("single", 0, 16) == 0               # size unknown: start and end
    assert eval_every_for("squad_v1", 2000, 16) == 0          # QA keeps its own default


def test_the_launcher_sets_evaluate_every_from_the_data_check_unless_the_user_did(qtbot, tmp_path):
    """A classification run evaluates several times per epoch (never only at start and end: no dev curve);
    the launcher sets Evaluate every from the data check's row count, and keeps a value the user typed."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(tmp_path / "sst2.tsv"), batch_size=16, train_cap=2000))
    res = {"ok": True, "counts": {"examples": 67349, "labels": 2}, "records": [], "error": ""}
    w.train_preview.result = res
    w.train_preview.finished.emit(res)
    assert w.config().eval_every == 31 and "--eval-every 31" in w.command.toPlainText()
    w.editors["batch_size"].set(32)
    assert w.config().eval_every == 15                       # ceil(2000 / 32) = 63 steps, / 4
    w.editors["eval_every"].set(100)
    w.editors["batch_size"].set(8)
    assert w.config().eval_every == 100                      # the user's value stays


def test_the_automatic_evaluate_every_fits_the_steps_the_run_plans():
    from explorer.core.specs.tasks import eval_every_for, run_steps

    # 4 evaluations per epoch of 2,814 rows at batch 16 give 44; with batch 16 and Max steps 60 the automatic
    # value must leave evaluations inside the 60 steps
    assert eval_every_for("single", 2814, 16) == 44
    assert eval_every_for("single", 2814, 16, max_steps=60) == 15
    assert eval_every_for("single", 2814, 16, epochs=3.0) == 44            # longer runs: per epoch, as before
    assert eval_every_for("single", 2814, 16, budget_steps=20) == 5         # what a time budget allows
    assert run_steps(2814, 16, epochs=0.5) == (176, 88) and run_steps(0, 16, max_steps=60) == (0, 60)


def test_an_evaluate_every_above_the_planned_steps_is_said_before_launch(qtbot, tmp_path):
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(tmp_path / "stance.txt"), batch_size=16, max_steps=60,
                             dev_fraction=0.1))
    res = {"ok": True, "counts": {"examples": 2814, "labels": 3}, "records": [], "error": ""}
    w.train_preview.result = res
    w.train_preview.finished.emit(res)
    # the fitted 15 is below the 60 steps (the line may still say, at rough rates, that the run evaluates less often)
    assert w.config().eval_every == 15 and "is not below the" not in w.problem.text()
    w.editors["eval_every"].set(90)                           # the user's value stays, and is said
    assert w.config().eval_every == 90 and w.launch_btn.isEnabled()
    assert "Evaluate every 90 is not below the 60 steps this run plans: it evaluates only at the start and the end" \
        in w.problem.text()
    assert "evaluates only at the start" in w.editors["eval_every"].focus.toolTip()
    w.editors["max_steps"].set(0)                             # 3 epochs of 176 steps: 90 fits
    assert "is not below the" not in w.problem.text() and not w.editors["eval_every"].focus.property("invalidReason")


def test_a_run_whose_evaluate_every_is_above_its_steps_says_so_in_its_log(tmp_path):
    """The headless side of an Evaluate every above the run's steps (90 for a 60-step run): the worker's log
    says it evaluates only at the start and the end."""
    import contextlib
    import io

    from helpers import save_tiny_model, write_tiny_classification

    from explorer.core.protocol.events import iter_events
    from explorer.worker.train import main as train_main

    model = save_tiny_model(tmp_path / "cls", "classification")
    data = write_tiny_classification(tmp_path / "sst.tsv")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in ["--model", model, "--task", "single", "--train", data, "--dev", data,
                                          "--max-steps", 2, "--eval-every", 90, "--no-save-checkpoints",
                                          "--output-dir", tmp_path / "runs", "--run-id", "r"]])
    events = list(iter_events(buf.getvalue().splitlines()))
    assert rc == 0, events[-1]
    logs = [e["message"] for e in events if e["event"] == "log" and e.get("level") == "warning"]
    assert any("eval_every 90 is not below the run's 2 steps: it evaluates only at the start and the end" in m
               for m in logs), logs


def test_a_ner_run_evaluates_four_times_per_epoch_as_the_readme_says(qtbot, tmp_path):
    """A CoNLL training file gets the automatic 4 evaluations per epoch the README promises, not "start and end"
    (no dev curve until the end): the launcher reads the size of a CoNLL file ("sentences") as it reads a table's
    ("examples")."""
    from helpers import write_tiny_conll

    from explorer.core.specs.tasks import eval_every_for, get_task_facts
    from explorer.core.specs.train_config import field_help
    from explorer.ui.launch.launcher import LauncherPanel

    assert get_task_facts("ner").default_evals_per_epoch == 4
    assert eval_every_for("ner", 14041, 16) == 219                    # CoNLL-2003's 14,041 sentences at batch 16
    assert eval_every_for("ner", 1600, 16) == 25                      # Train cap 1600: 100 steps
    assert "multilabel and ner at 4 evaluations per epoch" in field_help("eval_every")
    (tmp_path / "conll2003").mkdir()
    conll = write_tiny_conll(tmp_path / "conll2003" / "train.txt", repeat=20)
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="ner", train=str(conll), batch_size=4))
    assert w.editors["eval_every"].get() == 0                         # the file's size is not known yet
    answer_train_preview(w, str(conll), "ner")
    n = w.train_rows()
    assert n > 0 and w.editors["eval_every"].get() == eval_every_for("ner", n, 4) > 0
    assert "--eval-every" in w.command.toPlainText()
