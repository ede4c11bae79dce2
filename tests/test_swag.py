"""The swag (multiple choice) task: the SWAG CSV loader and its errors, featurizing into
(batch, 4 choices, tokens), and a 2-step training run with dev accuracy on a tiny model."""

import contextlib
import csv
import io
from pathlib import Path

import pytest
import torch
from helpers import save_tiny_model, tiny_loaded_model

from explorer.core.data.swag import load_swag
from explorer.core.errors import SwagDataError, UserError
from explorer.core.protocol.events import iter_events
from explorer.core.specs.train_config import TrainConfig
from explorer.core.training.tasks import get_task
from explorer.paths import SAMPLES
from explorer.worker.train import EXIT_OK, main as train_main

HEADER = ["", "video-id", "fold-ind", "startphrase", "sent1", "sent2", "gold-source",
          "ending0", "ending1", "ending2", "ending3", "label"]
ITEMS = [("the river is born in the city.", "the", ["river answer", "model year", "bert name", "ada paris"], 0),
         ("ada was born in london.", "she", ["was first", "is a river", "did answer", "how city"], 0),
         ("what is the first model?", "the", ["paris year", "bert model", "which passage", "a river"], 1),
         ("who did answer the question?", "ada", ["in paris", "on london", "did answer", "to the city"], 2)]


def write_swag(path: Path, items=ITEMS, repeat: int = 1, header=HEADER) -> Path:
    """A small SWAG-format CSV (words the tiny tokenizer knows)."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        for i, (sent1, sent2, endings, label) in enumerate(items * repeat):
            w.writerow([i, f"v{i}", i, f"{sent1} {sent2}", sent1, sent2, "gold", *endings, label])
    return path


def test_loader_reads_the_four_choices(tmp_path):
    data = load_swag(write_swag(tmp_path / "s.csv"))
    assert len(data) == 4 and data.labels == [0, 0, 1, 2] and data.ids[1] == "v1" and data.lines == [2, 3, 4, 5]
    assert data.choice_pair(2, 1) == ("what is the first model?", "the bert model")
    assert load_swag(write_swag(tmp_path / "c.csv", repeat=3), cap=5).labels == [0, 0, 1, 2, 0]


@pytest.mark.real_data
def test_real_swag_dev_sample_loads(real_data):
    data = load_swag(real_data / "swag" / "val-sample.csv")   # conftest: skips without the real-data folder
    assert len(data) == 91 and set(data.labels) <= {0, 1, 2, 3}
    assert data.choice_pair(0, 2) == ("Students lower their eyes nervously.", "She walks slowly towards someone.")


def test_bundled_training_sample_is_well_formed():
    data = load_swag(SAMPLES / "swag_sample_train.csv")
    assert len(data) >= 200 and {0, 1, 2, 3} == set(data.labels)
    assert all(len(set(e)) == 4 for e in data.endings)  # four different endings per item


@pytest.mark.parametrize("edit, message", [
    (lambda rows: [r[:8] + r[9:] for r in rows], "missing column(s) ending1 in the header row"),
    (lambda rows: rows[:2] + [rows[2][:-1]] + rows[3:], "line 3: 11 fields, but the header has 12"),
    (lambda rows: rows[:3] + [rows[3][:-1] + ["4"]] + rows[4:], "line 4: label 4 is out of range; it must be 0..3"),
    (lambda rows: rows[:1] + [rows[1][:-1] + ["one"]] + rows[2:], "line 2: label 'one' is not a whole number"),
    (lambda rows: rows[:1] + [rows[1][:4] + [" "] + rows[1][5:]] + rows[2:], "line 2: empty sent1"),
    (lambda rows: rows[:1], "no examples (only a header row)"),
])
def test_bad_files_name_the_line(tmp_path, edit, message):
    good = write_swag(tmp_path / "good.csv")
    rows = list(csv.reader(good.read_text(encoding="utf-8").splitlines()))
    bad = tmp_path / "bad.csv"
    with open(bad, "w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(edit(rows))
    with pytest.raises(SwagDataError) as exc:
        load_swag(bad)
    assert isinstance(exc.value, UserError) and str(bad) in str(exc.value) and message in str(exc.value)


def test_wrong_suffix_and_missing_file(tmp_path):
    with pytest.raises(SwagDataError, match="reads SWAG-format .csv files"):
        load_swag(tmp_path / "x.tsv")
    with pytest.raises(SwagDataError, match="no such file"):
        load_swag(tmp_path / "none.csv")


def test_featurize_gives_batch_by_four_by_tokens_and_matches_the_head(tmp_path):
    task = get_task("swag")
    assert task.head == "multiple_choice" and task.facts.best_metric == "accuracy"
    data = load_swag(write_swag(tmp_path / "s.csv"))
    loaded = tiny_loaded_model("multiple_choice")
    feats = task.featurize(data, loaded.tokenizer, TrainConfig(task="swag"), train=True)
    batch = feats.collate([0, 2])
    assert batch["input_ids"].shape[:2] == (2, 4) and batch["labels"].tolist() == [0, 1]
    # choice 1 of example 2 is "[CLS] context [SEP] the bert model [SEP]"
    tokens = loaded.tokenizer.convert_ids_to_tokens(batch["input_ids"][1, 1][batch["attention_mask"][1, 1] == 1])
    assert tokens[-4:] == ["the", "bert", "model", "[SEP]"] and tokens[0] == "[CLS]"
    out = loaded.model(**task.model_inputs(batch))
    assert out.logits.shape == (2, 4)
    by_hand = -torch.log_softmax(out.logits.float(), -1)[torch.arange(2), batch["labels"]].mean()
    assert task.loss(out, batch).item() == pytest.approx(by_hand.item(), rel=1e-6)


@pytest.mark.slow
def test_swag_trains_two_steps_and_reports_dev_accuracy(tmp_path):
    model = save_tiny_model(tmp_path / "mc", "multiple_choice")
    train = write_swag(tmp_path / "train.csv", repeat=4)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in ["--model", model, "--task", "swag", "--train", train, "--dev", train,
                                          "--max-steps", 2, "--batch-size", 4, "--output-dir", tmp_path,
                                          "--run-id", "swag"]])
    events = list(iter_events(buf.getvalue().splitlines()))
    assert rc == EXIT_OK, events[-1]
    evals = [e for e in events if e["event"] == "eval"]
    assert [e["step"] for e in evals] == [0, 2]
    for e in evals:
        m = e["metrics"]
        assert m["total"] == 16 and 0.0 <= m["accuracy"] <= 1.0 and m["loss"] > 0
        assert m["accuracy"] * 16 == pytest.approx(round(m["accuracy"] * 16))  # a share of the 16 examples
    assert (tmp_path / "swag" / "checkpoints" / "best" / "config.json").is_file()
    assert [e["step"] for e in events if e["event"] == "step"] == [1, 2]


def test_launcher_preview_reads_swag_and_names_a_wrong_file(tmp_path):
    from explorer.ui.launch.data_preview import preview_data

    ok = preview_data(str(write_swag(tmp_path / "s.csv")), "swag")
    assert ok["ok"] and ok["counts"]["examples"] == 4 and ok["records"][2]["ending (right)"] == "the bert model"
    bad = preview_data(str(tmp_path / "s.tsv"), "swag")
    assert not bad["ok"] and "reads SWAG-format .csv files" in bad["error"]


def test_launcher_builds_a_swag_run(qtbot, tmp_path):
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    train = write_swag(tmp_path / "s.csv")
    w.set_config(TrainConfig(model="bundled:minilm", task="swag", train=str(train), dev=str(train)))
    cfg = w.config()
    assert cfg.task == "swag" and cfg.resolved_learning_rate() == 2e-5
    assert "--task swag" in w.command.toPlainText() and w.launch_btn.isEnabled(), w.problem.text()
    assert not w.editors["doc_stride"].widget.isEnabled()


def test_sniff_says_a_swag_csv_fits_swag_and_a_tsv_does_not(tmp_path):
    from explorer.core.data.sniff import sniff_data_file

    assert sniff_data_file(write_swag(tmp_path / "s.csv")).fits_task("swag")
    tsv = tmp_path / "sst.tsv"
    tsv.write_text("sentence\tlabel\ngood\t1\n", encoding="utf-8")
    assert "does not fit the swag task" in sniff_data_file(tsv).mismatch("swag")
