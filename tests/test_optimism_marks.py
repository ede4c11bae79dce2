"""When a figure is optimistic: the one place that decides the marks, and where they are shown (eval)."""

from __future__ import annotations

import json

from explorer.core.metrics.optimism import (CHOSE_ON_THESE_ROWS, DEV_OVERLAP, FEW_EXAMPLES, TRAINING_ROWS,
                                            dev_overlap, figure_marks, trained_on_file)


# -- the rules -------------------------------------------------------------------------------------
def test_each_reason_gives_its_mark_with_the_reason_in_words():
    overlap = dev_overlap(["A  cat", "the dog"], ["a cat", "a bird", "The dog "])
    assert (overlap.shared, overlap.n_dev) == (2, 3)
    marks = figure_marks(on_training_rows=True, chosen_on_rows=("τ",), class_support={"pos": 50, "neg": 29},
                         overlap=overlap)
    assert [m.reason for m in marks] == [TRAINING_ROWS, CHOSE_ON_THESE_ROWS, DEV_OVERLAP, FEW_EXAMPLES]
    assert "τ was chosen on these same rows" in marks[1].text
    assert "2 of 3 dev rows (66.7%)" in marks[2].text
    assert marks[3].subject == "neg" and "29 dev rows" in marks[3].text


def test_an_honest_figure_has_no_mark():
    assert figure_marks(class_support={"a": 30, "b": 400}, overlap=dev_overlap(["x"], ["y"])) == []


def test_pairs_overlap_only_when_both_sentences_repeat():
    assert dev_overlap([("a", "b")], [("a", "b"), ("a", "c")]).shared == 1


def test_a_run_scored_on_its_own_training_file_is_trained_on(tmp_path):
    data = tmp_path / "t.csv"
    data.write_text("x")
    assert trained_on_file({"train": str(data)}, str(tmp_path / "." / "t.csv"))
    assert not trained_on_file({"train": str(data)}, str(tmp_path / "other.csv"))
    assert not trained_on_file({}, str(data))


def test_a_runs_dev_overlap_is_read_from_its_log_events_fields_and_from_an_older_runs_message():
    """A training run records its dev rows that repeat training rows as fields of its log warning; the mark comes
    from them (with or without an example), from the message of a run written before them, and never from a
    run that found none. The replication capsule states the same mark either way."""
    from explorer.core.metrics.optimism import DevOverlap, dev_overlap_fields, dev_overlap_mark
    from explorer.core.studies.capsule_marks import capsule_marks

    fields = dev_overlap_fields(DevOverlap(shared=382, n_dev=1387, examples=("gop debate",)))
    assert (fields["topic"], fields["overlap"], fields["dev_rows"]) == ("dev_overlap", 382, 1387)
    short = "optimistic: 382 of 1,387 dev rows (27.5%) also occur in the training rows"
    assert fields["message"] == f"dev figures {short}, e.g. 'gop debate'"
    now = [{"event": "log", "run_id": "r", **fields}]
    assert dev_overlap_mark(now).text == f"{short}, e.g. 'gop debate'" and dev_overlap_mark(now).reason == DEV_OVERLAP
    assert dev_overlap_mark(now, example=False).text == short
    before = [{"event": "log", "run_id": "r", "level": "warning",
               "message": "dev figures optimistic: 382 of 1387 dev rows (27.5%) also occur in the training rows, "
                          "e.g. 'gop debate'"}]
    assert dev_overlap_mark(before).text == before[0]["message"].removeprefix("dev figures ")
    assert dev_overlap_mark(before, example=False).text == short
    assert dev_overlap_fields(DevOverlap(shared=0, n_dev=5)) is None
    assert dev_overlap_mark([{"event": "log", "run_id": "r", "level": "warning", "message": "something else"}]) is None
    same = DevOverlap(shared=3, n_dev=40, examples=("a b",))
    capsule = capsule_marks(events=[{"event": "log", **dev_overlap_fields(same)}], final={}, metric="accuracy",
                            calibration=None)
    assert [m["text"] for m in capsule["final"]] == ["optimistic: 3 of 40 dev rows (7.5%) also occur in the "
                                                     "training rows, e.g. 'a b'"]


# -- where they are shown --------------------------------------------------------------------------
def test_eval_marks_the_best_threshold_chosen_on_the_same_questions(tmp_path):
    from helpers import run_cli, save_tiny_model, write_tiny_squad

    model = save_tiny_model(tmp_path / "qa", "qa")
    data = write_tiny_squad(tmp_path / "dev.json", v2=True)
    res = run_cli(["eval", "--model", model, "--data", data, "--out", tmp_path / "out", "--device", "cpu"])
    assert res.returncode == 0, res.stderr[-2000:]
    assert "! optimistic: the threshold of best_f1 / best_tau was chosen on these same rows" in res.stdout
    res = run_cli(["eval", "--model", model, "--data", data, "--out", tmp_path / "out2", "--device", "cpu",
                   "--json"])
    assert [m["reason"] for m in json.loads(res.stdout)["marks"]] == [CHOSE_ON_THESE_ROWS]
    v1 = write_tiny_squad(tmp_path / "v1.json", v2=False)
    res = run_cli(["eval", "--model", model, "--data", v1, "--out", tmp_path / "out3", "--device", "cpu"])
    assert res.returncode == 0 and "optimistic" not in res.stdout


def test_a_run_whose_dev_rows_repeat_training_rows_warns_in_its_log(tmp_path):
    from helpers import run_worker, save_tiny_model

    model = save_tiny_model(tmp_path / "enc", "classification")
    train, dev = tmp_path / "train.csv", tmp_path / "dev.csv"
    train.write_text("sentence,label\n" + "".join(f"the cat {i},{i % 2}\n" for i in range(8)))
    dev.write_text("sentence,label\nThe  cat 1,1\nthe dog,0\n")
    rc, out, err = run_worker(["--model", str(model), "--task", "single", "--train", str(train), "--dev", str(dev),
                               "--max-steps", "1", "--batch-size", "4", "--max-seq-length", "16",
                               "--output-dir", str(tmp_path / "runs"), "--run-id", "dup"])
    assert rc == 0, err[-2000:]
    warnings = [json.loads(line)["message"] for line in out.splitlines()
                if line.startswith("{") and '"warning"' in line]
    assert any(m.startswith("dev figures optimistic: 1 of 2 dev rows (50.0%) also occur in the training rows")
               for m in warnings), warnings
    recorded = [json.loads(line) for line in out.splitlines() if line.startswith("{") and '"dev_overlap"' in line]
    assert [(e["overlap"], e["dev_rows"]) for e in recorded] == [(1, 2)]   # the counts as data, for the GUI
