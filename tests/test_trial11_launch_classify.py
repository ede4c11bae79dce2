"""The eleventh fresh-user trial (issue 25), first half: the launcher's Dev data preview says what a run without a
dev file does, the best checkpoint can be picked by the researcher's metric, the banner keeps its height, Classify
asks for Sentence B of a pair model and classifies on Return, Classify: dev set scores the run's own dev rows, and
a tagging run evaluates during training and prefills Tag: dev set."""

from test_trial10_launch_predict import STSB as _STSB_ROWS, _write   # the shared STS-B sample and file writer

from explorer.core.specs.train_config import TrainConfig

STANCE = ("ID\tTarget\tTweet\tStance\n" + "".join(
    f"{i}\tAtheism\t{text} {i}\t{label}\n" for i, (text, label) in enumerate(
        [("god is not real", "AGAINST"), ("pray every day", "FAVOR"), ("the weather is nice", "NONE")] * 10)))


# STS-B as released (no header; genre file years id score sentence1 sentence2): the tenth trial's rows that read
STSB = "".join(line + "\n" for line in _STSB_ROWS.splitlines() if line.count("\t") == 6)


def _counted(w, source: str, task: str) -> None:
    """The launcher's train preview answered for ``source`` (the data check, run here rather than in its child)."""
    from explorer.ui.launch.data_preview import preview_data

    w.train_preview._token += 1
    w.train_preview._done(w.train_preview._token, preview_data(source, task))


def test_the_dev_data_preview_says_the_run_holds_out_the_dev_fraction(qtbot, tmp_path):
    """Eleventh trial (MAJOR, borderline): Single sentence, the stance file and no dev file: the Dev data tab said
    "No data given. The run will not be evaluated." while Dev fraction was 0.10 and the run held out 281 rows as
    dev and evaluated on them."""
    from explorer.ui.launch.launcher import LauncherPanel

    stance = str(_write(tmp_path / "stance" / "train.txt", STANCE))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=stance))
    text = w.dev_preview.summary.text()
    assert "will not be evaluated" not in text
    assert "No dev file: the run holds out 10% of the training rows as dev" in text and "stratified, seed 42" in text
    _counted(w, stance, "single")                      # the file is counted: the share's size is said
    assert "(about 3 of 30)" in w.dev_preview.summary.text()
    w.editors["dev_fraction"].set(0.2)                 # follows Dev fraction
    assert "holds out 20%" in w.dev_preview.summary.text() and "(about 6 of 30)" in w.dev_preview.summary.text()
    w.editors["dev_fraction"].set(0.0)                 # "not evaluated" only when true
    assert "Dev fraction 0: the run will not be evaluated" in w.dev_preview.summary.text()
    w.editors["dev_fraction"].set(0.1)
    w.editors["task"].set("regression")                # scores: a random split
    assert "(random, seed 42" in w.dev_preview.summary.text()
    w.editors["task"].set("multilabel")                # no split for multi-label data: said, and the field is off
    assert "holds out no dev split" in w.dev_preview.summary.text()
    assert not w.editors["dev_fraction"].widget.isEnabled()
    w.editors["task"].set("single")
    assert w.editors["dev_fraction"].widget.isEnabled()
    w.editors["dev"].set(stance)                       # a dev file: its own preview, no note about a split
    w.refresh_previews()
    assert "holds out" not in w.dev_preview.summary.text()


def test_every_task_that_holds_rows_out_says_so_in_its_facts(tmp_path):
    """TaskFacts.dev_split is the one place the launcher reads; it agrees with what each task's split_dev does."""
    from explorer.core.specs.tasks import find_task_facts, no_dev_file_note
    from explorer.core.training.tasks import get_task

    rows = "text\tlabel\n" + "".join(f"row {i}\t{'ab'[i % 2]}\n" for i in range(20))
    scores = "text\tlabel\n" + "".join(f"row {i}\t{i / 4:.2f}\n" for i in range(20))
    for task, data in (("single", rows), ("regression", scores), ("multilabel", rows)):
        path = _write(tmp_path / task / "train.tsv", data)
        config = TrainConfig(task=task, train=str(path))
        t = get_task(task)
        _train, dev, _notes = t.split_dev(t.load(config, "train"), config, None)
        assert bool(dev is not None) == bool(find_task_facts(task).dev_split), task
    assert "will not be evaluated" in no_dev_file_note("ner", 0.1, 42)
    assert "holds out 10%" in no_dev_file_note("pair", 0.1, 7) and "seed 7" in no_dev_file_note("pair", 0.1, 7)


def test_the_form_does_not_move_when_a_typed_cap_takes_the_amber_line_away(qtbot, tmp_path):
    """Eleventh trial: STS-B after an SST-2 run: the banner said in amber that Train cap 640 and Dev cap 200 went
    back to all (7 lines with the task's and the file's notes); typing Train cap 1600 took that line away, the
    banner shrank and the form moved up 23 px, so the next click, aimed at Dev cap, landed in Text columns. The
    banner keeps its height whatever its text; the amber line comes first (in view without scrolling)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    from explorer.ui.launch.data_preview import preview_data
    from explorer.ui.launch.launcher import LauncherPanel

    sst2 = str(_write(tmp_path / "glue_sst2" / "train.tsv", "sentence\tlabel\na fine film\t1\na dull film\t0\n"))
    stsb = str(_write(tmp_path / "stsb" / "train.csv", STSB))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.resize(820, 700)   # the launcher of a 1280x800 window beside the Runs dock
    w.show()
    qtbot.waitExposed(w)
    w.set_config(TrainConfig(task="single", train=sst2, train_cap=640, dev_cap=200, text_columns=["sentence"],
                             label_column="label"))
    w.editors["task"].set("regression")
    w.editors["train"].set(stsb)
    w.editors["no_header"].set(True)
    w.train_preview._token += 1                        # the data check's guess of the columns, said in the banner
    w.train_preview._done(w.train_preview._token, preview_data(stsb, "regression", options={"no_header": True}))
    QApplication.processEvents()
    assert "No header row: Text columns 6, 7 and Label column 5 guessed" in w.preset_label.text()
    note = w.preset_label.text()
    assert "went back to all" in note and note.index("went back to all") < note.index("Regression")

    def dev_cap_y() -> int:
        QApplication.processEvents()
        return w.editors["dev_cap"].widget.mapTo(w, QPoint(0, 0)).y()

    before, banner = dev_cap_y(), w.banner.height()
    w.editors["train_cap"].set(1600)                   # typed: the amber line goes
    assert "went back to all" not in w.preset_label.text()
    assert (dev_cap_y(), w.banner.height()) == (before, banner)


def test_a_ner_run_evaluates_four_times_per_epoch_as_the_readme_says(qtbot, tmp_path):
    """Eleventh trial: a CoNLL training file left Evaluate every at "start and end" (no dev curve until the end)
    while the README said the automatic value is 4 evaluations per epoch; the launcher read the size of a table
    ("examples"), not of a CoNLL file ("sentences")."""
    from helpers import write_tiny_conll

    from explorer.core.specs.tasks import eval_every_for, get_task_facts
    from explorer.core.specs.train_config import field_help
    from explorer.ui.launch.launcher import LauncherPanel

    assert get_task_facts("ner").default_evals_per_epoch == 4
    assert eval_every_for("ner", 14041, 16) == 219                    # CoNLL-2003's 14,041 sentences at batch 16
    assert eval_every_for("ner", 1600, 16) == 25                      # the trial's Train cap 1600: 100 steps
    assert "multilabel and ner at 4 evaluations per epoch" in field_help("eval_every")
    (tmp_path / "conll2003").mkdir()
    conll = write_tiny_conll(tmp_path / "conll2003" / "train.txt", repeat=20)
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="ner", train=str(conll), batch_size=4))
    assert w.editors["eval_every"].get() == 0                         # the file's size is not known yet
    _counted(w, str(conll), "ner")
    n = w.train_rows()
    assert n > 0 and w.editors["eval_every"].get() == eval_every_for("ner", n, 4) > 0
    assert "--eval-every" in w.command.toPlainText()


def test_tag_dev_set_is_filled_in_from_the_ner_run(qtbot, tmp_path):
    """Eleventh trial: Tag: dev set stayed empty when a ner run's checkpoint was opened (Classify: dev set is
    filled in from a classifier's run). It gets the run's dev file and Dev cap; a file the user typed stays."""
    from helpers import save_tiny_model, write_tiny_conll

    from explorer.ui.inspectors.tag_view import TagPages, tag_tabs

    ckpt = save_tiny_model(tmp_path / "run" / "checkpoints" / "best", "token_classification", num_labels=5)
    (tmp_path / "conll2003").mkdir()
    dev = write_tiny_conll(tmp_path / "conll2003" / "valid.txt")
    pages = tag_tabs()
    view, dev_view = pages[0][1], pages[1][1]
    for _title, page in pages:
        qtbot.addWidget(page)
    TagPages(pages).open_checkpoint("Tag", str(ckpt), "ner", {"task": "ner", "dev": str(dev), "dev_cap": 300})
    assert dev_view.path.text() == str(dev) and dev_view.cap.value() == 300
    qtbot.waitUntil(lambda: view.loaded is not None, timeout=30000)
    # another run without a dev file: the previous run's file goes; a file the user typed stays
    assert not dev_view.prefill_from_run({"task": "ner", "dev": ""}) and dev_view.path.text() == ""
    dev_view.path.setText(str(tmp_path / "mine.conll"))
    assert not dev_view.prefill_from_run({"task": "ner", "dev": str(dev)})
    assert dev_view.path.text() == str(tmp_path / "mine.conll")


def test_the_best_checkpoint_is_picked_by_f_avg_once_f1_classes_are_named(qtbot, tmp_path):
    """Eleventh trial: "F1 classes FAVOR,AGAINST" set (SemEval-2016's F_avg), but Best dev, the Curves' headline
    and checkpoints/best went by accuracy: the launcher had no field for metric_for_best. "Best checkpoint by" is
    automatic (the task's metric, f_avg once F1 classes are named) or one the task reports; it goes into the
    Preview command and the run's config."""
    import pytest

    from explorer.core.errors import ConfigError
    from explorer.core.specs.tasks import automatic_metric_for_best, metric_for_best_choices
    from explorer.ui.launch.launcher import LauncherPanel

    assert automatic_metric_for_best("single", ["FAVOR", "AGAINST"]) == "f_avg"
    assert automatic_metric_for_best("single") == "accuracy" and automatic_metric_for_best("regression") == "pearson"
    assert "f_avg" not in metric_for_best_choices("single") and "f_avg" in metric_for_best_choices("pair", 0, ["A"])
    with pytest.raises(ConfigError, match="f_avg averages the F1 of the F1 classes"):
        TrainConfig(task="single", train="t.tsv", metric_for_best="f_avg").validate()

    stance = str(_write(tmp_path / "stance" / "train.txt", STANCE))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=stance, text_columns=["Tweet"], label_column="Stance"))
    best = w.editors["metric_for_best"]
    combo = best.widget
    assert w.config().metric_for_best == "" and combo.currentText() == "automatic: accuracy"
    assert "--metric-for-best" not in w.command.toPlainText()
    w.editors["f1_classes"].set(["FAVOR", "AGAINST"])
    assert combo.currentText() == "automatic: F_avg (F1 classes)"
    assert w.config().metric_for_best == "f_avg" and "--metric-for-best f_avg" in w.command.toPlainText()
    assert [combo.itemData(i) for i in range(combo.count())][:3] == ["", "accuracy", "f1"]
    best.set("macro_f1")                                            # the user's choice wins
    assert w.config().metric_for_best == "macro_f1" and "--metric-for-best macro_f1" in w.command.toPlainText()
    w.editors["f1_classes"].set([])
    best.set("")
    assert w.config().metric_for_best == "" and w.launch_btn.isEnabled()
    # a loaded config whose metric is the automatic one shows automatic; a chosen one stays chosen
    w.set_config(TrainConfig(task="single", train=stance, f1_classes=["FAVOR", "AGAINST"], metric_for_best="f_avg"))
    assert best.get() == "" and w.config().metric_for_best == "f_avg"
    w.set_config(TrainConfig(task="single", train=stance, metric_for_best="macro_f1"))
    assert best.get() == "macro_f1"
    w.editors["task"].set("regression")                             # regression reports no macro F1: automatic
    assert best.get() == "" and combo.currentText() == "automatic: pearson" and w.config().metric_for_best == ""


def test_a_run_picked_by_f_avg_heads_its_curves_with_f_avg(qtbot):
    """The run's config says f_avg: its ranking metric (Best dev, the Curves' first dev plot, ticked in Dev
    metrics) is f_avg, not accuracy."""
    from explorer.ui.runs.state import RunState

    state = RunState(run_id="stance", config={"task": "single", "metric_for_best": "f_avg",
                                              "f1_classes": ["FAVOR", "AGAINST"]})
    state.apply({"event": "eval", "step": 10, "metrics": {"accuracy": 0.6, "macro_f1": 0.5, "f_avg": 0.4}})
    state.apply({"event": "eval", "step": 20, "metrics": {"accuracy": 0.7, "macro_f1": 0.55, "f_avg": 0.3}})
    assert state.primary_metric() == "f_avg"
    assert state.best_metric()[:2] == ("f_avg", 40.0)


def _classify_view(qtbot):
    from explorer.ui.inspectors.classify_view import ClassifyView

    view = ClassifyView()
    qtbot.addWidget(view)
    return view


def test_a_pair_model_opened_after_a_single_sentence_model_gets_its_own_pair_or_says_b_is_empty(qtbot, tmp_path):
    """Eleventh trial: an STS-B regression checkpoint (pairs, header-less columns 6, 7) opened after an SST-2 model
    scored the SST-2 sentence with Sentence B empty ("score 2.6510"), no hint. The previous model's sentence goes
    (another kind of model), the run's first dev pair comes with its gold score, and a pair model asked about
    Sentence A alone says that Sentence B is empty."""
    from helpers import save_tiny_model, tiny_loaded_model

    from explorer.ui.inspectors.classify_view import ClassifyPages

    view = _classify_view(qtbot)
    view.set_loaded(tiny_loaded_model("classification"))
    view.inputs.text_a.setText("it 's a charming and often affecting journey .")
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    ckpt = save_tiny_model(tmp_path / "stsb" / "checkpoints" / "best", "classification", num_labels=1)
    dev = _write(tmp_path / "stsb" / "dev.csv", STSB)
    config = {"task": "regression", "dev": str(dev), "no_header": True, "text_columns": ["6", "7"],
              "label_column": "5", "dev_cap": 300}
    ClassifyPages([("Classify", view)]).open_checkpoint("Classify", str(ckpt), "regression", config)
    assert "charming" not in view.inputs.text_a.text()                 # not the SST-2 model's sentence
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert (view.inputs.text_a.text(), view.inputs.text_b.text()) == ("A plane is taking off.",
                                                                      "An air plane is taking off.")
    assert view.gold.text() == "5" and view.result.inputs[0].text_b == "An air plane is taking off."
    assert "Sentence B is empty" not in view.status.text()
    view.inputs.text_b.setText("")                                      # Sentence A alone: said
    view.result = None
    view.inputs.text_a.returnPressed.emit()                             # Return classifies
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert "this model reads sentence pairs and Sentence B is empty" in view.status.text()
    assert view.text.toPlainText().startswith("note: this model reads sentence pairs")
    assert "reads sentence pairs" in view.inputs.text_b.placeholderText()


def test_classify_veils_the_result_when_the_text_changes_and_return_classifies(qtbot):
    """Eleventh trial: Return in Sentence A did not classify (it probes in Spans & τ), and the old sentence's result
    stayed on screen, un-veiled, under the new text."""
    from helpers import tiny_loaded_model

    view = _classify_view(qtbot)
    view.set_loaded(tiny_loaded_model("classification"))
    view.inputs.text_a.setText("the city was born")
    view.inputs.text_a.returnPressed.emit()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert not view.stale_cover.stale
    view.inputs.text_a.setText("the city was old")                     # new text: the old result is veiled
    assert view.stale_cover.stale and "press Classify (or Return)" in view.stale_cover.label.text()
    from PySide6.QtWidgets import QSplitter                             # the veil is no third pane of the splitter
    assert [w.count() for w in view.findChildren(QSplitter)] == [2]
    view.inputs.text_a.setText("the city was born")                    # put back: the result is its own again
    assert not view.stale_cover.stale
    view.inputs.text_a.setText("the city was old")
    first = view.result
    view.inputs.text_a.returnPressed.emit()
    qtbot.waitUntil(lambda: view.result is not first, timeout=30000)
    assert not view.stale_cover.stale and view.result.inputs[0].text_a == "the city was old"


def test_classify_dev_set_takes_the_runs_dev_cap(qtbot, tmp_path):
    """Eleventh trial: Classify: dev set kept "first 200" from an earlier run while the STS-B run evaluated its first
    300 dev rows: "pearson 0.66 (200 examples)" beside the Runs list's "0.648 pearson". Opening a run's checkpoint
    takes its Dev cap with its dev file (all rows for a run that evaluated all); a file the user typed keeps the
    cap they chose."""
    import json

    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    def run(name: str, **config) -> str:
        folder = tmp_path / "runs" / name
        (folder / "checkpoints" / "best").mkdir(parents=True)
        (folder / "config.json").write_text(json.dumps({"task": "regression", "train": "/data/train.csv", **config}))
        return str(folder / "checkpoints" / "best")

    dev = ClassifyDevView(lambda: None, lambda: "regression")
    qtbot.addWidget(dev)
    assert dev.cap.value() == 200                                       # the page's own default
    assert dev.prefill_from_run(run("stsb", dev="/data/stsb/dev.csv", dev_cap=300, no_header=True))
    assert dev.path.text() == "/data/stsb/dev.csv" and dev.cap.value() == 300
    assert dev.prefill_from_run(run("sst2", dev="/data/sst2/dev.tsv", dev_cap=0))
    assert dev.path.text() == "/data/sst2/dev.tsv" and dev.cap.text() == "all"
    dev.path.setText("/mine/dev.tsv")
    dev.cap.setValue(50)
    assert dev.prefill_from_run(run("other", dev="/data/other/dev.tsv", dev_cap=300))
    assert dev.path.text() == "/mine/dev.tsv" and dev.cap.value() == 50
