"""Regression (STS-B style) and multi-label tasks: label parsing, metrics against scipy / sklearn, the honest
threshold split, the Classify arithmetic of both heads (by-hand check), and a few training steps of each
through the worker on files the tests write."""

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import save_tiny_model, tiny_loaded_model
from test_training_loop import run as _train   # the worker's main in this process -> (rc, events)

from explorer.core.data.classification import ClassificationDataError
from explorer.core.data.scores_and_label_sets import (load_multilabel, load_regression, multi_hot,
                                                      parse_label_lists, parse_scores)
from explorer.core.metrics.multilabel import (honest_thresholds, multilabel_metrics, multilabel_scores,
                                                       predict, tune_thresholds)
from explorer.core.metrics.regression import regression_metrics


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _pairs(path: Path, n: int = 24) -> Path:
    return _write(path, ["sentence1\tsentence2\tscore"] +
                  [f"the city {i % 5}\tthe river {i % 3}\t{(i % 5) * 1.1:.2f}" for i in range(n)])


def _label_lists(path: Path, n: int = 24) -> Path:
    sets = ["econ", "politics", "econ; politics", ""]
    return _write(path, ["text\tlabels"] + [f"the city {i % 4} river\t{sets[i % 4]}" for i in range(n)])


# -- data ---------------------------------------------------------------------------------------------
def test_scores_parse_and_a_non_number_names_file_and_line(tmp_path):
    assert parse_scores([("f line 2", "3.8"), ("f line 3", 5), ("f line 4", " 0.25 ")]) == [3.8, 5.0, 0.25]
    for bad, word in (("high", "is not a number"), ("", "is missing"), ("nan", "not finite")):
        with pytest.raises(ClassificationDataError, match=f"f line 9: .*{word}"):
            parse_scores([("f line 2", "1"), ("f line 9", bad)])
    path = _pairs(tmp_path / "s.tsv")
    data = load_regression(str(path))
    assert data.regression and data.num_labels == 1 and data.texts_b is not None
    assert data.columns == ("sentence1", "sentence2", "score") and data.labels[:3] == [0.0, 1.1, 2.2]
    lines = path.read_text().splitlines()
    lines[5] = "a\tb\tfive"
    _write(path, lines)
    with pytest.raises(ClassificationDataError, match=rf"{path} line 6: score 'five' is not a number"):
        load_regression(str(path))
    single = _write(tmp_path / "one.tsv", ["sentence\tlabel", "a film\t0.5", "the city\t4"])
    data = load_regression(str(single))
    assert data.texts_b is None and data.labels == [0.5, 4.0]


def test_label_lists_indicator_columns_and_unknown_dev_label(tmp_path):
    names, ids = parse_label_lists([("l2", "econ; politics"), ("l3", ""), ("l4", "sport;econ;econ")], ";")
    assert names == ["econ", "politics", "sport"] and ids == [[0, 1], [], [0, 2]]
    assert multi_hot(ids, 3).tolist() == [[1, 1, 0], [0, 0, 0], [1, 0, 1]]
    data = load_multilabel(str(_label_lists(tmp_path / "m.tsv")))
    assert data.label_names == ["econ", "politics"] and data.labels[:4] == [[0], [1], [0, 1], []]
    assert data.num_labels == 2 and "6 of 24 rows have no label" in data.problems[0]
    pipes = _write(tmp_path / "p.csv", ["text,topics", "a,x|y", "b,y"])
    assert load_multilabel(str(pipes), separator="|").labels == [[0, 1], [1]]
    cols = _write(tmp_path / "c.tsv", ["text\tecon\tsport", "a\t1\t0", "b\t1\t1", "c\t0\t0"])
    data = load_multilabel(str(cols), label_column="econ,sport")
    assert data.label_names == ["econ", "sport"] and data.labels == [[0], [0, 1], []]
    _write(cols, ["text\tecon\tsport", "a\t1\t0", "b\t2\t1"])
    with pytest.raises(ClassificationDataError, match=r"line 3 column 'econ': '2' is not 0 or 1"):
        load_multilabel(str(cols), label_column="econ,sport")

    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    task = get_task("multilabel")
    train = _write(tmp_path / "t.tsv", ["text\tlabels", "a\tpolitics", "b\tsport;econ"])
    dev = _write(tmp_path / "d.tsv", ["text\tlabels", "a\tsport", "b\teconomy"])
    cfg = TrainConfig(task="multilabel", train=str(train), dev=str(dev))
    tr, dv = task.load(cfg, "train"), task.load(cfg, "dev")
    with pytest.raises(ClassificationDataError, match=rf"{dev} line 3: label 'economy' is not one of the training "
                                                      r"data's labels \(econ, politics, sport\)"):
        task.check_data(tr, dv, cfg)
    _write(dev, ["text\tlabels", "a\tsport", "b\tecon;politics"])
    dv = task.load(cfg, "dev")
    task.check_data(tr, dv, cfg)
    assert dv.label_names == tr.label_names and dv.labels == [[2], [0, 1]]   # renumbered by the train names


# -- metrics ------------------------------------------------------------------------------------------
def test_regression_metrics_match_scipy():
    from scipy.stats import pearsonr, spearmanr

    rng = np.random.default_rng(3)
    gold = rng.uniform(0, 5, 40).round(1)       # ties, as in STS-B
    pred = gold + rng.normal(0, 1.0, 40)
    m = regression_metrics(pred.reshape(-1, 1), gold)
    assert m["pearson"] == pytest.approx(pearsonr(pred, gold)[0], abs=1e-12)
    assert m["spearman"] == pytest.approx(spearmanr(pred, gold)[0], abs=1e-12)
    assert m["mse"] == pytest.approx(float(np.mean((pred - gold) ** 2)))
    with pytest.raises(ValueError, match="3 predictions for 2 labels"):
        regression_metrics([1, 2, 3], [1, 2])


def test_r2_and_the_mean_predictors_mse_match_sklearn():
    """r2 is sklearn's r2_score and mse_of_mean the MSE of always predicting the gold mean (the gold's variance):
    an STS-B model predicting about 1.4 for every pair scores below 0, worse than that constant. Constant gold
    leaves R² undefined: NaN with the reason, as a correlation."""
    from sklearn.metrics import mean_squared_error, r2_score

    from explorer.core.metrics.regression import undefined_note

    rng = np.random.default_rng(5)
    gold = rng.uniform(0, 5, 60).round(1)
    for pred in (gold + rng.normal(0, 1.0, 60), 1.4 + 0.1 * gold + rng.normal(0, 0.2, 60)):
        m = regression_metrics(pred, gold)
        assert m["r2"] == pytest.approx(r2_score(gold, pred), abs=1e-12)
        assert m["mse_of_mean"] == pytest.approx(mean_squared_error(gold, np.full(60, gold.mean())))
        assert m["mse_of_mean"] == pytest.approx(float(np.var(gold))) and "undefined" not in m
    assert m["r2"] < 0 and m["mse"] > m["mse_of_mean"]    # the collapsed model: worse than the mean
    flat_gold = regression_metrics([0.1, 2.0, 3.0, 4.0], [3.0] * 4)
    assert np.isnan(flat_gold["r2"]) and flat_gold["mse_of_mean"] == 0.0
    assert flat_gold["undefined"]["r2"] == "the gold scores are constant (3 for all 4 rows)"
    assert undefined_note(flat_gold) == "pearson, spearman and r2 undefined: the gold scores are constant (3 for all 4 rows)"
    assert regression_metrics([2.0], [1.0])["undefined"]["r2"] == "1 row: R² needs at least 2"


def test_multilabel_metrics_match_sklearn():
    from sklearn.metrics import accuracy_score, f1_score

    y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 0, 0]])
    p = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1], [1, 0, 0]])
    s = multilabel_scores(y, p)
    assert s["micro_f1"] == pytest.approx(f1_score(y, p, average="micro"))
    assert s["macro_f1"] == pytest.approx(f1_score(y, p, average="macro", zero_division=0))
    assert s["subset_accuracy"] == pytest.approx(accuracy_score(y, p)) == pytest.approx(0.4)
    # by hand: pooled TP 4, FP 1, FN 2 -> micro F1 = 2TP / (2TP + FP + FN) = 8 / 11
    assert s["micro_f1"] == pytest.approx(8 / 11)
    logits = np.where(p == 1, 2.0, -2.0)
    m = multilabel_metrics(y, logits, ["a", "b", "c"])
    assert m["micro_f1"] == pytest.approx(8 / 11) and m["per_label"]["a"] == {"f1": 1.0, "support": 3}
    assert set(m["thresholds"]) == {"a", "b", "c"}


def test_honest_thresholds_are_chosen_on_one_half_and_reported_on_the_other():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(0)
    n, k = 60, 3
    y = (rng.random((n, k)) < 0.4).astype(int)
    # label 0 separates at 0.3, label 1 at 0.7, label 2 is noise
    p = np.clip(np.stack([0.15 + 0.3 * y[:, 0], 0.55 + 0.3 * y[:, 1], rng.random(n)], 1)
                + rng.normal(0, 0.05, (n, k)), 0, 1)
    h = honest_thresholds(y, p, seed=7)
    assert h == honest_thresholds(y, p, seed=7)                          # seeded: reproducible
    assert h["index_A"] != honest_thresholds(y, p, seed=8)["index_A"]   # another seed, another split
    a = np.array(h["index_A"])
    b = np.setdiff1d(np.arange(n), a)
    assert h["n_A"] == len(a) == 30 and h["n_B"] == len(b) == 30
    assert h["thresholds_A"] == tune_thresholds(y[a], p[a]).tolist()     # chosen on A only
    assert h["thresholds_B"] == tune_thresholds(y[b], p[b]).tolist()
    assert h["micro_f1_B_at_A"] == pytest.approx(f1_score(y[b], predict(p[b], h["thresholds_A"]), average="micro"))
    assert h["micro_f1_A_at_B"] == pytest.approx(f1_score(y[a], predict(p[a], h["thresholds_B"]), average="micro"))
    held_out = np.empty_like(y)
    held_out[b], held_out[a] = predict(p[b], h["thresholds_A"]), predict(p[a], h["thresholds_B"])
    assert h["honest_micro_f1"] == pytest.approx(f1_score(y, held_out, average="micro"))
    assert 0.2 <= h["thresholds_A"][0] <= 0.45 and 0.6 <= h["thresholds_A"][1] <= 0.85
    assert h["dev_tuned_micro_f1"] >= h["honest_micro_f1"]               # tuned on what it reports: flattered


# -- Classify -----------------------------------------------------------------------------------------
def test_regression_head_in_classify_is_a_score_with_the_by_hand_check():
    from explorer.core.classify.forward import classify_text

    loaded = tiny_loaded_model("classification", num_labels=1)
    loaded.model.config.problem_type = "regression"
    res = classify_text(loaded.model, loaded.tokenizer, "the city", "the river", label=3.5)
    assert res.problem_type == "regression" and res.probabilities.size == 0 and res.W.shape == (1, 32)
    import torch

    enc = loaded.tokenizer("the city", "the river", return_tensors="pt")
    with torch.inference_mode():
        model_score = float(loaded.model(**enc).logits[0, 0])
    C = res.inputs[0].C.astype(np.float64)
    assert res.score == pytest.approx(model_score, abs=1e-6)
    assert float(C @ res.W[0] + res.b[0]) == pytest.approx(res.score, abs=1e-5)
    assert res.max_abs_diff < 1e-5 and res.loss == pytest.approx((res.score - 3.5) ** 2)
    text = "\n".join(res.arithmetic_lines())
    assert "score = C . w + b" in text and "no softmax" in text and "P =" not in text and "prediction 0" not in text


def test_multilabel_head_in_classify_has_sigmoids_and_saved_thresholds():
    from explorer.core.classify.forward import classify_text

    loaded = tiny_loaded_model("classification", num_labels=3)
    cfg = loaded.model.config
    cfg.problem_type = "multi_label_classification"
    cfg.id2label, cfg.label2id = {0: "econ", 1: "politics", 2: "sport"}, {"econ": 0, "politics": 1, "sport": 2}
    res = classify_text(loaded.model, loaded.tokenizer, "the city", label=[0, 2])
    p = 1 / (1 + np.exp(-res.logits))
    assert res.probabilities == pytest.approx(p) and res.thresholds.tolist() == [0.5, 0.5, 0.5]
    cfg.label_thresholds = {"econ": 0.0, "politics": 1.0}         # saved by training; sport keeps 0.5
    res = classify_text(loaded.model, loaded.tokenizer, "the city", label=[0, 2])
    assert res.thresholds.tolist() == [0.0, 1.0, 0.5] and 0 in res.predicted and 1 not in res.predicted
    y = np.array([1.0, 0.0, 1.0])
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
    assert res.loss == pytest.approx(bce) and res.max_abs_diff < 1e-5
    assert "P = sigmoid" in "\n".join(res.arithmetic_lines())


# -- training end to end (in process) -----------------------------------------------------------------
def test_regression_trains_through_the_worker(tmp_path):
    model = save_tiny_model(tmp_path / "m", "classification", num_labels=1)
    data = _pairs(tmp_path / "sts.tsv", 32)
    rc, ev = _train(["--model", model, "--task", "regression", "--train", data, "--dev", data, "--max-steps", 4,
                     "--batch-size", 8, "--learning-rate", 1e-3, "--output-dir", tmp_path, "--run-id", "r",
                     "--mixed-precision", "no"])   # bf16 can round a tiny head's near-equal scores to one value
    assert rc == 0, ev[-1]
    evals = [e for e in ev if e["event"] == "eval"]
    assert {"pearson", "spearman", "mse", "loss"} <= set(evals[-1]["metrics"]) and evals[-1]["metrics"]["total"] == 32
    assert evals[-1]["metrics"]["mse"] < evals[0]["metrics"]["mse"]
    saved = json.loads((tmp_path / "r" / "checkpoints" / "best" / "config.json").read_text())
    assert saved["problem_type"] == "regression" and saved["id2label"] == {"0": "score"}

    from explorer.core.models.checkpoint_windows import checkpoint_task_name
    from explorer.core.specs.heads import recognise

    assert recognise(tmp_path / "r" / "checkpoints" / "best").problem == "regression"
    assert checkpoint_task_name(str(tmp_path / "r" / "checkpoints" / "best")) == ("classification", "regression")


def test_multilabel_trains_and_saves_its_thresholds(tmp_path):
    model = save_tiny_model(tmp_path / "model", "classification", num_labels=2)
    data = _label_lists(tmp_path / "ml.tsv", 32)
    rc, ev = _train(["--model", model, "--task", "multilabel", "--train", data, "--dev", data, "--max-steps", 3,
                     "--batch-size", 8, "--learning-rate", 1e-3, "--output-dir", tmp_path, "--run-id", "m"])
    assert rc == 0, ev[-1]
    m = [e for e in ev if e["event"] == "eval"][-1]["metrics"]
    assert {"micro_f1", "macro_f1", "subset_accuracy", "honest_micro_f1", "loss"} <= set(m)
    best = tmp_path / "m" / "checkpoints" / "best"
    saved = json.loads((best / "config.json").read_text())
    assert saved["problem_type"] == "multi_label_classification" and saved["id2label"] == {"0": "econ", "1": "politics"}
    assert saved["label_thresholds"] == m["thresholds"]

    from explorer.core.specs.heads import recognise

    assert recognise(best).problem == "multilabel"
    cols = _write(tmp_path / "c.tsv", ["text\tecon\tsport"] + [f"the city {i}\t{i % 2}\t{i // 2 % 2}" for i in range(16)])
    rc, ev = _train(["--model", model, "--task", "multilabel", "--train", cols, "--dev", cols, "--max-steps", 2,
                     "--label-column", "econ,sport", "--batch-size", 8, "--output-dir", tmp_path, "--run-id", "c"])
    assert rc == 0, ev[-1]
    assert json.loads((tmp_path / "c" / "checkpoints" / "best" / "config.json").read_text())["id2label"] == \
        {"0": "econ", "1": "sport"}


def test_real_stsb_rows_train_a_few_steps(tmp_path, real_data):
    """The STS Benchmark as released (no header, 7 or 9 fields, score in field 5), read by position without
    editing it (as scripts/stsb_time_to_pearson.py runs it): 300 rows, a few steps."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "scripts"))
    from stsb_time_to_pearson import RAW_COLUMNS

    raw = real_data / "stsb" / "train.csv"
    model = save_tiny_model(tmp_path / "m", "classification", num_labels=1)
    rc, ev = _train(["--model", model, "--task", "regression", "--train", raw, "--dev", raw, "--train-cap", 300,
                     "--dev-cap", 64, "--max-steps", 3, "--batch-size", 16, "--max-seq-length", 64,
                     "--output-dir", tmp_path, "--run-id", "stsb", *RAW_COLUMNS])
    assert rc == 0, ev[-1]
    started = next(e for e in ev if e["event"] == "started")
    assert started["num_train_examples"] == 300
    assert np.isfinite([e["metrics"]["pearson"] for e in ev if e["event"] == "eval"]).all()


def test_real_stsb_scores_are_read_from_field_5_and_long_rows_counted(real_data):
    """All 5,749 training pairs, scores 0-5 from field 5; the 197 rows with 9 fields are named, not shifted."""
    from explorer.core.data.scores_and_label_sets import load_regression

    data = load_regression(str(real_data / "stsb" / "train.csv"), no_header=True,
                           text_columns=["6", "7"], label_column="5")
    assert len(data) == 5749 and all(0.0 <= y <= 5.0 for y in data.labels)
    assert data.texts_b is not None and not any(t.endswith("\r") for t in data.texts_b)
    assert any("197 rows have more fields" in msg and "not read" in msg for _, msg in data.notes)


def test_the_new_results_cross_the_inspector_pipe():
    """RegressionDevReport, MultiLabelDevReport and a multi-label ClassifyResult round-trip (core/protocol/frames.py)."""
    from explorer.core.classify.dev_report import multilabel_dev_report, regression_dev_report
    from explorer.core.classify.forward import classify_text
    from explorer.core.protocol.frames import decode, encode

    rep = regression_dev_report(np.arange(12.0) * 0.4, np.arange(12.0) * 0.5, [f"a{i}" for i in range(12)], n=9)
    back = decode(*encode(rep))
    assert back.pearson == rep.pearson and back.gold.tolist() == rep.gold.tolist()
    assert [r.error for r in back.worst] == [r.error for r in rep.worst]
    ml = multilabel_dev_report(np.array([[2.0, -2.0], [-1.0, 3.0]]), [[0], [0, 1]], ["econ", "sport"], [0.5, 0.5])
    assert ml.micro_f1 == pytest.approx(0.8) and decode(*encode(ml)).label_f1.tolist() == ml.label_f1.tolist()
    loaded = tiny_loaded_model("classification", num_labels=2)
    loaded.model.config.problem_type = "multi_label_classification"
    res = decode(*encode(classify_text(loaded.model, loaded.tokenizer, "the city", label=[1])))
    assert res.problem_type == "multi_label_classification" and res.label == [1] and res.thresholds.shape == (2,)


def test_dev_files_are_scored_by_regression_and_multilabel_heads(tmp_path):
    from explorer.core.training.dev_scoring import score_classification_dev

    loaded = tiny_loaded_model("classification", num_labels=1)
    rep = score_classification_dev(loaded.model, loaded.tokenizer, "regression", str(_pairs(tmp_path / "s.tsv")))
    assert type(rep).__name__ == "RegressionDevReport" and rep.total == 24 and rep.predicted.shape == (24,)
    loaded = tiny_loaded_model("classification", num_labels=2)
    cfg = loaded.model.config
    cfg.id2label, cfg.label_thresholds = {0: "econ", 1: "politics"}, {"econ": 0.0, "politics": 0.0}
    rep = score_classification_dev(loaded.model, loaded.tokenizer, "multilabel", str(_label_lists(tmp_path / "m.tsv")))
    # every label predicted at tau 0: recall 1, precision = the share of rows carrying the label (12 of 24)
    assert rep.total == 24 and rep.thresholds.tolist() == [0.0, 0.0] and rep.label_f1 == pytest.approx([2 / 3, 2 / 3])
    assert rep.support.tolist() == [12, 12]


def test_a_train_cap_on_label_sets_keeps_a_seeded_random_subset_with_each_rows_place(tmp_path):
    """Label sets are capped to a seeded random subset in the file's order (not the first rows), each row with its
    own place in the file for messages."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    path = tmp_path / "m.tsv"
    path.write_text("text\tlabels\n" + "".join(f"text {i}\t{'econ,sport' if i % 3 else 'econ'}\n" for i in range(30)),
                    encoding="utf-8")
    config = TrainConfig(task="multilabel", train=str(path), train_cap=6, seed=4)
    data = get_task("multilabel").load(config, "train")
    assert len(data) == len(data.row_where) == 6 and data.texts_a != [f"text {i}" for i in range(6)]
    assert [int(t.split()[1]) for t in data.texts_a] == sorted(int(t.split()[1]) for t in data.texts_a)
    assert all(w.endswith(str(int(t.split()[1]) + 2)) for w, t in zip(data.row_where, data.texts_a))
    assert get_task("multilabel").load(config, "train").texts_a == data.texts_a
