"""The launcher across a task or training-file switch: a setting the new task does not use stays out of the run
(greyed at its default, its value back with a task that uses it), the task's defaults replace the preset's recipe
where the user typed nothing, files chosen for other data or labels are cleared or named in the banner, and the
label count, column layout, caps and run name of the previous file or launch do not carry over."""

from helpers import STSB_SEVEN_FIELD_ROWS, shown_launcher, write_file

from explorer.core.specs.train_config import TrainConfig


def test_a_setting_the_task_does_not_use_stays_out_of_its_run(qtbot, tmp_path):
    """Switching to a classification task drops the QA watch example and the QA window
    settings from the run's config and command; back on QA they return (the editors keep their values)."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.editors["doc_stride"].set(96)
    qa = w.config()
    assert qa.watch and qa.doc_stride == 96 and qa.dev_fraction is None and "--dev-fraction" not in w.command.toPlainText()
    w.editors["task"].set("single")
    cls = w.config()
    assert cls.watch == [] and cls.doc_stride == TrainConfig().doc_stride
    assert "--watch" not in w.command.toPlainText() and "Ada" not in w.command.toPlainText()
    w.editors["task"].set("squad_v1")
    back = w.config()
    assert back.watch == qa.watch and back.doc_stride == 96


def test_table_settings_are_off_for_ner_and_swag_and_tagging_keeps_its_own(qtbot, tmp_path):
    """The launcher's NER form (seen under Xvfb): text / label columns, dev fraction, class weights and F1 classes
    are table settings, greyed out and kept out of the command for ner and swag; encoding and skip-invalid are
    read by the CoNLL loader too, and a tagger's head is fitted to the data's tags by name as a classifier's is
    (New head), so they stay on for ner (and off for swag)."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    table_only = ("text_columns", "label_column", "id_column", "no_header", "label_names", "dev_fraction",
                  "class_weights", "f1_classes")
    for task, tagging_on in (("ner", True), ("swag", False)):
        w.editors["task"].set(task)
        assert not any(w.editors[n].widget.isEnabled() for n in table_only), task
        assert all(w.editors[n].widget.isEnabled() == tagging_on for n in ("encoding", "skip_invalid", "new_head")), task
        assert w.config().dev_fraction is None and "--dev-fraction" not in w.command.toPlainText()
    w.editors["task"].set("single")
    assert all(w.editors[n].widget.isEnabled() for n in (*table_only, "encoding", "skip_invalid", "new_head"))
    assert "--dev-fraction" in w.command.toPlainText()


def test_a_task_switch_brings_the_tasks_defaults_to_the_fields_not_edited(qtbot, tmp_path):
    """The QA preset's recipe (eval every 23, batch 4, max_seq_length 256, lr 1e-4) does not
    follow a switch to a classification task; the task's TaskFacts defaults do, except where the user typed a
    value, and the banner says the preset no longer applies."""
    from explorer.core.specs.tasks import get_task_facts
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    qa = w.config()
    assert (qa.eval_every, qa.batch_size, qa.resolved_max_seq_length()) == (23, 4, 256)
    assert w.banner.whole_text().startswith("<b>Preset: offline default")
    w.editors["epochs"].set(2.0)            # the user's own values stay
    w.editors["batch_size"].set(8)
    w.editors["task"].set("pair")
    cls, facts = w.config(), get_task_facts("pair")
    assert cls.batch_size == 8 and cls.epochs == 2.0
    assert cls.eval_every == facts.default_eval_every
    assert cls.resolved_learning_rate() == facts.default_learning_rate == 2e-5
    assert cls.resolved_max_seq_length() == facts.default_max_seq_length == 128
    banner = w.banner.whole_text()
    assert "offline default" in banner and "no longer applies" in banner and "your batch_size kept" in banner
    assert w.hint.isHidden()                 # the note takes the first-visit hint's place: the form does not jump
    assert "Preset: offline default" not in banner.split("<br>")[0]
    assert "--eval-every 23" not in w.command.toPlainText() and "--max-seq-length 256" not in w.command.toPlainText()
    w.apply_preset("offline")              # a preset is a fresh start: its banner, nothing marked edited
    assert w.config().batch_size == 4 and "no longer applies" not in w.banner.whole_text()
    assert not w.hint.isHidden()
    assert w.config().train.endswith(".json") and w.config().dev.endswith(".json")


def test_a_task_switch_drops_the_presets_training_settings_and_keeps_the_users(qtbot, tmp_path):
    """The QA preset's dropout 0 (its fast CPU recipe) and its Evaluate every, fitted to the QA data, do not follow
    a switch to Single sentence: the dropout goes back to its default and Evaluate every to the task's (fitted
    to the new data once it is counted); a setting the user typed stays, named in "Kept from before"."""
    from explorer.core.specs.tasks import get_task_facts
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    qa = w.config()
    assert qa.dropout == 0.0 and qa.eval_every == 23
    w.editors["weight_decay"].set(0.05)     # the user's own
    w.editors["task"].set("single")
    cls = w.config()
    assert cls.dropout == TrainConfig().dropout and cls.eval_every == get_task_facts("single").default_eval_every
    assert cls.weight_decay == 0.05
    banner = w.banner.whole_text()
    kept = banner.split("Kept from before: ")[1]
    assert "weight decay 0.05" in kept and "dropout" not in kept
    assert "--dropout" not in w.command.toPlainText() and "--eval-every 23" not in w.command.toPlainText()


def test_a_task_switch_to_other_data_clears_the_presets_files_not_the_users(qtbot, tmp_path):
    """Files a preset put in for another kind of data are cleared, with a word in the banner (choosing Single
    sentence after the offline SQuAD preset must not keep the SQuAD dev file, which Launch refuses); a file the
    user picked stays."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.apply_preset("offline")
    w.editors["task"].set("single")
    assert w.config().train == "" and w.config().dev == ""
    assert "cleared: choose this task's data" in w.banner.whole_text()
    w.editors["task"].set("squad_v1")
    mine = tmp_path / "mine.tsv"
    mine.write_text("sentence\tlabel\ngood\t1\n", encoding="utf-8")
    w.editors["train"].set(str(mine))             # picked by the user: kept across switches
    w.editors["task"].set("pair")
    w.editors["task"].set("single")
    assert w.config().train == str(mine)


def test_a_task_switch_does_not_carry_the_loaded_configs_label_count(qtbot, tmp_path):
    """After a 3-class stance run's settings are loaded, a switch to Regression drops --num-labels 3 from the
    command and the run's config.json."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train="s.tsv", num_labels=3))
    assert w.config().num_labels == 3 and "--num-labels 3" in w.command.toPlainText()
    w.editors["task"].set("regression")
    assert w.config().num_labels == 0 and "--num-labels" not in w.command.toPlainText()


def test_the_banner_says_what_is_true_once_the_data_files_are_chosen(qtbot, tmp_path):
    """After a task switch cleared the preset's SQuAD files, the banner stops saying "were cleared: choose this
    task's data" once the user has chosen them, and a later training file drops the note about the file before
    it."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.apply_preset("offline")
    w.editors["task"].set("single")
    assert "the train and dev data of the preset" in w.banner.whole_text()
    w.editors["train"].set(str(tmp_path / "stance_train.csv"))   # the data chosen (dev: a file or a held-out share)
    banner = w.banner.whole_text()
    assert "cleared" not in banner and "choose this task" not in banner
    w.editors["dev"].set(str(tmp_path / "stance_dev.csv"))
    banner = w.banner.whole_text()
    assert "cleared" not in banner and "choose this task" not in banner
    assert "defaults for the recipe" in banner                                         # the recipe part is still true
    w.set_config(TrainConfig(task="single", train="a.tsv", label_column="Stance"))
    w.editors["train"].set(str(tmp_path / "b.tsv"))
    assert "previous file's Label column" in w.banner.whole_text() and "b.tsv" in w.banner.whole_text()
    w.editors["train"].set(str(tmp_path / "c.tsv"))                                    # nothing of b's to reset
    banner = w.banner.whole_text()
    assert "previous file's" not in banner and "c.tsv" in banner


def test_a_new_training_file_clears_the_previous_files_layout(qtbot, tmp_path):
    """A newly chosen training file starts from the preview's guesses (STS-B after the stance file keeps none of
    Tweet / Stance, its encoding or the stance label names); the banner says what was cleared."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train="stance.txt", text_columns=["Tweet"], label_column="Stance",
                             encoding="cp1252", label_names="AGAINST, FAVOR, NONE"))
    assert w.config().label_column == "Stance"
    w.editors["train"].set(str(tmp_path / "sts_train.tsv"))
    cfg = w.config()
    assert (cfg.text_columns, cfg.label_column, cfg.encoding, cfg.label_names) == ([], "", "", [])
    assert "previous file's" in w.banner.whole_text() and "Label column" in w.banner.whole_text()
    w.editors["label_column"].set("score")                  # chosen for this file: kept
    assert w.config().label_column == "score"


def test_a_new_training_file_does_not_carry_the_loaded_label_count(qtbot, tmp_path):
    """A new training file (SST-2, 2 classes) after a 3-class stance run's settings drops --num-labels 3."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(tmp_path / "stance.txt"), num_labels=3))
    assert w.config().num_labels == 3
    w.editors["train"].set(str(tmp_path / "sst2_train.tsv"))
    assert w.config().num_labels == 0 and "--num-labels" not in w.command.toPlainText()


def test_a_training_file_from_other_data_clears_the_dev_file_beside_the_previous_one(qtbot, tmp_path):
    """The dev file goes with its training file (SST-2 -> Regression -> STS-B's train.csv must not keep SST-2's
    dev.tsv, which Launch refuses as "the dev data cannot be used"); one chosen with the new file stays."""
    from explorer.ui.launch.launcher import LauncherPanel

    sst2, stsb = tmp_path / "glue_sst2", tmp_path / "stsb"
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(sst2 / "train.tsv"), dev=str(sst2 / "dev.tsv")))
    w.editors["task"].set("regression")
    assert w.config().dev == str(sst2 / "dev.tsv")          # the user's files stay across the switch
    w.editors["train"].set(str(stsb / "train.csv"))
    assert w.config().dev == "" and "cleared: dev file dev.tsv" in w.banner.whole_text()
    w.editors["dev"].set(str(stsb / "dev.csv"))
    w.editors["train"].set(str(stsb / "train_small.csv"))   # same folder: the dev file is this data's
    assert w.config().dev == str(stsb / "dev.csv")


def test_a_task_switch_reads_the_training_file_again_for_the_new_task(qtbot, tmp_path):
    """After a switch Single sentence -> Sentence pair the Train data preview reads the same file again as pairs,
    never keeping its single-sentence reading (one text column)."""
    from explorer.ui.launch.launcher import LauncherPanel

    data = tmp_path / "pairs.tsv"
    data.write_text("premise\thypothesis\tlabel\nit rains\tthe street is wet\t1\nit is dry\tit rains\t0\n"
                    "a cat\tan animal\t1\nthe sun\tit is night\t0\n", encoding="utf-8")
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.editors["task"].set("single")
    w.editors["train"].set(str(data))
    w.refresh_previews()
    qtbot.waitUntil(lambda: w.train_preview.result is not None, timeout=90_000)
    single = w.train_preview.result
    w.editors["task"].set("pair")            # the user's file stays; its reading must follow the task
    assert w.train_preview._args[1] == "pair" and w.train_preview.result is None   # read again at once
    assert w.dev_preview._args[1] == "pair"
    qtbot.waitUntil(lambda: w.train_preview.result is not None, timeout=90_000)
    assert w.train_preview.result is not single


def test_a_task_switch_names_the_data_files_chosen_for_a_task_whose_labels_mean_something_else(qtbot, tmp_path):
    """A switch Single sentence -> Regression keeps SST-2's train and dev files, and the banner names the files
    kept and the task they were chosen for, until they are changed (never without a word)."""
    from explorer.ui.launch.launcher import LauncherPanel

    sst2 = tmp_path / "glue_sst2"
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(sst2 / "train.tsv"), dev=str(sst2 / "dev.tsv")))
    w.editors["task"].set("regression")
    banner = w.banner.whole_text()
    assert ("the train and dev files (train.tsv, dev.tsv) were chosen for Single sentence (SST-2 style): check that "
            "they hold a number (score) per row" in banner)
    w.editors["dev"].set(str(tmp_path / "stsb" / "dev.csv"))       # the dev file is this task's now
    banner = w.banner.whole_text()
    assert "the train file (train.tsv) was chosen for Single sentence" in banner and "dev.tsv" not in banner
    w.editors["train"].set(str(tmp_path / "stsb" / "train.csv"))
    assert "chosen for Single sentence" not in w.banner.whole_text()
    w.editors["task"].set("pair")                                   # files chosen for Regression, now for classes
    assert "were chosen for Regression" in w.banner.whole_text() and "a class per row" in w.banner.whole_text()
    w.editors["task"].set("regression")                             # back to the task they were chosen for
    assert "chosen for" not in w.banner.whole_text()
    w.editors["task"].set("single")
    w.editors["train"].set(str(sst2 / "train.tsv"))
    w.editors["dev"].set(str(sst2 / "dev.tsv"))
    w.editors["task"].set("pair")                                   # same labels (a class per row): nothing to say
    assert "chosen for" not in w.banner.whole_text()


def test_a_new_training_file_puts_the_caps_back_to_all_and_says_so(qtbot, tmp_path):
    """Train cap 640 / Dev cap 400 set for a CoNLL run go back to all when the task and the training file change
    (a researcher who does not look would train on 640 of 2,814 tweets), and the banner says so in amber."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="ner", train=str(tmp_path / "conll2003" / "train.txt"), train_cap=640, dev_cap=400))
    w.editors["task"].set("single")
    w.editors["train"].set(str(tmp_path / "stance_semeval2016" / "train.tx"))    # typed, one key at a time
    w.editors["train"].set(str(tmp_path / "stance_semeval2016" / "train.txt"))
    cfg = w.config()
    assert (cfg.train_cap, cfg.dev_cap) == (0, 0) and "--train-cap" not in w.command.toPlainText()
    banner = w.banner.whole_text()
    assert "Train cap 640 and Dev cap 400, set for the previous file, went back to all" in banner
    assert "color:#b35c00" in banner                         # amber: it stands out from the rest of the note
    w.editors["train_cap"].set(500)                          # set again for this file: kept, and no more warning
    assert "went back to all" not in w.banner.whole_text()
    w.editors["train"].set(str(tmp_path / "stance_semeval2016" / "train.txt"))   # the same file: nothing changes
    assert w.config().train_cap == 500


def test_a_task_change_clears_the_greyed_values_and_the_previous_run_name(qtbot, tmp_path):
    """A field that is not a setting of the new task shows its default (its value comes back with a task that uses
    it), so a Regression form never shows stale greyed F1 classes "FAVOR, AGAINST"; a run name of the filled-in
    form or of the last launch goes ("stance reviewed"), one typed since stays."""
    sst2 = str(write_file(tmp_path / "glue_sst2" / "train.tsv", "sentence\tlabel\na fine film\t1\na dull film\t0\n"))
    w = shown_launcher(qtbot, tmp_path)
    w.set_config(TrainConfig(task="single", train=sst2, f1_classes=["FAVOR", "AGAINST"], run_id="stance reviewed",
                             class_weights="balanced", text_columns=["sentence"], label_column="label"))
    w.editors["task"].set("regression")
    cfg = w.config()
    assert cfg.f1_classes == [] and cfg.class_weights == "" and cfg.run_id == ""
    assert w.editors["f1_classes"].get() == [] and not w.editors["f1_classes"].widget.isEnabled()
    assert "the previous form's Run name (stance reviewed) cleared" in w.banner.whole_text()
    assert cfg.text_columns == ["sentence"] and cfg.label_column == "label"   # the same reader: still settings
    w.editors["task"].set("pair")                    # a task that uses them: the values are back; no run name
    cfg = w.config()
    assert cfg.f1_classes == ["FAVOR", "AGAINST"] and cfg.class_weights == "balanced" and cfg.run_id == ""
    assert "Run name" not in w.banner.whole_text()

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


def test_columns_guessed_for_regression_are_guessed_again_for_single_sentence(qtbot, tmp_path):
    """A headerless STS-B file read for Regression gets Text columns 6, 7 guessed; back to Single sentence the
    preview guesses one text column for it, and the launch no longer refuses two text columns."""
    from explorer.ui.launch.launcher import LauncherPanel

    stsb = str(write_file(tmp_path / "stsb" / "train.csv", STSB_SEVEN_FIELD_ROWS))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="regression", train=stsb, no_header=True))
    w.refresh_previews()
    qtbot.waitUntil(lambda: w.editors["text_columns"].get() == ["6", "7"], timeout=90_000)
    w.editors["task"].set("single")
    qtbot.waitUntil(lambda: len(w.editors["text_columns"].get() or []) == 1, timeout=90_000)
    assert "6, 7" not in w.command.toPlainText()


def test_the_time_budget_set_by_the_user_stays_through_every_task_switch(qtbot, tmp_path):
    """A Time budget the person set is a setting every task has: it stays 3 minutes through a switch to each task
    (regression, on an STS-B file without a header, as well), in the run's config and the editor."""
    from explorer.core.specs.tasks import task_names
    from explorer.ui.launch.launcher import LauncherPanel

    sts = write_file(tmp_path / "sts.tsv", STSB_SEVEN_FIELD_ROWS)
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.editors["task"].set("single")
    w.editors["time_budget_minutes"].set(3.0)
    for task in ["single", "ner", "regression", *task_names(), "single"]:
        w.editors["task"].set(task)
        if task == "regression":
            w.editors["train"].set(str(sts))
            w.editors["no_header"].set(True)
            w.refresh_previews()
            qtbot.waitUntil(lambda: bool((w.train_preview.result or {}).get("columns")), timeout=90000)
        assert w.editors["time_budget_minutes"].get() == 3.0, task
        assert w.config().time_budget_minutes == 3.0, task
