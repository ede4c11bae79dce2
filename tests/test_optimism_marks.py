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
