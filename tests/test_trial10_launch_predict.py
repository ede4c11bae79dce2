"""The tenth fresh-user trial (issue 25): the launcher, Classify and the Predictions page.

STS-B without a header shows its rows and columns with sample values and a guess; a new training file resets
the caps; the automatic Evaluate every fits the run's planned steps; automatic run names say the data folder
when the file name is generic; the Predictions page shows the probabilities, no label for an empty row, and says
which reviewed rows a fine-tune adds; Classify drops an example's gold label for a typed sentence; integer
classes read 0 / 1; the Runs list's Best dev fits and every tab is reachable at 1280 px."""

from pathlib import Path

from PySide6.QtCore import Qt

from explorer.core.specs.train_config import TrainConfig

# STS-B as released: tab-separated, no header, genre file years id score sentence1 sentence2 (7 or 9 fields)
STSB = ("main-captions\tMSRvid\t2012test\t0001\t5.000\tA plane is taking off.\tAn air plane is taking off.\n"
        "main-captions\tMSRvid\t2012test\t0004\t3.800\tA man is playing a large flute.\tA man is playing a flute.\n"
        "main-captions\tMSRvid\t2012test\t0005\t3.800\tA man is spreading cheese on a pizza.\tA man spreads cheese.\n"
        "main-forums\tdeft\t2014\t0006\t0.500\tThree men are playing chess.\tTwo men are playing chess.\tx\ty\n"
        "main-captions\tMSRvid\t2012test\t0009\t4.250\tA man is playing the cello.\tA man seated plays the cello.\n")


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_table_without_a_header_gets_its_columns_guessed_from_the_values(tmp_path):
    from explorer.core.data.table import preview_table

    stsb = _write(tmp_path / "stsb" / "train.csv", STSB)
    guess = preview_table(stsb, no_header=True, texts=(1, 2), score=True).guess
    assert (guess.text_columns, guess.label_column) == (("6", "7"), "5")
    assert "columns 6 and 7 hold the longest texts" in guess.basis and "decimal numbers, 0.5 to 5" in guess.basis
    sst2 = _write(tmp_path / "sst2.tsv", "a gripping, beautifully acted film\t1\nthe plot goes nowhere at all\t0\n")
    guess = preview_table(sst2, no_header=True).guess
    assert (guess.text_columns, guess.label_column) == (("1",), "2")


def test_stsb_without_a_header_shows_its_rows_and_names_each_column_with_a_sample(qtbot, tmp_path):
    """Tenth trial: after ticking "No header row" the preview showed no rows and the pickers offered "1…7"; a
    researcher could not tell that 6 and 7 are the sentences and 5 the score."""
    from explorer.ui.launch.data_preview import preview_data
    from explorer.ui.launch.launcher import LauncherPanel

    stsb = str(_write(tmp_path / "stsb" / "train.csv", STSB))
    res = preview_data(stsb, "regression", options={"no_header": True})
    assert not res["ok"] and "no text column found" in res["error"]
    assert len(res["records"]) == 5 and res["records"][0]["6"] == "A plane is taking off."   # the rows, as they are
    assert res["samples"]["5"] == "5.000"

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="regression", train=stsb, no_header=True))
    w.train_preview._token += 1
    w.train_preview._done(w.train_preview._token, res)
    assert w.train_preview.table.rowCount() == 5 and not w.train_preview.table.isHidden()
    label = w.editors["label_column"].widget
    shown = [label.itemText(i) for i in range(label.count())]
    assert "5 — 5.000" in shown and "6 — A plane is taking off." in shown
    # the guess from the values is filled in (the run cannot make it), and the banner says so
    assert w.editors["text_columns"].get() == ["6", "7"] and w.editors["label_column"].get() == "5"
    assert "Text columns 6, 7 and Label column 5 guessed from the first rows" in w.preset_label.text()
    assert "--text-columns 6,7 --label-column 5" in w.command.toPlainText()
    # a choice made from the list reads as the column's name
    label.setCurrentIndex(shown.index("4 — 0001"))
    label.activated.emit(shown.index("4 — 0001"))
    assert w.editors["label_column"].get() == "4" and label.currentText() == "4"
    # a header file: the guess by names stays the placeholder (the run guesses the same)
    stance = str(_write(tmp_path / "stance" / "train.txt", "ID\tTweet\tStance\n1\tgood day to all\tFAVOR\n"
                                                              "2\tno no and no\tAGAINST\n"))
    w.set_config(TrainConfig(task="single", train=stance))
    res = preview_data(stance, "single")
    w.train_preview.finished.emit(res)
    assert w.editors["text_columns"].get() == [] and "Tweet — good day to all" in [
        w.editors["text_columns"].widget.itemText(i) for i in range(w.editors["text_columns"].widget.count())]


def test_a_new_training_file_puts_the_caps_back_to_all_and_says_so(qtbot, tmp_path):
    """Tenth trial: Train cap 640 / Dev cap 400 set for a CoNLL run stayed when the task and the training file
    changed; a researcher who did not look would have trained on 640 of 2,814 tweets. The banner named the recipe
    fields kept, not the caps."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="ner", train=str(tmp_path / "conll2003" / "train.txt"), train_cap=640, dev_cap=400))
    w.editors["task"].set("single")
    w.editors["train"].set(str(tmp_path / "stance_semeval2016" / "train.tx"))    # typed, one key at a time
    w.editors["train"].set(str(tmp_path / "stance_semeval2016" / "train.txt"))
    cfg = w.config()
    assert (cfg.train_cap, cfg.dev_cap) == (0, 0) and "--train-cap" not in w.command.toPlainText()
    banner = w.preset_label.text()
    assert "Train cap 640 and Dev cap 400, set for the previous file, went back to all" in banner
    assert "color:#b35c00" in banner                         # amber: it stands out from the rest of the note
    w.editors["train_cap"].set(500)                          # set again for this file: kept, and no more warning
    assert "went back to all" not in w.preset_label.text()
    w.editors["train"].set(str(tmp_path / "stance_semeval2016" / "train.txt"))   # the same file: nothing changes
    assert w.config().train_cap == 500


def test_the_automatic_evaluate_every_fits_the_steps_the_run_plans():
    from explorer.core.specs.tasks import eval_every_for, run_steps

    # tenth trial: 4 evaluations per epoch of 2,814 rows at batch 16 gave 44; with batch 16 and Max steps 60 the
    # automatic value must leave evaluations inside the 60 steps
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
    assert w.config().eval_every == 15 and "Note:" not in w.problem.text()
    w.editors["eval_every"].set(90)                           # the user's value stays, and is said
    assert w.config().eval_every == 90 and w.launch_btn.isEnabled()
    assert "Evaluate every 90 is not below the 60 steps this run plans: it evaluates only at the start and the end" \
        in w.problem.text()
    assert "evaluates only at the start" in w.editors["eval_every"].focus.toolTip()
    w.editors["max_steps"].set(0)                             # 3 epochs of 176 steps: 90 fits
    assert "Note:" not in w.problem.text() and not w.editors["eval_every"].focus.property("invalidReason")


def test_automatic_run_names_say_the_data_folder_when_the_file_name_is_generic(tmp_path):
    """Tenth trial: the SST-2 run and the stance run were both "single · train" (both files are train.*), told
    apart only by their start times."""
    from explorer.core.runs import store as runs
    from explorer.ui.runs.names import short_names

    sst2, stance = "/data/glue_sst2/train.tsv", "/data/stance_semeval2016/train.txt"
    assert runs.data_short_name(sst2) == "glue_sst2" and runs.data_short_name(stance) == "stance_semeval2016"
    assert runs.data_short_name("/data/squad_v1.1/train-subset.json") == "squad_v1.1"      # every word generic
    assert runs.data_short_name("/data/glue/mrpc_train.tsv") == "mrpc_train"                # the stem says it
    assert runs.new_run_id("bundled:minilm", "single", now=0, data=stance).endswith("-minilm-single-stance_semeval2016")
    base = {"model": "bundled:minilm", "batch_size": 16}
    got = short_names({"20261202-032900-minilm-single-glue_sst2": dict(base, task="single", train=sst2),
                       "20261202-033700-minilm-single-stance_semeval2016": dict(base, task="single", train=stance),
                       "20261202-031800-minilm-ner-conll2003": dict(base, task="ner", train="/data/conll2003/train.txt")})
    assert sorted(got.values()) == ["ner · conll2003", "single · glue_sst2", "single · stance_semeval2016"]


def _predictions(tmp_path, rows=None):
    """A classification predictions file like the trial's (id, text, author, then the model's columns; row 5 is an
    empty text) and a fresh review of it."""
    from explorer.core.predict.review import Review, load_predictions
    from explorer.core.predict.writing import write_table

    rows = rows or [
        {"id": str(i), "text": f"a tweet of some length about topic number {i}, " * 2, "author": "Zoë Müller",
         "predicted_label": ["AGAINST", "FAVOR", "NONE"][i % 3], "p_AGAINST": "0.4165", "p_FAVOR": "0.5306",
         "p_NONE": "0.0529", "margin": f"{0.1 + i / 100:.4f}", "error": ""} for i in range(1, 17)]
    rows[4] = dict(rows[4], text="", predicted_label="", p_AGAINST="", p_FAVOR="", p_NONE="", margin="",
                   error="line 6: empty 'text'")
    path = write_table(tmp_path / "new_texts.predictions.csv", list(rows[0]), rows)
    review = Review(str(path), "model", "new_texts.csv", "classification", ["AGAINST", "FAVOR", "NONE"],
                    ["id", "text", "author"], ["text"])
    return load_predictions(path), review


def test_the_predictions_table_keeps_the_probabilities_in_view_and_elides_the_text(qtbot, tmp_path):
    """Tenth trial: the probability columns were off to the right at 1280x800 and 1920x1080 (only #, reviewed,
    label, id and text in view)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.columns import MIN_TEXT_COLUMN
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())
    table, review = _predictions(tmp_path)
    review.save()
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    for size in ((1280, 800), (1920, 1080)):
        w.resize(*size)
        w.show()
        page = w.open_predictions(table.path)
        qtbot.waitUntil(lambda: getattr(page, "_split_fitted", False))
        m, view = page.model, page.view
        assert m.headers[:8] == ["#", "reviewed", "label", "text", "p_AGAINST", "p_FAVOR", "p_NONE", "margin"]
        assert [m.headerData(c, Qt.Orientation.Horizontal) for c in (1, 4)] == ["✓", "AGAINST"]
        assert "p_AGAINST" in m.headerData(4, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        for name in ("p_AGAINST", "p_FAVOR", "p_NONE", "margin"):
            col = m.headers.index(name)
            right = view.columnViewportPosition(col) + view.columnWidth(col)
            assert 0 < right <= view.viewport().width(), (size, name, right, view.viewport().width())
        text = m.headers.index("text")
        assert view.columnWidth(text) >= MIN_TEXT_COLUMN
        assert m.data(m.index(0, text), Qt.ItemDataRole.ToolTipRole) == table.column("text")[m.file_row(0)]


def test_an_empty_row_has_no_label_in_the_review(qtbot, tmp_path):
    """Tenth trial: selecting the empty row of the input CSV ("error: line 6: empty 'text'") kept the previous
    row's FAVOR in the Label box."""
    from explorer.ui.inspectors.predictions_view import PredictionsView

    table, review = _predictions(tmp_path)
    page = PredictionsView()
    qtbot.addWidget(page)
    page.set_predictions(table, review)
    page.select_file_row(0)
    assert page.label_box.currentText() == "FAVOR" and page.label_box.isEnabled()
    page.select_file_row(4)
    assert page.label_box.currentIndex() == -1 and not page.label_box.isEnabled()
    assert not page.reviewed_box.isEnabled()
    said = []
    page.message.connect(said.append)
    qtbot.keyClick(page.view, "2")
    qtbot.keyClick(page.view, Qt.Key.Key_R)
    assert 4 not in page.review.labels and 4 not in page.review.reviewed
    assert said and "Row 5 has no label" in said[0] and "empty 'text'" in said[0]
    page.select_file_row(1)
    assert page.label_box.currentText() == "NONE" and page.label_box.isEnabled()


def test_a_fine_tune_adds_the_reviewed_rows_corrected_and_confirmed(tmp_path):
    """Tenth trial: fine-tuning on corrections added the 2 changed rows, not the row the researcher reviewed and
    confirmed (FAVOR, kept), and nothing said so. A confirmed row is a labelled example: it goes in, marked."""
    import csv

    from explorer.core.predict.review import finetune_data

    train = _write(tmp_path / "stance" / "train.tsv", "Tweet\tStance\n" + "".join(
        f"tweet {i}\t{['AGAINST', 'FAVOR', 'NONE'][i % 3]}\n" for i in range(9)))
    table, review = _predictions(tmp_path)
    review.set_label(1, "AGAINST")             # corrected (the model said NONE)
    review.mark_reviewed(0)                    # confirmed: the model's FAVOR kept
    review.mark_reviewed(4)                    # the empty row: no label, not an example
    fields, note = finetune_data(table, review, {"train": str(train), "task": "single", "model": "m"}, tmp_path / "c")
    rows = list(csv.DictReader(open(fields["train"], encoding="utf-8"), delimiter="\t"))
    added = [(r["Tweet"][:20], r["Stance"], r["label_source"]) for r in rows[9:]]
    assert added == [(table.column("text")[0][:20], "FAVOR", "model, reviewed"),
                     (table.column("text")[1][:20], "AGAINST", "person")]
    assert "2 reviewed rows of new_texts.predictions.csv (1 corrected, 1 confirmed: the model's label, kept)" in note


def test_the_fine_tune_button_says_which_rows_go_in(qtbot):
    from explorer.ui.inspectors.predictions_view import PredictionsView

    page = PredictionsView()
    qtbot.addWidget(page)
    assert page.finetune_button.text() == "Fine-tune on reviewed rows"
    tip = page.finetune_button.toolTip()
    assert "corrected, with your label" in tip and "confirmed, with the model's label" in tip
    assert "Rows not reviewed and rows with an error stay out" in tip


def test_classify_drops_the_examples_gold_label_for_a_typed_sentence(qtbot):
    """Tenth trial: after a dev example (gold 1), the user typed a sentence of their own and the gold box still
    said 1, so the loss shown was for a label the user never chose."""
    from helpers import tiny_loaded_model

    from explorer.ui.inspectors.classify_view import ClassifyView

    view = ClassifyView()
    qtbot.addWidget(view)
    view.set_loaded(tiny_loaded_model("classification", num_labels=2))
    view.result = None
    view.open_example({"kind": "single", "text_a": "a gripping, beautifully acted film", "label": 1})
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert view.label.value() == 1 and "loss for label 1 = -log" in view.text.toPlainText()
    qtbot.keyClicks(view.inputs.text_a, " not")                 # the user's own sentence now
    assert view.label.value() == -1 and view.label.text() == "none"
    assert "gold label: none chosen" in view.status.text()
    view.result = None
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    text = view.text.toPlainText()
    assert "loss for label" not in text and "gold label: none chosen, so no loss" in text
    view.label.setValue(0)                                       # chosen for the typed text: it stays
    qtbot.keyClicks(view.inputs.text_a, "!")
    assert view.label.value() == 0


def test_integer_classes_read_0_and_1_and_the_preview_suggests_naming_them(qtbot, tmp_path):
    """Tenth trial: SST-2's 0/1 classes showed as LABEL_0 / LABEL_1 in Classify when Label names was left empty."""
    import json

    from helpers import save_tiny_model

    from explorer.core.classify.arithmetic import readable_label_names
    from explorer.core.training.setup import fit_head
    from explorer.core.training.tasks import get_task
    from explorer.ui.launch.data_preview import preview_data

    sst2 = _write(tmp_path / "sst2.tsv", "sentence\tlabel\ngood film\t1\nbad film\t0\nfine film\t1\n")
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
    named = _write(tmp_path / "named.tsv", "sentence\tlabel\ngood film\tpositive\nbad film\tnegative\n")
    config = TrainConfig(task="single", train=str(named))
    head, _, _ = fit_head(str(ckpt), task, task.load(config, "train"), None, config, None)
    assert head["id2label"] == {0: "negative", 1: "positive"}
    res = preview_data(str(sst2), "single")
    assert any("the labels are numbers (0, 1): name them in “Label names”" in n and "negative,positive" in n
               for n in res["notes"])
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


def _classification_run(folder: Path, run_id: str, model: str, train: str, accuracy: float) -> None:
    import json

    run = folder / run_id
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"run_id": run_id, "model": model, "task": "single", "train": train,
                                                 "batch_size": 16, "learning_rate": 1e-4}))
    ev = [{"event": "started", "run_id": run_id, "time": 100.0, "steps_total": 50},
          {"event": "step", "run_id": run_id, "time": 101.0, "step": 1, "loss": 0.7},
          {"event": "eval", "run_id": run_id, "time": 102.0, "step": 50, "metrics": {"accuracy": accuracy}},
          {"event": "finished", "run_id": run_id, "time": 200.0, "metrics": {}, "seconds": 100.0}]
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in ev))


def test_best_dev_is_whole_beside_long_run_names_at_1280x800(qtbot, tmp_path):
    """Tenth trial: at 1280x800 the Runs list's Best dev read "79.25% a…" beside "minilm · single · train · 12-02
    03:37". The value and a short metric name ("79.25% acc") keep their width; a long name elides in its middle."""
    from PySide6.QtWidgets import QApplication, QStyle

    from explorer.ui.runs.dock import COLUMNS
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())
    runs = tmp_path / "runs"
    same = "/data/tweets_about_politics.tsv"   # two runs of one recipe on one file: told apart by time
    _classification_run(runs, "20261202-032900-minilm-single-tweets", "bundled:minilm", same, 0.7925)
    _classification_run(runs, "20261202-033700-minilm-single-tweets", "bundled:minilm", same, 0.6263)
    _classification_run(runs, "20261202-040000-bert-base-uncased-single-x", "google-bert/bert-base-uncased",
                        "/data/x.tsv", 0.71)
    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.resize(1280, 800)
    w.show()
    table = w.runs.table
    qtbot.waitUntil(lambda: len(w.runs.all_ids()) == 3 and not w.runs.loading, timeout=10_000)
    qtbot.waitUntil(lambda: table.viewport().width() > 0 and not w.runs._fit_timer.isActive())
    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    names = [table.model().index(r, COLUMNS.index("Run")).data() for r in range(3)]
    assert max(len(n) for n in names) > 30, names                  # names as long as the trial's
    for row in range(3):
        best = table.model().index(row, COLUMNS.index("Best dev"))
        assert best.data().endswith("% acc"), best.data()
        room = table.visualRect(best).width() - margin - table.fontMetrics().horizontalAdvance(best.data())
        assert room >= 0, (best.data(), room)


def test_every_tab_is_one_click_away_at_1280x800(qtbot, tmp_path):
    """Tenth trial: at 1280x800 five tabs (Groups, Compare, Explain, Embeddings, Predictions) sat behind the tab
    bar's scroll arrows. The "Tabs ▾" button at the bar's right end lists every tab and opens the one chosen."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.resize(1280, 800)
    w.show()
    qtbot.waitUntil(lambda: w.tab_list.isVisible())
    bar = w.tabs.tabBar()
    assert sum(bar.tabRect(i).width() for i in range(w.tabs.count())) > bar.width()   # some tabs do not fit
    button = w.tab_list
    corner = button.mapTo(w, button.rect().topRight())
    assert 0 <= corner.x() < w.width()                                        # the button itself is in view
    actions = button.fill()
    assert [a.text() for a in actions] == [w.tabs.tabText(i) for i in range(w.tabs.count())]
    assert actions[0].isChecked()
    target = next(a for a in actions if a.text() == "Embeddings")
    target.trigger()
    assert w.tabs.tabText(w.tabs.currentIndex()) == "Embeddings"


def test_a_run_whose_evaluate_every_is_above_its_steps_says_so_in_its_log(tmp_path):
    """The headless side of the tenth trial's Evaluate every 90 for a 60-step run: the worker's log says it."""
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
