"""Predictions in the GUI, offscreen: Predict on a file (the inspector server's "predict" op), the Predictions
page (sort by margin, filter, correct two rows by key and drop-down, save the labelled file, the probabilities in
view), the review restored on reopening, the pages shown again after a restart, and "Fine-tune on corrected rows"
filling the launcher."""

from __future__ import annotations

import csv
import dataclasses
import json
import os

import numpy as np
from helpers import save_tiny_model, write_tiny_classification
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTabBar
from test_predict_review import _classification_predictions

from explorer.ui.inspectors.predictions_view import PredictDialog, PredictionsView, fill_launcher
from explorer.ui.inspectors.predictions_columns import TEXT_WANTED_PX

TEXTS = ["a good model", "the worst year", "fine city", "bad river", "good answer", "a bad question",
         "the first passage", "worst name", "what a city", "the model of the year"]


def _run_with_checkpoint(tmp_path):
    runs = tmp_path / "runs"
    run = runs / "run1"
    ckpt = save_tiny_model(run / "checkpoints" / "best", "classification", num_labels=2)
    cfg = json.loads((ckpt / "config.json").read_text())
    cfg["id2label"], cfg["label2id"] = {"0": "neg", "1": "pos"}, {"neg": 0, "pos": 1}
    (ckpt / "config.json").write_text(json.dumps(cfg))
    train = write_tiny_classification(tmp_path / "train.tsv")
    (run / "config.json").write_text(json.dumps({"task": "single", "model": "bundled:minilm", "train": str(train),
                                                 "dev": "", "output_dir": str(runs)}))
    data = tmp_path / "new.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["text", "label", "annotator"])
        for i in range(30):
            w.writerow([TEXTS[i % len(TEXTS)] + f" {i}", i % 2, ["neg", "pos"][(i // 3) % 2]])
    return runs, ckpt, data


def predict_through_dialog(qtbot, ckpt, data):
    dialog = PredictDialog(str(ckpt))
    qtbot.addWidget(dialog)
    dialog.set_data(str(data))
    assert dialog.text_columns() == ["text"]
    assert dialog.out_edit.text().endswith("new.predictions.csv")
    with qtbot.waitSignal(dialog.finished_predictions, timeout=60_000) as blocker:
        dialog.start()
    return blocker.args[0]


def test_predict_dialog_ticks_the_training_runs_text_column_in_the_new_file(qtbot, tmp_path):
    """The run trained on "utterance"; a new file with "Utterance" and "text": the dialog ticks "Utterance" (the
    run's column, matched ignoring case), not the usual name "text"."""
    _runs, ckpt, _data = _run_with_checkpoint(tmp_path)
    run_cfg = ckpt.parent.parent / "config.json"
    run_cfg.write_text(json.dumps(dict(json.loads(run_cfg.read_text()), text_columns=["utterance"])))
    new = tmp_path / "other.csv"
    new.write_text("text,Utterance\nnote one,a good model\n")
    dialog = PredictDialog(str(ckpt))
    qtbot.addWidget(dialog)
    dialog.set_data(str(new))
    assert dialog.text_columns() == ["Utterance"]


def test_predict_review_save_reopen_finetune(qtbot, tmp_path):
    from explorer.ui.launch.launcher import LauncherPanel

    runs, ckpt, data = _run_with_checkpoint(tmp_path)
    summary = predict_through_dialog(qtbot, ckpt, data)
    assert summary["rows"] == 30 and summary["label_names"] == ["neg", "pos"]

    page = PredictionsView()
    qtbot.addWidget(page)
    page.open(summary["out"], summary)
    m = page.model
    assert m.headers[:4] == ["#", "reviewed", "label", "text"]      # the text in view, not past the predictions
    margin_col = m.headers.index("margin")
    shown = [float(m.data(m.index(r, margin_col))) for r in range(m.rowCount())]
    assert shown == sorted(shown) and m.rowCount() == 30          # least certain first
    page.view.sortByColumn(margin_col, Qt.SortOrder.DescendingOrder)
    shown = [float(m.data(m.index(r, margin_col))) for r in range(m.rowCount())]
    assert shown == sorted(shown, reverse=True)
    page.sort_least_certain()
    assert "Model vs gold <b>label_in_file</b> (30 rows)" in page.metrics.text()
    assert "accuracy (%) " in page.metrics.text() and "macro F1 (%) " in page.metrics.text()   # the metric table's
    assert page.confusion.rowCount() == 2 and sum(int(page.confusion.item(i, j).text())
                                                  for i in range(2) for j in range(2)) == 30
    page.person.setCurrentText("annotator")
    assert "Cohen's κ" in page.metrics.text()

    # correct two rows: the first by key, the second by the drop-down
    page.view.selectRow(0)
    first = page.current_row()
    other = "pos" if m.predicted[first] == "neg" else "neg"
    qtbot.keyClick(page.view, "1" if other == "neg" else "2")
    page.view.selectRow(1)
    second = page.current_row()
    other2 = "pos" if m.predicted[second] == "neg" else "neg"
    page.label_box.setCurrentText(other2)
    page.label_box.activated.emit(page.label_box.currentIndex())
    qtbot.keyClick(page.view, Qt.Key.Key_R)
    assert page.review.labels == {first: other, second: other2} and page.corrected() == 2
    assert "2 corrected" in page.info.text()
    label_col = m.headers.index("label")
    assert m.data(m.index(0, label_col)) == other

    said = []
    page.message.connect(said.append)
    out = page.save_labelled(tmp_path / "labelled.jsonl")
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) == 30 and list(rows[0]) == ["text", "label_in_file", "annotator", "label", "label_source", "p_neg", "p_pos"]
    assert f"({page.state.reviewed()} reviewed)" in said[-1] and f"{page.state.reviewed()} reviewed" in page.info.text()
    assert [i for i, r in enumerate(rows) if r["label_source"] == "person"] == sorted([first, second])
    assert rows[first]["label"] == other

    # closing loses nothing: a new page on the same file restores the review
    again = PredictionsView()
    qtbot.addWidget(again)
    again.open(summary["out"])
    assert again.review.labels == {first: other, second: other2} and again.corrected() == 2
    assert again.review.person_column == "annotator"

    # fine-tune on the corrected rows fills the launcher; the run held 2 training rows out as dev
    # (dev_split.csv): the next run is measured on those same rows, not on a new split
    from explorer.core.data.classification import load_classification
    from explorer.core.data.split import stratified_split, write_dev_split
    from explorer.core.runs.layout import dev_split_file

    run_cfg = json.loads((runs / "run1" / "config.json").read_text())
    train_data = load_classification(run_cfg["train"])
    held, _ = stratified_split(train_data.labels, 0.25, 0)
    write_dev_split(dev_split_file(runs / "run1"), train_data, held)
    launcher = LauncherPanel(runs)
    qtbot.addWidget(launcher)
    said = []
    launcher.status_message.connect(said.append)
    # the form holds another recipe and a remote host from earlier launches: the first run's recipe wins, its
    # unset learning_rate and max_seq_length (the task's defaults) included, and it runs on this machine
    launcher.set_config(dataclasses.replace(launcher.config(), learning_rate=1e-4, max_seq_length=256))
    chosen = []
    launcher.run_on.host_name = lambda: "gpubox"
    launcher.run_on.choose = chosen.append
    again.finetune_requested.connect(lambda fields, note: fill_launcher(launcher, fields, note))
    fields, note = again.finetune()
    cfg = launcher.config()
    assert run_cfg.get("learning_rate") is None and run_cfg.get("max_seq_length") is None
    assert cfg.learning_rate is None and cfg.max_seq_length is None
    assert chosen == ["This machine"] and "Run on: this machine" in launcher.banner.whole_text()
    assert cfg.train == fields["train"] and cfg.task == "single" and cfg.text_columns == ["sentence"]
    # "fine-tune again": from the reviewed checkpoint (same head, same classes), in the form and its command line
    assert cfg.label_column == "label" and cfg.model == again.review.model and "checkpoints" in cfg.model
    assert cfg.model in launcher.command.toPlainText()
    assert "starts from the reviewed checkpoint" in note and "set Model" not in note
    # sized to the reviewed rows, said in the launcher before Launch: the rows, the epochs and the steps
    assert cfg.epochs == 3.0 and cfg.max_steps == 0
    assert "A short fine-tune sized to the reviewed rows: 3 epochs over the 2 reviewed rows" in \
        launcher.banner.whole_text() and "optimizer steps at batch" in launcher.banner.whole_text()
    combined = list(csv.DictReader(open(cfg.train, encoding="utf-8"), delimiter="\t"))
    assert len(combined) == 8 - 2 + 2 and str(runs / ".corrections") in cfg.train
    dev_rows = list(csv.DictReader(open(cfg.dev, encoding="utf-8"), delimiter="\t"))
    # with a dev file no Dev fraction is written (never both), so no split is made
    assert [r["sentence"] for r in dev_rows] == [train_data.texts_a[k] for k in held] and cfg.resolved_dev_fraction() == 0
    assert not {r["sentence"] for r in dev_rows} & {r["sentence"] for r in combined}
    assert "one train file" in note and len(said) == 1 and said[0].startswith(note) and note.startswith("The dev rows are the first run's")
    assert "held out (its dev_split.csv)" in launcher.banner.whole_text() and not launcher.hint.isVisible()
    if os.environ.get("EXPLORER_SHOTS"):   # a look at the filled launcher: EXPLORER_SHOTS=/tmp/corrected_shots
        launcher.resize(1280, 800)
        launcher.grab().save(os.path.join(os.environ["EXPLORER_SHOTS"], "launcher_after_finetune.png"))


def test_filter_by_predicted_label_and_qa_order(qtbot, tmp_path):
    from explorer.core.predict.review import Review, load_predictions
    from explorer.core.predict.writing import write_table

    cols = ["question", "context", "answer", "score_diff", "decision", "error"]
    rows = [{"question": f"q{i}", "context": "c", "answer": "a" if d > 0 else "", "score_diff": d,
             "decision": "answer" if d > 0 else "abstain", "error": ""} for i, d in enumerate([3.0, -0.2, 1.1, -4.0])]
    path = write_table(tmp_path / "qa.csv", cols, rows)
    review = Review.from_summary({"out": str(path), "kind": "qa", "tau": 1.0, "input_columns": cols[:2],
                                  "text_columns": ["question", "context"]})
    page = PredictionsView()
    qtbot.addWidget(page)
    page.set_predictions(load_predictions(path), review)
    m = page.model
    assert [m.file_row(r) for r in range(4)] == [2, 1, 0, 3]      # |score_diff - τ| ascending
    table, review = load_predictions(path), Review.from_summary({"out": str(path), "kind": "classification",
                                                                 "label_names": ["a", "b"]})
    table.columns.append("predicted_label")
    table.cells.append(["a", "b", "a", "b"])
    page.set_predictions(table, review)
    page.filter.setCurrentText("b")
    assert page.model.rowCount() == 2 and np.all(np.isin(page.model.order, [1, 3]))


def test_main_window_opens_a_predictions_tab_and_fills_its_launcher(qtbot, tmp_path):
    import sys

    from explorer.core.predict.engine import predict_file
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    runs, ckpt, data = _run_with_checkpoint(tmp_path)
    summary = predict_file(str(ckpt), str(data), str(tmp_path / "p.csv")).to_dict()
    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    torch_before = "torch" in sys.modules
    dialog = w.predict_on_file(str(ckpt))
    dialog.set_data(str(data))
    assert dialog.text_columns() == ["text"] and ("torch" in sys.modules) == torch_before   # header read torch-free
    dialog.close()
    page = w.open_predictions(summary)
    assert w.tabs.tabText(w.tabs.currentIndex()) == "Predictions: p.csv"
    page.set_label(0, "pos" if page.model.predicted[0] == "neg" else "neg")
    page.finetune()
    assert w.tabs.currentWidget() is w.launcher and w.launcher.config().train.endswith("-plus-corrected-p.tsv")


def test_dialog_cancel_then_resume_writes_each_row_once(qtbot, tmp_path):
    runs, ckpt, _ = _run_with_checkpoint(tmp_path)
    data = tmp_path / "big.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "text"])
        w.writerows([i, TEXTS[i % len(TEXTS)]] for i in range(5000))
    dialog = PredictDialog(str(ckpt))
    qtbot.addWidget(dialog)
    dialog.set_data(str(data))
    dialog.start()
    dialog.cancel()
    qtbot.waitUntil(lambda: dialog.request_id is None, timeout=60_000)
    assert dialog.status.text().startswith("Cancelled") and dialog.resume.isChecked()
    with qtbot.waitSignal(dialog.finished_predictions, timeout=120_000) as blocker:
        dialog.start()
    assert blocker.args[0]["rows"] == 5000
    rows = list(csv.DictReader(open(blocker.args[0]["out"], encoding="utf-8")))
    assert [int(r["id"]) for r in rows] == list(range(5000))


def test_the_dialog_closes_once_its_predictions_open_elsewhere(qtbot, tmp_path):
    """The Predict dialog does not stay on top of the Predictions page that shows its result."""
    from explorer.ui.inspectors.predictions_view import open_predict_dialog

    opened = []
    dialog = open_predict_dialog(None, "", client=object(), on_finished=opened.append)
    qtbot.addWidget(dialog)
    assert dialog.isVisible()
    dialog._done({"rows": 3, "out": str(tmp_path / "p.csv"), "errors": 0})
    assert opened and opened[0]["rows"] == 3 and not dialog.isVisible()


def _four_row_page(qtbot, tmp_path):
    """A Predictions page of four classified rows (neg / pos, margins 0.2 .. 3.2)."""
    from explorer.core.predict.writing import write_table

    cols = ["text", "predicted_label", "p_neg", "p_pos", "margin"]
    rows = [{"text": t, "predicted_label": "neg" if i % 2 else "pos", "p_neg": 0.4, "p_pos": 0.6, "margin": 0.2 + i}
            for i, t in enumerate(TEXTS[:4])]
    path = write_table(tmp_path / "few.predictions.csv", cols, rows)
    page = PredictionsView()
    qtbot.addWidget(page)
    page.open(path, {"kind": "classification", "label_names": ["neg", "pos"], "input_columns": ["text"],
                     "text_columns": ["text"]})
    return page


def test_r_marks_reviewed_and_moves_on_wherever_the_row_has_focus_and_shift_r_un_marks(qtbot, tmp_path):
    """r marks the current row reviewed and the row under it becomes current, from the table, the label drop-down
    and the row's text; r on a reviewed row leaves it reviewed; Shift+R un-marks the current row and stays; Ctrl+R
    is not a review key."""
    page = _four_row_page(qtbot, tmp_path)
    page.show()
    page.view.selectRow(0)
    first = page.current_row()
    qtbot.keyClick(page.view, "r")
    second = page.current_row()
    assert first in page.review.reviewed and second != first and second not in page.review.reviewed
    qtbot.keyClick(page.label_box, "r")
    third = page.current_row()
    assert second in page.review.reviewed and third not in (first, second)
    page.view.selectRow(0)
    qtbot.keyClick(page.text, "r")                                     # already reviewed: stays so, moves on
    assert first in page.review.reviewed and page.current_row() == second
    qtbot.keyClick(page.text, "R", Qt.KeyboardModifier.ShiftModifier)  # un-marks, stays
    assert second not in page.review.reviewed and page.current_row() == second
    assert not page.reviewed_box.isChecked()
    qtbot.keyClick(page.text, "r", Qt.KeyboardModifier.ControlModifier)   # Ctrl+R: not the review key
    assert second not in page.review.reviewed and page.current_row() == second


def test_a_reviewer_typing_r_and_digits_labels_one_row_per_key(qtbot, tmp_path):
    """"r r 1 r" down the list: rows 1, 2 and 4 keep the model's label as reviewed, row 3 gets label 1 (neg)."""
    page = _four_row_page(qtbot, tmp_path)
    page.view.selectRow(0)
    shown = [page.model.file_row(r) for r in range(4)]
    assert page.state.predicted[shown[2]] == "pos"
    for key in "rr1r":
        qtbot.keyClick(page.view, key)
    assert page.review.reviewed == set(shown)
    assert page.review.labels == {shown[2]: "neg"}
    assert all(page.state.labels[i] == page.state.predicted[i] for i in (shown[0], shown[1], shown[3]))
    assert page.current_row() == shown[3]


def test_a_label_key_moves_to_the_next_row_in_the_shown_order_and_the_last_row_stays(qtbot, tmp_path):
    """A number key sets the current row's label and the row under it becomes current (the table's order, here by
    margin descending), so a list is reviewed with the keys alone; on the last row the selection stays."""
    page = _four_row_page(qtbot, tmp_path)
    page.view.sortByColumn(page.model.headers.index("margin"), Qt.SortOrder.DescendingOrder)
    page.view.selectRow(0)
    shown = [page.model.file_row(r) for r in range(4)]
    assert shown == [3, 2, 1, 0]
    for r in range(4):
        assert page.current_row() == shown[r]
        qtbot.keyClick(page.view, "1")
        assert shown[r] in page.review.reviewed and page.state.labels[shown[r]] == "neg"
    assert page.current_row() == shown[-1] and page.view.currentIndex().row() == 3
    assert page.text.toPlainText()   # the side pane shows the row the key moved to


def test_the_page_says_in_amber_how_many_rows_the_run_trained_on(qtbot, tmp_path):
    """Predicting the run's own training file: the page says "8 of these 8 rows were in the run's training data…"
    over the table; a file of new texts, or the training file gone, says nothing."""
    from explorer.core.predict.engine import predict_file

    _runs, ckpt, data = _run_with_checkpoint(tmp_path)
    train = tmp_path / "train.tsv"
    page = PredictionsView()
    qtbot.addWidget(page)
    summary = predict_file(str(ckpt), str(train), str(tmp_path / "train.predictions.csv"))
    page.open(summary.out, summary.to_dict())
    qtbot.waitUntil(lambda: page.notes_shown_for is page.state, timeout=30000)
    assert not page.file_notes.isHidden()
    assert page.file_notes.text() == ("8 of these 8 rows were in the run's training data: their predictions are "
                                      "not a fair test of the model.")
    assert "color: #b35c00" in page.file_notes.styleSheet()
    new = predict_file(str(ckpt), str(data), str(tmp_path / "new.predictions.csv"))
    page.open(new.out, new.to_dict())
    qtbot.waitUntil(lambda: page.notes_shown_for is page.state, timeout=30000)
    assert page.file_notes.isHidden()
    train.unlink()
    page.open(summary.out)
    qtbot.waitUntil(lambda: page.notes_shown_for is page.state, timeout=30000)
    assert page.file_notes.isHidden()


def test_a_file_without_a_label_column_heads_the_reviewed_label_column_plainly_label(qtbot, tmp_path):
    """A predicted file with no label column of its own: the column of the model's (then the person's) label is
    titled "label", and no column reads "label_in_file"; Save labelled file… writes it as "label". A file with its
    own label column keeps "label" for the reviewed one and "label_in_file" for the file's."""
    from explorer.core.predict.engine import predict_file

    _runs, ckpt, data = _run_with_checkpoint(tmp_path)
    plain = tmp_path / "unlabelled.csv"
    plain.write_text("text,annotator\n" + "".join(f"{TEXTS[i % len(TEXTS)]} {i},neg\n" for i in range(6)),
                     encoding="utf-8")
    page = PredictionsView()
    qtbot.addWidget(page)
    summary = predict_file(str(ckpt), str(plain), str(tmp_path / "unlabelled.predictions.csv"))
    page.open(summary.out, summary.to_dict())
    m = page.model
    titles = [m.headerData(k, Qt.Orientation.Horizontal) for k in range(m.columnCount())]
    assert titles[m.headers.index("label")] == "label" and "label_in_file" not in titles
    saved = list(csv.DictReader(open(page.save_labelled(tmp_path / "labelled.csv"), encoding="utf-8")))
    assert list(saved[0])[:4] == ["text", "annotator", "label", "label_source"]
    summary = predict_file(str(ckpt), str(data), str(tmp_path / "new.predictions.csv"))
    page.open(summary.out, summary.to_dict())
    m = page.model
    titles = [m.headerData(k, Qt.Orientation.Horizontal) for k in range(m.columnCount())]
    assert titles.count("label") == 1 and titles.count("label_in_file") == 1
    assert titles[m.headers.index("label")] == "label"


def test_the_files_own_label_column_shows_its_gold_as_label_in_file_beside_the_reviewed_label(qtbot, tmp_path):
    """A predicted file with its own "label" column (gold ids 0 / 1): the table shows those gold values under
    "label_in_file", the name Save labelled file… gives it, beside the reviewed "label" (the model's or the
    person's), never the reviewed label twice; the model is measured against it and it sorts by its own values.
    A run trained on another label column ("sentiment") is measured against that column of the file."""
    from explorer.core.predict.engine import predict_file

    _runs, ckpt, data = _run_with_checkpoint(tmp_path)
    summary = predict_file(str(ckpt), str(data), str(tmp_path / "new.predictions.csv"))
    page = PredictionsView()
    qtbot.addWidget(page)
    page.open(summary.out, summary.to_dict())
    m = page.model
    assert m.headers.count("label") == 1 and m.headers.count("label_in_file") == 1
    gold_col, label_col = m.headers.index("label_in_file"), m.headers.index("label")
    assert m.headerData(gold_col, Qt.Orientation.Horizontal) == "label_in_file"
    assert "the file's own label column" in m.headerData(gold_col, Qt.Orientation.Horizontal,
                                                         Qt.ItemDataRole.ToolTipRole)
    gold = page.table_data.column("label")
    assert [m.data(m.index(r, gold_col)) for r in range(m.rowCount())] == [gold[m.file_row(r)]
                                                                           for r in range(m.rowCount())]
    assert [m.data(m.index(r, label_col)) for r in range(m.rowCount())] == [m.predicted[m.file_row(r)]
                                                                            for r in range(m.rowCount())]
    page.view.sortByColumn(gold_col, Qt.SortOrder.AscendingOrder)
    shown = [m.data(m.index(r, gold_col)) for r in range(m.rowCount())]
    assert shown == sorted(shown) and set(shown) == {"0", "1"}
    assert "Model vs gold <b>label_in_file</b> (30 rows)" in page.metrics.text()
    page.select_file_row(0)
    assert "label_in_file: 0" in page.text.toHtml() or "label_in_file: 0" in page.text.toPlainText()
    saved = list(csv.DictReader(open(page.save_labelled(tmp_path / "labelled.csv"), encoding="utf-8")))
    assert [r["label_in_file"] for r in saved] == gold
    # the person's and the annotators' lists name it so too, and pick the file's column
    assert [page.person.itemText(k) for k in range(page.person.count())] == ["none", "label_in_file", "annotator"]
    page.person.setCurrentText("label_in_file")
    assert page.review.person_column == "label" and "Model vs person <b>label_in_file</b>" in page.metrics.text()
    item = page.annotator_list.item(0)
    assert item.text() == "label_in_file"
    item.setCheckState(Qt.CheckState.Checked)
    assert page.review.annotator_columns == ["label"] and "label_in_file ticked" in page.annotator_note.text()

    run_cfg = ckpt.parent.parent / "config.json"
    run_cfg.write_text(json.dumps(dict(json.loads(run_cfg.read_text()), label_column="sentiment")))
    other = tmp_path / "other.csv"
    other.write_text("text,sentiment,label\na good model,pos,x\nthe worst year,neg,x\n", encoding="utf-8")
    summary = predict_file(str(ckpt), str(other), str(tmp_path / "other.predictions.csv"))
    page.open(summary.out, summary.to_dict())
    assert page.review.gold_column == "sentiment" and "Model vs gold <b>sentiment</b> (2 rows)" in page.metrics.text()


def test_the_training_rows_count_reads_the_runs_training_file_off_the_gui_thread(qtbot, tmp_path, monkeypatch):
    """Counting the predicted rows the run trained on reads the run's whole training file (a second for SST-2):
    the page finds it on a worker thread, so opening a Predictions page never waits for it."""
    import threading

    from explorer.core.predict import seen
    from explorer.core.predict.engine import predict_file

    _runs, ckpt, _data = _run_with_checkpoint(tmp_path)
    summary = predict_file(str(ckpt), str(tmp_path / "train.tsv"), str(tmp_path / "train.predictions.csv"))
    threads, real = [], seen.training_keys
    monkeypatch.setattr(seen, "training_keys", lambda *a, **k: (threads.append(threading.current_thread()),
                                                                real(*a, **k))[1])
    page = PredictionsView()
    qtbot.addWidget(page)
    page.open(summary.out, summary.to_dict())
    qtbot.waitUntil(lambda: page.notes_shown_for is page.state, timeout=30000)
    assert threads and threading.main_thread() not in threads
    assert page.file_notes.text().startswith("8 of these 8 rows")


def test_the_page_says_which_empty_lines_of_the_input_were_skipped(qtbot, tmp_path):
    """A one-text-per-line input with empty lines among its texts: the page says "2 empty rows skipped (lines 2,
    4)" over the table, the rows keep their own lines in the first column."""
    from explorer.core.predict.engine import predict_file

    _runs, ckpt, _data = _run_with_checkpoint(tmp_path)
    data = tmp_path / "texts.txt"
    data.write_text("one new text\n\nanother new text\n\na third new text\n", encoding="utf-8")
    summary = predict_file(str(ckpt), str(data), str(tmp_path / "texts.predictions.csv"))
    page = PredictionsView()
    qtbot.addWidget(page)
    page.open(summary.out, summary.to_dict())
    qtbot.waitUntil(lambda: page.notes_shown_for is page.state, timeout=30000)
    assert not page.file_notes.isHidden() and page.file_notes.text() == "2 empty rows skipped (lines 2, 4)"
    m = page.model
    assert sorted(int(m.data(m.index(r, 0))) for r in range(m.rowCount())) == [1, 3, 5]


def test_the_predictions_table_keeps_the_probabilities_in_view_and_elides_the_text(qtbot, tmp_path):
    """The probability columns are in view at 1280x800 and 1920x1080 (not off to the right with only #, reviewed,
    label, id and text in view); the text column elides, its whole text in the tooltip."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.columns import MIN_TEXT_COLUMN
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())
    table, review = _classification_predictions(tmp_path)
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
        # the text readable, not 115 px of it at 1280x800: the side pane goes under the table when both do not fit
        assert view.columnWidth(text) >= TEXT_WANTED_PX, (size, view.columnWidth(text))
        assert m.data(m.index(0, text), Qt.ItemDataRole.ToolTipRole) == table.column("text")[m.file_row(0)]


def test_an_empty_row_has_no_label_in_the_review(qtbot, tmp_path):
    """The empty row of the input CSV ("error: line 6: empty 'text'") has no label in the review: its Label box is
    empty and off (never the previous row's FAVOR), and a label key says why."""
    from explorer.ui.inspectors.predictions_view import PredictionsView

    table, review = _classification_predictions(tmp_path)
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


def test_the_review_page_says_which_key_sets_which_label(qtbot, tmp_path):
    """The Label box's tooltip and the line over the table name each key's label in id order ("1 = AGAINST, 2 =
    FAVOR, 3 = NONE"), so classes named by numbers ("-1", "1") are told apart from their keys too."""
    from explorer.ui.inspectors.predictions_view import PredictionsView

    table, review = _classification_predictions(tmp_path)
    page = PredictionsView()
    qtbot.addWidget(page)
    page.set_predictions(table, review)
    assert "keys 1 = AGAINST, 2 = FAVOR, 3 = NONE" in page.label_box.toolTip()
    assert ("keys 1 = AGAINST, 2 = FAVOR, 3 = NONE set the label and R marks reviewed, each moving to the next row"
            in page.info.text())
    page.side.set_file(["-1", "1"], [], [])
    assert "keys 1 = -1, 2 = 1" in page.label_box.toolTip()


def test_the_fine_tune_button_says_which_rows_go_in(qtbot):
    from explorer.ui.inspectors.predictions_view import PredictionsView

    page = PredictionsView()
    qtbot.addWidget(page)
    assert page.finetune_button.text() == "Fine-tune on reviewed rows"
    tip = page.finetune_button.toolTip()
    assert "corrected, with your label" in tip and "confirmed, with the model's label" in tip
    assert "Rows not reviewed and rows with an error stay out" in tip


QA_COLUMNS = ["question", "context", "answer", "score_diff", "decision", "error"]


def _qa_predictions(path):
    from explorer.core.predict.writing import write_table

    rows = [{"question": f"where was person {i} born?", "context": "ada was born in london.",
             "answer": "london" if d > 0 else "", "score_diff": d, "decision": "answer" if d > 0 else "abstain",
             "error": ""} for i, d in enumerate([3.0, -0.2, 1.1])]
    out = write_table(path, QA_COLUMNS, rows)
    return {"out": str(out), "kind": "qa", "tau": 1.0, "input_columns": QA_COLUMNS[:2], "text_columns": QA_COLUMNS[:2]}


def _window(qtbot, tmp_path, ini):
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(ini), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    return w


def _titles(w) -> list[str]:
    return [w.tabs.tabText(i) for i in range(w.tabs.count())]


def test_predictions_pages_come_back_after_a_restart_and_a_closed_one_does_not(qtbot, tmp_path):
    """The predictions files shown are kept in the settings and opened again at start, behind the current tab and
    in "Tabs ▾" (a file gone since is skipped with a status note); the × on a Predictions tab closes it for good."""
    kept, gone = _qa_predictions(tmp_path / "kept.predictions.csv"), _qa_predictions(tmp_path / "gone.predictions.csv")
    ini = tmp_path / "s.ini"
    w = _window(qtbot, tmp_path, ini)
    w.open_predictions(kept)
    w.open_predictions(gone)
    w.close()
    w.settings.sync()
    (tmp_path / "gone.predictions.csv").unlink()

    again = _window(qtbot, tmp_path, ini)
    again.show()
    first = again.tabs.currentIndex()
    qtbot.waitUntil(lambda: "Predictions: kept.predictions.csv" in _titles(again), timeout=10_000)
    assert "Predictions: gone.predictions.csv" not in _titles(again)
    assert again.tabs.currentIndex() == first                      # restored behind, not brought to the front
    listed = [a.text() for a in again.tab_list.fill()]
    assert "Predictions: kept.predictions.csv" in listed          # and in Tabs ▾
    page = again.tabs.widget(_titles(again).index("Predictions: kept.predictions.csv"))
    assert page.review.kind == "qa" and page.review.tau == 1.0 and len(page.table_data) == 3
    note = "1 predictions file shown before no longer exists and was skipped: " + str(tmp_path / "gone.predictions.csv")
    assert note in again.settings_note
    assert again.settings.predictions_pages() == [str(tmp_path / "kept.predictions.csv")]

    close = again.tabs.tabBar().tabButton(again.tabs.indexOf(page), QTabBar.ButtonPosition.RightSide)
    close.click()
    assert "Predictions: kept.predictions.csv" not in _titles(again)
    assert again.settings.predictions_pages() == []
    again.close()
    again.settings.sync()
    third = _window(qtbot, tmp_path, ini)
    third.show()
    qtbot.waitExposed(third)
    assert not any(t.startswith("Predictions") for t in _titles(third))


def test_reopening_a_file_whose_saved_review_has_more_rows_opens_it(qtbot, tmp_path):
    """The predictions file was written again, shorter, beside its saved review: the page opens (no IndexError in
    the corrected count) and counts only the file's rows."""
    from explorer.core.predict.review import Review
    from explorer.core.predict.writing import write_table

    cols = ["text", "predicted_label", "p_neg", "p_pos", "margin"]
    rows = [{"text": t, "predicted_label": "pos", "p_neg": 0.4, "p_pos": 0.6, "margin": 0.2} for t in TEXTS[:3]]
    path = write_table(tmp_path / "short.predictions.csv", cols, rows)
    summary = {"kind": "classification", "label_names": ["neg", "pos"], "input_columns": ["text"],
               "text_columns": ["text"]}
    review = Review.from_summary({"out": str(path), **summary})
    review.labels.update({1: "neg", 7: "neg"})
    review.reviewed.update({1, 7, 9})
    review.save()
    page = PredictionsView()
    qtbot.addWidget(page)
    page.open(path, summary)
    assert page.state.corrected() == 1 and "1 corrected</b>, 1 reviewed" in page.state.info(3)


def test_probability_titles_are_whole_in_the_bold_a_selected_row_gives_them(qtbot, tmp_path):
    """A selected row highlights every column title in bold: the class-named probability columns are as wide as
    their bold titles ("positive", not "positi…")."""
    from explorer.core.predict.writing import write_table
    from explorer.ui.shell.layout_check import header_need

    cols = ["text", "predicted_label", "p_negative", "p_positive", "margin", "error"]
    rows = [{"text": f"a sentence about the film number {i}", "predicted_label": "positive", "p_negative": 0.25,
             "p_positive": 0.75, "margin": 0.5, "error": ""} for i in range(5)]
    path = write_table(tmp_path / "p.csv", cols, rows)
    page = PredictionsView()
    qtbot.addWidget(page)
    page.resize(850, 600)
    page.open(str(path), {"out": str(path), "kind": "classification", "label_names": ["negative", "positive"],
                          "input_columns": ["text"], "text_columns": ["text"], "model": "m", "rows": 5})
    page.show()
    page.fit_text_columns()
    header, m = page.view.horizontalHeader(), page.model
    assert header.highlightSections()
    for name in ("p_negative", "p_positive"):
        c = m.headers.index(name)
        title = str(m.headerData(c, Qt.Orientation.Horizontal))
        assert page.view.columnWidth(c) >= header_need(header, c, title, bold=True), name


def test_the_first_column_is_the_input_files_line_or_says_it_is_the_row_number(qtbot, tmp_path):
    """The first column shows where a row starts in the input file (a quoted text over two lines moves the rows
    after it down a line), titled "line"; without the input file it is titled "row" and its tooltip says it is
    the data row's number, not a line or an id."""
    from explorer.core.predict.review import Review, load_predictions
    from explorer.core.predict.writing import write_table

    data = tmp_path / "new_texts.csv"
    data.write_text('text\nfirst\n"second,\ncontinued"\nthird\n', encoding="utf-8")
    cols = ["text", "predicted_label", "p_neg", "p_pos", "margin", "error"]
    rows = [{"text": t, "predicted_label": "pos", "p_neg": 0.4, "p_pos": 0.6, "margin": 0.2, "error": ""}
            for t in ("first", "second, continued", "third")]
    path = write_table(tmp_path / "pred.csv", cols, rows)
    shown = {}
    for name, source in (("with", str(data)), ("without", str(tmp_path / "moved.csv"))):
        review = Review.from_summary({"out": str(path), "kind": "classification", "label_names": ["neg", "pos"],
                                      "input_columns": ["text"], "text_columns": ["text"], "data": source})
        page = PredictionsView()
        qtbot.addWidget(page)
        page.set_predictions(load_predictions(path), review)
        m = page.model
        m.sort(0)
        shown[name] = (m.headerData(0, Qt.Orientation.Horizontal), [m.data(m.index(r, 0)) for r in range(3)],
                       m.headerData(0, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole))
    assert shown["with"][:2] == ("line", ["2", "3", "5"]) and "new_texts.csv (its header is line 1)" in shown["with"][2]
    assert shown["without"][:2] == ("row", ["1", "2", "3"]) and "not a line number" in shown["without"][2]


# a character no font holds (the last private-use code point), standing for an emoji on a computer without an
# emoji font: Qt draws it as an empty box in the table and in the side pane alike
NO_GLYPH = "\U0010FFFD"


def test_the_table_and_the_side_pane_draw_text_with_the_same_font(qtbot, tmp_path):
    """The table's cells and the side pane resolve to the same font, so a character one of them draws the other
    draws too (a smiley drawn in the pane and a party popper as a box in the table were two characters, one of
    them in no installed font)."""
    from PySide6.QtGui import QFontInfo

    table, review = _classification_predictions(tmp_path)
    page = PredictionsView()
    qtbot.addWidget(page)
    page.set_predictions(table, review)
    assert QFontInfo(page.view.font()).family() == QFontInfo(page.text.font()).family()


def test_characters_no_font_draws_are_named_in_the_pane_and_the_tooltip(qtbot, tmp_path):
    from explorer.ui.shell.glyphs import undrawable, undrawable_note

    rows = [{"id": "1", "text": f"I loved every minute of it {NO_GLYPH}{NO_GLYPH} café 😀", "author": "a",
             "predicted_label": "FAVOR", "p_AGAINST": "0.1", "p_FAVOR": "0.8", "p_NONE": "0.1", "margin": "0.7",
             "error": ""} for _ in range(6)]
    table, review = _classification_predictions(tmp_path, rows)
    page = PredictionsView()
    qtbot.addWidget(page)
    page.set_predictions(table, review)
    page.select_file_row(0)
    assert "U+10FFFD" in page.text.toPlainText() and "the file keeps them" in page.text.toPlainText()
    m = page.model
    text_col = [m.headerData(c, Qt.Orientation.Horizontal) for c in range(m.columnCount())].index("text")
    tip = m.data(m.index(0, text_col), Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith(rows[0]["text"]) and "U+10FFFD" in tip
    assert undrawable(f"abc é \u200d{NO_GLYPH}{NO_GLYPH}", page.text.font()) == [NO_GLYPH]   # named once
    assert undrawable_note([]) == ""


def test_a_corrected_label_in_bold_is_not_cut(qtbot, tmp_path):
    """A person's label is drawn in bold: the label column widens for it ("AGAINST" read "AGAI…" once
    corrected, its column sized for the model's labels in the normal font)."""
    table, review = _classification_predictions(tmp_path)
    page = PredictionsView()
    qtbot.addWidget(page)
    page.set_predictions(table, review)
    page.resize(1200, 700)
    page.show()
    qtbot.waitExposed(page)
    col = page.model.headers.index("label")
    row = next(r for r in range(page.model.rowCount()) if page.model.predicted[int(page.model.order[r])] == "NONE")
    page.set_label(int(page.model.order[row]), "AGAINST")
    assert page.view.columnWidth(col) >= page.view.sizeHintForColumn(col)


def test_the_review_table_keeps_its_rows_in_view_at_1280x800_with_a_gold_column_and_two_pages(qtbot, tmp_path):
    """At 1280x800 the side pane goes under the table; with a gold label column (its confusion matrix), the
    annotator columns and a second Predictions page (the tab bar on three rows) the table still shows at least
    eight rows, the pane scrolls instead of squeezing it, and the splitter between them follows a drag."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())
    first, review = _classification_predictions(tmp_path / "a")
    review.save()
    classes = ["AGAINST", "FAVOR", "NONE"]
    rows = [{"id": str(i), "text": f"a question of some length number {i}", "label": classes[(i + 1) % 3],
             "predicted_label": classes[i % 3], "p_AGAINST": "0.4165", "p_FAVOR": "0.5306", "p_NONE": "0.0529",
             "margin": f"{0.1 + i / 100:.4f}", "error": ""} for i in range(1, 40)]
    gold, gold_review = _classification_predictions(tmp_path / "b", rows=rows)
    gold_review.input_columns, gold_review.gold_column = ["id", "text", "label"], "label"
    gold_review.save()
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.resize(1280, 800)
    w.show()
    w.open_predictions(first.path)
    page = w.open_predictions(gold.path)
    qtbot.waitUntil(lambda: getattr(page, "_split_fitted", False))
    qtbot.waitUntil(lambda: page.confusion.isVisible())
    QApplication.processEvents()
    assert page.split.orientation() == Qt.Orientation.Vertical
    row_px = page.view.verticalHeader().defaultSectionSize()
    assert page.view.viewport().height() >= 8 * row_px, (page.view.viewport().height(), row_px)
    assert "Model vs gold" in page.metrics.text() and not page.metrics.visibleRegion().isEmpty()   # in view
    # the gold matrix's titles whole: each column as wide as its title in the bold a selected cell draws it in, and
    # inside the header's visible width ("pred AGAINST" was cut by Qt's 100 px default section)
    from explorer.ui.shell.layout_check import header_need

    header = page.confusion.horizontalHeader()
    for k in range(page.confusion.columnCount()):
        title, left, size = page.confusion.horizontalHeaderItem(k).text(), header.sectionViewportPosition(k), \
            header.sectionSize(k)
        assert header_need(header, k, title, bold=True) <= size, (title, size)
        assert 0 <= left and left + size <= header.viewport().width(), (title, left, size)
    table, side = page.split.sizes()
    page.split.setSizes([table - 60, side + 60])
    QApplication.processEvents()
    assert page.split.sizes()[0] == table - 60


LONG_CLASS = ("यह एक लंबा अनुच्छेद है जो एक टूटे हुए उद्धरण चिह्न से लेबल बन गया। " * 28).strip()   # ~1,800 characters


def test_a_class_name_of_a_paragraph_never_widens_the_main_window(qtbot, tmp_path):
    """A predictions file whose p_ column is titled by a 1,800-character class (a broken quote in the training
    CSV) keeps the main window 1280 px wide at 1280x800: the column's title and the Label and Predicted label
    boxes are cut, the whole name in their tooltips, and the page's buttons stay inside the window."""
    from PySide6.QtWidgets import QApplication, QPushButton

    from explorer.core.predict.review import Review, load_predictions
    from explorer.core.predict.writing import write_table
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())
    names = ["Arabic", "Danish", LONG_CLASS]
    rows = [{"id": str(i), "text": f"a text of some length, number {i}", "predicted_label": names[i % 3],
             **{f"p_{n}": "0.3333" for n in names}, "margin": "0.1000", "error": ""} for i in range(9)]
    path = write_table(tmp_path / "texts.predictions.csv", list(rows[0]), rows)
    Review(str(path), "model", "texts.csv", "classification", names, ["id", "text"], ["text"]).save()
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.resize(1280, 800)
    w.show()
    page = w.open_predictions(load_predictions(path).path)
    qtbot.waitUntil(lambda: getattr(page, "_split_fitted", False))
    page.select_file_row(2)
    QApplication.processEvents()
    m = page.model
    col = m.headers.index(f"p_{LONG_CLASS}")
    assert len(m.headerData(col, Qt.Orientation.Horizontal)) <= 40
    assert LONG_CLASS in m.headerData(col, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert page.view.columnWidth(col) <= 400 and page.view.columnWidth(m.headers.index("label")) <= 400
    assert m.data(m.index(m.order.tolist().index(2), m.headers.index("label")), Qt.ItemDataRole.ToolTipRole) == LONG_CLASS
    assert w.width() <= 1280 and w.minimumSizeHint().width() <= 1280, (w.width(), w.minimumSizeHint().width())
    for box in (page.label_box, page.filter):
        assert box.sizeHint().width() <= 400, box.sizeHint().width()
    window = w.rect()
    for button in page.findChildren(QPushButton):
        if button.isVisible():
            corner = button.mapTo(w, button.rect().bottomRight())
            assert window.contains(corner), (button.text(), corner)
    w.grab().save(str(tmp_path / "predictions_long_class.png"))


def test_a_review_key_press_measures_only_the_changed_row_not_the_whole_table(qtbot, tmp_path, monkeypatch):
    """A label key on a file of many rows: the label and the reviewed mark of that row are drawn again and only its
    cells are measured for the columns' widths; no model reset or layout change, and no other row's cells are read
    (measuring every column's cells in a thousand rows made each key press of a 5,000-row file take a second)."""
    from explorer.core.predict.writing import write_table
    from explorer.ui.inspectors.predictions_view import PredictionsModel

    cols = ["text", "predicted_label", "p_neg", "p_pos", "margin"]
    rows = [{"text": f"{TEXTS[i % len(TEXTS)]} number {i} of a longer file", "predicted_label": ["neg", "pos"][i % 2],
             "p_neg": 0.4, "p_pos": 0.6, "margin": 0.2 + i / 1000} for i in range(300)]
    path = write_table(tmp_path / "many.predictions.csv", cols, rows)
    page = PredictionsView()
    qtbot.addWidget(page)
    page.open(path, {"kind": "classification", "label_names": ["neg", "pos"], "input_columns": ["text"],
                     "text_columns": ["text"]})
    page.view.selectRow(0)
    first = page.current_row()
    read, signals = set(), []
    original = PredictionsModel.data

    def counted(self, index, role=Qt.ItemDataRole.DisplayRole):
        read.add(self.file_row(index.row()))
        return original(self, index, role)

    monkeypatch.setattr(PredictionsModel, "data", counted)
    for signal in ("modelReset", "layoutChanged"):
        getattr(page.model, signal).connect(lambda *_, s=signal: signals.append(s))
    qtbot.keyClick(page.view, "1")
    assert page.state.labels[first] == "neg" and first in page.review.reviewed
    assert page.current_row() != first               # moved to the next row
    assert read <= {first} and signals == []
    label_col = page.model.headers.index("label")
    assert page.view.columnWidth(label_col) >= page.view.sizeHintForIndex(page.model.index(0, label_col)).width()


def _headerless_run(tmp_path):
    """A checkpoint whose run read its training data without a header row: texts in column 2, labels in 3."""
    runs, ckpt, _data = _run_with_checkpoint(tmp_path)
    run_cfg = ckpt.parent.parent / "config.json"
    run_cfg.write_text(json.dumps(dict(json.loads(run_cfg.read_text()), no_header=True, text_columns=["2"],
                                       label_column="3")))
    return ckpt


def test_the_predict_dialog_reads_a_headerless_file_as_the_run_did_and_the_engine_agrees(qtbot, tmp_path):
    """A run trained with No header row; a file without a header whose first line is cut short (2 of 3 fields):
    the dialog ticks No header row, lists the columns by position with a sample value, ticks column 2 (the run's),
    and Start labels every row (the cut line is that row's problem, not a missing column)."""
    ckpt = _headerless_run(tmp_path)
    data = tmp_path / "noheader.csv"
    with open(data, "w", newline="") as fh:
        fh.write('cut short text",nocode\n')
        w = csv.writer(fh)
        w.writerows([1000 + i, TEXTS[i % len(TEXTS)], ["neg", "pos"][i % 2]] for i in range(12))
    dialog = PredictDialog(str(ckpt))
    qtbot.addWidget(dialog)
    assert dialog.no_header.isChecked()
    dialog.set_data(str(data))
    assert dialog.text_columns() == ["2"]
    labels = [dialog.columns.item(k).text() for k in range(dialog.columns.count())]
    assert labels[0].startswith("1: ") and labels[1].startswith("2: ")
    with qtbot.waitSignal(dialog.finished_predictions, timeout=60_000) as blocker:
        dialog.start()
    summary = blocker.args[0]
    assert summary["rows"] == 13 and summary["text_columns"] == ["2"]
    rows = list(csv.DictReader(open(summary["out"], encoding="utf-8")))
    assert [r["predicted_label"] for r in rows[1:]] and all(r["predicted_label"] for r in rows[1:])


def test_a_file_with_a_header_predicts_for_a_headerless_run_once_no_header_row_is_unticked(qtbot, tmp_path):
    """The same run, a file whose first line names its columns (id,text,label): unticking No header row lists the
    header's names, ticks "text" (the run's column 2), and the engine reads the file with its header too."""
    ckpt = _headerless_run(tmp_path)
    data = tmp_path / "with_header.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "text", "label"])
        w.writerows([i, TEXTS[i % len(TEXTS)], ["neg", "pos"][i % 2]] for i in range(8))
    dialog = PredictDialog(str(ckpt))
    qtbot.addWidget(dialog)
    dialog.set_data(str(data))
    dialog.no_header.setChecked(False)
    assert [dialog.columns.item(k).data(Qt.ItemDataRole.UserRole) for k in range(dialog.columns.count())] == \
        ["id", "text", "label"]
    assert dialog.text_columns() == ["text"]
    with qtbot.waitSignal(dialog.finished_predictions, timeout=60_000) as blocker:
        dialog.start()
    summary = blocker.args[0]
    assert summary["rows"] == 8 and summary["errors"] == 0 and summary["text_columns"] == ["text"]


def test_a_file_whose_first_line_names_its_columns_is_read_with_its_header_for_a_headerless_run(qtbot, tmp_path):
    """A run trained on a file without a header; a file to predict whose first line is "id,text,label" above
    texts of several words: the dialog unticks No header row by itself and says why, and the engine's own rule
    (nothing said, as `predict` without --header) reads the header too: no "text" predicted as a text, no "label"
    counted as a gold class. A headerless file still reads without one."""
    from explorer.core.predict.engine import predict_file
    from explorer.core.predict.reading import reads_without_header

    ckpt = _headerless_run(tmp_path)
    texts = [f"{t} was said again today" for t in TEXTS]
    data = tmp_path / "with_header.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "text", "label"])
        w.writerows([i, texts[i % len(texts)], ["neg", "pos"][i % 2]] for i in range(12))
    bare = tmp_path / "bare.csv"
    bare.write_text("".join(f"{i},{texts[i % len(texts)]},{['neg', 'pos'][i % 2]}\n" for i in range(12)))
    run_config = json.loads((ckpt.parent.parent / "config.json").read_text())
    assert reads_without_header(run_config, None, data) is False
    assert reads_without_header(run_config, None, bare) is True
    dialog = PredictDialog(str(ckpt))
    qtbot.addWidget(dialog)
    dialog.set_data(str(data))
    assert not dialog.no_header.isChecked()
    assert [dialog.columns.item(k).data(Qt.ItemDataRole.UserRole) for k in range(dialog.columns.count())] == \
        ["id", "text", "label"]
    assert "first line names its columns" in dialog.status.text()
    summary = predict_file(str(ckpt), str(data), str(tmp_path / "out.csv"))
    assert summary.rows == 12 and list(summary.text_columns) == ["text"]
    dialog.set_data(str(bare))
    assert dialog.no_header.isChecked()


def test_a_taggers_predictions_offer_no_row_label_and_say_where_tags_are_checked(qtbot, tmp_path):
    """A CoNLL-style tagger's predictions have one tag per word: the page shows no Label box and no "1 = O,
    2 = B-LOC …" keys (a row label does not fit a tagger) and says where a sentence's tags are checked."""
    from explorer.core.predict.review import Review, load_predictions
    from explorer.core.predict.writing import write_table
    from explorer.ui.inspectors.predictions_view import PredictionsView

    cols = ["text", "entities", "words", "tags", "error"]
    rows = [{"text": "Anna lives in Paris", "entities": "PER: Anna; LOC: Paris", "words": "Anna Lives in Paris",
             "tags": "B-PER O O B-LOC", "error": ""},
            {"text": "it rains", "entities": "", "words": "it rains", "tags": "O O", "error": ""}]
    path = write_table(tmp_path / "ner.csv", cols, rows)
    review = Review.from_summary({"out": str(path), "kind": "ner", "input_columns": ["text"], "text_columns": ["text"],
                                  "label_names": ["O", "B-LOC", "I-LOC", "B-PER", "I-PER"]})
    page = PredictionsView()
    qtbot.addWidget(page)
    page.set_predictions(load_predictions(path), review)
    page.show()
    assert not page.label_box.isVisible() and not page.side.label_title.isVisible()
    assert "1 = O" not in page.info.text() and "1 = O" not in page.label_box.toolTip()
    assert "one tag per word" in page.info.text() and "Tag page" in page.info.text()
    assert page.reviewed_box.isVisible()   # R still marks a row reviewed


def test_a_headerless_files_text_column_is_titled_text_beside_numbered_classes(qtbot, tmp_path):
    """A header-less input's columns are named "1", "2" by position; beside probability columns of classes named
    "1" and "5" the table titles them "column 1" and "text", never a bare number that reads as a class."""
    path = tmp_path / "rated.predictions.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["1", "2", "predicted_label", "p_1", "p_5", "margin", "error"])
        w.writerow(["5", "a great film", "5", 0.1, 0.9, 0.8, ""])
        w.writerow(["1", "an awful film", "1", 0.7, 0.3, 0.4, ""])
    page = PredictionsView()
    qtbot.addWidget(page)
    page.open(str(path), {"out": str(path), "kind": "classification", "label_names": ["1", "5"],
                          "input_columns": ["1", "2"], "text_columns": ["2"]})
    m = page.model
    titles = [m.headerData(c, Qt.Orientation.Horizontal) for c in range(m.columnCount())]
    assert titles[m.headers.index("2")] == "text" and titles[m.headers.index("1")] == "column 1"
    assert "column 2 of the input file" in m.headerData(m.headers.index("2"), Qt.Orientation.Horizontal,
                                                        Qt.ItemDataRole.ToolTipRole)
