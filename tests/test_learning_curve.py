"""The learning curve group: nested stratified subsets, the shared dev rows, the CLI end to end on a tiny
model, and each size's figure checked by hand against scikit-learn."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from explorer.core.studies.learning_curve import LearningCurveError, nested_subsets, plan_learning_curve
from explorer.core.specs.train_config import TrainConfig

WORDS = ["red", "blue", "green", "cat", "dog", "runs", "sleeps", "fast", "slow", "big", "small", "tree"]


def _write_table(path, n=40):
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "sentence", "label"])
        for i in range(n):
            words = " ".join(WORDS[(i * 5 + j) % len(WORDS)] for j in range(3 + i % 4))
            label = ["neg", "pos", "none"][i % 3] if i % 5 else "neg"
            w.writerow([f"r{i:02d}", f"{words} number {i} {label if i % 2 else ''}", label])
    return path


def _rows(path):
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_subsets_are_nested_and_keep_each_class_share():
    labels = np.array([0] * 50 + [1] * 30 + [2] * 20)
    subsets = nested_subsets(labels, (0.125, 0.25, 0.5, 1.0), seed=3)
    for small, big in zip(subsets, subsets[1:]):
        assert set(small.tolist()) <= set(big.tolist())
    assert len(subsets[-1]) == 100
    for s, f in zip(subsets, (0.125, 0.25, 0.5, 1.0)):
        counts = np.bincount(labels[s], minlength=3)
        assert np.all(np.abs(counts - np.array([50, 30, 20]) * f) <= 1)
    assert [a.tolist() for a in nested_subsets(labels, seed=3)] == [a.tolist() for a in subsets]
    assert nested_subsets(labels, seed=4)[0].tolist() != subsets[0].tolist()


def test_subset_class_counts_match_sklearn_stratified_split():
    from sklearn.model_selection import train_test_split

    labels = np.array([0] * 61 + [1] * 27 + [2] * 12)
    ours = nested_subsets(labels, (0.25, 1.0), seed=0)[0]
    _, ref = train_test_split(np.arange(100), test_size=0.25, stratify=labels, random_state=0)
    assert np.abs(np.bincount(labels[ours]) - np.bincount(labels[ref])).max() <= 1


def test_bad_fractions_are_refused():
    with pytest.raises(LearningCurveError, match="ascending"):
        nested_subsets([0, 1], (0.5, 0.25))
    with pytest.raises(LearningCurveError, match="ascending"):
        nested_subsets([0, 1], (0.5, 1.5))


def test_plan_holds_out_one_dev_set_shared_by_every_size(tmp_path):
    data = _write_table(tmp_path / "d.csv")
    base = TrainConfig(model="bundled:minilm", task="single", train=str(data), text_columns=["sentence"],
                       label_column="label", dev_fraction=0.25, seed=1)
    group, configs, _, record = plan_learning_curve(base, tmp_path / "runs", "lc")
    assert group.kind == "curve" and [m.params["fraction"] for m in group.members] == [0.125, 0.25, 0.5, 1.0]
    assert len({c.dev for c in configs}) == 1
    dev = set(record["dev_indices"])
    assert len(dev) == 10 and all(not dev & set(s) for s in record["subsets"])
    assert record["sizes"][-1] == 30 and set(record["subsets"][-1]) | dev == set(range(40))
    with pytest.raises(LearningCurveError, match="dev-fraction above 0"):
        plan_learning_curve(TrainConfig(model="m", task="single", train=str(data), dev_fraction=0.0),
                            tmp_path / "runs", "lc2")


def test_cli_curve_scores_every_size_beside_the_baseline(tmp_path, monkeypatch):
    from helpers import REPO_ROOT, run_cli, save_tiny_model, worker_env
    from sklearn.metrics import f1_score

    for name, value in worker_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(REPO_ROOT)
    model = save_tiny_model(tmp_path / "enc", "classification")
    data = _write_table(tmp_path / "data.csv")
    runs = tmp_path / "runs"
    cmd = ["group", "--group", "lc", "--curve", "25,50,100", "--model", str(model), "--task", "single",
           "--train", str(data), "--text-columns", "sentence", "--label-column", "label", "--id-column", "id",
           "--dev-fraction", "0.3", "--new-head", "--metric-for-best", "macro_f1", "--max-steps", "2", "--batch-size", "4", "--max-seq-length", "24",
           "--output-dir", str(runs)]
    p = run_cli(cmd)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Estimated time:" in p.stderr
    folder = runs / ".groups" / "lc"
    result = json.loads((folder / "curve_result.json").read_text())
    assert [pt["train_rows"] for pt in result["points"]] == [7, 14, 28]
    assert result["metric"] == "macro_f1"
    dev = _rows(folder / "curve" / "dev.csv")
    gold = [r["label"] for r in dev]
    for i, pt in enumerate(result["points"]):
        pred = [r["predicted_label"] for r in _rows(folder / "curve" / f"size-{i + 1}-predictions.csv")]
        assert pt["model"]["value"] == pytest.approx(
            f1_score(gold, pred, average="macro", labels=["neg", "none", "pos"], zero_division=0))
        assert pt["model"]["low"] <= pt["model"]["value"] <= pt["model"]["high"]
        assert pt["versus"]["difference"] == pytest.approx(pt["model"]["value"] - pt["baseline"]["value"])
    assert "learning curve of lc" in p.stdout and "bag-of-words" in p.stdout
    assert "fewer than 30" in p.stdout      # 12 dev rows: every class is thin

    again = run_cli(cmd)
    assert again.returncode == 0 and again.stderr.count("already done; kept") == 3
