"""Your own labelled data in the GUI: the launcher's column pickers and class distribution for a researcher's own
table, no CLI flag in any GUI message, and Classify: dev set pre-filled from the run's config.json; a dev file
with names scored against the head's id2label by name."""

import json

import numpy as np
import pytest

from explorer.ui.launch.data_preview import (
    class_distribution_warnings,
    plain_words,
    preview_data,
)


def _stance(path, rows):
    path.write_bytes(("ID\tTarget\tTweet\tStance\r\n" + "".join(f"{i}\tX\tcaf\u00e9 {t}\t{s}\r\n"
                                                                 for i, (t, s) in enumerate(rows))).encode("cp1252"))
    return path


def test_plain_words_replace_flags_with_the_launcher_names():
    text = plain_words("2 row problems: ... (fix them, or skip such rows with --skip-invalid); use --task regression")
    assert "--" not in text and "“Skip invalid rows”" in text and "the regression task" in text


def test_class_distribution_warns_on_imbalance_and_thin_classes():
    warn = class_distribution_warnings({"big": 100, "small": 9}, 0.1)
    assert "imbalanced classes: 'small' has 9 examples, under 10% of 'big' (100)" in warn[0]
    assert "small (9)" in warn[1]
    assert class_distribution_warnings({"a": 50, "b": 40}, 0.1) == []


def _numbered_from_one(path):
    """A table as AG News writes it: header label,title,description and classes numbered 1..4."""
    path.write_text("label,title,description\n" + "".join(f"{1 + i % 4},t{i},some words of row {i}\n"
                                                            for i in range(12)), encoding="utf-8")
    return path


def test_the_preview_reads_classes_numbered_from_one_and_says_so(tmp_path):
    p = _numbered_from_one(tmp_path / "ag.csv")
    res = preview_data(str(p), "single", text_columns=["description"])
    assert res["ok"] and res["class_counts"] == {"1": 3, "2": 3, "3": 3, "4": 3} and res["counts"]["labels"] == 4
    assert any("read as 4 classes named 1..4" in m and "the regression task" in m for m in res["problems"])
    res = preview_data(str(p), "single", text_columns=["description"],
                       options={"label_names": ["World", "Sports", "Business", "Sci/Tech"]})
    assert res["ok"] and res["class_counts"] == {"World": 3, "Sports": 3, "Business": 3, "Sci/Tech": 3}
    assert res["class_ids"][:4] == [0, 1, 2, 3]   # the first row, labelled 1, is World


def test_the_message_for_a_file_without_a_text_named_column_names_the_previews_guess(tmp_path):
    res = preview_data(str(_numbered_from_one(tmp_path / "ag.csv")), "single")
    assert not res["ok"] and "description" in ", ".join(res["guess"]["text_columns"])
    assert "the guess shown for “Text columns”; to read it: type description in “Text columns”" in res["error"]


def test_preview_of_an_own_table_has_header_rows_guess_and_classes(tmp_path):
    p = _stance(tmp_path / "s.txt", [("yes", "FAVOR")] * 30 + [("no", "AGAINST")] * 2)
    res = preview_data(str(p), "single", n_records=3, options={"dev_fraction": 0.1})
    assert res["ok"] and res["columns"] == ["ID", "Target", "Tweet", "Stance"]
    assert res["guess"] == {"text_columns": ["Tweet"], "label_column": "Stance", "id_column": "ID"}
    assert res["class_counts"] == {"AGAINST": 2, "FAVOR": 30} and len(res["records"]) == 3
    assert res["records"][0]["Tweet"] == "caf\u00e9 yes"
    assert any("imbalanced" in x for x in res["problems"]) and any("Windows-1252" in x for x in res["notes"])
    bad = preview_data(str(p), "single", text_columns=["Nope"])
    assert not bad["ok"] and "--" not in bad["error"] and bad["columns"] == ["ID", "Target", "Tweet", "Stance"]


def test_launcher_offers_the_columns_and_shows_the_distribution(qtbot, tmp_path):
    from explorer.ui.launch.launcher import LauncherPanel

    p = _stance(tmp_path / "stance.txt", [("yes", "FAVOR"), ("no", "AGAINST"), ("hm", "NONE")] * 5)
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.show()
    w.editors["task"].set("single")
    w.editors["dev"].set("")
    w.editors["train"].set(str(p))
    w.refresh_previews()
    qtbot.waitUntil(lambda: (w.train_preview.result or {}).get("kind") == "classification"
                    and bool((w.train_preview.result or {}).get("columns")), timeout=90000)
    combo = w.editors["label_column"].widget
    assert [combo.itemData(i) for i in range(combo.count())] == [None, "ID", "Target", "Tweet", "Stance"]
    assert combo.itemText(4) == "Stance — FAVOR"   # each column with a sample value
    assert combo.lineEdit().placeholderText() == "guessed: Stance"
    assert w.editors["text_columns"].widget.lineEdit().placeholderText() == "guessed: Tweet"
    assert w.editors["id_column"].widget.lineEdit().placeholderText() == "guessed: ID"
    text = w.train_preview.summary.text()
    assert "AGAINST" in text and "FAVOR" in text and "NONE" in text and "--" not in text
    w.editors["label_column"].set("Stance")
    w.editors["class_weights"].set("balanced")
    cfg = w.config()
    assert cfg.label_column == "Stance" and cfg.class_weights == "balanced" and cfg.resolved_dev_fraction() == 0.1


def test_classify_dev_view_is_prefilled_from_the_run(qtbot, tmp_path):
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    run = tmp_path / "runs" / "r1"
    (run / "checkpoints" / "best").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"task": "single", "train": "/data/t.txt", "dev": "/data/d.txt",
                                                 "text_columns": ["Tweet"], "label_column": "Stance",
                                                 "encoding": "cp1252"}))
    dev = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(dev)
    assert dev.prefill_from_run(str(run / "checkpoints" / "best"))
    assert dev.path.text() == "/data/d.txt" and dev.text_columns.currentText() == "Tweet"
    assert dev.table_settings() == {"encoding": "cp1252", "text_columns": ["Tweet"], "label_column": "Stance",
                                    "no_header": False}
    assert not dev.prefill_from_run(str(tmp_path / "elsewhere"))


def test_classify_dev_fields_fill_in_once_per_model_and_are_the_pages_own(qtbot, tmp_path):
    """The fields that say which dev rows are scored fill in from a model's run once: shown again, the same model
    keeps what the user typed since; another model's run fills them in. The page's file, cap and column boxes are
    these fields' (what the page sends is what they hold)."""
    from explorer.ui.inspectors.classify_dev_fields import DevDataFields
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    checkpoints = []
    for name, dev_file in (("r1", "/data/d1.txt"), ("r2", "/data/d2.txt")):
        run = tmp_path / "runs" / name
        (run / "checkpoints" / "best").mkdir(parents=True)
        (run / "config.json").write_text(json.dumps({"task": "single", "train": "/data/t.txt", "dev": dev_file,
                                                     "text_columns": ["Tweet"], "label_column": "Stance"}))
        checkpoints.append(str(run / "checkpoints" / "best"))
    fields = DevDataFields()
    qtbot.addWidget(fields)
    fields.prefill_for_model(checkpoints[0])
    assert fields.path.text() == "/data/d1.txt" and fields.path_to_read() == "/data/d1.txt"
    fields.label_column.setCurrentText("my_label")
    fields.prefill_for_model(checkpoints[0])   # the same model shown again
    assert fields.label_column.currentText() == "my_label"
    fields.prefill_for_model("")               # no model: nothing changes
    assert fields.path.text() == "/data/d1.txt"
    fields.prefill_for_model(checkpoints[1])
    assert fields.path.text() == "/data/d2.txt" and fields.table_settings()["label_column"] == "my_label"

    page = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(page)
    parts = (page.path, page.cap, page.text_columns, page.label_column, page.no_header, page.only_split)
    assert parts == (page.fields.path, page.fields.cap, page.fields.text_columns, page.fields.label_column,
                     page.fields.no_header, page.fields.only_split) and page.prefill is page.fields.prefill
    page.fields.prefill_from_run(checkpoints[0])
    page.fields.cap.setValue(7)
    assert page.table_settings() == page.fields.table_settings() and page.table_settings()["text_columns"] == ["Tweet"]
    assert (page.masking_dev_set()["dev"], page.masking_dev_set()["cap"]) == ("/data/d1.txt", 7)


def test_classify_dev_column_boxes_show_a_long_column_name_from_its_start(qtbot, tmp_path):
    """A run's label column named longer than its box ("is_there_an_emotion_directed_at_a_brand_or_product") is
    shown from its start, cut at its end, when the run fills it in, and again when the next model's run fills it in
    with the same name: the box showed "brand_or_product", the name's end, hiding which column it was."""
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    label, text = "is_there_an_emotion_directed_at_a_brand_or_product", "tweet_text_as_written_by_the_person_tweeting"
    checkpoints = []
    for name in ("r1", "r2"):
        run = tmp_path / "runs" / name
        (run / "checkpoints" / "best").mkdir(parents=True)
        (run / "config.json").write_text(json.dumps({"task": "single", "train": "/data/t.csv", "dev": "/data/d.csv",
                                                     "text_columns": [text], "label_column": label}))
        checkpoints.append(str(run / "checkpoints" / "best"))
    dev = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(dev)
    dev.resize(884, 660)
    dev.show()
    qtbot.waitExposed(dev)
    for checkpoint in checkpoints:
        assert dev.prefill_from_run(checkpoint)
        for combo in (dev.label_column, dev.text_columns):
            assert combo.lineEdit().cursorPosition() == 0, combo.currentText()
    assert dev.label_column.currentText() == label


def _run_holding_out(tmp_path, rows: str, config: dict, **read):
    """A run folder "runs/r1" of a "single" run on the table ``rows`` (columns review, verdict) with no dev file,
    its ``config`` extra settings, holding rows 1, 4 and 7 out as dev (dev_split.csv, the file read with ``read``):
    (the table's path, the run's checkpoints/best)."""
    from explorer.core.data.classification import load_classification
    from explorer.core.data.split import write_dev_split

    train = tmp_path / "t.csv"
    train.write_text(rows, encoding="utf-8")
    run = tmp_path / "runs" / "r1"
    (run / "checkpoints" / "best").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"task": "single", "train": str(train), "dev": "",
                                                 "text_columns": ["review"], "label_column": "verdict", **config}))
    data = load_classification(str(train), text_columns=["review"], label_column="verdict", **read)
    write_dev_split(run / "dev_split.csv", data, [1, 4, 7])
    return train, str(run / "checkpoints" / "best")


def test_a_run_that_skipped_invalid_rows_is_scored_as_it_read_its_file(qtbot, tmp_path):
    """A run trained with Skip invalid rows on a table with empty texts: Classify: dev set (and Compare, which
    scores through the same settings) reads the file as the run did, instead of refusing it ("empty text")."""
    from helpers import tiny_loaded_model

    from explorer.core.classify.dev_report import run_data_settings
    from explorer.core.training.dev_scoring import score_classification_dev
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    rows = "review,verdict\n" + "".join(f"{'' if i == 5 else f'text {i}'},{'pos' if i % 2 else 'neg'}\n"
                                        for i in range(12))
    train, ckpt = _run_holding_out(tmp_path, rows, {"skip_invalid": True}, skip_invalid=True)
    assert run_data_settings(ckpt)["skip_invalid"] is True
    dev = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(dev)
    assert dev.prefill_from_run(ckpt)
    sent = dev.table_settings()
    assert sent["skip_invalid"] is True
    loaded = tiny_loaded_model("classification")
    assert score_classification_dev(loaded.model, loaded.tokenizer, "single", str(train), settings=sent).total == 3


def test_a_run_without_dev_file_is_scored_on_its_held_out_rows_only(qtbot, tmp_path):
    """A run that held 10% of its training rows out as dev (dev_split.csv) is scored in Classify: dev set on
    those rows, not on every training row (which would flatter it); unticked, the whole file is scored."""
    from helpers import tiny_loaded_model

    from explorer.core.classify.dev_report import run_data_settings
    from explorer.core.training.dev_scoring import score_classification_dev
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    rows = "id,review,verdict\n" + "".join(f"r{i},text {i},{'pos' if i % 2 else 'neg'}\n" for i in range(12))
    train, ckpt = _run_holding_out(tmp_path, rows, {"id_column": "id", "f1_classes": ["pos"]}, id_column="id")
    run = tmp_path / "runs" / "r1"
    settings = run_data_settings(ckpt)
    assert settings["dev_split"] == str(run / "dev_split.csv")
    dev = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(dev)
    assert dev.prefill_from_run(ckpt)
    assert dev.path.text() == str(train) and dev.only_split.isChecked() and not dev.only_split.isHidden()
    sent = dev.table_settings()
    assert sent["dev_split"] == settings["dev_split"]
    loaded = tiny_loaded_model("classification")
    assert sent["f1_classes"] == ["pos"]                                  # the run's F_avg classes go along
    rep = score_classification_dev(loaded.model, loaded.tokenizer, "single", str(train), settings=sent, n=12)
    assert rep.total == 3
    assert sorted(rep.confusion.sum(axis=1).tolist()) == [1, 2]      # rows 1, 7 are pos, row 4 is neg
    assert score_classification_dev(loaded.model, loaded.tokenizer, "single", str(train), settings=sent,
                                    cap=2).total == 2
    dev.only_split.setChecked(False)
    rep_all = score_classification_dev(loaded.model, loaded.tokenizer, "single", str(train),
                                       settings=dev.table_settings(), cap=None)
    assert rep_all.total == 12
    assert not dev.prefill_from_run(str(tmp_path / "elsewhere"))          # another model: nothing carries over
    assert dev.only_split.isHidden() and "dev_split" not in dev.table_settings()


def test_dev_labels_are_matched_to_the_head_by_name(tmp_path):
    from helpers import tiny_loaded_model

    from explorer.core.training.dev_scoring import score_classification_dev
    from explorer.core.errors import ClassificationDataError

    loaded = tiny_loaded_model("classification")
    loaded.model.config.id2label = {0: "pos", 1: "neg"}
    loaded.model.config.label2id = {"pos": 0, "neg": 1}
    p = tmp_path / "d.csv"
    p.write_text("review,verdict\ngood,pos\nbad,neg\nfine,pos\n", encoding="utf-8")
    rep = score_classification_dev(loaded.model, loaded.tokenizer, "single", str(p), n=2,
                                   settings={"text_columns": ["review"], "label_column": "verdict"})
    assert rep.label_names == ["pos", "neg"] and rep.confusion.sum(axis=1).tolist() == [2, 1]
    p.write_text("review,verdict\ngood,pos\nbad,meh\n", encoding="utf-8")
    with pytest.raises(ClassificationDataError, match="line 3, column 'verdict': dev label 'meh' never occurs"):
        score_classification_dev(loaded.model, loaded.tokenizer, "single", str(p),
                                 settings={"text_columns": ["review"], "label_column": "verdict"})


def test_an_excel_workbook_is_previewed_for_classification_only(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["text", "label"])
    book.active.append(["good", "pos"])
    book.active.append(["bad", "neg"])
    book.save(tmp_path / "t.xlsx")
    res = preview_data(str(tmp_path / "t.xlsx"), "single")
    assert res["ok"] and res["columns"] == ["text", "label"] and res["class_counts"] == {"neg": 1, "pos": 1}
    res = preview_data(str(tmp_path / "t.xlsx"), "squad_v2")
    assert not res["ok"] and "is an Excel workbook; it fits the single / pair classification, regression and multi-label tasks" in res["error"]


def test_dev_view_shows_per_class_figures_f_avg_and_class_names(qtbot):
    """Classify: dev set, as a researcher reads it: precision / recall / F1 / support per class by name, macro
    and weighted F1, SemEval's F_avg over the run's f1_classes (equal to scikit-learn), and the example lists
    naming classes (they showed ids 0/1/2 beside a confusion matrix that named them)."""
    from sklearn.metrics import f1_score, precision_recall_fscore_support

    from explorer.core.classify.dev_report import dev_report
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    names = ["AGAINST", "FAVOR", "NONE"]
    gold = np.array([0, 0, 0, 1, 1, 2, 2, 2, 0, 1])
    pred = np.array([0, 1, 0, 1, 2, 2, 0, 2, 0, 1])
    logits = np.eye(3)[pred] * 3.0 + 0.1 * np.arange(10)[:, None] / 10
    rep = dev_report(logits, gold, [f"t{i}" for i in range(10)], label_names=names, f1_classes=("FAVOR", "AGAINST"))
    p, r, f, n = precision_recall_fscore_support(gold, pred, labels=[0, 1, 2], zero_division=0)
    assert [rep.per_class[c]["recall"] for c in names] == pytest.approx(r.tolist())
    assert [rep.per_class[c]["support"] for c in names] == n.tolist()
    assert rep.macro_f1 == pytest.approx(f1_score(gold, pred, average="macro"))
    assert rep.weighted_f1 == pytest.approx(f1_score(gold, pred, average="weighted"))
    assert rep.f_avg == pytest.approx((f[0] + f[1]) / 2) and rep.f1_classes == ("FAVOR", "AGAINST")
    assert dev_report(logits, gold, ["t"] * 10, label_names=names, f1_classes=("PRO",)).f_avg is None

    view = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(view)
    view.show_report(rep, "single")
    t = view.per_class
    rows = [t.verticalHeaderItem(i).text() for i in range(t.rowCount())]
    assert rows == names + ["macro average", "weighted average", "F_avg (FAVOR, AGAINST)"]
    assert [t.horizontalHeaderItem(j).text() for j in range(4)] == ["precision (%)", "recall (%)", "F1 (%)", "support"]
    assert t.item(0, 1).text() == f"{100 * r[0]:.2f}" and t.item(2, 3).text() == str(n[2])
    assert "F_avg (%)" in view.metrics.text() and "(FAVOR, AGAINST)" in view.metrics.text()
    shown = {view.mistakes.item(i, c).text() for i in range(view.mistakes.rowCount()) for c in (1, 2)}
    assert shown and shown <= set(names)
    view.clear_results()
    assert t.rowCount() == 0 and t.isHidden()


def test_a_model_switch_replaces_the_dev_file_the_previous_run_put_in(qtbot, tmp_path):
    """After a switch from the stance model to the STS-B model, Classify: dev set does not keep the stance file:
    a path pre-filled from the previous model's run follows the new run; a typed one stays. A run's held-out rows
    are scored whole (cap: all)."""
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    def run(name, **cfg):
        folder = tmp_path / "runs" / name
        (folder / "checkpoints" / "best").mkdir(parents=True)
        (folder / "config.json").write_text(json.dumps({"task": "single", **cfg}))
        return folder

    a = run("a", train="/data/stance.txt", dev="")
    (a / "dev_split.csv").write_text("row_id,line,label\n1,2,AGAINST\n", encoding="utf-8")
    b = run("b", train="/data/sts_train.csv", dev="/data/sts_dev.csv")
    dev = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(dev)
    dev.prefill_from_run(str(a / "checkpoints" / "best"))
    assert dev.path.text() == "/data/stance.txt" and dev.cap.value() == 0
    dev.prefill_from_run(str(b / "checkpoints" / "best"))
    assert dev.path.text() == "/data/sts_dev.csv"
    dev.path.setText("/mine/dev.tsv")
    dev.prefill_from_run(str(a / "checkpoints" / "best"))
    assert dev.path.text() == "/mine/dev.tsv"


def test_a_model_switch_replaces_the_columns_the_previous_run_put_in(qtbot, tmp_path):
    """Classify: dev set does not keep the stance run's Tweet / Stance columns for the STS-B run, whose columns
    are others: columns pre-filled from the previous run follow the new run (or clear for a model with no run);
    typed ones stay."""
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    def run(name, **cfg):
        folder = tmp_path / "runs" / name
        (folder / "checkpoints" / "best").mkdir(parents=True)
        (folder / "config.json").write_text(json.dumps({"task": "single", "train": "/d/t.csv", **cfg}))
        return str(folder / "checkpoints" / "best")

    a = run("a", text_columns=["Tweet"], label_column="Stance")
    b = run("b", text_columns=["sentence1", "sentence2"], label_column="score")
    dev = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(dev)
    dev.prefill_from_run(a)
    assert (dev.text_columns.currentText(), dev.label_column.currentText()) == ("Tweet", "Stance")
    dev.prefill_from_run(b)
    assert (dev.text_columns.currentText(), dev.label_column.currentText()) == ("sentence1, sentence2", "score")
    assert not dev.prefill_from_run(str(tmp_path / "elsewhere"))
    assert (dev.text_columns.currentText(), dev.label_column.currentText()) == ("", "")
    dev.label_column.setCurrentText("my_label")
    dev.prefill_from_run(a)
    assert (dev.text_columns.currentText(), dev.label_column.currentText()) == ("Tweet", "my_label")


def test_a_new_training_file_clears_the_previous_files_column_guesses_at_once(qtbot, tmp_path):
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.editors["task"].set("single")
    w.editors["train"].set(str(tmp_path / "old.csv"))
    w.train_preview.finished.emit({"ok": True, "kind": "classification", "columns": ["X", "Y"],
                                   "samples": {"X": "a text", "Y": "pos"},
                                   "guess": {"text_columns": ["X"], "label_column": "Y"}})
    label = w.editors["label_column"].widget
    assert label.lineEdit().placeholderText() == "guessed: Y" and label.count() == 3
    w.editors["task"].set("regression")
    w.editors["train"].focus.setText(str(tmp_path / "scores.csv"))   # typed: the file is not read yet
    w.editors["train"].focus.textEdited.emit(str(tmp_path / "scores.csv"))
    assert "guessed" not in label.lineEdit().placeholderText()
    assert "guessed" not in w.editors["text_columns"].widget.lineEdit().placeholderText()
    assert label.count() == 1   # the old file's columns are gone too
    assert label.lineEdit().placeholderText() == "reading the file …"


def test_classify_dev_fills_the_runs_rows_while_classify_loads_and_score_waits(qtbot, tmp_path, monkeypatch):
    """"Open best checkpoint in inspectors": while Classify loads the checkpoint, Classify: dev set already shows
    the run's dev file and says the model is loading; Score dev set is off until the model is in (a press did
    nothing while the page still said "Load a model in Classify")."""
    from helpers import tiny_loaded_model

    view, dev, ckpt, scored, loads = _opened_while_loading(qtbot, tmp_path, monkeypatch)
    assert loads and loads[0]["source"] == ckpt
    assert dev.path.text() == "/data/d.txt" and dev.text_columns.currentText() == "Tweet"
    assert "Load a model in Classify" not in dev.status.text()
    assert dev.status.text().startswith(f"Loading {ckpt} in Classify") and "dev rows are filled in" in dev.status.text()
    loaded = tiny_loaded_model("classification", num_labels=2)
    loaded.source = ckpt
    view.set_loaded(loaded)
    assert dev.score_button.isEnabled() and "Uses the model loaded in Classify" in dev.status.text()
    assert dev.path.text() == "/data/d.txt"
    assert scored == []   # nothing pressed: nothing scored


def _opened_while_loading(qtbot, tmp_path, monkeypatch):
    """Classify and its dev page with a run checkpoint opened whose load has not finished (no inspector child):
    (view, dev, checkpoint path, the scoring requests started, the load requests sent)."""
    from explorer.ui.inspectors.classify_view import classify_tabs

    run = tmp_path / "runs" / "r1"
    (run / "checkpoints" / "best").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"task": "single", "train": "/data/t.txt", "dev": "/data/d.txt",
                                                 "text_columns": ["Tweet"], "label_column": "Stance"}))
    ckpt = str(run / "checkpoints" / "best")
    (_, view), (_, dev) = classify_tabs()
    qtbot.addWidget(view)
    qtbot.addWidget(dev)
    scored, loads = [], []
    monkeypatch.setattr(view._loader, "submit", lambda op, data: loads.append(data))   # the load stays outstanding
    monkeypatch.setattr(view.client, "remember_load", lambda *_a: None)
    monkeypatch.setattr(dev._job, "start", lambda *a: scored.append(a))
    dev.show()
    view.open_checkpoint(ckpt, "single")
    return view, dev, ckpt, scored, loads


def test_score_dev_set_pressed_while_classify_loads_scores_once_the_model_is_in(qtbot, tmp_path, monkeypatch):
    """A press of Score dev set right after "Open best checkpoint in inspectors", while the checkpoint still loads,
    is kept: the status line says it waits for the model, and the dev set is scored with that model as soon as it
    is in, once however often it was pressed (the first press did nothing and said nothing)."""
    from helpers import tiny_loaded_model

    view, dev, ckpt, scored, _ = _opened_while_loading(qtbot, tmp_path, monkeypatch)
    assert dev.score_button.isEnabled()
    dev.score_button.click()
    dev.score_button.click()
    assert scored == []
    assert f"waiting for {ckpt} to load in Classify" in dev.status.text()
    loaded = tiny_loaded_model("classification", num_labels=2)
    loaded.source = ckpt
    view.set_loaded(loaded)
    assert len(scored) == 1
    op, data = scored[0]
    assert op == "classify_dev" and data["slot"] == view.loaded.slot and data["path"] == "/data/d.txt"
    assert dev.status.text().startswith("scoring /data/d.txt")


def test_score_dev_set_pressed_while_a_load_fails_says_nothing_was_scored(qtbot, tmp_path, monkeypatch):
    """A press kept while the checkpoint loads is dropped when the load fails: the status line says the dev set
    was not scored, and no model of the failed load is asked for."""
    view, dev, ckpt, scored, _ = _opened_while_loading(qtbot, tmp_path, monkeypatch)
    dev.score_button.click()
    view._load_failed("no such model")
    assert scored == []
    assert dev.status.text().startswith(f"{ckpt} did not load in Classify: the dev set was not scored")
