"""A run's checkpoint as the launcher's Base model: its head's labels (config.json id2label, no weights loaded)
are checked against the training data's before the launch, by the run's own rule, and the refusal names the
launcher's New head box; a checkpoint that continued a run on its data goes back to the model that run started
from when another training file is chosen, unless the user chose it."""

import json

from helpers import STANCE_ROWS, write_file

from explorer.core.models.label_fit import checkpoint_head_labels, head_fit
from explorer.core.specs.train_config import TrainConfig
from explorer.ui.launch.form_model import LaunchForm
from explorer.ui.launch.launch_check import LaunchGate

STANCE_COUNTS = {"ok": True, "class_counts": {"AGAINST": 10, "FAVOR": 10, "NONE": 10}}


def _reviewed_run(tmp_path) -> tuple[str, str]:
    """A run folder trained on Tweets.csv from bundled:minilm, with a 3-class sentiment checkpoint; (checkpoint
    folder, its run's training file)."""
    run = tmp_path / "runs" / "airline lr1e-4"
    tweets = str(write_file(tmp_path / "data" / "Tweets.csv", "text,airline_sentiment\nok,neutral\n"))
    write_file(run / "config.json", json.dumps({"model": "bundled:minilm", "train": tweets, "task": "single"}))
    ckpt = run / "checkpoints" / "best"
    write_file(ckpt / "config.json", json.dumps({
        "architectures": ["BertForSequenceClassification"], "problem_type": "single_label_classification",
        "id2label": {"0": "negative", "1": "neutral", "2": "positive"}}))
    return str(ckpt), tweets


def test_the_head_rule_maps_by_name_or_count_and_names_how_to_start_a_fresh_head():
    fit = head_fit(["negative", "neutral", "positive"], ["AGAINST", "FAVOR", "NONE"], 3)
    assert not fit.fits and fit.refusal("Tick “New head”") == (
        "the checkpoint's head has 3 labels (negative, neutral, positive); the data has 3 (AGAINST, FAVOR, NONE): "
        "'AGAINST', 'FAVOR', 'NONE' are not in the head. Tick “New head” to start a fresh 3-label head (the encoder "
        "is kept), or fine-tune a checkpoint with these labels")
    assert head_fit(["negative", "neutral", "positive"], ["positive", "negative"], 2).mapped
    assert head_fit(["LABEL_0", "LABEL_1"], ["a", "b"], 2).fits            # unnamed head: by count
    assert "give data with the head's labels" in head_fit(["0", "1"], None, 3).refusal("Use --new-head")


def test_the_launch_gate_reads_the_checkpoints_labels_and_refuses_other_classes(tmp_path):
    ckpt, _ = _reviewed_run(tmp_path)
    assert checkpoint_head_labels(ckpt, "single") == ["negative", "neutral", "positive"]
    assert checkpoint_head_labels(ckpt, "ner") is None                     # another head: a fresh one anyway
    assert checkpoint_head_labels("bundled:minilm", "single") is None
    gate = LaunchGate(str(tmp_path / "runs"))
    cfg = TrainConfig(task="single", model=ckpt, train="stance.txt")
    assert "Tick “New head” to start a fresh 3-label head" in gate.head_refusal(cfg, STANCE_COUNTS)
    assert gate.head_refusal(TrainConfig(task="single", model=ckpt, new_head=True), STANCE_COUNTS) == ""
    assert gate.head_refusal(cfg, {"ok": True, "class_counts": {"negative": 3, "positive": 2}}) == ""
    assert gate.head_refusal(cfg, None) == ""                              # not counted yet


def _form(tmp_path, **fields) -> LaunchForm:
    form = LaunchForm(tmp_path / "runs")
    form.load(TrainConfig(output_dir=str(tmp_path / "runs"), **fields))
    return form


def test_a_new_training_file_sets_a_runs_checkpoint_back_to_the_model_the_run_started_from(tmp_path):
    ckpt, tweets = _reviewed_run(tmp_path)
    plus = str(write_file(tmp_path / "runs" / ".corrections" / "Tweets-plus-corrected.tsv", "text\tlabel\nok\tneutral\n"))
    stance = str(write_file(tmp_path / "stance" / "train.txt", STANCE_ROWS))
    form = _form(tmp_path, task="single", model=ckpt, train=plus)          # as "Fine-tune on reviewed rows" fills it
    form.edit("train", stance)
    assert form.get("model") == "bundled:minilm"
    assert "Base model airline lr1e-4/checkpoints/best (back to bundled:minilm, the model its run started from)" \
        in form.note
    chosen = _form(tmp_path, task="single", train=plus)
    chosen.edit("model", ckpt)                                              # the user's choice stays
    chosen.edit("train", stance)
    assert chosen.get("model") == ckpt and "Base model" not in chosen.note
    same = _form(tmp_path, task="single", model=ckpt, train=plus)
    same.edit("train", tweets)                                              # the run's own data: continued
    assert same.get("model") == ckpt


def test_the_launcher_marks_base_model_and_refuses_a_launch_the_run_would_refuse(qtbot, tmp_path):
    from explorer.ui.launch.data_preview import preview_data
    from explorer.ui.launch.launcher import LauncherPanel

    ckpt, _ = _reviewed_run(tmp_path)
    stance = str(write_file(tmp_path / "stance" / "train.txt", STANCE_ROWS))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", model=ckpt, train=stance))
    w.train_preview._token += 1
    w.train_preview._done(w.train_preview._token, preview_data(stance, "single"))
    reason = w.editors["model"].focus.property("invalidReason")
    assert "'AGAINST', 'FAVOR', 'NONE' are not in the head. Tick “New head”" in reason
    assert "Tick “New head”" in w.problem.text() and not w.launch_btn.isEnabled() and not w.launch()
    w.editors["new_head"].set(True)
    assert not w.editors["model"].focus.property("invalidReason") and w.launch_btn.isEnabled()
