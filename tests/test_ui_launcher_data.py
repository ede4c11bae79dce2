"""The launcher's data fields: a header-less table shows its rows and names each column with a sample value and
a guess, a regression label column of only 0 and 1 is called a likely class label, integer classes read 0 / 1
with a suggestion to name them, and the dev data is a dev file or a held-out Dev fraction (never both), the
preview saying which rows a run without a dev file holds out."""

from helpers import STANCE_ROWS, STSB_ROWS, answer_train_preview, write_file

from explorer.core.specs.train_config import TrainConfig


SST2 = "sentence\tlabel\ngood film\t1\nbad film\t0\nfine film\t1\n"


def test_a_regression_label_column_of_only_0_and_1_is_called_a_likely_class_label(tmp_path):
    """SST-2's 0/1 labels given as regression scores are called a likely class label, never passed without a
    word."""
    from explorer.core.data.scores_and_label_sets import load_regression
    from explorer.ui.launch.data_preview import preview_data

    sst2 = write_file(tmp_path / "sst2.tsv", SST2)
    data = load_regression(str(sst2))
    assert any("holds only 0 and 1: classification?" in p for p in data.problems)
    assert any(level == "warning" and "only 0 and 1" in m for level, m in data.notes)   # the run's log says it too
    res = preview_data(str(sst2), "regression")
    assert res["ok"] and any("holds only 0 and 1: classification?" in p for p in res["problems"])
    stsb = write_file(tmp_path / "stsb.tsv", "sentence1\tsentence2\tscore\na\tb\t0\nc\td\t1\ne\tf\t3.8\n")
    assert not load_regression(str(stsb)).problems


def test_the_preview_command_has_a_dev_file_or_a_dev_fraction_never_both(qtbot, tmp_path):
    """The Preview command never reads "--dev .../dev.tsv ... --dev-fraction 0.1": with a dev file the Dev
    fraction is greyed out and stays out of the command and the run's config; without one it is back."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(tmp_path / "train.tsv"), dev=str(tmp_path / "dev.tsv")))
    command = w.command.toPlainText()
    assert "--dev " in command and "--dev-fraction" not in command
    assert w.config().dev_fraction is None and not w.editors["dev_fraction"].widget.isEnabled()
    w.editors["dev_fraction"].set(0.2)
    assert "--dev-fraction" not in w.command.toPlainText()
    w.editors["dev"].set("")                                    # no dev file: the held-out share is the user's
    assert w.editors["dev_fraction"].widget.isEnabled() and w.config().dev_fraction == 0.2
    assert "--dev-fraction 0.2" in w.command.toPlainText()


def test_a_table_without_a_header_gets_its_columns_guessed_from_the_values(tmp_path):
    from explorer.core.data.table import preview_table

    stsb = write_file(tmp_path / "stsb" / "train.csv", STSB_ROWS)
    guess = preview_table(stsb, no_header=True, texts=(1, 2), score=True).guess
    assert (guess.text_columns, guess.label_column) == (("6", "7"), "5")
    assert "columns 6 and 7 hold the longest texts" in guess.basis and "decimal numbers, 0.5 to 5" in guess.basis
    sst2 = write_file(tmp_path / "sst2.tsv", "a gripping, beautifully acted film\t1\nthe plot goes nowhere at all\t0\n")
    guess = preview_table(sst2, no_header=True).guess
    assert (guess.text_columns, guess.label_column) == (("1",), "2")


def test_stsb_without_a_header_shows_its_rows_and_names_each_column_with_a_sample(qtbot, tmp_path):
    """After "No header row" is ticked the preview shows the rows, and the pickers name each column with a sample
    value ("5 — 5.000", "6 — A plane is taking off."), not a bare "1…7", so a researcher sees that 6 and 7 are
    the sentences and 5 the score; the guess from the values is filled in."""
    from explorer.ui.launch.data_preview import preview_data
    from explorer.ui.launch.launcher import LauncherPanel

    stsb = str(write_file(tmp_path / "stsb" / "train.csv", STSB_ROWS))
    res = preview_data(stsb, "regression", options={"no_header": True})
    assert not res["ok"] and "no text column found" in res["error"]
    assert len(res["records"]) == 5 and res["records"][0]["6"] == "A plane is taking off."   # the rows, as they are
    assert res["samples"]["5"] == "5.000"

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="regression", train=stsb, no_header=True))
    w.train_preview._token += 1
    w.train_preview._done(w.train_preview._token, res)
    # the guessed columns have the data check read the file again with them: its rows then show
    qtbot.waitUntil(lambda: (w.train_preview.result or {}).get("ok") is True, timeout=90000)
    assert w.train_preview.table.rowCount() == 5 and not w.train_preview.table.isHidden()
    label = w.editors["label_column"].widget
    shown = [label.itemText(i) for i in range(label.count())]
    assert "5 — 5.000" in shown and "6 — A plane is taking off." in shown
    # the guess from the values is filled in (the run cannot make it), and the banner says so; the label column
    # shows as a guess (grey "guessed: 5", as every other guess) and the run reads it until one is picked
    assert w.editors["text_columns"].get() == ["6", "7"] and w.editors["label_column"].get() == ""
    assert label.lineEdit().placeholderText() == "guessed: 5" and w.config().label_column == "5"
    assert "Text columns 6, 7 and Label column 5 guessed from the first rows" in w.banner.whole_text()
    assert "--text-columns 6,7 --label-column 5" in w.command.toPlainText()
    # a choice made from the list reads as the column's name
    label.setCurrentIndex(shown.index("4 — 0001"))
    label.activated.emit(shown.index("4 — 0001"))
    assert w.editors["label_column"].get() == "4" and label.currentText() == "4"
    # a header file: the guess by names stays the placeholder (the run guesses the same)
    stance = str(write_file(tmp_path / "stance" / "train.txt", "ID\tTweet\tStance\n1\tgood day to all\tFAVOR\n"
                                                              "2\tno no and no\tAGAINST\n"))
    w.set_config(TrainConfig(task="single", train=stance))
    res = preview_data(stance, "single")
    w.train_preview.finished.emit(res)
    assert w.editors["text_columns"].get() == [] and "Tweet — good day to all" in [
        w.editors["text_columns"].widget.itemText(i) for i in range(w.editors["text_columns"].widget.count())]



def test_a_new_training_file_gets_no_guess_or_banner_from_the_previous_files_late_answer(qtbot, tmp_path):
    """The data check's answer about the previous file (STS-B, read without a header) that comes after a new
    training file was chosen, before the new file's check starts, fills no column and writes no banner sentence:
    the guesses and their banner come from the new file only."""
    from explorer.ui.launch.data_preview import preview_data
    from explorer.ui.launch.launcher import LauncherPanel

    stsb = str(write_file(tmp_path / "stsb" / "train.csv", STSB_ROWS))
    res = preview_data(stsb, "single", options={"no_header": True})
    assert (res.get("guess") or {}).get("label_column")
    new = str(write_file(tmp_path / "own" / "new.csv", "text,label\na good day to all,happy\na sad day,sad\n"))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=stsb, no_header=True))
    asked = w.train_preview._token                  # the check of the previous file, under way
    w.editors["train"].set(new)                     # the new file's check waits for the typing pause
    w.train_preview._done(asked, res)               # the previous file's answer arrives meanwhile
    assert w.editors["label_column"].get() == "" and w.editors["text_columns"].get() == []
    assert "main-captions" not in w.banner.whole_text() and "guessed" not in w.banner.whole_text()

def test_integer_classes_read_0_and_1_and_the_preview_suggests_naming_them(qtbot, tmp_path):
    """SST-2's 0/1 classes read 0 / 1 in Classify, not LABEL_0 / LABEL_1, when Label names is left empty, and the
    preview suggests naming them."""
    import json

    from helpers import save_tiny_model

    from explorer.core.classify.arithmetic import readable_label_names
    from explorer.core.training.setup import fit_head
    from explorer.core.training.tasks import get_task
    from explorer.ui.launch.data_preview import preview_data

    sst2 = write_file(tmp_path / "sst2.tsv", "sentence\tlabel\ngood film\t1\nbad film\t0\nfine film\t1\n")
    task = get_task("single")
    config = TrainConfig(task="single", train=str(sst2))
    head, _, _ = fit_head("unused", task, task.load(config, "train"), None, config, None)
    assert head["id2label"] == {0: "0", 1: "1"}                     # the checkpoint names its classes by id
    assert readable_label_names(["LABEL_0", "LABEL_1"], []) == ["0", "1"]   # a checkpoint from before
    # a checkpoint named 0 / 1 that way is still an unnamed head: named data fine-tunes it (mapped, not refused)
    ckpt = save_tiny_model(tmp_path / "ckpt", "classification", num_labels=2)
    cfg = json.loads((ckpt / "config.json").read_text())
    cfg["id2label"], cfg["label2id"] = {"0": "0", "1": "1"}, {"0": 0, "1": 1}
    (ckpt / "config.json").write_text(json.dumps(cfg))
    named = write_file(tmp_path / "named.tsv", "sentence\tlabel\ngood film\tpositive\nbad film\tnegative\n")
    config = TrainConfig(task="single", train=str(named))
    head, _, _ = fit_head(str(ckpt), task, task.load(config, "train"), None, config, None)
    assert head["id2label"] == {0: "negative", 1: "positive"}
    res = preview_data(str(sst2), "single")
    assert any("the labels are numbers (0, 1): name them in “Label names”" in n and "negative,positive" in n
               for n in res["notes"])
    # one short line under the class bars: a longer note was cut in the launcher's notes box at 1280x800
    assert all(len(n) <= 90 for n in res["notes"] if "the labels are numbers" in n)
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(sst2)))
    w.train_preview.finished.emit(res)
    assert w.editors["label_names"].focus.placeholderText() == "e.g. negative,positive (the labels are 0, 1)"
    res = preview_data(str(sst2), "single", options={"label_names": ["negative", "positive"]})
    assert not any("the labels are numbers" in n for n in res["notes"])
    w.train_preview.finished.emit(res)
    assert w.editors["label_names"].focus.placeholderText() == ""


def test_the_dev_data_preview_says_the_run_holds_out_the_dev_fraction(qtbot, tmp_path):
    """Single sentence, the stance file and no dev file: the Dev data tab says the run holds out Dev fraction of
    the training rows as dev (and how many), never "No data given. The run will not be evaluated." while the run
    evaluates on held-out rows; "not evaluated" only when true."""
    from explorer.ui.launch.launcher import LauncherPanel

    stance = str(write_file(tmp_path / "stance" / "train.txt", STANCE_ROWS))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=stance))
    text = w.dev_preview.summary.text()
    assert "will not be evaluated" not in text
    assert "No dev file: the run holds out 10% of the training rows as dev" in text and "stratified, seed 42" in text
    answer_train_preview(w, stance, "single")                      # the file is counted: the share's size is said
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


def test_the_class_counts_stay_in_view_under_the_summary_up_to_a_few_rows(qtbot, tmp_path):
    """The training data's class-count bars are in view under the summary in a 1280x800 window (a 4-line box cut
    a 5-class table's bars); a table of many classes shows the first CLASS_ROWS_SHOWN and scrolls for the rest."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.launch.preview import CLASS_ROWS_SHOWN, DataPreview
    from explorer.ui.shell.layout_check import out_of_view

    preview = DataPreview("train")
    qtbot.addWidget(preview)
    preview.resize(290, 338)   # the preview pane of the launcher in a 1280x800 window
    preview.show()
    qtbot.waitExposed(preview)
    classes = ["AGAINST", "FAVOR", "MIXED", "NONE", "OTHER"]
    summary = "400 examples, 5 labels (AGAINST: 80, FAVOR: 80, MIXED: 80, NONE: 80, OTHER: 80); columns 'text', label"
    res = {"ok": True, "summary": summary, "class_counts": dict.fromkeys(classes, 80), "notes": ["a note"] * 3,
           "records": [{"text": "a", "label": "FAVOR"}]}
    preview._done(preview._token, res)
    QApplication.processEvents()
    lead = preview.lead_height(preview._notes_width())
    assert preview.notes.viewport().height() >= lead > 5 * preview.summary.fontMetrics().lineSpacing()
    assert out_of_view(preview.table, top=30) == ""      # the records still show under them
    many = {f"class {i}": 10 for i in range(30)}
    preview._done(preview._token, dict(res, class_counts=many))
    QApplication.processEvents()
    line = preview.summary.fontMetrics().lineSpacing()
    assert preview.notes.viewport().height() >= CLASS_ROWS_SHOWN * line
    assert preview.notes.verticalScrollBar().maximum() > 0    # the other rows scroll


def test_the_class_bars_cut_a_long_class_name_as_every_table_does_and_keep_it_whole_in_the_tooltip(qtbot):
    """The data preview's class-count bars title each class through explorer.ui.shell.class_names (cut in its
    middle, as every table's class titles): a name of 30 characters stays whole, a paragraph-long one is cut
    and reads whole in the summary's tooltip."""
    import html

    from explorer.ui.launch.preview import DataPreview
    from explorer.ui.shell.class_names import header_title

    preview = DataPreview("train")
    qtbot.addWidget(preview)
    medium = "a label of thirty characters!!"
    long = "the start of a label " + "x" * 80 + " and its own end"
    res = {"ok": True, "summary": "3 examples", "class_counts": {medium: 2, long: 1, "short": 1},
           "records": [{"text": "a", "label": "short"}]}
    preview._done(preview._token, res)
    text = preview.summary.text()
    assert f"<tt>{html.escape(medium)}</tt>" in text
    title = header_title(long, preview.summary.fontMetrics())
    assert title != long and f"<tt>{html.escape(title)}</tt>" in text and "own end" in title
    assert long in preview.summary.toolTip() and "short" not in preview.summary.toolTip()
    preview._done(preview._token, dict(res, class_counts={"short": 1}))
    assert preview.summary.toolTip() == ""


def _squad_v2_file(path, n_first: int, n_other: int):
    """A v2.0 file: a first article of ``n_first`` answerable questions, then ``n_other`` questions of which every
    4th is unanswerable."""
    import json

    ctx = "Ada Lovelace was born in London in 1815."

    def qa(qid, impossible):
        answers = [] if impossible else [{"text": "London", "answer_start": 25}]
        return {"id": qid, "question": "Where was Ada born?", "answers": answers, "is_impossible": impossible}

    data = {"version": "v2.0", "data": [
        {"title": "Ada", "paragraphs": [{"context": ctx, "qas": [qa(f"a{i}", False) for i in range(n_first)]}]},
        {"title": "Bob", "paragraphs": [{"context": ctx, "qas": [qa(f"b{i}", i % 4 == 0) for i in range(n_other)]}]}]}
    return str(write_file(path, json.dumps(data)))


def test_a_squad_train_cap_says_how_many_questions_and_unanswerable_ones_the_run_uses(qtbot, tmp_path):
    """The training data's summary counts the whole file; with a Train cap the preview also says the capped set's
    counts (drawn across articles, stratified by answerable / unanswerable, as the run draws them), and follows
    the cap; without a cap the line is gone."""
    from explorer.ui.launch.launcher import LauncherPanel

    train = _squad_v2_file(tmp_path / "train.json", 30, 20)
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="squad_v2", train=train, train_cap=20, seed=3))
    answer_train_preview(w, train, "squad_v2")
    assert "50 questions (5 unanswerable)" in w.train_preview.summary.text()
    assert not w.train_preview.cap_line.isHidden()
    assert w.train_preview.cap_line.text() == "20 of 50 questions (2 unanswerable) used: Train cap"
    w.editors["train_cap"].set(40)
    assert w.train_preview.cap_line.text() == "40 of 50 questions (4 unanswerable) used: Train cap"
    assert "unanswerable question" not in w.problem.text()
    w.editors["train_cap"].set(0)
    assert w.train_preview.cap_line.isHidden()


def test_a_squad_v2_run_on_no_unanswerable_question_is_warned_before_launch(qtbot, tmp_path):
    """SQuAD v2.0 training data without an unanswerable question: the launcher warns on its problem line that the
    run never trains its no-answer score (Launch stays enabled); a file with some gets no such warning."""
    from explorer.ui.launch.launcher import LauncherPanel

    none = _squad_v2_file(tmp_path / "none.json", 12, 0)
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="squad_v2", train=none))
    answer_train_preview(w, none, "squad_v2")
    assert "this run will be trained on no unanswerable question (the training file has none)" in w.problem.text()
    assert "never trained" in w.problem.text()
    some = _squad_v2_file(tmp_path / "some.json", 12, 8)
    w.editors["train"].set(some)
    answer_train_preview(w, some, "squad_v2")
    assert "unanswerable question" not in w.problem.text()


def test_a_header_whose_names_find_no_text_column_gets_the_guess_shown_and_the_data_is_read(qtbot, tmp_path):
    """A CSV headed email,Spam: the texts are guessed from the values (email, the longest) and shown as the guess;
    the launcher fills that guess in, as it does a label guessed from the values, so the data check reads the file
    instead of asking the user to type the name it shows."""
    from helpers import shown_launcher

    rows = "".join(f'"Dear friend, this is a long message number {i} about the meeting on Monday",'
                   f'{"spam" if i % 3 == 0 else "ham"}\n' for i in range(30))
    mail = str(write_file(tmp_path / "mail.csv", "email,Spam\n" + rows))
    w = shown_launcher(qtbot, tmp_path)
    w.set_config(TrainConfig(task="single", train=mail, output_dir=str(tmp_path / "runs")))
    qtbot.waitUntil(lambda: w.editors["text_columns"].get() == ["email"], timeout=90000)
    assert w.config().label_column == "Spam"
    assert w.editors["label_column"].widget.lineEdit().placeholderText() == "guessed: Spam"
    assert "Text columns email and Label column Spam guessed from the first rows" in w.banner.whole_text()
    qtbot.waitUntil(lambda: (w.train_preview.result or {}).get("ok") is True, timeout=90000)
    assert "--text-columns email --label-column Spam" in w.command.toPlainText()


def test_a_label_column_guessed_from_the_values_shows_as_a_guess_until_one_is_picked(qtbot, tmp_path):
    """A review table (review, Review_Year, overall_rating): the label column guessed from the values is
    overall_rating, shown as the other guesses are (an empty picker reading "guessed: overall_rating", grey), not
    as a value the person chose; the run and the data check read it, and a column picked from the list replaces it.
    The text column is named like one, so only the label is guessed: no text column typed in changes the form
    and has the check read the file again by itself."""
    from explorer.ui.launch.launcher import LauncherPanel

    texts = ["great phone works well every day", "terrible battery died after a week of use",
             "okay value for the money paid here", "love the screen and the camera too"]
    rows = "".join(f"{i},title number {i},{texts[i % 4]} {i},{2014 + i % 3},{1 + (i * 7) % 5}\n" for i in range(40))
    table = str(write_file(tmp_path / "amazon_reviews.csv",
                           "Review_ID,Review_Title,review,Review_Year,overall_rating\n" + rows))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=table, output_dir=str(tmp_path / "runs")))
    qtbot.waitUntil(lambda: w.config().label_column == "overall_rating", timeout=90000)
    label = w.editors["label_column"].widget
    assert w.editors["label_column"].get() == "" and label.currentText() == ""
    assert label.lineEdit().placeholderText() == "guessed: overall_rating"
    assert "--label-column overall_rating" in w.command.toPlainText()
    qtbot.waitUntil(lambda: (w.train_preview.result or {}).get("ok") is True and w.launch_btn.isEnabled(),
                    timeout=90000)
    assert set((w.train_preview.result or {}).get("class_counts") or {}) == {"1", "2", "3", "4", "5"}
    shown = [label.itemText(i) for i in range(label.count())]
    pick = next(i for i, t in enumerate(shown) if t.startswith("overall_rating"))
    label.setCurrentIndex(pick)
    label.activated.emit(pick)
    assert w.editors["label_column"].get() == "overall_rating" and "label_column" in w.form.edited


def _launcher_with_train_table(qtbot, tmp_path, name: str, text: str):
    """A LauncherPanel (task Single sentence) with the table ``text`` set as its Train data, the label field
    untouched: the real data check reads it."""
    from explorer.ui.launch.launcher import LauncherPanel

    table = str(write_file(tmp_path / name, text))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", output_dir=str(tmp_path / "runs")))
    w.editors["train"].set(table)
    return w


def test_a_label_column_guessed_from_an_unusual_name_is_used_by_the_data_check(qtbot, tmp_path):
    """A table text, Emotion (anger / fear / joy): the label column Emotion, guessed from its values and shown in
    grey, is the one the data check reads, so the check passes and Launch is enabled without picking it."""
    feelings = ["anger", "fear", "joy"]
    rows = "".join(f"i felt {feelings[i % 3]} about thing number {i} today,{feelings[i % 3]}\n" for i in range(30))
    w = _launcher_with_train_table(qtbot, tmp_path, "Emotion_classify_Data.csv", "text,Emotion\n" + rows)
    qtbot.waitUntil(lambda: (w.train_preview.result or {}).get("ok") is True and w.launch_btn.isEnabled(),
                    timeout=90000)
    assert set(w.train_preview.result.get("class_counts") or {}) == set(feelings)
    assert w.editors["label_column"].get() == ""
    assert w.editors["label_column"].widget.lineEdit().placeholderText() == "guessed: Emotion"
    assert "--label-column Emotion" in w.command.toPlainText()


def test_a_label_column_guessed_only_from_the_values_is_used_by_the_data_check(qtbot, tmp_path):
    """A review table (review_id, year, review, stars of 1 / 3 / 5, avg_stars, helpful_votes): no column is named
    like a label; stars, guessed from the values, is what the data check reads, so Launch is enabled. A column
    picked then replaces the guess and the banner no longer says stars was guessed."""
    texts = ["great phone works well every day", "terrible battery died after a week of use",
             "okay value for the money paid here"]
    rows = "".join(f"{100 + i},{2014 + i % 4},{texts[i % 3]} {i},{(1, 5, 3)[i % 3]},{3 + (i % 7) / 10},{i % 11}\n"
                   for i in range(30))
    w = _launcher_with_train_table(qtbot, tmp_path, "reviews.csv",
                                   "review_id,year,review,stars,avg_stars,helpful_votes\n" + rows)
    qtbot.waitUntil(lambda: (w.train_preview.result or {}).get("ok") is True and w.launch_btn.isEnabled(),
                    timeout=90000)
    assert set(w.train_preview.result.get("class_counts") or {}) == {"1", "3", "5"}
    label = w.editors["label_column"].widget
    assert w.editors["label_column"].get() == "" and label.lineEdit().placeholderText() == "guessed: stars"
    assert "Label column stars guessed" in w.banner.whole_text()
    shown = [label.itemText(i) for i in range(label.count())]
    pick = next(i for i, t in enumerate(shown) if t.startswith("year"))
    label.setCurrentIndex(pick)
    label.activated.emit(pick)
    assert w.editors["label_column"].get() == "year"
    assert "Label column stars guessed" not in w.banner.whole_text()


def test_the_preview_shows_five_rows_and_every_note_whole_in_a_1280x800_window(qtbot, tmp_path, monkeypatch):
    """The Launch page of the main window at 1280x800 (also 1920x1080) with the bundled SQuAD v2.0 sample as train
    data: the preview shows at least five data rows whole and its notes (the counts, the problems) whole, none
    scrolled away inside the notes box, none behind the table (it showed one row, the last note cut)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from layout_shots import resize, show_page
    from PySide6.QtWidgets import QApplication

    from helpers import shown_main_window

    from explorer.paths import SAMPLES
    from explorer.ui.shell.layout_check import out_of_view

    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    app = QApplication.instance()
    w = shown_main_window(qtbot, tmp_path)
    launcher = w.launcher
    launcher.editors["train"].set(str(SAMPLES / "squad_v2_sample_train.json"))
    launcher.editors["dev"].set(str(SAMPLES / "squad_v2_sample_dev.json"))
    launcher.refresh_previews()
    preview = launcher.train_preview
    qtbot.waitUntil(lambda: preview.result is not None, timeout=60_000)
    assert preview.result.get("ok") and not preview.problems.isHidden()   # a note of problems to show
    report = []
    for size in ((1280, 800), (1920, 1080)):
        resize(w, size, app)
        show_page(w, "Launch", app)
        where = f"{size[0]}x{size[1]}"
        table = preview.table
        whole = [r for r in range(table.rowCount()) if table.rowViewportPosition(r) >= 0
                 and table.rowViewportPosition(r) + table.rowHeight(r) <= table.viewport().height()]
        if len(whole) < 5:
            report.append(f"{where}: {len(whole)} data rows whole in the preview")
        if preview.notes.verticalScrollBar().maximum() > 0:
            report.append(f"{where}: the notes scroll {preview.notes.verticalScrollBar().maximum()} px in their box")
        for what, widget in (("notes", preview.notes), ("problems", preview.problems), ("table", table)):
            why = out_of_view(widget)
            if why:
                report.append(f"{where} {what}: {why}")
    assert not report, "\n".join(report)


STSB_OFF_BY_ONE = "".join(f"main-captions\tMSRvid\t2012test\t{pair:04d}\t{score}\t{a}\t{b}\n" for pair, score, a, b in [
    (1, "5.000", "A plane is taking off.", "An air plane is taking off."),
    (4, "3.800", "A man is playing a flute.", "A man plays a flute."),
    (5, "3.800", "A man is spreading cheese.", "A man spreads cheese."),
    (9, "4.250", "A man is playing the cello.", "A man plays the cello."),
    (1270, "0.500", "Three men are playing chess.", "Two men are playing chess."),
    (1503, "2.750", "A dog runs.", "A cat sleeps.")])


def test_a_regression_label_of_row_ids_and_a_text_column_of_numbers_are_warned_about(tmp_path):
    """STS-B without a header read one column off (texts 5 and 6, label 4): the label is the pair id, whole numbers
    nearly all distinct, and text column 5 holds the scores; both are warned about, in the preview and the run's
    log, and the file still loads (warnings, not refusals). Read right, it gets neither warning."""
    from explorer.core.data.scores_and_label_sets import load_regression
    from explorer.ui.launch.data_preview import preview_data

    stsb = write_file(tmp_path / "stsb.tsv", STSB_OFF_BY_ONE)
    data = load_regression(str(stsb), text_columns=[5, 6], label_column=4, no_header=True)
    assert data.labels == [1.0, 4.0, 5.0, 9.0, 1270.0, 1503.0]
    assert any("the label column, column 4, holds whole numbers nearly all distinct" in p and "an id?" in p
               for p in data.problems)
    assert any("the text column, column 5, holds only numbers: is it the score?" in p for p in data.problems)
    assert not any("column 6, holds only numbers" in p for p in data.problems)
    assert sum(level == "warning" for level, _ in data.notes) == 2
    res = preview_data(str(stsb), "regression", text_columns=["5", "6"], label_column="4",
                       options={"no_header": True})
    assert res["ok"] and any("an id?" in p for p in res["problems"])
    assert any("column 5, holds only numbers" in p for p in res["problems"])
    right = load_regression(str(stsb), text_columns=[6, 7], label_column=5, no_header=True)
    assert not right.problems


# STS-B's pair ids repeat across its source files: six rows, three ids, the decimal score beside them
STSB_REPEATED_IDS = "".join(f"main-captions\t{source}\t2012test\t{pair:04d}\t{score}\t{a}\t{b}\n"
                            for source, pair, score, a, b in [
    ("MSRvid", 1, "5.000", "A plane is taking off.", "An air plane is taking off."),
    ("MSRvid", 4, "3.800", "A man is playing a flute.", "A man plays a flute."),
    ("MSRvid", 5, "0.500", "Three men are playing chess.", "Two men are playing chess."),
    ("images", 1, "2.750", "A dog runs.", "A cat sleeps."),
    ("images", 4, "4.000", "A man is playing the cello.", "A man plays the cello."),
    ("images", 5, "1.200", "A woman slices onions.", "A woman cuts an onion.")])


def test_a_regression_label_of_repeated_ids_beside_a_column_of_decimals_names_that_column(tmp_path):
    """STS-B without a header given label column 4 (the pair id) reads whole numbers that repeat across its source
    files, so they are not nearly all distinct; column 5, which the run does not use, holds the decimal scores: the
    preview and the run's log name it ("is it the score?") and the file still loads. Label 5 gets no such word."""
    from explorer.core.data.scores_and_label_sets import load_regression
    from explorer.ui.launch.data_preview import preview_data

    stsb = write_file(tmp_path / "stsb.tsv", STSB_REPEATED_IDS)
    data = load_regression(str(stsb), text_columns=[6, 7], label_column=4, no_header=True)
    assert data.labels == [1.0, 4.0, 5.0, 1.0, 4.0, 5.0]
    said = [p for p in data.problems if "only whole numbers" in p]
    assert len(said) == 1 and "the label column, column 4, holds only whole numbers, 3 distinct from 1 to 5." in said[0]
    assert "Column 5 holds decimal numbers 0.5 to 5: is it the score?" in said[0]
    assert "an id or a count?" not in said[0]   # three distinct values fit a scale
    assert any(level == "warning" and "is it the score?" in m for level, m in data.notes)
    res = preview_data(str(stsb), "regression", text_columns=["6", "7"], label_column="4",
                       options={"no_header": True})
    assert res["ok"] and any("Column 5 holds decimal numbers 0.5 to 5: is it the score?" in p for p in res["problems"])
    right = load_regression(str(stsb), text_columns=[6, 7], label_column=5, no_header=True)
    assert not right.problems


def test_a_label_warning_names_a_numbered_column_and_a_named_one_without_a_doubled_word(tmp_path):
    """A file without a header says "the label column, column 2," and one with a header "the label column 'score'":
    never "the label column column 2"."""
    from explorer.core.data.scores_and_label_sets import load_regression

    rows = "".join(f"text {i}\t{i % 2}\n" for i in range(6))
    numbered = load_regression(str(write_file(tmp_path / "numbered.tsv", rows)), text_columns=[1], label_column=2,
                               no_header=True)
    assert any("the label column, column 2, holds only 0 and 1: classification?" in p for p in numbered.problems), \
        numbered.problems
    named = load_regression(str(write_file(tmp_path / "named.tsv", "text\tscore\n" + rows)), label_column="score")
    assert any("the label column 'score' holds only 0 and 1: classification?" in p for p in named.problems), \
        named.problems
    assert not any("column column" in p for p in numbered.problems + named.problems)


def test_a_regression_label_of_many_distinct_whole_numbers_is_called_an_id_or_a_count(tmp_path):
    """More distinct whole numbers than a rating scale has (150 values, each on two rows, so not nearly all
    distinct) are called an id or a count, with or without a column of decimals beside; a 1-5 scale is not."""
    from explorer.core.data.scores_and_label_sets import load_regression

    rows = "".join(f"text {i}\t{i % 150 * 7}\n" for i in range(300))
    data = load_regression(str(write_file(tmp_path / "views.tsv", "text\tviews\n" + rows)), label_column="views")
    assert any("the label column 'views' holds only whole numbers, 150 distinct from 0 to 1043, more than a rating "
               "scale has: an id or a count?" in p for p in data.problems), data.problems
    stars = "".join(f"text {i}\t{1 + i % 5}\n" for i in range(300))
    assert not load_regression(str(write_file(tmp_path / "stars.tsv", "text\tstars\n" + stars)),
                               label_column="stars").problems


def test_the_real_stsb_file_read_with_its_score_column_gets_no_label_warning(real_data):
    """STS-B train as released, no header, texts 6 and 7: label 5 (the score) loads without a warning; label 4 (the
    pair id) is called an id or a count and column 5 named as the score."""
    from explorer.core.data.scores_and_label_sets import load_regression

    train = str(real_data / "stsb" / "train.csv")
    assert not load_regression(train, text_columns=[6, 7], label_column=5, no_header=True).problems
    wrong = load_regression(train, text_columns=[6, 7], label_column=4, no_header=True).problems
    assert any("an id or a count?" in p and "Column 5 holds decimal numbers 0 to 5: is it the score?" in p
               for p in wrong), wrong
