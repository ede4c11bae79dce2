"""Suspected label errors (explorer/core/studies/label_issues.py): cleanlab's find_label_issues on out-of-fold
probabilities, ranked, written for review; a corrected training row is relabelled in place when retraining;
flipped SST-2 labels are found."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from explorer.core.studies.label_issues import LabelIssuesError, find_suspects


def _noisy_probs(seed=0, n=300, k=3, flips=15):
    """Out-of-fold-like probabilities that put most mass on the true class, and given labels with ``flips``
    rows moved to another class. Returns (given labels, probs, flipped rows)."""
    rng = np.random.default_rng(seed)
    true = rng.integers(0, k, n)
    logits = rng.normal(0, 1, (n, k))
    logits[np.arange(n), true] += 3.0
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    flipped = rng.choice(n, flips, replace=False)
    given = true.copy()
    given[flipped] = (true[flipped] + rng.integers(1, k, flips)) % k
    return given, p, set(flipped.tolist())


def test_suspects_are_cleanlabs_on_the_same_numbers_ranked_by_self_confidence():
    from cleanlab.filter import find_label_issues
    from cleanlab.rank import get_label_quality_scores

    given, p, flipped = _noisy_probs()
    issues = find_suspects(given, p, ["a", "b", "c"])
    expected = find_label_issues(given, p, return_indices_ranked_by="self_confidence")
    assert issues.rows == expected.tolist()
    quality = get_label_quality_scores(given, p, method="self_confidence")
    assert issues.quality == pytest.approx(quality[expected].tolist())
    assert issues.quality == sorted(issues.quality)               # most suspect first
    assert issues.quality == pytest.approx(p[expected, given[expected]].tolist())   # self-confidence = p(given)
    assert len(flipped & set(issues.rows)) >= 12                   # the flips are found
    counts = np.bincount(given, minlength=3)
    for c, share in enumerate(issues.per_class):
        assert (share.n, share.flagged) == (counts[c], sum(given[r] == c for r in issues.rows))
    assert issues.share_lines()[-1].startswith(f"all: {len(issues.rows)} of 300")


def test_suspects_refuse_what_does_not_match():
    given, p, _ = _noisy_probs()
    with pytest.raises(LabelIssuesError, match="3 classes"):
        find_suspects(given[:-1], p, ["a", "b", "c"])
    with pytest.raises(LabelIssuesError, match="outside 0..1"):
        find_suspects(given, p[:, :2], ["a", "b"])


def _cv_group(tmp_path, stuck: bool = False):
    """A cv group planned on 40 rows (no training) and an out-of-fold file written as predict writes it, whose
    probabilities confidently disagree with the given label of rows 3 and 17 (both "pos"); ``stuck``: every row
    predicted "neg" instead (fold models that learned nothing)."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.studies import cv_runs
    from explorer.core.studies.groups import group_dir

    data = tmp_path / "data.csv"
    rows = [{"id": f"r{i}", "sentence": f"text number {i}", "label": "pos" if i % 2 else "neg"} for i in range(40)]
    with open(data, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, ["id", "sentence", "label"])
        w.writeheader()
        w.writerows(rows)
    base = TrainConfig(model="m", task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       id_column="id", output_dir=str(tmp_path / "runs"))
    group, _, _ = cv_runs.start_cv_group(base, tmp_path / "runs", "cv", 4)
    plan = cv_runs.read_folds(group_dir(tmp_path / "runs", "cv"))
    rng = np.random.default_rng(1)
    out = []
    for i, r in enumerate(rows):
        p_pos = rng.uniform(0.8, 0.97) if r["label"] == "pos" else rng.uniform(0.03, 0.2)
        if i in (3, 17):
            p_pos = 0.02 if r["label"] == "pos" else 0.98     # confidently the other class
        if stuck:
            p_pos = rng.uniform(0.2, 0.4)                      # every row "neg", whatever its label
        out.append({**r, "predicted_label": "pos" if p_pos > 0.5 else "neg", "p_neg": f"{1 - p_pos:.4f}",
                    "p_pos": f"{p_pos:.4f}", "margin": f"{abs(2 * p_pos - 1):.4f}", "error": "",
                    "fold": plan.fold[i]})
    folder = group_dir(tmp_path / "runs", "cv")
    with open(folder / cv_runs.OOF_FILE, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, list(out[0]))
        w.writeheader()
        w.writerows(out)
    return data, folder


def test_group_suspects_go_to_review_and_a_correction_relabels_the_training_row(tmp_path):
    from helpers import run_cli

    from explorer.core.predict.review import Review, finetune_data, load_predictions

    data, folder = _cv_group(tmp_path)
    p = run_cli(["label-issues", "--group", "cv", "--output-dir", str(tmp_path / "runs"), "--json"])
    assert p.returncode == 0, p.stderr[-2000:]
    doc = json.loads(p.stdout)
    assert sorted(s["row"] for s in doc["suspects"]) == [3, 17]
    assert {c["label"]: (c["n"], c["flagged"]) for c in doc["per_class"]} == {"neg": (20, 0), "pos": (20, 2)}
    table = load_predictions(doc["out"])
    assert sorted(table.column("id")) == ["r17", "r3"] and table.column("suspect_rank") == ["1", "2"]
    assert table.column("given_label") == ["pos", "pos"]
    # the group's summary (group --summary) states the share of suspects per class
    from explorer.commands.group import summary_lines

    text = "\n".join(summary_lines(tmp_path / "runs", "cv"))
    assert "suspected label errors" in text and "pos: 2 of 20 (10.0%) suspected" in text
    assert "neg: 0 of 20 (0.0%) suspected" in text
    review = Review.load(doc["out"])
    assert review.gold_column == "label" and review.label_names == ["neg", "pos"]
    # the corrections go back into the group's own training file, not into a fold file
    config = json.loads(review.run_config_path().read_text())
    assert config["train"] == str(data)
    row = table.column("id").index("r3")
    review.set_label(row, "neg")
    fields, note = finetune_data(table, review, config, tmp_path / "corrections")
    combined = list(csv.DictReader(open(fields["train"], encoding="utf-8"), delimiter="\t"))
    assert len(combined) == 40                                         # relabelled in place, not added
    r3 = next(r for r in combined if r["id"] == "r3")
    assert (r3["label"], r3["label_source"]) == ("neg", "person")
    assert "relabelled in place" in note and "cross-validate the combined file again" in note


def test_cli_on_a_predictions_file_prints_the_share_per_class(tmp_path):
    from helpers import run_cli

    given, p, flipped = _noisy_probs(n=120, k=2, flips=6)
    names = ["neg", "pos"]
    path = tmp_path / "oof.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["text", "given", "predicted_label", "p_neg", "p_pos", "margin"])
        for i in range(120):
            w.writerow([f"t{i}", names[given[i]], names[int(p[i].argmax())], f"{p[i, 0]:.6f}", f"{p[i, 1]:.6f}",
                        f"{abs(p[i, 0] - p[i, 1]):.6f}"])
    p_cli = run_cli(["label-issues", str(path), "--gold-column", "given"])
    assert p_cli.returncode == 0, p_cli.stderr[-2000:]
    expected = find_suspects(given, p, names)
    for line in expected.share_lines():
        assert line in p_cli.stdout
    assert (tmp_path / "oof-label-issues.csv").is_file()
    bad = run_cli(["label-issues", str(path)])
    assert bad.returncode == 2 and "--gold-column" in bad.stderr


@pytest.mark.real_data
@pytest.mark.slow
def test_flipped_sst2_labels_are_found_in_a_slice(real_data):
    """2,000 SST-2 training rows with 5% of their labels flipped at random (seed 0); out-of-fold probabilities
    of a cheap model (TF-IDF + logistic regression, 5 folds). Flagging at random would have precision 0.05; the
    flagged rows are flips far more often, and most flips are flagged. scripts/bench_label_issues.py measures
    the whole training set."""
    root = real_data   # the shared data folder (conftest: skips when EXPLORER_REAL_DATA is unset or missing)
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from bench_label_issues import flipped_sst2_check

    result = flipped_sst2_check(Path(root) / "glue_sst2" / "train.tsv", n=2000, seed=0)
    assert result["flipped"] == pytest.approx(100, abs=30)
    assert result["precision"] >= 0.10 and result["recall"] >= 0.45


def test_a_model_no_better_than_the_majority_class_judges_no_label():
    """Out-of-fold predictions stuck on the most common label make every other row a suspect: no suspects are
    listed, the reason and what to do instead; predictions of both classes no better than the majority share are
    withheld alike; a model better than that lists its suspects."""
    from explorer.core.studies.label_issues import find_suspects

    labels = np.array([0] * 12 + [1] * 8)
    stuck = np.tile([0.7, 0.3], (20, 1))                       # always class 0: right on 60% = the majority share
    issues = find_suspects(labels, stuck, ["neg", "pos"])
    assert issues.withheld.startswith("the fold models predict only 'neg' for every held-out row (they learned "
                                      "nothing): no given label can be judged from these folds")
    assert "larger learning rate (e.g. 1e-4) or class weights" in issues.withheld
    assert issues.rows == [] and issues.share_lines() == [issues.withheld]
    assert "of 12" not in " ".join(issues.share_lines()) and issues.to_dict()["suspects"] == []
    weak = np.where(labels[:, None] == np.arange(2), 0.8, 0.2)
    weak[:9] = [0.2, 0.8]                                       # 9 neg rows called pos: right on 55% < 60%
    issues = find_suspects(labels, weak, ["neg", "pos"])
    assert issues.withheld.startswith("the out-of-fold predictions are right on 55.0% of the rows, no better than "
                                      "always giving 'neg' (60.0%): no given label can be judged")
    assert issues.rows == []
    good = np.where(labels[:, None] == np.arange(2), 0.8, 0.2)
    good[0] = [0.2, 0.8]                                        # one row the model doubts
    issues = find_suspects(labels, good, ["neg", "pos"])
    assert issues.withheld == "" and issues.rows == [0]
    assert issues.share_lines()[-1] == "all: 1 of 20 (5.0%) suspected"


def test_folds_that_learned_nothing_list_no_suspects_in_the_cli_or_the_group_summary(tmp_path):
    """Every held-out row predicted "neg": `label-issues --group` and `group --summary` list no counts of
    suspected errors, the reason and what to do instead."""
    from helpers import run_cli

    from explorer.commands.group import summary_lines

    _cv_group(tmp_path, stuck=True)
    p = run_cli(["label-issues", "--group", "cv", "--output-dir", str(tmp_path / "runs")])
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.startswith("no suspected label errors listed: the fold models predict only 'neg' for every "
                               "held-out row (they learned nothing): no given label can be judged")
    assert " of 20 " not in p.stdout and "rank\trow" not in p.stdout
    text = "\n".join(summary_lines(tmp_path / "runs", "cv"))
    assert "suspected label errors: none listed: the fold models predict only 'neg'" in text
    assert "suspected\n" not in text + "\n" and "pos: " not in text


def test_a_summary_written_with_suspects_of_folds_no_better_than_the_majority_reads_as_withheld(tmp_path):
    """label_issues.json written when such folds still listed counts (with a note that they are no better than the
    majority): read back, its lines are the reason, not the counts."""
    from explorer.core.studies.groups import group_dir
    from explorer.core.studies.label_issues import ISSUES_SUMMARY, read_group_label_issues

    folder = group_dir(tmp_path, "cv")
    folder.mkdir(parents=True)
    note = ("the out-of-fold predictions are right on 50.0% of the rows, no better than always giving 'neg' (50.0%): "
            "the suspects are mostly the model's errors, not wrong labels; train the folds longer before correcting "
            "labels")
    (folder / ISSUES_SUMMARY).write_text(json.dumps({"lines": ["pos: 20 of 20 (100.0%) suspected"], "notes": [note]}))
    summary = read_group_label_issues(tmp_path, "cv")
    assert summary["lines"] == [summary["withheld"]]
    assert summary["withheld"].startswith("the out-of-fold predictions are right on 50.0% of the rows, no better "
                                          "than always giving 'neg' (50.0%): no given label can be judged")
