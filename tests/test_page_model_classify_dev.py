"""The classification dev-set page's Qt-free model (explorer/ui/inspectors/components/classify_dev.py): what a
run fills in and never over what the user typed, the request's table settings, the metrics lines and tables of
each kind of report, and the example a clicked row opens. No window, no qtbot."""

import json
from types import SimpleNamespace

import numpy as np

from explorer.ui.inspectors.components.classify_dev import (NO_MODEL, RunPrefill, cell, clicked_rows, dev_example,
                                                            error_rows, example_rows, f1_text, label_rows,
                                                            model_line, per_class_table, report_kind)


def run(tmp_path, name: str, **config) -> str:
    folder = tmp_path / "runs" / name
    (folder / "checkpoints" / "best").mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"task": "single", **config}), encoding="utf-8")
    return str(folder / "checkpoints" / "best")


def test_a_run_fills_the_empty_fields_and_its_dev_cap(tmp_path):
    dev = tmp_path / "dev.tsv"
    dev.write_text("text\tlabel\n", encoding="utf-8")
    ckpt = run(tmp_path, "a", dev=str(dev), dev_cap=300, text_columns=["s1", "s2"], label_column="gold",
               no_header=True, encoding="cp1252")
    prefill = RunPrefill()
    plan = prefill.plan(ckpt, "", {"text": "", "label": ""})
    assert plan.found and plan.path == str(dev) and plan.cap == 300 and plan.no_header and not plan.split
    assert plan.columns == {"text": "s1, s2", "label": "gold"}
    settings = prefill.table_settings("s1, s2", "gold", True, False)
    assert settings == {"encoding": "cp1252", "text_columns": ["s1", "s2"], "label_column": "gold", "no_header": True}


def test_what_the_user_typed_stays_and_what_a_run_put_in_is_replaced(tmp_path):
    first = run(tmp_path, "a", dev="a.tsv", text_columns=["text"], label_column="label")
    second = run(tmp_path, "b", dev="b.tsv", text_columns=["sentence"], label_column="label")
    prefill = RunPrefill()
    prefill.plan(first, "", {"text": "", "label": ""})
    plan = prefill.plan(second, "a.tsv", {"text": "text", "label": "my_label"})   # a's path and text column
    assert plan.path == "b.tsv" and plan.columns == {"text": "sentence"}            # the typed label stays
    assert prefill.plan(second, "mine.tsv", {"text": "sentence", "label": "x"}).path is None
    assert plan.cap == 0      # the run's own dev file: its Dev cap (none set: every row)
    assert prefill.plan(second, "mine.tsv", {}).cap is None   # another file: the cap stays


def test_without_a_run_the_previous_runs_columns_go(tmp_path):
    prefill = RunPrefill()
    prefill.plan(run(tmp_path, "a", text_columns=["text"], label_column="label"), "", {"text": "", "label": ""})
    plan = prefill.plan(str(tmp_path / "elsewhere"), "dev.tsv", {"text": "text", "label": "typed"})
    assert not plan.found and plan.columns == {"text": ""} and prefill.settings == {}


def test_a_run_that_held_rows_out_scores_all_of_them(tmp_path):
    ckpt = run(tmp_path, "a", train="train.csv", dev_cap=50)
    (tmp_path / "runs" / "a" / "dev_split.csv").write_text("row_id,line,label\n", encoding="utf-8")
    prefill = RunPrefill()
    plan = prefill.plan(ckpt, "", {})
    assert plan.split and plan.cap == 0 and plan.path == "train.csv"
    assert "dev_split" in prefill.table_settings("", "", False, True)
    assert "dev_split" not in prefill.table_settings("", "", False, False)


def test_the_status_names_the_model_in_classify():
    assert model_line(None) == NO_MODEL
    assert model_line(SimpleNamespace(source="runs/a/checkpoints/best")).startswith(
        "Uses the model loaded in Classify (runs/a/checkpoints/best)")


def test_rows_and_tables_of_the_reports():
    row = SimpleNamespace(index=0, label=1, prediction=0, confidence=0.875, text_a="a film", text_b="a movie",
                          gold=3.5, predicted=2.25, error=-1.25)
    assert example_rows([row], ["neg", "pos"]) == [(1, "pos", "neg", "0.875", "a film  ||  a movie")]
    assert example_rows([row], [])[0][1:3] == ("1", "0")
    assert error_rows(SimpleNamespace(worst=[row])) == [(1, "3.500", "2.250", "-1.250", "a film  ||  a movie")]
    ml = SimpleNamespace(label_names=["a", "b"], thresholds=[0.5, 0.25], label_f1=[0.5, 1.0], support=[3, 4])
    assert label_rows(ml, "multilabel") == [("0.50", "50.00", "3"), ("0.25", "100.00", "4")]
    assert cell(0.5) == "0.50" and cell(7) == "7"


def test_the_f1_is_named_by_its_class_for_two_classes():
    rep = SimpleNamespace(label_names=["neg", "pos"], f1=0.8)
    assert f1_text(rep, "single").endswith(" of class pos")
    assert "macro F1" in f1_text(SimpleNamespace(label_names=["a", "b", "c"], f1=0.6), "single")


def test_per_class_rows_end_with_the_averages():
    rep = SimpleNamespace(per_class={"neg": {"precision": 0.5, "recall": 1.0, "f1": 0.6, "support": 4}},
                          macro_f1=0.6, weighted_f1=0.7, total=8, f_avg=0.65, f1_classes=["neg"])
    titles, rows = per_class_table(rep, "single")
    assert titles[-1] == "support" and [n for n, _ in rows] == ["neg", "macro average", "weighted average",
                                                                 "F_avg (neg)"]


def test_a_clicked_row_opens_as_its_kind_of_example():
    class ClassificationDevReport:
        boundary, mistakes = ["b0"], ["m0"]

    class MultiLabelDevReport:
        pass

    assert report_kind(ClassificationDevReport()) == "ClassificationDevReport"
    assert clicked_rows(ClassificationDevReport(), True) == ["m0"]
    assert clicked_rows(ClassificationDevReport(), False) == ["b0"]
    assert clicked_rows(MultiLabelDevReport(), True) == []
    row = SimpleNamespace(text_a="ctx", text_b="e0 | e1 | e2 | e3", label=2, gold=3.0)
    assert dev_example("swag", row)["endings"] == ["e0", "e1", "e2", "e3"]
    assert dev_example("regression", row)["label"] == 3.0
    assert dev_example("pair", row) == {"kind": "pair", "text_a": "ctx", "text_b": "e0 | e1 | e2 | e3", "label": 2}
    assert np.isclose(dev_example("regression", row)["label"], row.gold)


def test_a_best_checkpoint_picked_on_a_dev_sample_says_why_all_its_dev_rows_score_it_otherwise(tmp_path):
    """The stance run held out 281 rows and evaluated a 200-row sample of them during training: its Best dev
    (49.85 F_avg at step 20) counts those 200; the page scores all 281 (49.61) and says why the figures differ."""
    from explorer.core.protocol.events import EventWriter
    from explorer.ui.runs.best_rows import scored_rows_note

    ckpt = run(tmp_path, "stance", f1_classes=["FAVOR", "AGAINST"])
    folder = tmp_path / "runs" / "stance"
    writer = EventWriter("stance", path=folder / "events.jsonl")
    for step, rows in ((0, 200), (20, 200), (40, 281)):
        writer.emit("eval", step=step, metrics={"f_avg": 0.4985}, dev_rows=rows, dev_total=281)
        if step == 20:
            writer.emit("checkpoint", step=20, path=ckpt, kind="best", metric="f_avg")
    writer.close()
    prefill = RunPrefill()
    prefill.plan(ckpt, "", {"text": "", "label": ""})
    assert prefill.best_rows() == (200, 281)
    note = scored_rows_note(prefill.best_rows(), 281)
    assert "200-row stratified dev sample of these 281 rows" in note
    assert scored_rows_note(prefill.best_rows(), 100) == "" and scored_rows_note((281, 281), 281) == ""
    prefill.plan(run(tmp_path, "other"), "", {"text": "", "label": ""})   # a run without events: nothing said
    assert prefill.best_rows() is None


def test_a_best_scored_on_all_dev_rows_after_the_model_loaded_is_not_said_to_count_the_sample(tmp_path):
    """The model loaded while the run trained (its best then on the 200-row sample); the run ended, scoring that
    best on all 281 rows: the page's scores of all 281 rows are the run's own figure, and no line says they differ."""
    from explorer.core.protocol.events import EventWriter
    from explorer.ui.runs.best_rows import scored_rows_note

    ckpt = run(tmp_path, "stance", f1_classes=["FAVOR", "AGAINST"])
    folder = tmp_path / "runs" / "stance"
    writer = EventWriter("stance", path=folder / "events.jsonl")
    writer.emit("eval", step=20, metrics={"f_avg": 0.4985}, dev_rows=200, dev_total=281)
    writer.emit("checkpoint", step=20, path=ckpt, kind="best", metric="f_avg")
    prefill = RunPrefill()
    prefill.plan(ckpt, "", {"text": "", "label": ""})   # while the run trains
    writer.emit("eval", step=40, metrics={"f_avg": 0.45}, dev_rows=281, dev_total=281)
    writer.emit("eval", step=20, metrics={"f_avg": 0.4961}, dev_rows=281, dev_total=281, rescored=True)
    writer.emit("checkpoint", step=20, path=ckpt, kind="best", metric="f_avg", scored_on="all 281 dev rows")
    writer.close()
    assert scored_rows_note(prefill.best_rows(), 281) == ""


def _overlap_logged(folder, shared: int, n_dev: int) -> None:
    """The run's events: the training run's warning that ``shared`` of its ``n_dev`` dev rows repeat training rows."""
    from explorer.core.metrics.optimism import DevOverlap, dev_overlap_fields
    from explorer.core.protocol.events import EventWriter

    writer = EventWriter(folder.name, path=folder / "events.jsonl")
    writer.emit("log", level="info", message="reading training data")
    if shared:
        writer.emit("log", **dev_overlap_fields(DevOverlap(shared=shared, n_dev=n_dev, examples=("a tweet",))))
    writer.close()


def test_the_runs_own_dev_rows_that_repeat_its_training_rows_are_said_optimistic(tmp_path):
    """The run found 382 of its 1,387 dev rows among its training rows: scoring its dev file, or the rows it held
    out, says so under the figures; another file, or a run that found none, says nothing."""
    dev = tmp_path / "dev.csv"
    dev.write_text("text,label\n", encoding="utf-8")
    ckpt = run(tmp_path, "gop", dev=str(dev), text_columns=["text"], label_column="label")
    _overlap_logged(tmp_path / "runs" / "gop", 382, 1387)
    prefill = RunPrefill()
    prefill.plan(ckpt, "", {"text": "", "label": ""})
    line = "optimistic: 382 of 1,387 dev rows (27.5%) also occur in the training rows"
    assert prefill.overlap_line(str(dev), False) == line
    assert prefill.overlap_line(str(tmp_path / "other.csv"), False) == ""
    held = run(tmp_path, "held", train="Sentiment.csv")
    (tmp_path / "runs" / "held" / "dev_split.csv").write_text("row_id,line,label\n", encoding="utf-8")
    _overlap_logged(tmp_path / "runs" / "held", 382, 1387)
    prefill.plan(held, "", {})
    assert prefill.overlap_line("Sentiment.csv", True) == line
    whole = prefill.overlap_line("Sentiment.csv", False)   # every row of the file: the rows it trained on too
    assert whole.startswith("optimistic: computed on the rows the model was trained on") and "held-out" in whole
    clean = run(tmp_path, "clean", dev=str(dev))
    _overlap_logged(tmp_path / "runs" / "clean", 0, 1387)
    prefill.plan(clean, "", {})
    assert prefill.overlap_line(str(dev), False) == ""


def test_the_runs_training_file_scored_whole_is_said_to_count_the_rows_the_model_trained_on(tmp_path):
    """Scoring the run's training file itself (every row, not only the rows it held out) counts the rows the model
    was trained on: the line under the figures says so and how to get a fair figure, for a run that held rows out
    (tick the held-out box) and for one with a dev file of its own (score that file); its held-out rows, its dev
    file without repeats and another file say nothing."""
    train = tmp_path / "tweets.csv"
    train.write_text("text,sentiment\n", encoding="utf-8")
    held = run(tmp_path, "held", train=str(train))
    (tmp_path / "runs" / "held" / "dev_split.csv").write_text("row_id,line,label\n", encoding="utf-8")
    _overlap_logged(tmp_path / "runs" / "held", 0, 353)
    prefill = RunPrefill()
    prefill.plan(held, "", {})
    line = prefill.overlap_line(str(train), False)
    assert line == ("optimistic: computed on the rows the model was trained on, not on held-out rows (this is the "
                    "run's training file: tick \"only the run's held-out dev rows\" for the rows it held out)")
    assert prefill.overlap_line(str(train), True) == ""          # its held-out rows only
    dev = tmp_path / "dev.csv"
    dev.write_text("text,sentiment\n", encoding="utf-8")
    own_dev = run(tmp_path, "own_dev", train=str(train), dev=str(dev))
    _overlap_logged(tmp_path / "runs" / "own_dev", 0, 100)
    prefill.plan(own_dev, "", {})
    assert prefill.overlap_line(str(train), False).endswith("(this is the run's training file: score its dev file "
                                                            "for a fair figure)")
    assert prefill.overlap_line(str(dev), False) == ""
    assert prefill.overlap_line(str(tmp_path / "other.csv"), False) == ""
